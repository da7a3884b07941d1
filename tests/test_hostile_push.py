"""One push by anyone with push access must not break memory for every clone (issue #37 A).

Each hostile record or tree is pushed to a bare remote with plain git (plumbing, as an
attacker would); then a plain `git clone` and a clone that already had memory and runs
`git memory sync` run every reader, the session-start hook and the clean-up commands.
Each must end within a bound (a hang test, not a benchmark: 2 s of CPU, its children's
included, and 30 s of wall time for a hang that waits) with exit 0 or its documented
error line, the good entry beside the hostile one still recalled, and doctor naming the
bad path.
"""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import err, git, out
from plumbing import MEMORY, _hash, commit_files, record
from sync_world import clone, make_remote

from git_memory.store.record_format import MAX_TAGS, MalformedRecord, parse_record

BOUND = 2.0  # seconds of CPU: each command on a branch holding the hostile file
HANG = 30.0  # seconds of wall time: a command that waits forever
DAY = ("entries", "2026", "11", "20")
GOOD = "LEARNED: the good widget entry beside a hostile one"


def _laughs() -> bytes:
    """Nine levels of nested aliases: 432 bytes that expand to 9**9 strings."""
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    head = "id: 01LAUGHS\ntype: learned\ncreated: 2026-11-20T10:00:00Z\n" + "\n".join(lines)
    return f"---\n{head}\n---\nlaughs\n".encode()


def _many_tags() -> bytes:
    tags = json.dumps([f"t{i}" for i in range(100_000)])
    return record("01MANYTAGS", body="a record with many tags", tags=tags)


HOSTILE_FILES = {
    "laughs": ("learned-laughs-aaaa0001.md", _laughs),
    "tags": ("learned-tags-aaaa0002.md", _many_tags),
    "token": ("learned-token-aaaa0003.md",
              lambda: record("01ONETOKEN", body="q" * 999_000)),
}


def _raw_tree(repo: Path, tree: str) -> bytes:
    return subprocess.run(["git", "cat-file", "tree", tree], cwd=repo, capture_output=True,
                          check=True).stdout


def _replace(repo: Path, tree: str, name: str, oid: str) -> str:
    """`tree` with its entry `name` pointing at `oid` (raw bytes: the tree may be odd)."""
    body = _raw_tree(repo, tree)
    at = body.index(b" " + name.encode() + b"\0") + len(name) + 2
    return _hash(repo, "tree", body[:at] + bytes.fromhex(oid) + body[at + 20:])


def _commit_duplicate(repo: Path) -> str:
    """A commit whose day folder names one file twice (two blobs), as git mktree
    --literally would write it: a plain bare remote accepts the push."""
    name = "learned-dup-aaaa0004.md"
    commit_files(repo, {(*DAY, name): ("100644", record("01DUPONE", body="dup one"))})
    tip = git("rev-parse", MEMORY, cwd=repo).strip()
    second = _hash(repo, "blob", record("01DUPTWO", body="dup two"))
    day = git("rev-parse", f"{tip}:{'/'.join(DAY)}", cwd=repo).strip()
    body = _raw_tree(repo, day)
    entry = b"100644 " + name.encode() + b"\0"
    at = body.index(entry) + len(entry) + 20
    _commit_day(repo, tip, _hash(repo, "tree", body[:at] + entry + bytes.fromhex(second)
                                 + body[at:]), "dup")
    return f"{'/'.join(DAY)}/{name}"


def _commit_day(repo: Path, tip: str, day: str, message: str) -> None:
    """A commit on `tip` whose day folder is the (odd) tree `day`: the folders above, each
    pointed at the new one, written as raw trees."""
    oid = day
    for depth in range(len(DAY) - 1, -1, -1):
        parent = "/".join(DAY[:depth])
        above = git("rev-parse", f"{tip}:{parent}" if parent else f"{tip}^{{tree}}",
                    cwd=repo).strip()
        oid = _replace(repo, above, DAY[depth], oid)
    commit = git("commit-tree", oid, "-p", tip, "-m", message, cwd=repo).strip()
    git("update-ref", MEMORY, commit, cwd=repo)


def _attack(repo: Path, kind: str) -> str:
    """The hostile commit on `repo`'s memory branch; the bad path doctor must name."""
    if kind == "dup":
        return _commit_duplicate(repo)
    name, make = HOSTILE_FILES[kind]
    commit_files(repo, {(*DAY, name): ("100644", make())})
    return f"{'/'.join(DAY)}/{name}"


def _gm(repo: Path, *args: str, timeout: float = BOUND) -> subprocess.CompletedProcess:
    """`git memory ARGS` as its own process, bounded by `timeout` seconds of CPU (its own
    and its children's: a quadratic parse or an expansion burns CPU, and CPU time does not
    grow when other tests load the machine as wall time does) and by HANG seconds of wall
    time (a hang that waits burns none)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        result = subprocess.run(["git", "memory", *args], cwd=repo, capture_output=True,
                                timeout=HANG)
    except subprocess.TimeoutExpired:
        pytest.fail(f"git memory {' '.join(args)} ran past {HANG} s on a hostile branch")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert cpu < timeout, f"git memory {' '.join(args)} took {cpu:.2f} s of CPU (bound {timeout} s)"
    return result


KINDS = ["laughs", "tags", "token", "dup"]


def _two_clones(tmp_path: Path, gm, second: str) -> tuple[Path, Path, Path]:
    """A bare remote whose memory holds GOOD (added and synced by clone `a`), and a second
    clone that synced it: (remote, a, the second clone)."""
    bare = make_remote(tmp_path)
    a = clone(bare, tmp_path / "a")
    assert gm("add", GOOD, cwd=a).returncode == 0
    assert gm("sync", cwd=a).returncode == 0
    other = clone(bare, tmp_path / second)
    assert gm("sync", cwd=other).returncode == 0
    return bare, a, other


def _world(tmp_path: Path, gm, kind: str) -> tuple[Path, Path, str]:
    """A remote whose memory holds GOOD, a clone `had` that synced it and wrote its own
    entry, then the attack pushed with plain git: (remote, had, the bad path)."""
    bare, a, had = _two_clones(tmp_path, gm, "had")
    assert gm("add", "LEARNED: had its own gadget note", cwd=had).returncode == 0
    bad = _attack(a, kind)
    git("push", "-q", "origin", "git-memory", cwd=a)  # plain git: the attacker's way
    return bare, had, bad


@pytest.fixture(params=KINDS)
def attacked(request: pytest.FixtureRequest, tmp_path: Path, gm) -> tuple[str, str, Path, Path]:
    """(kind, bad path, a plain fresh clone, a clone that had memory and ran sync)."""
    bare, had, bad = _world(tmp_path, gm, request.param)
    fresh = clone(bare, tmp_path / "fresh")
    result = _gm(had, "sync", timeout=10 * BOUND)
    assert result.returncode == 0, err(result)
    return request.param, bad, fresh, had


def _good_id(repo: Path) -> str:
    rows = json.loads(out(_gm(repo, "list", "--json")))
    return next(r["id"] for r in rows if "good widget entry" in r["content"])


def _readers(repo: Path, good: str) -> list[tuple[str, ...]]:
    return [("list",), ("recall", "widget"), ("show", good), ("log",), ("context",),
            ("context", "--format", "claude"), ("export", str(repo.parent / f"{repo.name}-out")),
            ("graph",), ("related", good), ("doctor",), ("doctor", "--json"), ("scan",),
            ("reindex",)]


@pytest.mark.parametrize("which", ["fresh", "had"])
def test_every_reader_and_clean_up_ends_fast_on_a_hostile_branch(attacked, which) -> None:
    kind, bad, fresh, had = attacked
    repo = fresh if which == "fresh" else had
    first = _gm(repo, "recall", "widget")  # the first reader builds the index
    assert first.returncode == 0, err(first)
    assert "good widget entry" in out(first)
    good = _good_id(repo)
    for args in _readers(repo, good):
        result = _gm(repo, *args)
        # doctor and scan say 1 when they found something; nothing may crash (3)
        allowed = {0, 1} if args[0] in ("doctor", "scan") else {0}
        assert result.returncode in allowed, (args, err(result))
        assert "unexpected failure" not in err(result), (args, err(result))
    report = json.loads(out(_gm(repo, "doctor", "--json")))
    named = {m["path"] for m in report["malformed"]} | {t["path"] for t in report["bad_trees"]}
    named |= {r["path"] for r in report["refused"]}
    if kind != "token":  # a 999,000-letter body is a valid record: read, not refused
        assert any(bad.startswith(p) or p == bad for p in named), (kind, named)
    assert "good widget entry" in out(_gm(repo, "recall", "widget"))
    # the clean-up: redact and purge finish on such a branch too
    result = _gm(repo, "redact", good, "--reason", "clean-up test", timeout=3 * BOUND)
    assert result.returncode == 0, err(result)
    result = _gm(repo, "purge", good, "--yes", timeout=3 * BOUND)
    assert result.returncode == 0, err(result)
    assert "good widget entry" not in out(_gm(repo, "recall", "widget"))


def test_sync_leaves_a_duplicate_name_out_and_says_so(tmp_path: Path, gm) -> None:
    _, b, bad = _world(tmp_path, gm, "dup")
    result = gm("sync", cwd=b)
    assert result.returncode == 0, err(result)
    assert b"left out 1 unsafe file from origin" in result.stdout
    names = git("ls-tree", "-r", "--name-only", "git-memory", cwd=b).split("\n")
    assert bad not in names and len(names) == len(set(names))
    # the tip's trees are clean (the fetched commit stays its parent, as for any screen)
    assert json.loads(out(gm("doctor", "--json", cwd=b)))["bad_trees"] == []


def test_recall_with_a_huge_single_token_query_ends(git_repo: Path, gm) -> None:
    assert gm("add", GOOD, cwd=git_repo).returncode == 0
    result = _gm(git_repo, "recall", "widget " + "z" * 100_000)
    assert result.returncode == 0, err(result)


def test_import_of_json_nested_100000_deep_is_one_line_and_changes_nothing(
        git_repo: Path, gm, tmp_path: Path) -> None:
    assert gm("add", GOOD, cwd=git_repo).returncode == 0
    before = git("rev-parse", "git-memory", cwd=git_repo)
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    result = _gm(git_repo, "import", "--format", "jsonl", str(deep))
    assert result.returncode == 1
    assert err(result) == "error: line 1: JSON nested too deeply\n"
    assert git("rev-parse", "git-memory", cwd=git_repo) == before


def test_import_of_100000_tags_is_refused_fast(git_repo: Path, gm, tmp_path: Path) -> None:
    lines = tmp_path / "tags.jsonl"
    item = {"type": "learned", "content": "many tags", "tags": [f"t{i}" for i in range(100_000)]}
    lines.write_text(json.dumps(item) + "\n", encoding="utf-8")
    result = _gm(git_repo, "import", "--format", "jsonl", str(lines))
    assert "more than 20 tags" in err(result) + out(result)
    assert "unexpected failure" not in err(result)


@pytest.mark.parametrize("args", [
    ("list", "-n", "100000000000000000000"), ("log", "-n", "99999999999999999999"),
    ("recall", "x", "-n", "100000000000000000000"), ("recall", "x", "--recent", "10" * 12),
    ("context", "--budget", "9" * 30), ("graph", "-n", "9" * 30),
    ("recall", "x", "--since", "9" * 400 + "y"),
])
def test_an_out_of_range_number_is_a_usage_error(git_repo: Path, gm, args) -> None:
    assert gm("add", GOOD, cwd=git_repo).returncode == 0
    result = gm(*args, cwd=git_repo)
    assert result.returncode == 2, err(result)
    assert "unexpected failure" not in err(result)


# -- the record parser: any anchor or alias is refused before anything is expanded ------

_words = st.text(alphabet="abcdefghij", min_size=1, max_size=6)


@st.composite
def _aliased(draw: st.DrawFn) -> bytes:
    """A front matter holding at least one anchor, and aliases to it, in any places."""
    anchor = draw(_words)
    items = draw(st.lists(st.sampled_from(["x", '"y"', f"*{anchor}", "[1, 2]"]),
                          min_size=1, max_size=9))
    lines = [f"a: &{anchor} [" + ", ".join(draw(st.lists(st.sampled_from(['"x"', "1"]),
                                                         max_size=9))) + "]"]
    for number in range(draw(st.integers(0, 9))):
        lines.append(f"k{number}: &{anchor}{number} [" + ", ".join(items) + "]")
    if draw(st.booleans()):
        lines.append(f"tags: *{anchor}")
    head = ["id: 01ALIASED", "type: learned", *lines]
    order = draw(st.permutations(head))
    return ("---\n" + "\n".join(order) + "\n---\nbody\n").encode()


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_aliased())
def test_any_anchor_or_alias_is_malformed_record(data: bytes) -> None:
    with pytest.raises(MalformedRecord) as caught:
        parse_record(data, "entries/2026/11/20/x.md")
    assert "YAML" in str(caught.value) or "nested" in str(caught.value)


def test_the_tag_cap_on_read() -> None:
    ok = record("01TAGSOK", tags=json.dumps([f"t{i}" for i in range(MAX_TAGS)]))
    assert len(parse_record(ok).tags) == MAX_TAGS
    with pytest.raises(MalformedRecord, match="tags"):
        parse_record(record("01TAGSBAD", tags=json.dumps([f"t{i}" for i in range(MAX_TAGS + 1)])))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["tracking", "local"])
def test_a_clone_with_an_index_catches_up_by_plain_fetch(tmp_path: Path, gm, kind,
                                                         how) -> None:
    """The hostile commit arriving by plain git into a clone whose index is built: the
    remote-tracking copy (a read-only source, caught up through the overlay) or the local
    branch itself moved by `git fetch origin git-memory:git-memory` (the index's incremental
    catch-up, loose objects or a tree diff) must not break a reader either."""
    _, had, _ = _world(tmp_path, gm, kind)
    assert "good widget entry" in out(_gm(had, "recall", "widget"))  # the index is built
    if how == "tracking":
        git("fetch", "-q", "origin", cwd=had)
    else:
        git("fetch", "-q", "origin", "+git-memory:git-memory", cwd=had)
    for args in [("recall", "widget"), ("list",), ("context", "--format", "claude"),
                 ("doctor",)]:
        result = _gm(had, *args)
        assert result.returncode in ({0, 1} if args[0] == "doctor" else {0}), (args, err(result))
        assert "unexpected failure" not in err(result), (args, err(result))
    assert "good widget entry" in out(_gm(had, "recall", "widget"))


def _commit_unsorted(repo: Path) -> list[str]:
    """A commit whose day folder lists its two files in reverse of git's order (git fsck
    refuses such a tree; a plain bare remote accepts the push): the two names."""
    names = ["learned-order-aaaa0005.md", "learned-order-aaaa0006.md"]
    commit_files(repo, {(*DAY, n): ("100644", record(f"01ORDER{i}", body=f"order widget {i}"))
                        for i, n in enumerate(names)})
    tip = git("rev-parse", MEMORY, cwd=repo).strip()
    day = git("rev-parse", f"{tip}:{'/'.join(DAY)}", cwd=repo).strip()
    body = _raw_tree(repo, day)
    entries, at = [], 0
    while at < len(body):  # "mode name\0" + 20 bytes, one after another
        end = body.index(b"\0", at) + 21
        entries.append(body[at:end])
        at = end
    _commit_day(repo, tip, _hash(repo, "tree", b"".join(reversed(entries))), "unsorted")
    return names


def test_sync_writes_a_folder_out_of_git_order_again_in_order(tmp_path: Path, gm) -> None:
    _, a, b = _two_clones(tmp_path, gm, "b")
    names = _commit_unsorted(a)
    git("push", "-q", "origin", "git-memory", cwd=a)
    assert json.loads(out(gm("doctor", "--json", cwd=a)))["bad_trees"]  # a holds the bad tree
    result = _gm(b, "sync", timeout=10 * BOUND)
    assert result.returncode == 0, err(result)
    listed = git("ls-tree", "--name-only", f"git-memory:{'/'.join(DAY)}", cwd=b).split()
    assert [n for n in listed if n in names] == sorted(names)  # both kept, in git's order
    assert json.loads(out(gm("doctor", "--json", cwd=b)))["bad_trees"] == []
    assert "order widget 1" in out(_gm(b, "recall", "order widget"))
