"""Git hooks: installing the shell shims, and the work each hook does.

`install` puts shims in place and takes them away (chaining any hook already there);
`message` checks a commit message, `anchors` re-checks entries against the checked-out
tree, `push` scans memory records about to be pushed. Commit capture itself lives in
`capture.commit`. Never prints.
"""

HOOK_NAMES = ("commit-msg", "post-commit", "post-checkout", "post-merge", "pre-push")
