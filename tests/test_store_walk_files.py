"""store.branchread.walk_files (an index build's tree walk: raw tree bytes split by a
regular expression) gives what iter_files (a pygit2 object per item) gives, in the
same order: plain files, executables, symlinks, submodules, deep folders, names with
spaces and non-ASCII letters; a tree holding a name that is not UTF-8 is walked the
pygit2 way, so it still gives that walk's names."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from git_memory.store.branch import FileEntry, MemoryBranch
from git_memory.store.locate import discover


def _commit(repo: Path, files: dict[bytes, tuple[str, bytes]]) -> None:
    """A commit on refs/heads/git-memory holding `files` (path: (mode, content)),
    made with plain git, bytes names allowed."""
    env_index = str(repo / ".git" / "walk-index")

    def run(*args: str | bytes, stdin: bytes | None = None) -> str:
        return subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True,
                              check=True, env={**os.environ, "GIT_INDEX_FILE": env_index}
                              ).stdout.decode().strip()

    lines = b""
    for path, (mode, content) in files.items():
        if mode == "160000":
            blob = run("rev-parse", "HEAD")  # a submodule entry names a commit
        else:
            blob = run("hash-object", "-w", "--stdin", stdin=content)
        lines += f"{mode} {blob}\t".encode() + path + b"\0"
    run("update-index", "--add", "-z", "--index-info", stdin=lines)
    tree = run("write-tree")
    run("update-ref", "refs/heads/git-memory", run("commit-tree", tree, "-m", "walk"))


def _walked_as_iter_files(repo: Path) -> list[FileEntry]:
    """walk_files of the memory branch's tip, checked equal to iter_files in order."""
    branch = MemoryBranch(discover(repo))
    tip = branch.tip()
    assert tip is not None
    walked = list(branch.walk_files(tip))
    assert walked == [(f.path, f.blob, f.mode) for f in branch.iter_files(tip)]
    return walked


def test_walk_files_gives_what_iter_files_gives(git_repo: Path) -> None:
    files = {
        b"entries/2025/01/01/a.md": ("100644", b"---\nid: A\n---\nx\n"),
        b"entries/2025/01/01/b exec.md": ("100755", b"y\n"),
        b"entries/2025/01/02/link.md": ("120000", b"../../x"),
        b"entries/2025/01/02/sub": ("160000", b""),
        b"entries/2025/02/deep/er/still/c.md": ("100644", b"z\n"),
        "entries/2025/03/01/caf\u00e9-\u65e5\u672c.md".encode(): ("100644", b"w\n"),
        b"records/2025/01/01/r.md": ("100644", b"r\n"),
        b"README.md": ("100644", b"not a record\n"),
    }
    _commit(git_repo, files)
    walked = _walked_as_iter_files(git_repo)
    assert len(walked) == 7
    assert {mode for _, _, mode in walked} == {0o100644, 0o100755, 0o120000, 0o160000}
    assert walked[0].path == "entries/2025/01/01/a.md" and len(walked[0].blob) == 40


def test_a_name_that_is_not_utf8_is_walked_the_pygit2_way(git_repo: Path) -> None:
    _commit(git_repo, {
        b"entries/2025/01/01/ok.md": ("100644", b"a\n"),
        b"entries/2025/01/02/bad-\xff.md": ("100644", b"b\n"),
        b"entries/2025/01/03/ok.md": ("100644", b"c\n"),
    })
    walked = _walked_as_iter_files(git_repo)
    assert len(walked) == 3


def test_skipping_files_leaves_out_what_islice_would(git_repo: Path) -> None:
    """A resumed build walks with `skip`: for every count, from none to more than there
    are, the files are those itertools.islice leaves, in the same order, whether the
    count ends inside a folder, at its edge, or covers whole folders (counted unread),
    folders of mixed depth and a tree walked the pygit2 way included."""
    import itertools

    files = {
        b"entries/2025/01/01/a.md": ("100644", b"a\n"),
        b"entries/2025/01/01/b.md": ("100755", b"b\n"),
        b"entries/2025/01/01/c.md": ("120000", b"../c"),
        b"entries/2025/01/02/d.md": ("100644", b"d\n"),
        b"entries/2025/01/02/sub": ("160000", b""),
        b"entries/2025/02/deep/er/e.md": ("100644", b"e\n"),
        b"entries/2025/02/f.md": ("100644", b"f\n"),
        b"entries/2025/03/01/bad-\xff.md": ("100644", b"g\n"),
        b"entries/2025/03/01/h.md": ("100644", b"h\n"),
        b"records/2025/01/01/r.md": ("100644", b"r\n"),
        b"records/2025/01/01/s.md": ("100644", b"s\n"),
    }
    _commit(git_repo, files)
    walked = _walked_as_iter_files(git_repo)
    assert len(walked) == 11
    branch = MemoryBranch(discover(git_repo))
    tip = branch.tip()
    assert tip is not None
    for skip in range(len(walked) + 3):
        assert list(branch.walk_files(tip, skip=skip)) == list(
            itertools.islice(branch.walk_files(tip), skip, None)), skip
