"""`size` decides by its own numbers: one rule says what a slice holds and what it prints as usable; the plan is the
cheapest of the slices on sale (both families, whole nodes paid for, slices already bought filled first); a baseline
that is the plan itself is not printed again."""

from __future__ import annotations

import json

import pytest

from components.cli import main
from components.kubernetes.selectors import holds, usable_memory_gib
from tests.conftest import ROOT


def size(capsys, *argv: str) -> tuple[int, str]:
    status = main(["size", "--project-dir", str(ROOT), *argv])
    return status, capsys.readouterr().out


def size_json(capsys, *argv: str) -> dict:
    status, out = size(capsys, *argv, "--json")
    assert status in (0, 3), out
    return json.loads(out)


@pytest.mark.parametrize(("nominal", "margin", "usable"), [(4, 10, 3.6), (8, 10, 7.2), (141, 10, 126.9), (4, 13, 3.4),
                                                           (80, 25, 60.0)])
def test_what_a_slice_prints_as_usable_is_what_it_holds(nominal, margin, usable):
    assert usable_memory_gib(nominal, margin) == usable
    assert f"{usable_memory_gib(nominal, margin):.1f}" == f"{usable:.1f}"
    assert holds(nominal, margin, usable)
    assert not holds(nominal, margin, usable + 0.01)


def test_a_workload_of_exactly_a_4_gib_slices_usable_memory_goes_on_it(capsys):
    _, out = size(capsys, "--workload", "x=3.6", "--family", "a10")
    assert "x         3.6 GiB  1      1        -     4 GiB (3.6 GiB usable)  Standard_NV6ads_A10_v5" in out
    assert "needs the 8 GiB slice" not in out
    _, out = size(capsys, "--workload", "x=3.61", "--family", "a10")
    assert "x: 3.61 GiB needs the 8 GiB slice: a 4 GiB slice offers 3.6 GiB after the 10 % margin" in out


def test_a_workload_of_exactly_a_7g_141gbs_usable_memory_is_placed_on_it(capsys):
    doc = size_json(capsys, "--workload", "x=126.9", "--family", "mig")
    (w,) = doc["workloads"]
    assert (w["migProfile"], w["usableGiB"]) == ("7g.141gb", 126.9)
    doc = size_json(capsys, "--workload", "x=127", "--family", "mig")
    assert doc["workloads"][0]["vmSize"] is None
    assert "at most 126.9 GiB usable: 7g.141gb on H200 141GB" in doc["problems"][0]["message"]


def _sizing_imports() -> dict[str, set[str]]:
    """Each module of components/sizing and the sibling modules it imports (at run time or for type checking)."""
    import ast

    folder = ROOT / "components" / "sizing"
    found: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        found[path.stem] = names
    return found


def test_the_sizing_model_holds_types_only_and_no_module_of_sizing_imports_one_that_imports_it():
    graph = _sizing_imports()
    assert graph["model"] == set()

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for n in graph.get(todo.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    assert [m for m in graph if m in reach(m)] == []
