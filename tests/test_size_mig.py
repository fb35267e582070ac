"""`size` across the two families of slice: A10 vGPU slices and MIG slices (A100, H100, H200), compared per workload
at the region's prices (a slice's price = its node's / the slices a node holds); a 40 GiB workload gets one MIG slice
that holds it with the margin, every answer A10 slices give stays as it was, `--family` restricts, and a stack's MIG
pools are used like its A10 pools."""

from __future__ import annotations

import json

import pytest
import yaml

from components.cli import main
from components.sizing.families import offers, too_small
from components.sizing.model import Workload
from components.sizing.prices import load_prices
from tests.conftest import ROOT

ADDED = {"families", "familyComparison"}  # keys only a run with both families open has


def size(capsys, *argv: str) -> tuple[int, str]:
    status = main(["size", "--project-dir", str(ROOT), *argv])
    return status, capsys.readouterr().out


def test_two_40_gib_replicas_get_one_mig_slice_each_that_holds_it_with_the_margin_not_two_a10s(capsys):
    # two replicas fill the H100 NVL node's two 3g.47gb (6.98) for less than two A100 nodes (2 x 3.67); one alone goes
    # to the A100 (test_size_money)
    status, out = size(capsys, "--workload", "big=40x2")
    assert status == 0
    assert ("big: 40 GiB gets 3g.47gb on H100 NVL 94GB (42.3 GiB usable of 47 at the 10 % margin), the cheapest plan's "
            "slice for it (whole nodes paid for): Standard_NC40ads_H100_v5 (MIG3g) at 6.98 USD an hour holds 2, 3.49 "
            "USD a slice; a 3g.40gb (36.0 GiB usable) is too small once the margin is taken") in out
    assert "Standard_NV72ads_A10_v5" not in out and "--slice big=48" not in out
    _, out = size(capsys, "--workload", "big=40x2", "--json")
    doc = json.loads(out)
    (w,) = doc["workloads"]
    assert (w["family"], w["vmSize"], w["gpuInstanceProfile"], w["migProfile"], w["gpuModel"], w["usableGiB"]) == (
        "mig", "Standard_NC40ads_H100_v5", "MIG3g", "3g.47gb", "H100 NVL 94GB", 42.3)
    assert w["claimTemplate"] == "mig-h100-nvl-94gb-3g47gb"
    (pool,) = doc["pools"]
    assert (pool["vmSize"], pool["gpuInstanceProfile"], pool["devices"], pool["nodes"], pool["hourly"]) == (
        "Standard_NC40ads_H100_v5", "MIG3g", 2, 1, 6.98)
    assert doc["gpuPools"] == [{"name": "nc40adsh100", "vmSize": "Standard_NC40ads_H100_v5",
                                "gpuInstanceProfile": "MIG3g", "autoscaling": {"minCount": 1, "maxCount": 1}}]
    assert doc["cost"]["plan"]["hourly"] == 6.98 and doc["fits"] is True


def test_the_3g_40gb_is_too_small_once_the_margin_is_taken():
    small = too_small(Workload("big", 40), 10)
    assert small is not None and small.profile == "3g.40gb"
    h100_nvl = [o for o in offers(load_prices(), "mig") if o.vm_size == "Standard_NC40ads_H100_v5"]
    assert {o.kind.profile: round(o.usable_gib(10), 1) for o in h100_nvl}["3g.47gb"] == 42.3


@pytest.mark.parametrize("argv", [
    ["--workload", "embed=3x6", "--workload", "chat=6x3", "--workload", "asr=10x2", "--workload", "finetune=20"],
    ["--slice", "a=8x2", "--slice", "p=48", "--workload", "b=7"],
    ["--workload", "infer=5x4", "--workload", "embed=2x6", "--sharing", "memory"],
    ["--workload", "training=24x2", "--workload", "inference=7x2", "--stack", "prod"],
    ["--workload", "embed=3x2", "--workload", "ft=20x3", "--stack", "prod"],
])
def test_every_answer_a10_slices_give_is_unchanged(capsys, argv):
    _, both = size(capsys, *argv, "--json")
    _, a10 = size(capsys, *argv, "--json", "--family", "a10")
    both_doc, a10_doc = json.loads(both), json.loads(a10)
    assert {k: v for k, v in both_doc.items() if k not in ADDED} == a10_doc
    assert all(w["family"] in ("a10", None) for w in both_doc["workloads"])


def test_a10_and_mig_are_compared_per_workload_cheapest_a_slice_first(capsys):
    _, out = size(capsys, "--workload", "chat=7x3", "--json")
    doc = json.loads(out)
    assert doc["families"] == ["a10", "mig"]
    rows = [(r["family"], r["vmSize"], r["gpuInstanceProfile"], r["hourlyPerSlice"], r["nodes"], r["hourly"],
             r["planned"]) for r in doc["familyComparison"]]
    assert rows == [("mig", "Standard_NC24ads_A100_v4", "MIG1g", round(3.673 / 7, 4), 1, 3.673, False),
                    ("a10", "Standard_NV12ads_A10_v5", None, 0.908, 3, 2.724, True)]
    _, text = size(capsys, "--workload", "chat=7x3")
    assert "A10 and MIG slices per workload (cheapest a slice first, at the 10 % margin):" in text
    assert ("chat: 1g.10gb on A100 80GB costs 0.52 USD a slice against 0.91 for the planned 8 GiB slice, but its "
            "replicas would pay 3.67 USD an hour for 1 whole Standard_NC24ads_A100_v4 against 2.72 USD alone on the "
            "planned slice; the plan is the cheapest for all the workloads together.") in text
    assert text.splitlines()[-1] == "everything fits"


def test_family_mig_plans_on_mig_slices_alone(capsys):
    status, out = size(capsys, "--workload", "chat=7x3", "--family", "mig", "--json")
    doc = json.loads(out)
    assert status == 0 and "familyComparison" not in doc and doc["families"] == ["mig"]
    (pool,) = doc["pools"]
    assert (pool["vmSize"], pool["gpuInstanceProfile"], pool["devices"], pool["nodes"]) == (
        "Standard_NC24ads_A100_v4", "MIG1g", 3, 1)  # seven 1g.10gb slices on one A100 80GB
    status, out = size(capsys, "--slice", "s=8", "--family", "mig", "--json")
    (problem,) = json.loads(out)["problems"]
    assert status == 3 and problem["message"] == (
        "s: asked for by A10 slice (`--slice`); ask by memory (`--workload NAME=GiB`) to size it on MIG; it is not placed")


def test_what_no_slice_of_either_family_holds_says_both(capsys):
    status, out = size(capsys, "--workload", "llm=300", "--json")
    (problem,) = json.loads(out)["problems"]
    assert status == 3 and problem["kind"] == "no-fit"
    assert problem["message"].startswith("llm: 300 GiB is more than any single A10 slice holds")
    assert problem["message"].endswith("; and more than any MIG slice holds (at most 126.9 GiB usable: 7g.141gb on "
                                       "H200 141GB, with the 10 % margin); it is not placed")


def test_a_stacks_mig_pools_are_used_in_their_own_numbers(capsys):
    # stacks/Pulumi.mig.yaml: a10s (NV12, count 1) and a100mig (NC24ads_A100_v4, MIG3g: two 3g.40gb, count 1)
    status, out = size(capsys, "--stack", "mig", "--workload", "chat=7", "--workload", "big=30x3",
                       "--workload", "huge=40", "--json")
    doc = json.loads(out)
    assert status == 3 and doc["families"] == ["a10", "mig"] and "familyComparison" not in doc
    placed = {w["name"]: (w["vmSize"], w["stackPools"], w["gpuInstanceProfile"]) for w in doc["workloads"]}
    assert placed == {"chat": ("Standard_NV12ads_A10_v5", ["a10s"], None),
                      "big": ("Standard_NC24ads_A100_v4", ["a100mig"], "MIG3g"),
                      "huge": ("Standard_NC24ads_A100_v4", [], "MIG7g")}
    messages = {p["key"]: p["message"] for p in doc["problems"]}
    assert messages["gpuPools[1].count"] == ("a100mig (Standard_NC24ads_A100_v4) has count 1 (2 devices); big needs 2 "
                                             "nodes (3 devices): raise a100mig's count to 2")
    assert messages["gpuPools"] == ("no pool offers 7g.80gb slices of A100 80GB (Standard_NC24ads_A100_v4, "
                                    "gpuInstanceProfile MIG7g) to huge: add one (see the gpuPools snippet)")
    written = yaml.safe_load((ROOT / "stacks" / "Pulumi.mig.yaml").read_text())["config"]["aks-dra-vgpu:gpuPools"]
    assert doc["gpuPools"][0] == written[0] and doc["gpuPools"][1] == {**written[1], "count": 2}
    assert doc["gpuPools"][2] == {"name": "nc24adsa100", "vmSize": "Standard_NC24ads_A100_v4",
                                  "gpuInstanceProfile": "MIG7g", "autoscaling": {"minCount": 1, "maxCount": 1}}


def test_an_unused_mig_pool_is_named_by_its_slices(capsys):
    _, out = size(capsys, "--stack", "mig", "--workload", "chat=7", "--json")
    (warning,) = [p for p in json.loads(out)["problems"] if p["kind"] == "unused-pool"]
    assert warning["message"] == ("a100mig (Standard_NC24ads_A100_v4, 3g.40gb slices of A100 80GB): no workload listed "
                                  "here runs on it; it stays in the suggestion, for work not listed here")


def test_regions_say_where_a_mig_size_is_lacking(capsys):
    _, out = size(capsys, "--workload", "big=40x2", "--regions", "eastus,francecentral,westeurope", "--json")
    rows = {r["region"]: r for r in json.loads(out)["regions"]["rows"]}
    assert rows["eastus"]["hourly"] == 6.98 and rows["westeurope"]["hourly"] == 9.08
    assert rows["francecentral"]["missing"] == ["Standard_NC40ads_H100_v5"]  # no meter there: absent, not invented


def test_two_devices_are_compared_with_two_mig_slices_of_one_gpu(capsys, tmp_path):
    # two 20 GiB devices per replica: both A10s of a Standard_NV72ads_A10_v5 (6.52 an hour) or two 3g.40gb of one A100
    # 80GB (Standard_NC24ads_A100_v4, 3.67): the plan takes the cheaper, and the comparison shows both, pairs counted
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump([{"name": "pair", "memoryGiB": 20, "devices": 2}]))
    status, out = size(capsys, "--workloads", str(path), "--json")
    doc = json.loads(out)
    assert status == 0
    rows = [(r["family"], r["slice"], r["vmSize"], r["nodes"], r["hourly"], r["planned"]) for r in doc["familyComparison"]]
    assert rows == [("mig", "2 x 3g.40gb on A100 80GB", "Standard_NC24ads_A100_v4", 1, 3.673, True),
                    ("a10", "2 x 24 GiB slice", "Standard_NV72ads_A10_v5", 1, 6.52, False)]
    (w,) = doc["workloads"]
    assert (w["claimTemplate"], w["devices"], doc["cost"]["plan"]["hourly"]) == ("mig-2x-a100-80gb-3g40gb", 2, 3.67)
    _, a10 = size(capsys, "--workloads", str(path), "--json", "--family", "a10")
    assert json.loads(a10)["cost"]["plan"]["hourly"] == 6.52  # the A10 pair, as before, when A10 alone is asked for


def test_pairs_of_mig_slices_fill_each_gpu_before_a_node_is_added():
    from components.sizing.families import offer
    from components.sizing.placement import node_count

    assert node_count(7, pairs=4, singles=3, pairs_per_node=3) == 2  # 1g.10gb: three pairs a GPU, singles in the rest
    assert node_count(7, pairs=4, singles=7, pairs_per_node=3) == 3
    assert node_count(2, pairs=3, singles=3) == 5  # an NV72ads: a pair takes the node, as before
    mig1g = offer("Standard_NC24ads_A100_v4", "MIG1g", load_prices())
    assert (mig1g.pairs, mig1g.nodes(Workload("p", 9, count=4, devices=2))) == (3, 2)
    assert not offer("Standard_NC24ads_A100_v4", "MIG7g", load_prices()).holds(Workload("p", 9, devices=2), 10)
