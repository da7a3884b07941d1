"""History without some blobs: the rewrite that `purge` starts and every sync that meets
its `purge` record repeats. Commits keep author, committer and message (secrets
redacted, deterministically), so clones that rewrite the same commits get the same ids.
Each clone keeps the purges it applied (blob and entry ids, never text) in
`.git/git-memory/purges`: a forced push that drops the record cannot undo the purge."""

from __future__ import annotations

import pygit2

from git_memory.sanitize.scan import redact_string
from git_memory.store.gitrun import run, text
from git_memory.store.leftovers import temp_path
from git_memory.store.locate import GitDirs
from git_memory.store.record_format import MalformedRecord, parse_record

PURGE_PREFIX = "purge-"
LIST_NAME = "purges"  # under .git/git-memory/: the purges this clone applied


def purge_targets(repo: pygit2.Repository, commit: str | None) -> dict[str, str]:
    """blob id -> the entry id its purge record names, for every purge record in
    `commit`'s tree (records/**/purge-*.md)."""
    if commit is None:
        return {}
    tree = repo[commit].peel(pygit2.Tree)
    if "records" not in tree:
        return {}
    found: dict[str, str] = {}
    for blob in _purge_files(tree["records"]):
        try:
            record = parse_record(repo[blob].read_raw())
        except (MalformedRecord, KeyError):
            continue
        if record.kind == "purge":
            blobs = record.fields.get("blobs")
            target = str(record.fields.get("target") or "")
            if isinstance(blobs, list):
                found.update((str(b), target) for b in blobs if isinstance(b, str) and len(b) == 40)
    return found


def applied(dirs: GitDirs) -> dict[str, tuple[str, bool]]:
    """The purges this clone applied: blob id -> (entry id, whether a remote was seen
    holding its purge record). Empty when there is no list (the usual case: one failed
    open, no parse)."""
    try:
        lines = (dirs.memory_dir / LIST_NAME).read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, tuple[str, bool]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and len(parts[0]) == 40:
            found[parts[0]] = (parts[1] if parts[1] != "-" else "", parts[2] == "published")
    return found


def note_applied(dirs: GitDirs, purges: dict[str, tuple[str, bool]]) -> None:
    """Write the list (`applied`), merged with what it holds: a purge once listed stays
    listed, and once published stays published. Nothing is written when nothing changed."""
    old = applied(dirs)
    new = dict(old)
    for blob, (target, published) in purges.items():
        was_target, was_published = old.get(blob, ("", False))
        new[blob] = (target or was_target, published or was_published)
    if new == old:
        return
    path = dirs.memory_dir / LIST_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    tmp.write_text("".join(f"{blob} {target or '-'} {'published' if pub else 'local'}\n"
                           for blob, (target, pub) in sorted(new.items())), encoding="ascii")
    tmp.replace(path)


def _purge_files(tree: pygit2.Object) -> list[pygit2.Oid]:
    out: list[pygit2.Oid] = []
    for item in tree:  # type: ignore[attr-defined]
        if isinstance(item, pygit2.Tree):
            out.extend(_purge_files(item))
        elif str(item.name).startswith(PURGE_PREFIX) and isinstance(item, pygit2.Blob):
            out.append(item.id)
    return out


def rewrite(repo: pygit2.Repository, tip: str | None, blobs: set[str]) -> tuple[str | None, int]:
    """`tip`'s history without any file whose blob is in `blobs`: (new tip, commits
    rewritten). Commits that never held one keep their ids."""
    if tip is None or not blobs:
        return tip, 0
    drop = {pygit2.Oid(hex=b) for b in blobs}
    memo: dict[pygit2.Oid, pygit2.Oid] = {}
    mapped: dict[str, str] = {}
    count = 0
    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for commit in walker:
        tree = _strip(repo, commit.tree, drop, memo)
        parents = [mapped.get(str(p), str(p)) for p in commit.parent_ids]
        # A secret in any message of that history (a Review-Reason: trailer) goes too.
        message = redact_string(commit.message)[0]
        if (tree == commit.tree_id and parents == [str(p) for p in commit.parent_ids]
                and message == commit.message):
            mapped[str(commit.id)] = str(commit.id)
            continue
        oid = repo.create_commit(
            None, commit.author, commit.committer, message, tree,
            [pygit2.Oid(hex=p) for p in parents],
        )
        mapped[str(commit.id)] = str(oid)
        count += 1
    return mapped.get(tip, tip), count


def _strip(
    repo: pygit2.Repository, tree: pygit2.Tree, drop: set[pygit2.Oid],
    memo: dict[pygit2.Oid, pygit2.Oid],
) -> pygit2.Oid:
    if tree.id in memo:
        return memo[tree.id]
    builder: pygit2.TreeBuilder | None = None
    for item in tree:  # type: ignore[attr-defined]
        name = str(item.name)
        if isinstance(item, pygit2.Tree):
            new = _strip(repo, item, drop, memo)
            if new == item.id:
                continue
            builder = builder or repo.TreeBuilder(tree)
            if len(repo[new]) == 0:  # type: ignore[arg-type]
                builder.remove(name)  # git keeps no empty folders
            else:
                builder.insert(name, new, pygit2.GIT_FILEMODE_TREE)
        elif item.id in drop:
            builder = builder or repo.TreeBuilder(tree)
            builder.remove(name)
    result = builder.write() if builder is not None else tree.id
    memo[tree.id] = result
    return result


def forget(dirs: GitDirs, refs: list[str], blobs: set[str]) -> list[str]:
    """Remove `blobs` from this repository's object store once nothing reaches them:
    expire the reflogs of `refs` (the memory refs, which held the old history), then
    delete each blob that no ref, reflog or index still reaches. Returns the blobs
    still present (reachable, or inside a pack: `git gc --prune=now` removes those)."""
    if not blobs:
        return []
    _git(dirs, "reflog", "expire", "--expire=now", "--expire-unreachable=now", *refs)
    listed = _git(dirs, "rev-list", "--objects", "--all", "--reflog", "--indexed-objects")
    reachable = {line[:40] for line in listed.splitlines()} & blobs
    left: list[str] = []
    for blob in sorted(blobs):
        loose = dirs.common_dir / "objects" / blob[:2] / blob[2:]
        if blob not in reachable and loose.exists():
            loose.unlink()
        if blob in reachable or _exists(dirs, blob):
            left.append(blob)
    return left


def reaching_refs(dirs: GitDirs, blobs: set[str]) -> dict[str, list[str]]:
    """blob -> the refs whose history still reaches it (doctor's check after a purge).
    One walk of every ref; the refs themselves are looked at only when a blob is found."""
    if not blobs:
        return {}
    listed = _git(dirs, "rev-list", "--objects", "--all")
    found = {line[:40] for line in listed.splitlines()} & blobs
    holders: dict[str, list[str]] = {blob: [] for blob in sorted(found)}
    if not found:
        return {}
    for ref in _git(dirs, "for-each-ref", "--format=%(refname)").split():
        reached = {line[:40] for line in _git(dirs, "rev-list", "--objects", ref).splitlines()}
        for blob in found & reached:
            holders[blob].append(ref)
    return holders


def _exists(dirs: GitDirs, blob: str) -> bool:
    return run(["cat-file", "-e", blob], git_dir=dirs.git_dir).returncode == 0


def _git(dirs: GitDirs, *args: str) -> str:
    result = run(list(args), git_dir=dirs.git_dir)
    return text(result.stdout) if result.returncode == 0 else ""
