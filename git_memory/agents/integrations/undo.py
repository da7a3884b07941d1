"""The exact undo of an agent install. Before the first change to a file, its bytes (or its
absence) are saved with the hash of what we wrote; `remove` puts those bytes back when the
file still holds exactly what we wrote, and if the user edited it since takes out only ours.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from git_memory.agents.integrations import FileChange, Merge
from git_memory.agents.integrations.shared import decode, read
from git_memory.errors import BadInput


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def backup_file(state: Path, path: Path) -> Path:
    return state / (hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:20] + ".json")


def _write_atomic(path: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".git-memory.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _apply(merge: Merge, raw: bytes | None, path: Path) -> str:
    try:
        return merge(decode(raw, path))
    except BadInput as exc:
        raise BadInput(f"{path}: {exc}") from None


def install(change: FileChange, state: Path) -> bool:
    """Merge ours into the file; keep a backup of what was there. True when it changed."""
    raw = read(change.path)
    new = _apply(change.merge, raw, change.path)
    if raw is not None and new.encode("utf-8") == raw:
        return False
    created = []
    folder = change.path.parent
    while not folder.exists():
        created.append(str(folder))
        folder = folder.parent
    saved = backup_file(state, change.path)
    old = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else None
    # A second install over our own earlier write keeps the user's original bytes.
    data = new.encode("utf-8")
    record = {
        "path": str(change.path.absolute()),
        "original": None if raw is None else base64.b64encode(raw).decode("ascii"),
        "created_dirs": created,
        "written": _digest(data),
    }
    if old is not None and old["written"] == _digest(raw or b""):
        record.update(original=old["original"], created_dirs=old["created_dirs"])
    change.path.parent.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    _write_atomic(change.path, data, change.path.stat().st_mode & 0o777 if raw is not None else None)
    return True


def _restore(change: FileChange, record: dict[str, Any]) -> None:
    if record["original"] is None:
        change.path.unlink()
        for folder in record["created_dirs"]:
            try:
                Path(folder).rmdir()
            except OSError:
                break  # not empty: something else lives there now
        return
    original = base64.b64decode(record["original"])
    # An original that held ours already (an older version's hooks, which install
    # replaced) comes back without them; any other original comes back as it was.
    text = decode(original, change.path)
    without = change.unmerge(text)
    if without != text:
        original = without.encode("utf-8")
    _write_atomic(change.path, original, change.path.stat().st_mode & 0o777)


def remove(change: FileChange, state: Path) -> str:
    """Undo `install`: 'restored' (exact bytes), 'unmerged' (our part only), or 'absent'."""
    raw = read(change.path)
    saved = backup_file(state, change.path)
    record = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else None
    if record is not None and raw is not None and _digest(raw) == record["written"]:
        _restore(change, record)
        saved.unlink()
        return "restored"
    if record is not None:
        saved.unlink()
    if raw is None:
        return "absent"
    new = _apply(change.unmerge, raw, change.path)
    if new.encode("utf-8") == raw:
        return "absent"
    _write_atomic(change.path, new.encode("utf-8"), change.path.stat().st_mode & 0o777)
    return "unmerged"
