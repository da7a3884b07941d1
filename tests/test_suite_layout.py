"""The test suite's own layout: no test module imports another test module.

What tests share lives in support modules (`conftest.py`, `*_support.py`, `sync_world.py`,
`plumbing.py`...), so a reader can open any `test_*.py` alone and a test file can be
renamed or deleted without breaking another. Imports are found by AST, also those inside
functions; the finder is run on a small synthetic source too, to show that it does fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_test_modules(source: str) -> list[str]:
    """The test modules (`test_*`) that `source` imports, at any depth of the code."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [name for name in names if name.split(".")[0].startswith("test_")]
    return found


def test_no_test_module_imports_another() -> None:
    problems = [f"{path.name} imports {name}"
                for path in sorted(TESTS.glob("test_*.py"))
                for name in imported_test_modules(path.read_text(encoding="utf-8"))]
    assert not problems, ("move what they share into a support module:\n"
                          + "\n".join(problems))


def test_the_finder_sees_every_form_of_import() -> None:
    source = ("import test_a\nfrom test_b import helper\nimport os, test_c as c\n"
              "def f():\n    from test_d import x\n"
              "from build_support import y\nfrom . import test_e\n")
    # a relative import is no test module's name at the top level: tests are no package
    assert sorted(imported_test_modules(source)) == ["test_a", "test_b", "test_c", "test_d"]
