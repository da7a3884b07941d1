"""Sanitize layer: every writer's text passes through `pipeline.sanitize_for_write`.

`text` cleans characters (invisible ones, NFKC, length), `roles` neutralises role
prefixes and chat-template tokens, `noise` cuts shell debris, command lines and repeated
lines, `secrets` finds credentials, `scan` applies that search to every field of a
record and to commit messages (findings by field, redaction, the writer's last check),
`audit` keeps a local JSON-lines log of what was done and why. Never prints.
"""
