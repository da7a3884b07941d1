"""The session archive: a readable Markdown copy of each imported session on a local ref.

Kept on `refs/memory/sessions` (not under refs/heads, so an ordinary `git push`
never sends it); one file per session at `sessions/YYYY/MM/<session id>.md`,
rewritten when the session grew. Only user and assistant text goes in, never
tool payloads, and a message holding a credential is replaced by a placeholder.
Written with pygit2 like the memory branch: blobs, trees, then a commit whose
parent is the tip read, retried when another writer moved the ref.
Never prints.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pygit2

from git_memory.agents.archive_path import SESSIONS_REF, archive_path
from git_memory.agents.transcript import Transcript, withhold_secrets
from git_memory.errors import ConcurrentUpdate
from git_memory.sanitize.chars import normalise, strip_invisible
from git_memory.store.locate import GitDirs

def render(transcript: Transcript, branch: str | None) -> str:
    """The Markdown copy: a small header, then each message under its speaker."""
    title, _ = strip_invisible(transcript.title)
    lines = [
        f"# {normalise(title) or 'session'}",
        "",
        f"- session: {transcript.session_id}",
        f"- branch: {branch or '-'}",
        f"- cwd: {transcript.cwd or '-'}",
        f"- messages: {len(transcript.messages)}",
        "",
    ]
    for message in transcript.messages:
        text, _ = strip_invisible(withhold_secrets(message.text))
        who = "User" if message.role == "user" else "Assistant"
        lines += [f"## {who} · {message.timestamp[:19]}", "", normalise(text), ""]
    return "\n".join(lines)


def _tree_with(repo: pygit2.Repository, base: Any, parts: list[str],
               blob: pygit2.Oid) -> pygit2.Oid:
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    name = parts[0]
    if len(parts) == 1:
        builder.insert(name, blob, pygit2.GIT_FILEMODE_BLOB)
    else:
        sub = base[name] if base is not None and name in base else None
        sub_tree = sub if sub is not None and sub.type_str == "tree" else None
        builder.insert(name, _tree_with(repo, sub_tree, parts[1:], blob), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def archive(dirs: GitDirs, transcript: Transcript, branch: str | None) -> bool:
    """Write (or refresh) the session's Markdown; False when it was already current."""
    repo = pygit2.Repository(str(dirs.git_dir))
    path = archive_path(transcript)
    blob = repo.create_blob(render(transcript, branch).encode("utf-8"))
    for attempt in range(30):
        ref = repo.references.get(SESSIONS_REF)
        parent = ref.target if ref is not None else None
        base = repo[parent].peel(pygit2.Tree) if parent is not None else None
        if base is not None:
            try:
                if base[path].id == blob:
                    return False
            except KeyError:
                pass
        tree = _tree_with(repo, base, path.split("/"), blob)
        try:
            sig = repo.default_signature
        except (KeyError, pygit2.GitError):
            sig = pygit2.Signature("git-memory", "git-memory@localhost")
        message = f"sessions: archive {transcript.session_id}\n"
        try:
            if parent is None:
                oid = repo.create_commit(None, sig, sig, message, tree, [])
                repo.references.create(SESSIONS_REF, oid, force=False)
            else:
                repo.create_commit(SESSIONS_REF, sig, sig, message, tree, [parent])
            return True
        except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError):
            time.sleep(random.uniform(0.005, 0.02) * (1 + min(attempt, 10)))
    raise ConcurrentUpdate("the session archive kept changing; gave up")
