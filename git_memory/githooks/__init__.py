"""Git hooks: installing the shell shims, and the work each hook does (commit capture itself
lives in `capture.commit`)."""

HOOK_NAMES = ("commit-msg", "post-commit", "post-checkout", "post-merge", "pre-push")
