"""git config, resolved exactly as `git config` resolves it, and git's value rules.

Two readers give the same answer: a cheap one for the hot paths, which reads the
system, global, repository and worktree files in git's order but knows only the plain
syntax `git config` writes (and the system file of a git built into /usr); and, as
soon as it meets anything else (includes, quotes, escapes, comments in a value, `-c`
settings, a git installed elsewhere), one cached `git config -z --list`. Results are
cached per repository, keyed by the files' stat data and the environment."""

from __future__ import annotations

import os

from git_memory.errors import ConfigError
from git_memory.store.gitenv import GitDirs

# Environment that changes what git config resolves to (part of the cache key).
_ENV_KEYS = ("GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL", "HOME",
             "XDG_CONFIG_HOME", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")

# No regular expressions here: compiling them would cost every recall about a millisecond.
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
# Inside a plain value: anything but quoting, escapes, comments and odd whitespace.
_ODD_IN_VALUE = frozenset('"\\;#\t')
_INCLUDES = ("include", "includeif")
# A git built with prefix /usr reads /etc/gitconfig; these are where such a git (or its
# exec-path copy, first on PATH inside hooks) lives.
_SYSTEM_FILE = "/etc/gitconfig"
_SYSTEM_GIT_DIRS = frozenset(("/usr/bin", "/bin", "/usr/lib/git-core", "/usr/libexec/git-core"))
_SYSTEM_GIT_CACHE: dict[str, bool] = {}

# Per repository: (stat data and environment, every key's values in file order; None
# is a bare key, `[s] key` with no `=`).
_CACHE: dict[tuple[str, str], tuple[tuple[object, ...], dict[str, list[str | None]]]] = {}


class _Unsupported(Exception):
    """The cheap reader met syntax it does not handle: ask git instead."""


def parse_int(value: str, key: str = "value") -> int:
    """An integer as git reads one (`0x10`, `010`, `1k`); ConfigError otherwise."""
    text = value.lstrip(" \t\n\v\f\r")  # what strtoimax skips
    sign = text[:1] if text[:1] in ("+", "-") else ""
    body = text[len(sign):]
    unit = body[-1:].lower() if body[-1:].lower() in ("k", "m", "g") else ""
    digits = body[: len(body) - len(unit)]
    number = _digits(digits)
    if number is None:
        raise ConfigError(f"bad numeric config value '{value}' for '{key}'")
    return (-number if sign == "-" else number) * _UNITS[unit]


def _digits(text: str) -> int | None:
    """strtoimax's base 0: 0x... is hexadecimal, 0... octal, else decimal."""
    if not text.isascii() or not text:
        return None
    try:
        if text[:2] in ("0x", "0X"):
            return int(text[2:], 16) if text[2:].isalnum() else None
        if text[0] == "0":
            return int(text, 8) if text.isdigit() else None
        return int(text, 10) if text.isdigit() else None
    except ValueError:
        return None


def parse_bool(value: str | None, key: str = "value") -> bool:
    """git's booleans: a bare key, true/yes/on or a non-zero integer are true;
    false/no/off, the empty string or zero are false; anything else is an error."""
    if value is None:
        return True
    word = value.lower()
    if word in ("true", "yes", "on"):
        return True
    if word in ("false", "no", "off", ""):
        return False
    try:
        return parse_int(value, key) != 0
    except ConfigError:
        raise ConfigError(f"bad boolean config value '{value}' for '{key}'") from None


def normalise_key(key: str) -> str:
    """`Section.Sub.Name` as git stores it: section and name lower-cased, the
    subsection kept as it is."""
    section, _, rest = key.partition(".")
    sub, dot, name = rest.rpartition(".")
    return f"{section.lower()}.{sub}{dot}{name.lower()}"


def values(dirs: GitDirs, key: str) -> list[str | None]:
    """Every value of `key`, weakest first, as `git config --get-all` lists them."""
    return settings(dirs).get(normalise_key(key), [])


def get_str(dirs: GitDirs, key: str) -> str | None:
    """The value of `key` (the last one wins), or None when unset; a bare key has no
    string value: git refuses it, and so do we."""
    found = values(dirs, key)
    if not found:
        return None
    if found[-1] is None:
        raise ConfigError(f"missing value for '{key}'")
    return found[-1]


def get_bool(dirs: GitDirs, key: str, default: bool = False) -> bool:
    """A boolean setting by git's rules; `default` when unset."""
    found = values(dirs, key)
    return parse_bool(found[-1], key) if found else default


def get_int(dirs: GitDirs, key: str, default: int) -> int:
    """An integer setting by git's rules; `default` when unset."""
    value = get_str(dirs, key)
    return default if value is None else parse_int(value, key)


def settings(dirs: GitDirs) -> dict[str, list[str | None]]:
    """Every key (section and name lower-case) and its values, weakest first: one read
    for several keys on a hot path. Do not modify the result."""
    files = _files(dirs)
    stamp = (*(_stat(path) for path in files), *(os.environ.get(k) for k in _ENV_KEYS))
    cache_key = (str(dirs.git_dir), str(dirs.common_dir))
    cached = _CACHE.get(cache_key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        if os.environ.get("GIT_CONFIG_PARAMETERS") or os.environ.get("GIT_CONFIG_COUNT"):
            raise _Unsupported("settings from the command line")
        _env_bool("GIT_CONFIG_NOSYSTEM")  # a value git cannot read: git says so
        if not _system_file_known():
            raise _Unsupported("system config of a git outside /usr")
        found = _read_files(dirs, files)
    except _Unsupported:
        found = _from_git(dirs)
    _CACHE[cache_key] = (stamp, found)
    return found


def _stat(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def _env_bool(name: str) -> bool:
    try:
        return parse_bool(os.environ.get(name) or "", name)
    except ConfigError:
        raise _Unsupported(name) from None  # let git say what it makes of it


def _files(dirs: GitDirs) -> list[str]:
    """The files git reads, weakest first (the worktree file only counts when the
    repository enables extensions.worktreeConfig, decided while reading)."""
    files: list[str] = []
    if not _nosystem():
        files.append(os.environ.get("GIT_CONFIG_SYSTEM", _SYSTEM_FILE))
    glob = os.environ.get("GIT_CONFIG_GLOBAL")
    if glob is not None:
        files.append(glob)
    else:
        home = os.environ.get("HOME")
        xdg = os.environ.get("XDG_CONFIG_HOME")
        if xdg:
            files.append(os.path.join(xdg, "git", "config"))
        elif home:
            files.append(os.path.join(home, ".config", "git", "config"))
        if home:
            files.append(os.path.join(home, ".gitconfig"))
    files.append(os.path.join(dirs.common_dir, "config"))
    files.append(os.path.join(dirs.git_dir, "config.worktree"))
    return files


def _system_file_known() -> bool:
    """Whether the system file is the one we assume: git was built into /usr (the
    distribution's git) or GIT_CONFIG_SYSTEM names it. Another git (a build in
    /usr/local, Homebrew) has its own path, which only that git knows."""
    if "GIT_CONFIG_SYSTEM" in os.environ or _nosystem():
        return True
    path = os.environ.get("PATH", "")
    known = _SYSTEM_GIT_CACHE.get(path)
    if known is None:
        found = next((d for d in path.split(os.pathsep)
                      if d and os.access(os.path.join(d, "git"), os.X_OK)), None)
        known = found is not None and found.rstrip("/") in _SYSTEM_GIT_DIRS
        _SYSTEM_GIT_CACHE[path] = known
    return known


def _nosystem() -> bool:
    try:
        return _env_bool("GIT_CONFIG_NOSYSTEM")
    except _Unsupported:
        return False


def _read_files(dirs: GitDirs, files: list[str]) -> dict[str, list[str | None]]:
    found: dict[str, list[str | None]] = {}
    *shared, worktree = files
    for path in shared:
        _parse_file(path, found)
    if "extensions.worktreeconfig" in found:
        # git reads the extension from the repository's own file only.
        local: dict[str, list[str | None]] = {}
        _parse_file(shared[-1], local)
        flags = local.get("extensions.worktreeconfig") or ["false"]
        try:
            enabled = parse_bool(flags[-1])
        except ConfigError:
            raise _Unsupported("extensions.worktreeConfig") from None
        if enabled:
            _parse_file(worktree, found)
    return found


def _parse_file(path: str, found: dict[str, list[str | None]]) -> None:
    if not path:
        return
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return
    except OSError:
        raise _Unsupported(path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unsupported(path) from None
    _parse_text(text, found)


def _parse_text(text: str, found: dict[str, list[str | None]]) -> None:
    if text.startswith("\ufeff") or "\r" in text or "\v" in text or "\f" in text or "\0" in text:
        raise _Unsupported("byte-order mark or odd whitespace")
    section: str | None = None
    for raw in text.split("\n"):
        line = raw.strip(" \t")
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            section = _section(line)
            continue
        if section is None:
            raise _Unsupported(line)
        name, value = _entry(line)
        found.setdefault(f"{section}.{name}", []).append(value)


def _is_name(text: str) -> bool:
    return bool(text) and text[0].isalpha() and text.isascii() and set(text) <= _KEY_CHARS


def _entry(line: str) -> tuple[str, str | None]:
    """`name = value` or a bare `name`, in the plain form; else _Unsupported."""
    name, equals, value = line.partition("=")
    name = name.rstrip(" \t")
    if not _is_name(name):
        raise _Unsupported(line)
    if not equals:
        return name.lower(), None
    value = value.strip(" ")
    if _ODD_IN_VALUE.intersection(value):
        raise _Unsupported(line)
    return name.lower(), value


def _section(line: str) -> str:
    """`[name]` or `[name "sub"]`, exactly as git accepts them; else _Unsupported."""
    if not line.endswith("]"):
        raise _Unsupported(line)
    inner = line[1:-1]
    name, quote, sub = inner.partition('"')
    if quote:
        # git wants blanks between the name and the quote, and nothing after the quote.
        base = name.rstrip(" \t")
        if base == name or not sub.endswith('"') or '"' in sub[:-1] or "\\" in sub:
            raise _Unsupported(line)
        name, sub = base, sub[:-1]
    if not set(name) <= _KEY_CHARS or not name or not name.isascii():
        raise _Unsupported(line)  # including the legacy [section.sub] form
    if name.lower() in _INCLUDES:
        raise _Unsupported("include")
    return f"{name.lower()}.{sub}" if quote else name.lower()


def _from_git(dirs: GitDirs) -> dict[str, list[str | None]]:
    """Every setting as git resolves it, from one `git config -z --list`."""
    from git_memory.store import gitrun  # lazy: hot path; gitrun brings typing and subprocess

    result = gitrun.run(["config", "-z", "--list"], git_dir=dirs.git_dir)
    if result.returncode != 0:
        message = gitrun.last_line(gitrun.text(result.stderr)) or "git config failed"
        raise ConfigError(message.removeprefix("fatal: "))
    found: dict[str, list[str | None]] = {}
    for item in result.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not item:
            continue
        key, newline, value = item.partition("\n")
        found.setdefault(key, []).append(value if newline else None)
    return found
