"""The one exception family of git-memory; `exits.py` turns them into exit codes."""


class GitMemoryError(Exception):
    """An error the user can fix: printed as one line, exit code 1, nothing written."""

    exit_code = 1


class NotARepository(GitMemoryError):
    """The current directory is not inside a git repository."""


class BadInput(GitMemoryError):
    """Text or a file given to a writing command cannot be used as it is."""


class SecretFound(BadInput):
    """The sanitizer found a secret; the message names the rule, never the secret."""

    def __init__(self, rule: str, where: str = "text") -> None:
        super().__init__(
            f"refused: {where} contains a secret ({rule}); remove it and try again"
        )
        self.rule = rule


class NotFound(GitMemoryError):
    """An id, key or ref that does not exist."""


class ConcurrentUpdate(GitMemoryError):
    """The memory branch kept moving while we tried to write; nothing was written."""


class UsageProblem(GitMemoryError):
    """A usage error detected after parsing (exit code 2)."""

    exit_code = 2


class ConfigError(BadInput):
    """git config holds a value we cannot use, or git refused to read its config."""


class IdentityUnknown(GitMemoryError):
    """git cannot tell who is writing (no user.name / user.email); git's advice says how."""
