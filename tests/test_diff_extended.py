"""`diff` says when an update hands an extended resource name to another DeviceClass: the serving stack and variants of
it, planned by the real program, compared by the scheduler's rule (newest class wins, ties by the lower name)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from components.cli import main
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from components.review.extended_names import Candidate, selects, winner
from tests.test_diff_scenarios import NS, scenario  # noqa: F401  (the fixture that plans the real stacks)

CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
GPU = "nvidia.com/gpu"


def named(result, name: str) -> list[str]:
    return [w for w in result.warnings if w.startswith(f"{name}: ")]


def extended(config: dict[str, Any]) -> dict[str, Any]:
    return config[NS + "extendedResources"]


def driver(config: dict[str, Any]) -> dict[str, Any]:
    return config.setdefault(NS + "draDriver", {})


# --- the scheduler's rule ------------------------------------------------------------------------------------------------
def test_the_newest_class_wins_and_a_tie_goes_to_the_lower_name():
    older = Candidate("aks-dra-vgpu-nvidia-gpu", GPU, "x", (0, 1), "a")
    newer = Candidate("gpu.nvidia.com", GPU, "y", (1, 0), "b")
    same_time = Candidate("zzz", GPU, "z", (0, 1), "c")
    assert winner([older, newer]) is newer
    assert winner([same_time, older]) is older  # the same creation time: the lower name
    assert winner([]) is None


def test_what_a_class_selects_is_read_from_its_selectors():
    band = ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('7372Mi')) >= 0 && "
            "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('9012Mi')) < 0")
    assert selects("x", {"selectors": [{"cel": {"expression": band}}]}) == "an A10 slice of 8 GiB"
    assert selects("x", {"selectors": [{"cel": {"expression": "false"}}]}) == "nothing (such pods stay Pending)"
    mig = "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"
    assert selects("x", {"selectors": [{"cel": {"expression": mig}}]}) == "a MIG 3g.40gb slice"
    assert selects("gpu.nvidia.com", None) == "any GPU device, whatever its size"


# --- the driver's release ------------------------------------------------------------------------------------------------
def test_a_replaced_driver_release_warns_that_the_charts_class_serves_nvidia_gpu_until_ours_is_created_again(scenario):  # noqa: F811
    result = scenario("serving", lambda c: driver(c).update(namespace="gpu-driver"))
    operations = {r.name: r.operation for r in result.resources}
    assert operations["gpu-dra-driver-release"] == "replace"
    assert operations["gpu-extended-resources-aks-dra-vgpu-nvidia-gpu"] == "replace"
    assert named(result, GPU) == [
        "nvidia.com/gpu: while the update runs, gpu.nvidia.com is created before aks-dra-vgpu-nvidia-gpu, and until "
        "aks-dra-vgpu-nvidia-gpu is created pods asking nvidia.com/gpu get any GPU device, whatever its size; schedule "
        "no such pods during the update"
    ]
    assert "! nvidia.com/gpu: while the update runs" in format_diff(result)


def test_a_replaced_release_beside_a_class_that_is_not_created_again_hands_nvidia_gpu_to_the_chart(scenario):  # noqa: F811
    scenario("serving", lambda c: driver(c).update(namespace="gpu-driver"))
    before, after = (copy.deepcopy(p) for p in scenario.last_plans)
    for plan in (before, after):  # a class without the release annotation and its replaceOnChanges
        for res in plan["resources"]:
            if res["type"] == CLASS and res["inputs"]["metadata"]["name"] == "aks-dra-vgpu-nvidia-gpu":
                res["inputs"]["metadata"].pop("annotations")
                res["options"]["replaceOnChanges"] = []
    (warning,) = named(diff_plans(before, after), GPU)
    assert warning.startswith(
        "nvidia.com/gpu: served by aks-dra-vgpu-nvidia-gpu (an A10 slice of 8 GiB) before this update and by "
        "gpu.nvidia.com (any GPU device, whatever its size) after it: the driver's Release is replaced (its name or "
        "namespace changes: pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go")
    assert "newest class that maps it, ties by the lower name" in warning and "extendedresourcecache.go" in warning
    assert warning.endswith("aks-dra-vgpu-nvidia-gpu still maps it but is older: create it again after the release "
                            "(`pulumi up --replace 'urn:pulumi:serving::aks-dra-vgpu::aks-dra-vgpu:index:GpuPlatform$"
                            "aks-dra-vgpu:index:ExtendedResources$kubernetes:resource.k8s.io/v1:DeviceClass::"
                            "gpu-extended-resources-aks-dra-vgpu-nvidia-gpu'`)")


def test_a_chart_that_starts_mapping_nvidia_gpu_hands_it_to_its_class_unless_the_stack_maps_it(scenario):  # noqa: F811
    def unset(c: dict[str, Any]) -> None:
        extended(c).pop("nvidiaGpu")
        driver(c)["chartVersion"] = "25.8.1"

    scenario("serving", unset)
    on_25_8_1 = scenario.last_plans[1]
    scenario("serving", lambda c: extended(c).pop("nvidiaGpu"))
    on_0_4_1 = scenario.last_plans[1]
    upgrade = diff_plans(on_25_8_1, on_0_4_1)  # 25.8.1 -> 0.4.1, and nvidiaGpu unset on both sides
    (warning,) = named(upgrade, GPU)
    assert warning.startswith(
        "nvidia.com/gpu: served by no class (pods asking it stay Pending unless a device plugin serves it) before "
        "this update and by gpu.nvidia.com (any GPU device, whatever its size) after it: driver chart 25.8.1 -> 0.4.1:"
        " the chart's gpu.nvidia.com now maps nvidia.com/gpu here")
    assert warning.endswith("set extendedResources.nvidiaGpu to a slice size (e.g. '8GiB') or 'none'")

    def pinned(c: dict[str, Any]) -> None:
        driver(c)["chartVersion"] = "25.8.1"

    scenario("serving", pinned)
    on_0_4_1, on_25_8_1 = scenario.last_plans
    # Our class, created after the release, stays the newest: the chart's class is edited in place.
    assert named(diff_plans(on_25_8_1, on_0_4_1), GPU) == []


# --- the package's classes -----------------------------------------------------------------------------------------------
def test_nvidia_gpu_changing_meaning_says_what_pods_get_before_and_after(scenario):  # noqa: F811
    result = scenario("serving", lambda c: extended(c).update(nvidiaGpu="none"))
    assert named(result, GPU) == [
        "nvidia.com/gpu: pods asking it get an A10 slice of 8 GiB before this update and nothing (such pods stay "
        "Pending) after it: aks-dra-vgpu-nvidia-gpu's selectors change in place (claims already allocated keep their "
        "devices)"
    ]
    bigger = scenario("serving", lambda c: extended(c).update(nvidiaGpu="24GiB"))
    assert named(bigger, GPU)[0].startswith(
        "nvidia.com/gpu: pods asking it get an A10 slice of 8 GiB before this update and an A10 slice of 24 GiB after")


def test_nvidia_gpu_set_to_any_removes_our_class_and_the_charts_serves_it(scenario):  # noqa: F811
    result = scenario("serving", lambda c: extended(c).update(nvidiaGpu="any"))
    (warning,) = named(result, GPU)
    assert warning.startswith(
        "nvidia.com/gpu: served by aks-dra-vgpu-nvidia-gpu (an A10 slice of 8 GiB) before this update and by "
        "gpu.nvidia.com (any GPU device, whatever its size) after it: aks-dra-vgpu-nvidia-gpu is removed")
    assert "unless that is meant (extendedResources.nvidiaGpu: 'any')" in warning


def test_removing_the_section_says_each_name_it_served(scenario):  # noqa: F811
    result = scenario("serving", lambda c: c.pop(NS + "extendedResources"))
    assert named(result, "aks-dra-vgpu.io/a10-8gib") == [
        "aks-dra-vgpu.io/a10-8gib: served by aks-dra-vgpu-a10-8gib (an A10 slice of 8 GiB) before this update and by "
        "no class (pods asking it stay Pending unless a device plugin serves it) after it: aks-dra-vgpu-a10-8gib is "
        "removed"
    ]
    assert len(named(result, "aks-dra-vgpu.io/a10-24gib")) == 1 and len(named(result, GPU)) == 1


def test_a_new_domain_moves_the_names_in_place(scenario):  # noqa: F811
    result = scenario("serving", lambda c: extended(c).update(domain="example.com"))
    assert named(result, "aks-dra-vgpu.io/a10-8gib")[0].endswith("aks-dra-vgpu-a10-8gib now maps example.com/a10-8gib instead")
    assert named(result, "example.com/a10-8gib")[0].endswith(
        "aks-dra-vgpu-a10-8gib now maps it instead of aks-dra-vgpu.io/a10-8gib (in place: it keeps its creation time)")


def test_a_renamed_class_is_a_new_class_and_says_so(scenario):  # noqa: F811
    scenario("serving", lambda c: extended(c).update(nvidiaGpu="8GiB"))
    before, _ = scenario.last_plans
    after = copy.deepcopy(before)
    for res in after["resources"]:
        if res["type"] == CLASS and res["inputs"]["metadata"]["name"] == "aks-dra-vgpu-a10-8gib":
            res["inputs"]["metadata"]["name"] = "a10-small"
    result = diff_plans(before, after)
    assert named(result, "aks-dra-vgpu.io/a10-8gib") == [
        "aks-dra-vgpu.io/a10-8gib: served by aks-dra-vgpu-a10-8gib (an A10 slice of 8 GiB) before this update and by "
        "a10-small (an A10 slice of 8 GiB) after it: aks-dra-vgpu-a10-8gib is renamed a10-small (a new object: "
        "deleted, then created)"
    ]


def test_an_unchanged_stack_says_nothing_about_names(scenario):  # noqa: F811
    scenario("serving", lambda c: None)
    before, after = scenario.last_plans
    assert diff_plans(before, after).warnings == ()


# --- the Kubernetes version ----------------------------------------------------------------------------------------------
def test_reaching_1_36_with_the_charts_mapping_and_no_nvidia_gpu_is_the_hazard_appearing(scenario):  # noqa: F811
    result = scenario("dev", lambda c: c[NS + "cluster"].update(kubernetesVersion="1.36"))
    (warning,) = named(result, GPU)
    assert warning.startswith(
        "nvidia.com/gpu: served by no class (on Kubernetes 1.35 the DRAExtendedResource gate is off: pods asking it "
        "stay Pending unless a device plugin serves it) before this update and by gpu.nvidia.com (any GPU device, "
        "whatever its size) after it: Kubernetes 1.35 -> 1.36: the DRAExtendedResource gate is on from 1.36")
    back = diff_plans(*reversed(scenario.last_plans))
    assert named(back, GPU)[0].startswith("nvidia.com/gpu: served by gpu.nvidia.com (any GPU device, whatever its size) "
                                          "before this update and by no class (on Kubernetes 1.35")


def test_the_diff_command_prints_the_warning(scenario, tmp_path: Path, capsys):  # noqa: F811
    scenario("serving", lambda c: extended(c).update(nvidiaGpu="none"))
    before, after = scenario.last_plans
    (tmp_path / "old.json").write_text(json.dumps(before))
    (tmp_path / "new.json").write_text(json.dumps(after))
    main(["diff", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    assert "! nvidia.com/gpu: pods asking it get an A10 slice of 8 GiB before this update" in capsys.readouterr().out



def test_hand_made_classes_with_odd_shapes_and_a_dependency_cycle_still_diff():
    def device_class(name: str, spec: Any, depends: str) -> dict[str, Any]:
        urn = f"urn:pulumi:s::p::{CLASS}::{name}"
        return {"urn": urn, "type": CLASS, "name": name, "inputs": {"metadata": {"name": name}, "spec": spec},
                "dependencies": [f"urn:pulumi:s::p::{CLASS}::{depends}"]}

    old = {"resources": [device_class("a", {"extendedResourceName": GPU, "selectors": 5}, "b"),
                         device_class("b", {"extendedResourceName": GPU, "selectors": [{"cel": "x"}]}, "a")]}
    new = {"resources": [old["resources"][1]]}
    # a depends on b, which depends on a: the walk stops at the cycle, a counts as created after b
    (warning,) = named(diff_plans(old, new), GPU)
    assert warning.startswith("nvidia.com/gpu: served by a (what a's selectors select) before this update and by b "
                              "(what b's selectors select) after it: a is removed; the scheduler serves a name with the "
                              "newest class")
