"""The index behind its interface: no SQL outside git_memory/index/, no cycles inside it.

These read the source (ast), so a query added to a command, or an import that
closes a loop between two index modules, fails here rather than in review.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "git_memory"
INDEX = PACKAGE / "index"
SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(VIRTUAL\s+)?TABLE|PRAGMA\s)",
    re.IGNORECASE | re.DOTALL,
)


def _outside_index() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if INDEX not in p.parents]


def _sql_uses(path: Path) -> list[str]:
    """Where `path` imports sqlite3, runs a statement, reaches for a connection, or spells SQL."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "sqlite3" for a in node.names):
            found.append(f"{node.lineno}: import sqlite3")
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            found.append(f"{node.lineno}: from sqlite3")
        elif isinstance(node, ast.Attribute) and node.attr in (
            "execute", "executemany", "executescript", "conn"
        ):
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append(f"{node.lineno}: SQL {node.value[:40]!r}")
    return found


def test_no_sql_and_no_sqlite3_outside_the_index_package() -> None:
    modules = _outside_index()
    assert len(modules) > 50  # the walk found the package
    offenders = {str(p.relative_to(PACKAGE)): _sql_uses(p) for p in modules}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_sql_detector_sees_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import sqlite3\n"
        "def f(index):\n"
        "    return index.conn.execute('SELECT id FROM records WHERE kind = ?', ('entry',))\n"
    )
    found = _sql_uses(sample)
    assert sorted(f.split(":")[1].split()[0] for f in found) == [".conn", ".execute", "SQL", "import"]


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module imported, line, inside a function) for each import outside TYPE_CHECKING blocks."""
    out: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue  # annotations only: never executed
            if isinstance(child, ast.Import):
                out.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module:
                out.append((child.module, child.lineno, in_function))
                # `from git_memory.index import semantic` names a module too
                out.extend((f"{child.module}.{a.name}", child.lineno, in_function) for a in child.names)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(path.read_text(), str(path)), False)
    return out


def _index_graph() -> dict[str, set[str]]:
    """Each index module (`db`, `rank.search`, `build.full`...) -> the index modules it imports."""
    files = {".".join(p.relative_to(INDEX).with_suffix("").parts): p
             for p in INDEX.rglob("*.py") if p.stem != "__init__"}
    prefix = "git_memory.index."
    return {name: {m[len(prefix):] for m, _, _ in _imports(path)
                   if m.startswith(prefix) and m[len(prefix):] in files}
            for name, path in files.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in `graph` (as a path that comes back to its start), or None."""
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return None
        for nxt in sorted(graph.get(node, ())):
            found = walk(nxt, path + [node])
            if found:
                return found
        done.add(node)
        return None

    for start in sorted(graph):
        found = walk(start, [])
        if found:
            return found
    return None


def test_no_import_cycle_inside_the_index_package_even_through_function_level_imports() -> None:
    graph = _index_graph()
    assert {"db", "build.update", "rank.search", "rank.rerank", "rank.hits", "entries"} <= set(graph)
    assert "build.catchup" in graph["db"] and "rank.rerank" in graph["rank.search"]  # edges seen
    assert _cycle(graph) is None
    assert _cycle({"db": {"write"}, "write": {"db"}}) == ["db", "write", "db"]


def test_every_function_level_import_in_the_index_says_why() -> None:
    silent = []
    for path in sorted(INDEX.rglob("*.py")):
        lines = path.read_text().splitlines()
        for module, line, in_function in _imports(path):
            if in_function and "#" not in lines[line - 1]:
                silent.append(f"{path.name}:{line} {module}")
    assert silent == []
