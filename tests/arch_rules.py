"""The import-rule checker behind tests/test_architecture.py (no tests here).

`parse_table` reads the layer table of docs/architecture.md (a Markdown table whose first
column names layers in backticks, `index/` or `writer.py`, and whose last column says what
each may import: backticked layers or modules, "everything below" or "nothing"), and the line
"pygit2 outside store/: ..." naming the modules allowed to import pygit2 elsewhere.
`check` walks every module of a package with `ast` and returns one line per problem:
a forbidden import (imports inside functions count; `if TYPE_CHECKING:` blocks do not),
an import cycle between modules (`if TYPE_CHECKING:` imports included: a cycle the type
checker sees is one), SQL outside `index/`, pygit2 outside `store/`.
`HOT_PATH` names the modules `git memory recall` and the git hook shims may load, and
`fenced` runs an entry point in a fresh interpreter and says what it loaded beyond them.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# The hot path (docs/architecture.md): every module of the package that `git memory recall`
# (index current) or `python -m git_memory.commands.hook` (what the shims run) loads. Only
# these may keep imports inside functions without a heavy optional dependency as reason,
# and none of them may load HEAVY.
HOT_PATH = (
    "git_memory", "git_memory.entry", "git_memory.exits", "git_memory.errors",
    "git_memory.limits", "git_memory.isotime", "git_memory.ui",
    "git_memory.commands", "git_memory.commands.recall", "git_memory.commands.hook",
    "git_memory.index", "git_memory.index.rank", "git_memory.index.db", "git_memory.index.entries",
    "git_memory.index.files", "git_memory.index.rank.fusion", "git_memory.index.rank.hits", "git_memory.index.rank.rerank",
    "git_memory.index.schema", "git_memory.index.rank.search", "git_memory.index.rank.semantic",
    "git_memory.index.rank.semantic_bpe", "git_memory.index.rank.tokens",
    "git_memory.store", "git_memory.store.config", "git_memory.store.gitenv",
    "git_memory.store.leftovers", "git_memory.store.locate", "git_memory.store.loose",
    "git_memory.store.sources",
)
# What the hot path never loads: each costs milliseconds to import (typing, dataclasses,
# calendar and _strptime included) or is a heavy dependency.
HEAVY = ("click", "yaml", "pygit2", "typing", "dataclasses", "calendar", "_strptime",
         "numpy", "tokenizers", "safetensors", "wordllama", "mcp", "starlette", "jinja2")


def fenced(call: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run `call` (Python source; `rc` its exit code) in a fresh interpreter in `cwd`; the
    process, and one line per heavy module or package module off HOT_PATH it loaded."""
    code = ("import sys, json\nbefore = set(sys.modules)\n" + call +
            "\nsys.stderr.write('\\nLOADED=' + json.dumps(sorted(set(sys.modules) - before)))"
            "\nsys.exit(rc)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                            text=True, timeout=60)
    loaded = json.loads(result.stderr.rpartition("LOADED=")[2] or "[]")
    heavy = sorted({m.split(".")[0] for m in loaded} & set(HEAVY))
    outside = [m for m in loaded if m.startswith("git_memory") and m not in HOT_PATH]
    return result, [f"heavy: {m}" for m in heavy] + [f"off the hot path: {m}" for m in outside]


def unexplained_inner_imports(root: Path) -> list[str]:
    """One line per import inside a function that does not say why on its line
    (`# lazy: reason`): only a hot-path module (HOT_PATH) or a heavy optional dependency
    loaded on use has one; everything else imports at the top of its module."""
    problems: list[str] = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)) and \
                        "# lazy:" not in lines[sub.lineno - 1]:
                    problems.append(f"{path.relative_to(root.parent)}:{sub.lineno}: "
                                    f"{lines[sub.lineno - 1].strip()}")
    return sorted(set(problems))


_SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|WITH|REPLACE)\b",
                  re.IGNORECASE)
_SQL_CALLS = {"execute", "executemany", "executescript"}


@dataclass
class Rules:
    layers: list[str]                      # in table order: "cli/", "writer.py", ...
    may_import: dict[str, set[str]]        # row -> layers or dotted modules it may import
    row_of: dict[str, str] = field(default_factory=dict)  # each name -> its row's first name
    everyone_may_import: set[str] = field(default_factory=set)
    pygit2_allowed: set[str] = field(default_factory=set)

    def layer_of(self, module: str) -> str | None:
        """`pkg.index.db` -> `index/`; `pkg.writer` -> `writer.py`; the root package -> ''.
        Names sharing a row (`model.py`, `errors.py`) are one layer, named by the first."""
        parts = module.split(".")[1:]
        if not parts:
            return ""
        for candidate in (parts[0] + "/", parts[0] + ".py"):
            if candidate in self.row_of:
                return self.row_of[candidate]
        return None


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def parse_table(doc: str) -> Rules:
    rows: list[tuple[list[str], str]] = []
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        rows.append((_names(cells[0]), cells[-1]))
    layers = [name for names, _ in rows for name in names]
    row_of = {name: names[0] for names, _ in rows for name in names}
    may: dict[str, set[str]] = {}
    for index, (names, allowed) in enumerate(rows):
        if "everything below" in allowed:
            targets = {n for later, _ in rows[index + 1:] for n in later}
        elif allowed.strip().startswith("nothing"):
            targets = set()
        else:
            targets = set()
        for name in _names(allowed):
            targets.add(name)
        may[names[0]] = targets
    allowed_pygit2: set[str] = set()
    everyone: set[str] = set()
    for line in doc.splitlines():
        if line.startswith("pygit2 outside store/:"):
            allowed_pygit2 |= set(_names(line))
        if line.startswith("Every layer may import"):
            everyone |= set(_names(line))
    return Rules(layers, may, row_of, everyone, allowed_pygit2)


@dataclass
class Package:
    name: str
    modules: dict[str, ast.Module]

    @classmethod
    def load(cls, root: Path) -> "Package":
        modules: dict[str, ast.Module] = {}
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root.parent).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = ast.parse(path.read_text(encoding="utf-8"), str(path))
        return cls(root.name, modules)


def _outside_type_checking(tree: ast.AST) -> list[ast.AST]:
    """Every node except those under `if TYPE_CHECKING:`."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _imports(module: str, is_package: bool, tree: ast.Module, package: Package,
             type_checking: bool = False) -> set[str]:
    """The package's own modules that `module` imports, resolved to the deepest known name
    (with `type_checking`, those under `if TYPE_CHECKING:` too)."""
    targets: set[str] = set()
    base = module if is_package else module.rpartition(".")[0]
    for node in (ast.walk(tree) if type_checking else _outside_type_checking(tree)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            root = node.module or ""
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                root = ".".join(anchor + ([root] if root else []))
            names = [f"{root}.{alias.name}" for alias in node.names]
        for name in names:
            while name and name not in package.modules:
                name = name.rpartition(".")[0]
            if name and name != module and name.startswith(package.name + "."):
                targets.add(name)
    return targets


def _allowed(rules: Rules, src_layer: str, target: str) -> bool:
    target_layer = rules.layer_of(target)
    if target_layer in (None, "", src_layer):
        return True
    # The package root ('') follows the row naming `__init__.py`, if the table has one.
    row = src_layer or rules.row_of.get("__init__.py", "")
    allowed = rules.may_import.get(row, set()) | rules.everyone_may_import
    names = {n for n, row in rules.row_of.items() if row == target_layer}
    if names & allowed or {n.rstrip("/").removesuffix(".py") for n in names} & allowed:
        return True
    if target_layer in allowed or target_layer.rstrip("/").removesuffix(".py") in allowed:
        return True
    dotted = target.split(".", 1)[1]
    return any(dotted == a or dotted.startswith(a + ".") for a in allowed)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through each strongly connected group of modules."""
    found: list[list[str]] = []
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        # breadth-first search back to `start`
        paths = {start: [start]}
        queue = [start]
        cycle: list[str] | None = None
        while queue and cycle is None:
            node = queue.pop(0)
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    cycle = paths[node] + [start]
                    break
                if nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    queue.append(nxt)
        if cycle:
            found.append(cycle)
            seen.update(cycle)
    return found


def _has_sql(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _SQL_CALLS:
                return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _SQL.match(node.value) and re.search(r"\b(FROM|INTO|TABLE|SET|VALUES)\b",
                                                    node.value, re.IGNORECASE):
                return True
    return False


def _uses_pygit2(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "pygit2" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pygit2":
            return True
    return False


def check(package: Package, rules: Rules) -> list[str]:
    problems: list[str] = []
    graph: dict[str, set[str]] = {}
    for module, tree in package.modules.items():
        is_package = any(other.startswith(module + ".") for other in package.modules)
        layer = rules.layer_of(module)
        graph[module] = _imports(module, is_package, tree, package, type_checking=True)
        for target in sorted(_imports(module, is_package, tree, package)):
            if layer is not None and not _allowed(rules, layer, target):
                problems.append(f"{module} -> {target}: {layer} may not import "
                                f"{rules.layer_of(target)}")
        if layer != "index/" and _has_sql(tree):
            problems.append(f"SQL outside index/: {module}")
        if layer != "store/" and _uses_pygit2(tree) and module not in rules.pygit2_allowed:
            problems.append(f"pygit2 outside store/: {module}")
    for cycle in _cycles(graph):
        problems.append("import cycle: " + " -> ".join(cycle))
    return problems


def through_api(package: Package, front_ends: tuple[str, ...], below: str = "index",
                exempt: tuple[str, ...] = ()) -> list[str]:
    """One line per module of the front ends (dotted prefixes below the package: `web`,
    `commands`), but the `exempt` modules, importing a `below` module in any way,
    type-checking imports included: they read through `api` (docs/architecture.md)."""
    problems: list[str] = []
    ends = tuple(f"{package.name}.{end}" for end in front_ends)
    spared = {f"{package.name}.{name}" for name in exempt}
    for module, tree in package.modules.items():
        if not module.startswith(ends) or module in spared:
            continue
        is_package = any(other.startswith(module + ".") for other in package.modules)
        for target in sorted(_imports(module, is_package, tree, package, type_checking=True)):
            if target.startswith(f"{package.name}.{below}.") or target == f"{package.name}.{below}":
                problems.append(f"{module} -> {target}: front ends go through api/")
    return problems
