"""The drawing in docs/architecture.md is the code's: imports, SQL and pygit2 checked by AST.

The "may import" column of the layer table is read from the docs themselves, so a change to
either side that breaks the rule fails here. The checker is also run on a small synthetic
package to show that it does fail on a forbidden import, a cycle, SQL and pygit2 out of place.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arch_rules import (
    HOT_PATH, Package, check, fenced, parse_table, through_api, unexplained_inner_imports,
)

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def test_code_follows_the_layer_table() -> None:
    rules = parse_table(DOC.read_text(encoding="utf-8"))
    problems = check(Package.load(ROOT / "git_memory"), rules)
    assert not problems, "docs/architecture.md and the code disagree:\n" + "\n".join(problems)


def test_every_module_belongs_to_a_layer_of_the_table() -> None:
    rules = parse_table(DOC.read_text(encoding="utf-8"))
    package = Package.load(ROOT / "git_memory")
    orphans = [m for m in package.modules if rules.layer_of(m) is None]
    assert not orphans, f"modules in no layer of docs/architecture.md: {orphans}"


# Each entry point of the hot path, run in a fresh interpreter: recall with a current index
# (local entries and personal memory), and the module the git hook shims run, loaded and
# asked for its usage (every hook pays that much before its own work).
HOT_ENTRIES = {
    "recall": "from git_memory.entry import main\nrc = main(['recall', '--json', 'oauth redirect'])",
    "hook": "from git_memory.commands import hook\nrc = 0 if hook.main([]) == 2 else 1",
}


@pytest.mark.parametrize("entry", sorted(HOT_ENTRIES))
def test_the_hot_path_loads_only_its_named_modules(entry: str, git_repo: Path, gm, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert gm("add", "LEARNED: the oauth redirect uri must match exactly").returncode == 0
    assert gm("add", "--personal", "LEARNED: my oauth redirect notes are in the wiki").returncode == 0
    assert gm("recall", "oauth").returncode == 0  # the index is current now
    result, problems = fenced(HOT_ENTRIES[entry], git_repo)
    assert result.returncode == 0, result.stderr
    assert not problems, f"{entry} left the fence of arch_rules.HOT_PATH:\n" + "\n".join(problems)
    if entry == "recall":
        hits = {h["content"]: h.get("from") for h in json.loads(result.stdout)}
        assert hits == {"the oauth redirect uri must match exactly": None,
                        "my oauth redirect notes are in the wiki": "personal"}, hits


def test_the_fence_reports_a_heavy_or_unnamed_module(tmp_path: Path) -> None:
    result, problems = fenced("import dataclasses, git_memory.model\nrc = 0", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "heavy: dataclasses" in problems and "off the hot path: git_memory.model" in problems
    assert "git_memory.model" not in HOT_PATH and os.sep not in "".join(HOT_PATH)


def test_imports_sit_at_the_top_unless_they_say_why() -> None:
    problems = unexplained_inner_imports(ROOT / "git_memory")
    assert not problems, "imports inside functions without `# lazy: reason`:\n" + "\n".join(problems)


def test_the_inner_import_rule_fails_on_an_unexplained_import(tmp_path: Path) -> None:
    _write(tmp_path, {"__init__.py": "", "a.py": (
        "def f():\n    import json\n    import numpy  # lazy: the [x] extra\n")})
    assert unexplained_inner_imports(tmp_path / "pkg") == ["pkg/a.py:2: import json"]


# The web view, the MCP server and every command read and write through `Memory`
# (git_memory/api/); only recall's hot path opens the index itself.
FRONT_ENDS = ("web", "commands")
HOT_PATH = ("commands.recall", "commands.recall_stats")


def test_web_mcp_and_commands_import_no_index_module() -> None:
    problems = through_api(Package.load(ROOT / "git_memory"), FRONT_ENDS, exempt=HOT_PATH)
    assert not problems, "\n".join(problems)


def test_the_front_end_rule_fails_on_an_index_import(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "__init__.py": "",
        "index/__init__.py": "",
        "index/db.py": "",
        "api/__init__.py": "from pkg.index import db\n",
        "web/__init__.py": "",
        "web/data.py": "from pkg.api import db\n",  # through the api: fine
        "web/app.py": "def f():\n    from pkg.index.db import open_index\n",
        "commands/__init__.py": "",
        "commands/mcp_tools.py": (
            "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg.index import db\n"),
        "commands/show.py": "from pkg.index import db\n",  # a command: goes through api/
        "commands/recall.py": "from pkg.index import db\n",  # the hot path: exempt
        "store/__init__.py": "from pkg.index import db\n",  # not a front end of the rule
    })
    problems = "\n".join(through_api(package, FRONT_ENDS, exempt=HOT_PATH))
    assert "pkg.web.app -> pkg.index.db: front ends go through api/" in problems
    assert "pkg.commands.mcp_tools -> pkg.index.db" in problems
    assert "pkg.commands.show -> pkg.index.db" in problems
    assert "pkg.web.data" not in problems
    assert "pkg.commands.recall" not in problems
    assert "pkg.store" not in problems


SYNTHETIC_DOC = """
| layer | holds | may import |
| --- | --- | --- |
| `cli/` | click | `commands` |
| `commands/` | commands | everything below |
| `index/` | the index | `store` |
| `store/` | git | nothing |

pygit2 outside store/: none.
"""


def _write(root: Path, files: dict[str, str]) -> Package:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Package.load(root / "pkg")


def test_the_checker_fails_on_each_kind_of_violation(tmp_path: Path) -> None:
    rules = parse_table(SYNTHETIC_DOC)
    package = _write(tmp_path, {
        "__init__.py": "",
        "cli/__init__.py": "from pkg.commands import run\n",
        "commands/__init__.py": "from pkg.index import db\nrun = 1\n",
        # store may import nothing: a forbidden upward import, hidden in a function.
        "store/__init__.py": "def f():\n    from pkg.index import db\n    return db\n",
        "store/git.py": "import pygit2\n",
        "index/__init__.py": "",
        # a cycle inside index/, and SQL where it belongs.
        "index/db.py": "from pkg.index import write\nQ = 'SELECT id FROM entries'\n",
        "index/write.py": "from pkg.index import db\n",
        # SQL and pygit2 outside their layers.
        "commands/show.py": "import pygit2\ndef f(c):\n    return c.execute('SELECT 1')\n",
    })
    problems = "\n".join(check(package, rules))
    assert "pkg.store -> pkg.index.db: store/ may not import index/" in problems
    assert "import cycle: pkg.index.db -> pkg.index.write -> pkg.index.db" in problems
    assert "SQL outside index/: pkg.commands.show" in problems
    assert "pygit2 outside store/: pkg.commands.show" in problems
    assert "pkg.store.git" not in problems  # pygit2 inside store/ is fine
    assert "cli/ may not" not in problems  # cli -> commands is allowed
    assert "pkg.index.db: SQL" not in problems


def test_type_checking_imports_and_allowed_exceptions_pass(tmp_path: Path) -> None:
    doc = SYNTHETIC_DOC.replace("pygit2 outside store/: none.",
                                "pygit2 outside store/: `pkg.commands.log` (measured: 30 ms).")
    package = _write(tmp_path, {
        "__init__.py": "",
        "store/__init__.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.index import db\n"
        ),
        "index/__init__.py": "",
        "index/db.py": "",
        "commands/__init__.py": "",
        "commands/log.py": "import pygit2\n",
    })
    assert check(package, parse_table(doc)) == []
