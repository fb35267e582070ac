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


def _placed(doc: dict) -> dict[str, tuple[str, str | None]]:
    return {w["name"]: (w["vmSize"], w["gpuInstanceProfile"]) for w in doc["workloads"]}


def test_40_gib_costs_no_more_than_the_7g_80gb_that_also_holds_60(capsys):
    forty, sixty = size_json(capsys, "--workload", "llm=40"), size_json(capsys, "--workload", "llm=60")
    assert _placed(sixty) == {"llm": ("Standard_NC24ads_A100_v4", "MIG7g")}
    assert _placed(forty) == {"llm": ("Standard_NC24ads_A100_v4", "MIG7g")}
    assert forty["cost"]["plan"]["hourly"] == sixty["cost"]["plan"]["hourly"] == 3.67


def test_a_second_workload_goes_where_the_whole_plan_is_cheapest(capsys):
    # the H100 NVL node with llm and embed on its two 3g.47gb: 6.98; the A100 (3.673) and a 12 GiB A10 (1.60): 5.273
    doc = size_json(capsys, "--workload", "llm=40", "--workload", "embed=8")
    assert _placed(doc) == {"llm": ("Standard_NC24ads_A100_v4", "MIG7g"), "embed": ("Standard_NV18ads_A10_v5", None)}
    assert doc["cost"]["plan"]["hourly"] == round(3.673 + 1.6, 2)


def test_workloads_fill_the_slices_of_a_node_already_bought(capsys):
    # two 40 GiB workloads share one H100 NVL node (two 3g.47gb, 6.98) rather than two A100 nodes (7.346)
    doc = size_json(capsys, "--workload", "a=40", "--workload", "b=40")
    assert _placed(doc) == {"a": ("Standard_NC40ads_H100_v5", "MIG3g"), "b": ("Standard_NC40ads_H100_v5", "MIG3g")}
    (pool,) = doc["pools"]
    assert (pool["devices"], pool["nodes"], doc["cost"]["plan"]["hourly"]) == (2, 1, 6.98)
    # six 7 GiB replicas on one A100's seven 1g.10gb (3.673) rather than six 8 GiB A10 slices (6 x 0.908)
    doc = size_json(capsys, "--workload", "inference=7x6", "--slice", "training=24x2")
    assert _placed(doc)["inference"] == ("Standard_NC24ads_A100_v4", "MIG1g")
    assert doc["cost"]["plan"]["hourly"] == round(3.673 + 2 * 3.2, 2)
    a10 = size_json(capsys, "--workload", "inference=7x6", "--slice", "training=24x2", "--family", "a10")
    assert a10["cost"]["plan"]["hourly"] == round(6 * 0.908 + 2 * 3.2, 2)


def test_the_margin_is_kept_when_choosing_by_cost(capsys):
    # 9 GiB fits a 1g.10gb (9.0 usable) of the A100's seven (3.673); 9.1 does not, and goes to the H100 NVL's seven
    # 1g.12gb (10.8 usable, 6.98), still less than seven 12 GiB A10 slices (7 x 1.60)
    assert _placed(size_json(capsys, "--workload", "a=9x7"))["a"] == ("Standard_NC24ads_A100_v4", "MIG1g")
    assert _placed(size_json(capsys, "--workload", "a=9.1x7"))["a"] == ("Standard_NC40ads_H100_v5", "MIG1g")


def test_a_baseline_that_is_the_plan_is_printed_once(capsys):
    _, out = size(capsys, "--workload", "llm=40")
    table = out.split("cost:\n", 1)[1].split("problems:", 1)[0]
    assert table.count("3.67 USD") == 1
    assert "One whole GPU per replica: the same cost and GPU memory as right-sized (this plan)." in table
    assert "The MIG pools as planned: the same cost and GPU memory as right-sized (this plan)." in table
    doc = size_json(capsys, "--workload", "llm=40")
    assert set(doc["cost"]) >= {"plan", "wholeA10PerWorkload", "largestSizePool"}  # JSON keeps every line


def test_size_given_a_fleet_stack_says_so_and_names_each_member_to_size(capsys):
    status = main(["size", "--project-dir", str(ROOT), "--stack", "fleet", "--workload", "a=3"])
    err = capsys.readouterr().err
    assert status == 2
    assert ("'fleet' is a fleet stack (it sets `fleet`: the Fleet, its update strategy and auto-upgrade profile), which "
            "has no GPU pools to size; size each member stack instead: `size --stack fleet-eus`, "
            "`size --stack fleet-weu`") in err
    assert "unknown key" not in err


def test_a_size_without_a_price_in_the_region_is_said_not_costed_at_zero(capsys):
    doc = size_json(capsys, "--workload", "x=126.9", "--family", "mig")  # ND96isr_H200_v5: no price in eastus
    (warning,) = [p for p in doc["problems"] if p["kind"] == "no-price"]
    assert warning["message"].startswith("no price known for Standard_ND96isr_H200_v5 in eastus")
    assert doc["cost"]["plan"]["hourly"] is None
    _, out = size(capsys, "--workload", "x=126.9", "--family", "mig")
    assert "0.00 USD" not in out


def test_the_cheapest_plan_costs_a_move_by_the_two_kinds_of_node_it_changes(capsys, monkeypatch):
    # 60 workloads of every size: the search evaluates each move in constant work (it re-counted the whole plan for
    # every candidate, some 90 s for 100 workloads); counted in cost evaluations, not in seconds.
    from components.sizing import choice

    calls = 0
    counted = choice.node_count

    def counting(*args: int) -> int:  # a count, not a list of 600 000 argument tuples
        nonlocal calls
        calls += 1
        return counted(*args)

    monkeypatch.setattr(choice, "node_count", counting)
    sizes = [1, 3, 5, 7, 9, 11, 14, 17, 20, 22, 30, 38, 45, 60, 70]
    argv = [f"--workload=w{i}={sizes[i % len(sizes)]}x{1 + i % 7}" for i in range(60)]
    doc = size_json(capsys, *argv)
    assert len(doc["workloads"]) == 60
    assert 0 < calls < 1_000_000  # some 600 000 here: four per candidate move
