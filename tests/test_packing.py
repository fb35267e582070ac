"""The sizing planner's packing onto slices shared by memory (first-fit decreasing), with nodes and cost."""

from __future__ import annotations

import json

import pytest

from components.cli import main
from components.sizing.model import Workload
from components.sizing.packing import first_fit_decreasing, pack_shared, replicas_of
from components.sizing.prices import load_prices


def test_first_fit_decreasing_fills_the_first_slice_with_room_largest_first():
    slices = first_fit_decreasing([("a", 2), ("b", 5), ("c", 5), ("d", 3), ("e", 5)], 10.8)
    assert [s.replicas for s in slices] == [(("b", 5), ("c", 5)), (("e", 5), ("d", 3), ("a", 2))]
    assert first_fit_decreasing([("big", 12)], 10.8) is None  # larger than a slice holds


def test_a_24_gb_slice_serves_four_5_gb_inference_pods():
    plan = pack_shared([Workload("infer", 5, count=4)], 10, load_prices())
    (whole,) = [o for o in plan.options if o.vm_size == "Standard_NV36ads_A10_v5"]
    assert (len(whole.slices), whole.nodes, whole.requested_gib, whole.provisioned_gib) == (1, 1, 20, 24)
    assert whole.slices[0].used_gib == 20 <= whole.usable_gib


def test_memory_is_asked_in_whole_gib_and_slices_or_pairs_are_not_shared():
    shared, kept = replicas_of([Workload("a", 2.2, count=2), Workload("s", 8, slice_gib=8), Workload("p", 24, devices=2)])
    assert shared == [("a#1", 3), ("a#2", 3)] and kept == ["s", "p"]


def test_the_cheapest_packing_comes_first_and_costs_add_up():
    prices = load_prices()
    plan = pack_shared([Workload("infer", 5, count=4), Workload("embed", 2, count=6)], 10, prices)
    hourly = [o.hourly for o in plan.options]
    assert plan.best is plan.options[0] and hourly == sorted(hourly)
    for o in plan.options:
        assert o.hourly == pytest.approx(o.nodes * prices.hourly(o.vm_size))
        assert all(s.used_gib <= o.usable_gib for s in o.slices)
        assert sorted(n for s in o.slices for n, _ in s.replicas) == sorted(
            [f"infer#{i}" for i in range(1, 5)] + [f"embed#{i}" for i in range(1, 7)])


def test_size_command_shows_the_packing_beside_the_plan(capsys):
    assert main(["size", "--workload", "infer=5x4", "--sharing", "memory", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["fits"] is True and document["workloads"]  # the one-slice-per-replica plan is still there
    assert document["sharedByMemory"]["best"]["slices"] >= 1
    assert main(["size", "--workload", "infer=5x4"]) == 0
    assert "Shared by memory" not in capsys.readouterr().out  # only when asked (or the stack shares)
