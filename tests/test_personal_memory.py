"""Personal memory and memory.sources (issue #16 points 2 and 4).

Personal memory is a bare repository under the user's data directory: `add --personal`
writes there from any repository, `recall` and `context` in another repository (no
remote in common) find it marked `personal`, `list --personal` lists it, and a project's
sync never carries it (checked with `git cat-file` on the project's remote).
memory.sources: another repository's memory, fetched by `sync` and read only, is
labelled in recall, and nothing is written to it (its files are byte for byte the same).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import err, git, make_repo, out
from sync_world import clone, make_remote

PERSONAL_TEXT = "LEARNED: use pnpm, not npm, in every project of mine"


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def _recall(gm, repo: Path, query: str) -> list[dict]:
    result = gm("recall", query, "--json", cwd=repo)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def test_personal_entry_found_in_another_repo_and_never_pushed(tmp_path, gm, data_home):
    remote = make_remote(tmp_path)
    x = clone(remote, tmp_path / "x")
    y = make_repo(tmp_path / "y")  # no remote shared with x
    assert gm("add", "LEARNED: x builds with make dist", cwd=x).returncode == 0
    added = gm("add", "--personal", PERSONAL_TEXT, cwd=x)
    assert added.returncode == 0, err(added)
    entry_id = out(added).strip()
    personal = data_home / "git-memory" / "personal.git"
    assert (personal / "HEAD").is_file()
    # Not on x's branch: only in the personal repository.
    x_tree = git("ls-tree", "-r", "--name-only", "refs/heads/git-memory", cwd=x)
    assert entry_id[-8:].lower() not in x_tree
    hits = _recall(gm, y, "pnpm npm")
    assert [(h["id"], h["from"]) for h in hits] == [(entry_id, "personal")]
    assert "[personal]" in out(gm("recall", "pnpm", cwd=y))
    assert "from personal" in out(gm("context", cwd=y))
    # recall in x finds both, ranked by the same rules; x's own entry is unlabelled.
    both = {h["id"]: h["from"] for h in _recall(gm, x, "pnpm OR make")}
    assert both[entry_id] == "personal" and sorted(both.values(), key=str) == [None, "personal"]
    listed = json.loads(out(gm("list", "--personal", "--json", cwd=y)))
    assert [(e["id"], e["from"]) for e in listed] == [(entry_id, "personal")]
    # A project's own list does not mix personal entries in as its own.
    assert [e["from"] for e in json.loads(out(gm("list", "--json", cwd=x)))
            if e["id"] == entry_id] == ["personal"]
    synced = gm("sync", cwd=x)
    assert synced.returncode == 0, err(synced)
    blob = git("rev-parse", f"refs/heads/git-memory:{_path_of(personal, entry_id)}",
               cwd=personal).strip()
    gone = git("cat-file", "-e", blob, cwd=remote, check=False)
    assert gone == "" and _missing(remote, blob)
    assert entry_id not in git("log", "-p", "--all", cwd=remote)
    assert "make dist" in git("log", "-p", "refs/heads/git-memory", cwd=remote)  # x's did go


def _path_of(personal: Path, entry_id: str) -> str:
    names = git("ls-tree", "-r", "--name-only", "refs/heads/git-memory", cwd=personal).split()
    return next(n for n in names if n.endswith(entry_id[-8:].lower() + ".md"))


def _missing(repo: Path, sha: str) -> bool:
    import subprocess

    return subprocess.run(["git", "cat-file", "-e", sha], cwd=repo,
                          capture_output=True).returncode != 0


def test_personal_memory_syncs_to_its_own_remote(tmp_path, gm, data_home):
    repo = make_repo(tmp_path / "r")
    assert gm("add", "--personal", PERSONAL_TEXT, cwd=repo).returncode == 0
    mine = tmp_path / "mine.git"
    git("init", "-q", "--bare", str(mine), cwd=tmp_path)
    personal = data_home / "git-memory" / "personal.git"
    git("remote", "add", "origin", str(mine), cwd=personal)
    synced = gm("sync", "--personal", cwd=repo)
    assert synced.returncode == 0, err(synced)
    assert "created the memory branch on origin" in out(synced)
    assert "pnpm" in git("log", "-p", "refs/heads/git-memory", cwd=mine)
    # On a second machine: the same remote as its personal memory.
    other = tmp_path / "other-data"
    git("clone", "-q", "--bare", str(mine), str(other / "git-memory" / "personal.git"), cwd=tmp_path)
    elsewhere = make_repo(tmp_path / "elsewhere")
    hits = json.loads(out(gm("recall", "pnpm", "--json", cwd=elsewhere,
                             env={"XDG_DATA_HOME": str(other)})))
    assert [h["from"] for h in hits] == ["personal"]


def test_list_personal_without_personal_memory_says_how_to_start(git_repo, gm, data_home):
    result = gm("list", "--personal")
    assert result.returncode != 0
    assert "git memory add --personal" in err(result) and len(err(result).splitlines()) == 1


def test_memory_personal_points_elsewhere(tmp_path, gm, data_home):
    repo = make_repo(tmp_path / "r")
    where = tmp_path / "my-memory.git"
    git("config", "--global", "memory.personal", str(where), cwd=repo)
    assert gm("add", "--personal", PERSONAL_TEXT, cwd=repo).returncode == 0
    assert (where / "HEAD").is_file() and not (data_home / "git-memory").exists()
    assert [h["from"] for h in _recall(gm, repo, "pnpm")] == ["personal"]


def _snapshot(repo: Path) -> dict[str, tuple[int, int]]:
    found = {}
    for root, _, files in os.walk(repo):
        for name in files:
            path = Path(root) / name
            st = path.stat()
            found[str(path.relative_to(repo))] = (st.st_size, st.st_mtime_ns)
    return found


def test_memory_sources_are_read_labelled_and_never_written(tmp_path, gm, data_home):
    handbook = make_repo(tmp_path / "handbook")
    assert gm("add", "DECISION: every service logs as JSON lines to stdout",
              cwd=handbook).returncode == 0
    shown = out(gm("list", "--json", cwd=handbook))
    handbook_id = json.loads(shown)[0]["id"]
    before = _snapshot(handbook)
    refs_before = git("for-each-ref", cwd=handbook)
    service = make_repo(tmp_path / "service")
    assert gm("add", "LEARNED: the service logs through structlog", cwd=service).returncode == 0
    git("config", "--add", "memory.sources", f"handbook={handbook}", cwd=service)
    assert _recall(gm, service, "logs JSON") == [] or all(
        h["from"] is None for h in _recall(gm, service, "logs JSON"))  # not fetched yet
    synced = gm("sync", cwd=service)  # no remote of its own: only the sources
    assert synced.returncode == 0, err(synced)
    assert "read-only sources fetched: handbook" in out(synced)
    hits = _recall(gm, service, "logs JSON stdout")
    assert (handbook_id, "handbook") in [(h["id"], h["from"]) for h in hits]
    assert "[handbook]" in out(gm("recall", "JSON stdout", cwd=service))
    assert git("rev-parse", "refs/git-memory/sources/handbook", cwd=service).strip() == \
        git("rev-parse", "refs/heads/git-memory", cwd=handbook).strip()
    # Curation never acts on a source's entries, and nothing was written to the source.
    assert _snapshot(handbook) == before
    assert git("for-each-ref", cwd=handbook) == refs_before
    # A later entry in the source arrives at the next sync.
    newer = out(gm("add", "DECISION: JSON logs carry a trace_id field", cwd=handbook)).strip()
    assert gm("sync", cwd=service).returncode == 0
    assert [(h["id"], h["from"]) for h in _recall(gm, service, "trace_id")] == [(newer, "handbook")]


def test_a_source_that_cannot_be_fetched_is_one_warning(tmp_path, gm, data_home):
    service = make_repo(tmp_path / "service")
    git("config", "--add", "memory.sources", str(tmp_path / "nowhere"), cwd=service)
    result = gm("sync", cwd=service)
    assert result.returncode == 0
    assert err(result).startswith("warning: source nowhere not fetched:") or \
        "source nowhere not fetched" in err(result)
    assert len(err(result).strip().splitlines()) == 1


def test_recall_outside_any_repository_searches_personal_memory(tmp_path, gm, data_home):
    repo = make_repo(tmp_path / "r")
    entry = out(gm("add", "--personal", PERSONAL_TEXT, cwd=repo)).strip()
    outside = tmp_path / "plain-folder"
    outside.mkdir()
    hits = json.loads(out(gm("recall", "pnpm", "--json", cwd=outside)))
    assert [(h["id"], h["from"]) for h in hits] == [(entry, "personal")]
    added = gm("add", "--personal", "LEARNED: my laptop has 16 GiB", cwd=outside)
    assert added.returncode == 0, err(added)
    assert len(json.loads(out(gm("list", "--personal", "--json", cwd=outside)))) == 2


def test_export_and_curate_leave_source_entries_out(tmp_path, gm, data_home):
    repo = make_repo(tmp_path / "r")
    personal = out(gm("add", "--personal", PERSONAL_TEXT, cwd=repo)).strip()
    # The same text in the project is the project's own entry: the writer's duplicate
    # check does not reinforce personal memory's entry from here.
    added = gm("add", PERSONAL_TEXT, cwd=repo)
    assert added.returncode == 0 and "already known" not in err(added)
    mine = out(added).strip()
    assert mine != personal
    exported = out(gm("export", "--format", "jsonl", cwd=repo)).splitlines()
    assert len(exported) == 2 and personal not in "".join(exported) and mine in exported[1]
    plan = json.loads(out(gm("curate", "--dry-run", "--json", cwd=repo)))
    assert plan["changes"] == []  # no duplicate across personal and project memory
