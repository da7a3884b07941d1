"""Where a session lives in the archive, and whether it is there, without pygit2: the Stop
hook asks after every turn, and `git cat-file -e` keeps pygit2's import off that path."""

from __future__ import annotations

from git_memory.agents.transcript import Transcript
from git_memory.store import gitrun
from git_memory.store.locate import SESSIONS_REF, GitDirs, read_ref


def archive_path(transcript: Transcript) -> str:
    stamp = next((m.timestamp for m in transcript.messages if m.timestamp), "") or "1970-01"
    year, month = (stamp[:4], stamp[5:7]) if len(stamp) >= 7 else ("1970", "01")
    return f"sessions/{year}/{month}/{transcript.session_id}.md"


def is_archived(dirs: GitDirs, transcript: Transcript) -> bool:
    tip = read_ref(dirs, SESSIONS_REF)
    if tip is None:
        return False
    result = gitrun.run(["cat-file", "-e", f"{tip}:{archive_path(transcript)}"],
                        git_dir=dirs.git_dir)
    return result.returncode == 0
