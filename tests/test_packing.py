"""The sizing planner's packing onto slices shared by memory (first-fit decreasing), with nodes and cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from components.cli import main
from components.kubernetes import shared_slices
from components.kubernetes.shared_slices import MIB, published_policy
from components.sizing import packing
from components.sizing.model import Workload
from components.sizing.packing import first_fit_decreasing, pack_shared, replicas_of, slice_policy
from components.sizing.prices import load_prices
from tests.conftest import ROOT


def test_first_fit_decreasing_fills_the_first_slice_with_room_largest_first():
    twelve = slice_policy(12, 10)  # a 12 GiB slice at a 10 % margin: 11059 MiB, 10.8 GiB
    assert twelve.capacity_mib == 11059
    slices = first_fit_decreasing([("a", 2), ("b", 5), ("c", 5), ("d", 3), ("e", 5)], twelve)
    assert [s.replicas for s in slices] == [(("b", 5), ("c", 5)), (("e", 5), ("d", 3), ("a", 2))]
    assert first_fit_decreasing([("big", 12)], twelve) is None  # larger than a slice holds


def test_room_on_a_slice_is_the_schedulers_consumable_capacity_rule():
    assert packing.fits is shared_slices.fits  # one rule, the allocator's, not a copy
    exactly = published_policy(10 * 1024 * MIB)  # a slice reporting exactly 10 GiB
    assert [s.replicas for s in first_fit_decreasing([("a", 5), ("b", 5)], exactly)] == [(("a", 5), ("b", 5))]
    one_short = published_policy((10 * 1024 - 1) * MIB)  # one MiB less: the scheduler refuses the second claim
    assert [s.replicas for s in first_fit_decreasing([("a", 5), ("b", 5)], one_short)] == [(("a", 5),), (("b", 5),)]


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


def size_out(capsys, *argv: str) -> tuple[int, str]:
    status = main(["size", *argv])
    return status, capsys.readouterr().out


def test_the_plain_plan_is_named_cheaper_when_it_is(capsys):
    status, out = size_out(capsys, "--workload", "infer=3.5x3", "--sharing", "memory")
    assert status == 0
    assert ("The one-slice-per-replica plan above is cheaper: 1.36 USD an hour against 2.72 USD for the cheapest "
            "sharing, on Standard_NV12ads_A10_v5; sharing saves nothing for these workloads.") in out
    (cheapest,) = [line for line in out.splitlines() if "(cheapest)" in line]
    assert cheapest.split()[:6] == ["one", "slice", "per", "replica,", "the", "plan"] and "1.36 USD" in cheapest
    assert "Standard_NV12ads_A10_v5, shared (cheapest)" not in out


def test_four_small_and_one_large_workload_cost_less_on_their_own_slices(capsys):
    _, out = size_out(capsys, "--workload", "a=4x3", "--workload", "b=20", "--sharing", "memory", "--format", "markdown")
    assert ("The one-slice-per-replica plan above is cheaper: 5.92 USD an hour against 6.40 USD for the cheapest "
            "sharing, on Standard_NV36ads_A10_v5; sharing saves nothing for these workloads.") in out
    assert "| one slice per replica, the plan above (cheapest) | - | 4 | 4 | 5.92 USD |" in out
    assert "| `Standard_NV36ads_A10_v5`, shared | 21.6 | 2 | 2 | 6.40 USD |" in out


def test_sharing_is_named_cheaper_when_it_is_with_the_saving(capsys):
    status, out = size_out(capsys, "--workload", "infer=5x4", "--sharing", "memory", "--json")
    shared = json.loads(out)["sharedByMemory"]
    assert status == 0 and shared["cheaper"] == "shared"
    assert shared["verdict"] == ("Sharing is cheaper: on Standard_NV18ads_A10_v5 it costs 3.20 USD an hour against "
                                 "3.63 USD for the one-slice-per-replica plan above (0.43 USD an hour less, 12%).")
    assert shared["plan"] == {"hourly": 3.632, "monthly": 2651.36, "nodes": 4, "devices": 4}
    # the keys the document had before stay, with their meaning
    assert {"best", "options", "notShared"} <= set(shared)
    assert shared["best"]["vmSize"] == "Standard_NV18ads_A10_v5" and shared["best"]["hourly"] == 3.2
    assert shared["best"]["packing"] == [["infer#1 5 GiB", "infer#2 5 GiB"], ["infer#3 5 GiB", "infer#4 5 GiB"]]


def test_text_output_is_text_and_the_summary_line_comes_last(capsys):
    _, out = size_out(capsys, "--workload", "infer=3.5x3", "--sharing", "memory")
    assert "|" not in out and "`" not in out.split("shared by memory", 1)[1]
    assert out.splitlines()[-1] == "everything fits"
    assert out.index("gpuPools that would fit:") < out.index("shared by memory (pools with sharing: memory):")
    status, out = size_out(capsys, "--workload", "llm=300", "--workload", "infer=5x4", "--sharing", "memory")
    assert status == 3 and out.splitlines()[-1] == "something does not fit (exit 3)"


def test_workloads_that_keep_their_slices_are_costed_in_every_option(capsys):
    _, out = size_out(capsys, "--workload", "infer=5x4", "--slice", "big=24", "--sharing", "memory", "--json")
    shared = json.loads(out)["sharedByMemory"]
    assert shared["notShared"] == ["big"]
    best = shared["best"]
    assert (best["vmSize"], best["hourly"], best["totalHourly"], best["notShared"]) == (
        "Standard_NV18ads_A10_v5", 3.2, 6.4, ["big"])  # the packing, and big on its own whole A10
    assert shared["plan"]["hourly"] == 6.832 and shared["cheaper"] == "shared"


def write_project(tmp_path: Path, pools: list[dict]) -> Path:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    config = {"aks-dra-vgpu:cluster": {"name": "aks-shared", "location": "eastus", "resourceGroup": {"name": "rg"},
                                       "kubernetesVersion": "1.36"},
              "aks-dra-vgpu:draDriver": {"chartVersion": "0.5.0"}, "aks-dra-vgpu:gpuPools": pools}
    (tmp_path / "stacks" / "Pulumi.shared.yaml").write_text(yaml.safe_dump({"config": config}))
    return tmp_path


SHARED_POOL = {"name": "infer", "vmSize": "Standard_NV36ads_A10_v5", "sharing": "memory",
               "autoscaling": {"minCount": 1, "maxCount": 1}}


def test_a_stacks_shared_pool_is_the_option_in_its_own_numbers(capsys, tmp_path: Path):
    project = write_project(tmp_path, [{"name": "small", "vmSize": "Standard_NV12ads_A10_v5", "count": 4}, SHARED_POOL])
    _, out = size_out(capsys, "--project-dir", str(project), "--stack", "shared", "--workload", "infer=5x4",
                      "--workload", "embed=3x6")
    section = out.split("shared by memory (the stack's pools with sharing: memory):\n", 1)[1]
    assert "infer (Standard_NV36ads_A10_v5), shared" in section
    assert "Standard_NV12ads_A10_v5, shared" not in section  # the stack's pools, not every size
    assert ("- infer (Standard_NV36ads_A10_v5) runs at most 1 node; this packing needs 2: raise "
            "gpuPools[1].autoscaling.maxCount to 2") in section
    assert out.splitlines()[-1].startswith("something does not fit")


def test_a_shared_spot_pool_takes_only_the_workloads_that_opt_in(capsys, tmp_path: Path):
    spot = {**SHARED_POOL, "spot": {}, "autoscaling": {"minCount": 1, "maxCount": 3}}
    project = write_project(tmp_path, [{"name": "small", "vmSize": "Standard_NV12ads_A10_v5", "count": 4}, spot])
    _, out = size_out(capsys, "--project-dir", str(project), "--stack", "shared", "--workload", "batch=5x4",
                      "--workload", "chat=6x2", "--spot", "batch", "--json")
    (option,) = json.loads(out)["sharedByMemory"]["options"]
    assert (option["stackPool"], option["notShared"]) == ("infer", ["chat"])
    assert option["packing"] == [["batch#1 5 GiB", "batch#2 5 GiB", "batch#3 5 GiB", "batch#4 5 GiB"]]


def test_a_replica_no_shared_slice_holds_keeps_its_own_slice_and_is_named(capsys, tmp_path: Path):
    small = {**SHARED_POOL, "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {"minCount": 1, "maxCount": 4}}
    project = write_project(tmp_path, [small])
    _, out = size_out(capsys, "--project-dir", str(project), "--stack", "shared", "--workload", "embed=2x2",
                      "--workload", "chat=7.5", "--json")
    shared = json.loads(out)["sharedByMemory"]
    assert shared["notShared"] == ["chat"] and shared["best"]["packing"] == [["embed#1 2 GiB", "embed#2 2 GiB"]]
    assert shared["notes"] == ["chat asks for 8 GiB a replica (7.5 rounded up to whole GiB), more than a shared slice "
                               "holds (infer: 7.2 GiB); it keeps its own slice"]


def test_first_fit_skips_only_slices_already_full_for_a_size():
    """The search resumes where a size last found room: the same slices as trying every slice from the first."""
    replicas = [(f"r{i}", 1 + (i * 7) % 9) for i in range(60)]
    policy = slice_policy(24, 10)

    def naive() -> list[list[int]]:
        bins: list[list[int]] = []
        for _, gib in sorted(replicas, key=lambda r: (-r[1], r[0])):
            slot = next((b for b in bins if shared_slices.fits([*(g * 1024 for g in b), gib * 1024], policy)), None)
            if slot is None:
                bins.append(slot := [])
            slot.append(gib)
        return bins

    packed = first_fit_decreasing(replicas, policy)
    assert packed is not None and [[g for _, g in s.replicas] for s in packed] == naive()
