"""`diff` says when an update hands an extended resource name to another DeviceClass, or leaves the 1.36 scheduler
serving it with none: the serving stack and variants of it, planned by the real program, each step of the update
played through the scheduler's cache (extendedresourcecache.go at 1.36: a deletion drops a name whichever class held
it)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from components.cli import main
from components.kubernetes.extended_classes import fix_command
from components.offline.urns import local_urn
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from components.review.extended_names import extended_name_warnings, selects
from components.review.scheduler_cache import Event, LiveClass, apply, steady
from tests.test_diff_scenarios import NS, scenario  # noqa: F401  (the fixture that plans the real stacks)

CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
RELEASE = "kubernetes:helm.sh/v3:Release"
GPU = "nvidia.com/gpu"
OURS = "aks-dra-vgpu-nvidia-gpu"


def named(result, name: str) -> list[str]:
    return named_in(result.warnings, name)


def named_in(warnings, name: str) -> list[str]:
    return [w for w in warnings if w.startswith(f"{name}: ")]


def extended(config: dict[str, Any]) -> dict[str, Any]:
    return config[NS + "extendedResources"]


def driver(config: dict[str, Any]) -> dict[str, Any]:
    return config.setdefault(NS + "draDriver", {})


# --- the 1.36 scheduler's cache ------------------------------------------------------------------------------------------
CHART = LiveClass("gpu.nvidia.com", 1, GPU, "any", "chart")
MINE = LiveClass(OURS, 2, GPU, "8 GiB", "ours")


def test_a_fresh_scheduler_takes_the_newest_class_and_a_tie_goes_to_the_lower_name():
    assert steady([CHART, MINE])[GPU] is MINE
    assert steady([MINE, CHART])[GPU] is MINE  # the order of the list does not matter
    same_second = LiveClass("zzz", 2, GPU, "z", "z")
    assert steady([same_second, MINE])[GPU] is MINE
    assert steady([]) == {}


def test_deleting_either_class_drops_the_name_and_only_an_update_gives_it_back():
    served = steady([CHART, MINE])
    assert apply(served, Event("delete", before=CHART)) == {}  # the older class, which was not serving
    assert apply(served, Event("delete", before=MINE)) == {}  # the chart's class still maps it: forgotten all the same
    empty = apply(served, Event("delete", before=MINE))
    assert apply(empty, Event("update", after=CHART, before=CHART))[GPU] is CHART  # an annotation puts it back
    # An update of the older class does not take the name from a newer one; the newer one's own update keeps it.
    assert apply(served, Event("update", after=CHART, before=CHART))[GPU] is MINE
    assert apply(served, Event("update", after=MINE, before=MINE))[GPU] is MINE
    # A class that stops mapping the name takes it out of the map, whoever held it.
    unmapped = LiveClass("gpu.nvidia.com", 1, None, "any", "chart")
    assert apply(served, Event("update", after=unmapped, before=CHART)) == {}


def test_what_a_class_selects_is_read_from_its_selectors():
    band = ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('7372Mi')) >= 0 && "
            "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('9012Mi')) < 0")
    assert selects("x", {"selectors": [{"cel": {"expression": band}}]}) == "an A10 slice of 8 GiB"
    assert selects("x", {"selectors": [{"cel": {"expression": "false"}}]}) == "nothing (such pods stay Pending)"
    mig = "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"
    assert selects("x", {"selectors": [{"cel": {"expression": mig}}]}) == "a MIG 3g.40gb slice"
    assert selects("gpu.nvidia.com", None) == "any GPU device, whatever its size"


# --- the driver's release ------------------------------------------------------------------------------------------------
def test_a_replaced_driver_release_says_what_pods_get_until_ours_is_created_again(scenario):  # noqa: F811
    result = scenario("serving", lambda c: driver(c).update(namespace="gpu-driver"))
    operations = {r.name: r.operation for r in result.resources}
    assert operations["gpu-dra-driver-release"] == "replace"
    assert operations["gpu-extended-resources-aks-dra-vgpu-nvidia-gpu"] == "replace"
    # release deleted (our slot dropped), chart's class created (takes it), ours deleted (dropped) and created (takes it)
    assert named(result, GPU) == [
        "nvidia.com/gpu: while the update runs, pods asking it get nothing (no class serves it: they stay Pending), "
        "then any GPU device, whatever its size (gpu.nvidia.com), then nothing (no class serves it: they stay Pending), "
        "before aks-dra-vgpu-nvidia-gpu serves it again; schedule no such pods during the update"
    ]
    assert "! nvidia.com/gpu: while the update runs" in format_diff(result)


def without_touch(plan: dict[str, Any]) -> dict[str, Any]:
    """A plan whose nvidia.com/gpu class has neither the release annotation nor the revision (an older package's)."""
    plan = copy.deepcopy(plan)
    for res in plan["resources"]:
        if res["type"] == CLASS and res["inputs"]["metadata"]["name"] == OURS:
            res["inputs"]["metadata"].pop("annotations")
            res["options"]["replaceOnChanges"] = []
    return plan


def test_a_replaced_release_beside_a_class_that_is_not_created_again_hands_nvidia_gpu_to_the_chart(scenario):  # noqa: F811
    scenario("serving", lambda c: driver(c).update(namespace="gpu-driver"))
    before, after = (without_touch(p) for p in scenario.last_plans)
    (warning,) = named(diff_plans(before, after), GPU)
    assert warning.startswith(
        "nvidia.com/gpu: served by aks-dra-vgpu-nvidia-gpu (an A10 slice of 8 GiB) before this update and by "
        "gpu.nvidia.com (any GPU device, whatever its size) after it: the driver's Release is replaced (its name or "
        "namespace changes: pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go")
    assert "deleting any class that carries it drops it" in warning and "extendedresourcecache.go" in warning
    assert warning.endswith("aks-dra-vgpu-nvidia-gpu still maps it but is older: create it again after the release "
                            "(`pulumi up --replace 'urn:pulumi:serving::aks-dra-vgpu::aks-dra-vgpu:index:GpuPlatform$"
                            "aks-dra-vgpu:index:ExtendedResources$kubernetes:resource.k8s.io/v1:DeviceClass::"
                            "gpu-extended-resources-aks-dra-vgpu-nvidia-gpu'`)")


def test_every_change_of_the_drivers_values_touches_our_class_in_place(scenario):  # noqa: F811
    result = scenario("serving", lambda c: driver(c).update(featureGates={"MPSSupport": True}))
    ours = next(r for r in result.resources if r.name == "gpu-extended-resources-aks-dra-vgpu-nvidia-gpu")
    assert ours.operation == "update"
    assert [c.path for c in ours.changes] == ['metadata.annotations["aks-dra-vgpu.io/driver-revision"]']
    assert named(result, GPU) == []  # it held the name, and keeps it


def index(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {local_urn(r["urn"]): r for r in plan["resources"]}


def test_a_chart_that_stops_mapping_the_name_drops_ours_too_and_the_touch_gives_it_back(scenario):  # noqa: F811
    scenario("serving", lambda c: None)
    before, _ = scenario.last_plans
    after = copy.deepcopy(before)  # the driver on a chart whose gpu.nvidia.com maps no name (25.8.1's template)
    (release,) = [r for r in after["resources"] if r["type"] == RELEASE and "dra-driver" in r["name"]]
    release["inputs"]["version"] = "25.8.1"
    steps = {local_urn(release["urn"]): ("update", False)}
    (warning,) = named_in(extended_name_warnings(index(before), index(after), steps), GPU)
    assert warning.startswith(
        "nvidia.com/gpu: served by aks-dra-vgpu-nvidia-gpu (an A10 slice of 8 GiB) before this update and by no class,"
        " although aks-dra-vgpu-nvidia-gpu maps it after it: driver chart 0.4.1 -> 25.8.1: the chart's gpu.nvidia.com "
        "no longer maps nvidia.com/gpu here; the 1.36 scheduler keeps one class per name")
    assert warning.endswith(
        "pods asking it get nothing (they stay Pending: Insufficient nvidia.com/gpu) until aks-dra-vgpu-nvidia-gpu is "
        "next updated or kube-scheduler restarts: run `" + fix_command(OURS) + "`")
    assert fix_command(OURS) == ('kubectl annotate deviceclass aks-dra-vgpu-nvidia-gpu aks-dra-vgpu.io/remapped='
                                 '"$(date +%s)" --overwrite')
    # The package's class is updated after the release (its revision annotation): it takes the empty slot again.
    ours = next(r for r in after["resources"] if r["type"] == CLASS and r["inputs"]["metadata"]["name"] == OURS)
    assert ours["dependencies"] and local_urn(release["urn"]) in {local_urn(d) for d in ours["dependencies"]}
    steps[local_urn(ours["urn"])] = ("update", False)
    assert named_in(extended_name_warnings(index(before), index(after), steps), GPU) == [
        "nvidia.com/gpu: while the update runs, pods asking it get nothing (no class serves it: they stay Pending), "
        "before aks-dra-vgpu-nvidia-gpu serves it again; schedule no such pods during the update"]


def test_removing_the_drivers_release_drops_nvidia_gpu_from_the_class_that_still_maps_it(scenario):  # noqa: F811
    scenario("serving", lambda c: None)
    before, _ = scenario.last_plans
    after = {**before, "resources": [r for r in before["resources"] if r["type"] != RELEASE]}
    (warning,) = named(diff_plans(before, after), GPU)
    assert "by no class, although aks-dra-vgpu-nvidia-gpu maps it after it: the driver's Release is removed" in warning
    assert warning.endswith(f"run `{fix_command(OURS)}`")


def test_deleting_the_older_class_that_was_not_serving_drops_the_name():
    def device_class(name: str, depends: list[str]) -> dict[str, Any]:
        return {"urn": f"urn:pulumi:s::p::{CLASS}::{name}", "type": CLASS, "name": name,
                "inputs": {"metadata": {"name": name}, "spec": {"extendedResourceName": GPU, "selectors": []}},
                "dependencies": [f"urn:pulumi:s::p::{CLASS}::{d}" for d in depends]}

    old = {"resources": [device_class("older", []), device_class("newer", ["older"])]}
    new = {"resources": [device_class("newer", [])]}
    (warning,) = named(diff_plans(old, new), GPU)
    assert warning.startswith("nvidia.com/gpu: served by newer (what newer's selectors select) before this update and "
                              "by no class, although newer maps it after it: older is removed")
    assert warning.endswith(f"run `{fix_command('newer')}`")


def test_a_chart_that_starts_mapping_nvidia_gpu_leaves_it_to_our_class(scenario):  # noqa: F811
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
        "this update and by aks-dra-vgpu-nvidia-gpu (any GPU device, whatever its size) after it: "
        "aks-dra-vgpu-nvidia-gpu is created, newer than every class left in place; driver chart 25.8.1 -> 0.4.1: the "
        "chart's gpu.nvidia.com now maps nvidia.com/gpu here")

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


def test_any_and_unset_keep_our_class_with_an_any_gpu_selector_in_place(scenario):  # noqa: F811
    for edit in (lambda c: extended(c).update(nvidiaGpu="any"), lambda c: extended(c).pop("nvidiaGpu")):
        result = scenario("serving", edit)
        ours = next(r for r in result.resources if r.name == "gpu-extended-resources-aks-dra-vgpu-nvidia-gpu")
        assert ours.operation == "update"  # never deleted: a deletion would drop nvidia.com/gpu from the scheduler
        assert named(result, GPU) == [
            "nvidia.com/gpu: pods asking it get an A10 slice of 8 GiB before this update and any GPU device, whatever its "
            "size after it: aks-dra-vgpu-nvidia-gpu's selectors change in place (claims already allocated keep their "
            "devices)"]


def test_removing_the_section_says_each_name_it_served_and_keeps_nvidia_gpu(scenario):  # noqa: F811
    result = scenario("serving", lambda c: c.pop(NS + "extendedResources"))
    assert named(result, "aks-dra-vgpu.io/a10-8gib") == [
        "aks-dra-vgpu.io/a10-8gib: served by aks-dra-vgpu-a10-8gib (an A10 slice of 8 GiB) before this update and by "
        "no class (pods asking it stay Pending unless a device plugin serves it) after it: aks-dra-vgpu-a10-8gib is "
        "removed"
    ]
    assert len(named(result, "aks-dra-vgpu.io/a10-24gib")) == 1
    assert {r.name: r.operation for r in result.resources}["gpu-extended-resources-aks-dra-vgpu-nvidia-gpu"] == "update"
    assert "after it: aks-dra-vgpu-nvidia-gpu's selectors change in place" in named(result, GPU)[0]


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
    # Replaced create-first (a new name): a10-small takes the name, then deleting the old class drops it.
    (warning,) = named(result, "aks-dra-vgpu.io/a10-8gib")
    assert warning.startswith(
        "aks-dra-vgpu.io/a10-8gib: served by aks-dra-vgpu-a10-8gib (an A10 slice of 8 GiB) before this update and by "
        "no class, although a10-small maps it after it: aks-dra-vgpu-a10-8gib is renamed a10-small (a new object: "
        "deleted, then created)")
    assert warning.endswith(f"run `{fix_command('a10-small')}`")


def test_an_unchanged_stack_says_nothing_about_names(scenario):  # noqa: F811
    scenario("serving", lambda c: None)
    before, after = scenario.last_plans
    assert diff_plans(before, after).warnings == ()


# --- the Kubernetes version ----------------------------------------------------------------------------------------------
def test_reaching_1_36_maps_nvidia_gpu_through_our_class_and_the_charts_waits_for_its_next_apply(scenario):  # noqa: F811
    result = scenario("dev", lambda c: c[NS + "cluster"].update(kubernetesVersion="1.36"))
    served, waits = named(result, GPU)
    assert served.startswith(
        "nvidia.com/gpu: served by no class (on Kubernetes 1.35 the DRAExtendedResource gate is off: pods asking it "
        "stay Pending unless a device plugin serves it) before this update and by aks-dra-vgpu-nvidia-gpu (any GPU "
        "device, whatever its size) after it: Kubernetes 1.35 -> 1.36: the DRAExtendedResource gate is on from 1.36")
    assert waits.startswith("nvidia.com/gpu: the chart's gpu.nvidia.com maps it only once the chart is applied again on "
                            "Kubernetes 1.36+")
    assert "dropDisabledDRAExtendedResourceFields" in waits
    assert waits.endswith("until its next change aks-dra-vgpu-nvidia-gpu (any GPU device, whatever its size) serves it")
    back = diff_plans(*reversed(scenario.last_plans))
    assert named(back, GPU)[0].startswith("nvidia.com/gpu: served by aks-dra-vgpu-nvidia-gpu (any GPU device, whatever "
                                          "its size) before this update and by no class (on Kubernetes 1.35")


def test_reaching_1_36_with_a_driver_change_maps_the_charts_class_in_the_same_update(scenario):  # noqa: F811
    def both(c: dict[str, Any]) -> None:
        c[NS + "cluster"].update(kubernetesVersion="1.36")
        driver(c)["featureGates"] = {"MPSSupport": True}

    result = scenario("dev", both)
    assert not any("maps it only once the chart is applied again" in w for w in named(result, GPU))


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
    # a depends on b, which depends on a: the walk stops at the cycle, a counts as created after b; deleting a drops
    # the name, which b still maps
    (warning,) = named(diff_plans(old, new), GPU)
    assert warning.startswith("nvidia.com/gpu: served by a (what a's selectors select) before this update and by no "
                              "class, although b maps it after it: a is removed; the 1.36 scheduler keeps one class")
