"""`size` places a workload asked for by an extended resource name only on the devices that name's DeviceClass selects:
a MIG name on its profile, an A10 name on its size, `nvidia.com/gpu` on what the stack makes it (the chart's
`gpu.nvidia.com` selects `type == 'gpu'`: any A10 slice, never a MIG one); a memory stated larger than those slices
hold does not fit (exit 3); and the output says only what the user wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cli import main
from components.sizing.extended import ANY_A10, ExtendedAsk, resolve
from components.sizing.model import Workload
from components.sizing.planner import plan_sizing
from components.sizing.prices import load_prices
from tests.conftest import ROOT
from tests.verify_cluster import stack

SERVING = yaml.safe_load((ROOT / "stacks" / "Pulumi.serving.yaml").read_text())["config"]


def run(capsys, *argv: str, project: Path = ROOT) -> tuple[int, str, str]:
    status = main(["size", "--project-dir", str(project), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def serving_with(tmp_path: Path, pools: list[dict[str, Any]], extended: dict[str, Any] | None, **samples: Any) -> Path:
    """A project whose stack `t` is `serving` (Kubernetes 1.36) with these GPU pools, extendedResources and samples."""
    (tmp_path / "stacks").mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    config = {**SERVING, "aks-dra-vgpu:gpuPools": pools}
    config["aks-dra-vgpu:samples"] = {**config["aks-dra-vgpu:samples"], **samples}
    config.pop("aks-dra-vgpu:extendedResources")
    if extended is not None:
        config["aks-dra-vgpu:extendedResources"] = extended
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return tmp_path


def mig_pool(name: str, profile: str, count: int = 1) -> dict[str, Any]:
    return {"name": name, "vmSize": "Standard_NC24ads_A100_v4", "gpuInstanceProfile": profile, "count": count}


@pytest.mark.parametrize("profile, model", [("1g.10gb", "A100 80GB"), ("2g.20gb", "A100 80GB"),
                                            ("1g.5gb", "A100 40GB")])
def test_a_mig_name_is_placed_on_its_profile_never_an_a10(capsys, profile, model):
    status, out, _ = run(capsys, "--workload", f"a=nvidia.com/mig-{profile}", "--json")
    doc = json.loads(out)
    (w,) = doc["workloads"]
    assert status == 0 and (w["family"], w["migProfile"], w["gpuModel"]) == ("mig", profile, model)
    assert w["extendedResource"] == f"nvidia.com/mig-{profile}" and w["memoryGiB"] is None
    assert all(row["family"] == "mig" and profile in row["slice"] for row in doc.get("familyComparison", []))
    assert f"a: nvidia.com/mig-{profile} gets {profile} on {model}" in " ".join(doc["notes"])


def test_on_a_stack_a_mig_name_goes_to_the_pool_of_its_profile(capsys, tmp_path: Path):
    # a 3g.40gb and a 4g.40gb hold the same 40 GiB; nvidia.com/mig-4g.40gb is served by the 4g.40gb pool alone
    project = serving_with(tmp_path, [mig_pool("m3", "MIG3g", 2), mig_pool("m4", "MIG4g", 3)], {"slices": True})
    status, out, _ = run(capsys, "--stack", "t", "--workload", "a=nvidia.com/mig-4g.40gbx3", "--json", project=project)
    doc = json.loads(out)
    (w,) = doc["workloads"]
    assert status == 0 and (w["stackPools"], w["migProfile"], w["claimTemplate"]) == (["m4"], "4g.40gb",
                                                                                     "mig-a100-80gb-4g40gb")


def test_nvidia_gpu_left_to_the_chart_gets_an_a10_slice_never_a_mig_one(capsys, tmp_path: Path):
    # nvidiaGpu unset on 1.36: the package keeps its class with the chart's meaning, `type == 'gpu'` (any A10 slice)
    pools = [mig_pool("a100mig", "MIG1g"), {"name": "whole", "vmSize": "Standard_NV36ads_A10_v5", "count": 1}]
    project = serving_with(tmp_path, pools, None)
    status, out, _ = run(capsys, "--stack", "t", "--workload", "a=nvidia.com/gpu", "--json", project=project)
    doc = json.loads(out)
    (w,) = doc["workloads"]
    assert status == 0 and (w["family"], w["stackPools"], w["sizeClassGiB"]) == ("a10", ["whole"], 24)
    assert w["memoryGiB"] is None and w["extendedResource"] == "nvidia.com/gpu"
    assert ("a: nvidia.com/gpu -> the stack's class aks-dra-vgpu-nvidia-gpu (any A10 slice, whatever its size; never "
            "a MIG slice)") in doc["notes"]
    status, text, _ = run(capsys, "--stack", "t", "--workload", "a=nvidia.com/gpu", project=project)
    assert not re.search(r"(?<![0-9.])4 GiB", text.split("workloads:")[1].split("pools:")[0])  # never written
    assert "  a         nvidia.com/gpu  1      1" in text


def test_nvidia_gpu_left_to_the_chart_on_a_mig_only_stack_is_served_by_nothing(capsys, tmp_path: Path):
    project = serving_with(tmp_path, [mig_pool("a100mig", "MIG1g")], None)
    status, out, _ = run(capsys, "--stack", "t", "--workload", "a=nvidia.com/gpu", "--json", project=project)
    doc = json.loads(out)
    assert status == 3 and doc["workloads"][0]["vmSize"] is None
    assert [p["message"] for p in doc["problems"] if p["kind"] == "no-fit"] == [
        "a: nvidia.com/gpu is served by A10 slices alone (4 GiB slice or 8 GiB slice or 12 GiB slice or 24 GiB slice), "
        "and no pool of the stack offers them: such pods stay Pending; it is not placed"]


def test_the_samples_deprecated_name_gets_any_a10_slice(capsys, tmp_path: Path):
    pools = SERVING["aks-dra-vgpu:gpuPools"]
    project = serving_with(tmp_path, pools, {"nvidiaGpu": "8GiB"}, extendedResourceName="example.com/a10")
    status, out, _ = run(capsys, "--stack", "t", "--workload", "a=12GiB@example.com/a10", "--json", project=project)
    doc = json.loads(out)
    assert status == 0 and [(w["sizeClassGiB"], w["stackPools"]) for w in doc["workloads"]] == [(24, ["large"])]
    assert ("a: example.com/a10 is served by the samples' DeviceClass a10-vgpu (any A10 slice, whatever its size; never "
            "a MIG slice): a pod may get a slice smaller than it needs; ask for a slice size's own name "
            "(extendedResources.slices)") in [p["message"] for p in doc["problems"]]


def test_a_stated_memory_larger_than_the_names_slice_does_not_fit(capsys):
    status, out, _ = run(capsys, "--stack", "serving", "--workload", "llm=20GiB@nvidia.com/gpu", "--json")
    doc = json.loads(out)
    assert status == 3 and doc["fits"] is False
    (w,) = doc["workloads"]
    assert (w["vmSize"], w["memoryGiB"]) == (None, 20.0)
    (error,) = [p for p in doc["problems"] if p["severity"] == "error"]
    assert error == {"severity": "error", "kind": "extended-too-small", "key": "workloads[0]", "message": (
        "llm: nvidia.com/gpu gives an 8 GiB slice in this stack (7.2 GiB usable at the 10 % margin), less than the 20 "
        "GiB it needs: such a pod is scheduled there and fails at load; ask for a larger slice's name, or change what "
        "the name maps; it is not placed")}
    status, text, _ = run(capsys, "--stack", "serving", "--workload", "llm=20GiB@nvidia.com/gpu")
    assert status == 3 and text.splitlines()[-1] == "something does not fit (exit 3)"


def test_what_a_name_resolves_to_is_its_class_slices_and_the_planner_decides_the_fit():
    serving = stack("serving")
    workload, findings, note = resolve(ExtendedAsk("llm", "nvidia.com/gpu", 20.0, 1), serving, 10)
    assert workload is not None and findings == []
    assert (workload.resource, [k.key for k in workload.served_by], workload.memory_gib) == ("nvidia.com/gpu",
                                                                                           ["8GiB"], 20.0)
    assert note == "llm: nvidia.com/gpu -> the stack's class aks-dra-vgpu-nvidia-gpu: 8 GiB slice"
    small, _, _ = resolve(ExtendedAsk("small", "nvidia.com/gpu", 6.0, 1), serving, 10)
    assert small is not None
    plan = plan_sizing([workload, small], load_prices(), serving)
    assert [(p.workload.name, p.size_class) for p in plan.placements] == [("llm", None), ("small", 8)]
    assert [f.kind for f in plan.findings if f.severity == "error"] == ["extended-too-small"]


def test_a_name_asked_without_memory_counts_for_the_whole_slice_it_gets():
    named = Workload("a", 0.0, 2, resource="nvidia.com/gpu", served_by=ANY_A10)
    plan = plan_sizing([named], load_prices(), stack("serving"))
    (p,) = plan.placements
    assert (p.size_class, p.stack_pools) == (8, (0,))  # the smallest A10 slice the stack's pools offer
    assert plan.costs["plan"].requested_gib == 16  # two whole 8 GiB slices, not 0 and not 4
    assert plan.notes == []  # no margin note: nothing was asked by memory
