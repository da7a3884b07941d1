"""Sanitize layer: every writer's text passes through `pipeline.sanitize_for_write`.

`text` cleans characters (invisible ones, NFKC, length), `roles` neutralises role
prefixes and chat-template tokens, `noise` cuts shell debris, command lines and
repeated lines, `secrets` finds credentials, `audit` keeps a local JSON-lines log
of what was done and why. Never prints; may import `errors`, `model`, `store.locate`.
"""
