"""No module of the package imports, directly or through others, a module that imports it: the import graph of
`components` (every `from .x import`, at the top of a module or inside a function) has no circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import parsed

PACKAGE = Path(__file__).resolve().parent.parent / "components"


def _module_name(path: Path, package: Path) -> str:
    parts = path.with_suffix("").relative_to(package.parent).parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports (relative imports; a name imported from a
    package counts as its submodule when it is one, else as the package's `__init__`)."""
    files = {_module_name(p, package): p for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in files else target)
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names if alias.name in files}
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_finder_sees_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "components"
    (package / "room").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "room" / "__init__.py").write_text("")
    (package / "room" / "a.py").write_text("def f():\n    from .b import g\n")
    (package / "room" / "b.py").write_text("from . import a\n")
    assert circles(import_graph(package)) == [["components.room.a", "components.room.b"]]


SUBPACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())


@pytest.fixture(scope="module")
def package_circles() -> list[list[str]]:
    """The circles of this checkout's package, found once for every room: the graph is read from the sources, which a
    run does not change (parsing all of them is a third of a second)."""
    return circles(import_graph())


@pytest.mark.parametrize("room", SUBPACKAGES)
def test_no_import_circle(room: str, package_circles: list[list[str]]) -> None:
    found = [c for c in package_circles if any(m.startswith(f"components.{room}") for m in c)]
    assert found == [], f"modules that import each other: {found}"
