"""Does each remote's fetch refspec bring the memory branch? (`install` fixes, `doctor`
checks; docs/sync.md, "A `--single-branch` clone".) A missing one is added with `git config
--add`, every existing refspec left as it was."""

from __future__ import annotations

from dataclasses import dataclass

from git_memory.store import config, gitrun
from git_memory.store.locate import GitDirs


@dataclass(frozen=True)
class RemoteFetch:
    remote: str
    brings: bool  # a fetch from this remote updates refs/remotes/REMOTE/<memory branch>
    refspec: str  # the refspec that does it (or would, once added)


def remotes(dirs: GitDirs) -> list[str]:
    """Remotes with a URL, as git config has them (any scope)."""
    names = {key[len("remote."):-len(".url")] for key in config.settings(dirs)
             if key.startswith("remote.") and key.endswith(".url")}
    return sorted(n for n in names if n)


def _match(pattern: str, name: str) -> str | None:
    """What `*` stands for when `pattern` matches `name` ("" for an exact match), or None."""
    if "*" not in pattern:
        return "" if pattern == name else None
    head, _, tail = pattern.partition("*")
    if name.startswith(head) and name.endswith(tail) and len(name) >= len(head) + len(tail):
        return name[len(head):len(name) - len(tail)]
    return None


def brings(specs: list[str], source: str, tracking: str) -> bool:
    """Do these fetch refspecs map `source` onto `tracking` (negative refspecs honoured)?"""
    found = False
    for spec in specs:
        spec = spec.strip()
        if spec.startswith("^"):
            if _match(spec[1:].split(":", 1)[0], source) is not None:
                return False
            continue
        src, _, dst = spec.lstrip("+").partition(":")
        star = _match(src, source)
        if star is not None and dst.replace("*", star, 1) == tracking:
            found = True
    return found


def check(dirs: GitDirs, ref: str) -> list[RemoteFetch]:
    """Every remote and whether its fetch brings the memory branch `ref`."""
    if not ref.startswith("refs/heads/"):
        return []
    short = ref[len("refs/heads/"):]
    out = []
    for name in remotes(dirs):
        tracking = f"refs/remotes/{name}/{short}"
        specs = [v for v in config.values(dirs, f"remote.{name}.fetch") if v]
        out.append(RemoteFetch(name, brings(specs, ref, tracking), f"+{ref}:{tracking}"))
    return out


def ensure(dirs: GitDirs, ref: str) -> list[tuple[RemoteFetch, bool]]:
    """Add the memory branch's refspec to every remote that lacks it: (remote, added)."""
    done = []
    for item in check(dirs, ref):
        if not item.brings:
            gitrun.run(["config", "--add", f"remote.{item.remote}.fetch", item.refspec],
                       git_dir=dirs.git_dir, check=True,
                       what=f"add the memory branch to remote {item.remote}'s fetch refspec")
        done.append((item, not item.brings))
    return done
