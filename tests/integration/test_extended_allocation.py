"""Extended resources served by the package's DeviceClasses on a real kube-apiserver, kube-scheduler and
kube-controller-manager (1.36: DRAExtendedResource is beta and on by default), beside the driver chart's
`gpu.nvidia.com` class, which maps `nvidia.com/gpu` too.

The package's classes come from the pure functions the `ExtendedResources` component declares from
(`extended_classes`, `class_spec`): the `serving` stack (aks-dra-vgpu.io/a10-8gib, a10-24gib, nvidia.com/gpu = an 8 GiB
slice) and the `mig` stack with `extendedResources: {}` on 1.36 (nvidia.com/mig-3g.40gb). The chart's class is rendered
by the real chart (templates/deviceclass-gpu.yaml of dra-driver-nvidia-gpu 0.4.1) when HELM and DRA_CHARTS_DIR are set,
else its shape is copied as data (`CHART_GPU_CLASS` below, from that same template). Nodes are AKS-like and made Ready
as in test_control_plane.py; their ResourceSlices are shaped as the NVIDIA driver publishes them
(tests/verify_cluster.py). No kubelet runs: each allocation is read from the claim the scheduler made.

Which class serves a name follows creation order (the newest, ties by the lower name:
extendedresourcecache.go at 1.36, updateResourceName2class). creationTimestamp has one-second resolution, so "created after" here
means a later second: an object is re-created until its timestamp is later than the one it must follow.
Without the binaries every test here skips, saying how to get them.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.catalog import GPU_DEVICE_CLASS
from components.config import stack_config_from_mapping
from components.kubernetes.dra_driver import driver_values
from components.kubernetes.extended_classes import ExtendedClass, class_spec, extended_classes, fix_command
from components.kubernetes.slice_kinds import a10_slice, pool_slice, slice_of
from components.review.scheduler_cache import Event, LiveClass, apply, steady
from components.verify.checks_devices import memory_mib
from components.verify.checks_extended import (
    EXTENDED_CLAIM_ANNOTATION,
    check_extended_classes,
    check_extended_pods,
    pod_claim,
    serving_class,
)
from components.verify.smoke_extended import forgotten
from components.verify.snapshot import Snapshot
from tests.conftest import ROOT
from tests.integration.controlplane import HOW_TO_GET, ControlPlane, assets, can_schedule
from tests.integration.test_control_plane import Api, apply_all, make_ready, wait_for
from tests.verify_cluster import CHART_GPU_CLASS, aks_node, mig_node_slice, node_slice, stack

FOLDER, WHY = assets()
pytestmark = pytest.mark.skipif(FOLDER is None, reason=WHY)
NAMESPACE = "workloads"
KUBE_VERSION = "1.36.2"
# node -> (VM size, AKS MIG profile or None): three 8 GiB slices, two whole A10s, one A100 80GB as 2 x 3g.40gb.
NODES = {
    "aks-small-vmss000000": ("Standard_NV12ads_A10_v5", None),
    "aks-small-vmss000001": ("Standard_NV12ads_A10_v5", None),
    "aks-small-vmss000002": ("Standard_NV12ads_A10_v5", None),
    "aks-large-vmss000000": ("Standard_NV36ads_A10_v5", None),
    "aks-large-vmss000001": ("Standard_NV36ads_A10_v5", None),
    "aks-a100mig-vmss000000": ("Standard_NC24ads_A100_v4", "MIG3g"),
}
GPU, A10_8, A10_24, MIG_3G = ("nvidia.com/gpu", "aks-dra-vgpu.io/a10-8gib", "aks-dra-vgpu.io/a10-24gib",
                              "nvidia.com/mig-3g.40gb")
EIGHT, TWENTY_FOUR = a10_slice(8), a10_slice(24)
THREE_G = pool_slice("Standard_NC24ads_A100_v4", "MIG3g")


def package_classes() -> tuple[ExtendedClass, ...]:
    """The serving stack's classes, then the MIG stack's MIG-profile classes (extendedResources: {} on 1.36)."""
    data = yaml.safe_load((ROOT / "stacks" / "Pulumi.mig.yaml").read_text(encoding="utf-8"))["config"]
    data["aks-dra-vgpu:cluster"]["kubernetesVersion"] = "1.36"
    data["aks-dra-vgpu:extendedResources"] = {}
    mig = [c for c in extended_classes(stack_config_from_mapping(data)) if c.resource_name.startswith("nvidia.com/mig-")]
    return (*extended_classes(stack("serving")), *mig)


def device_class(found: ExtendedClass) -> dict[str, Any]:
    """The DeviceClass the ExtendedResources component registers for one class."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": found.class_name},
            "spec": class_spec(found)}


def chart_class(tmp: Path) -> dict[str, Any]:
    """The chart's gpu.nvidia.com class: rendered by helm from the chart with the package's values where helm and the
    charts are at hand, else the template's shape as data (extendedResourceName added for resource.k8s.io/v1)."""
    helm, charts = os.environ.get("HELM"), os.environ.get("DRA_CHARTS_DIR")
    if not (helm and charts and Path(helm).exists() and Path(charts).is_dir()):
        return {**copy.deepcopy(CHART_GPU_CLASS), "spec": {**copy.deepcopy(CHART_GPU_CLASS["spec"]),
                                                           "extendedResourceName": GPU}}
    config = stack("serving")
    values = tmp / "values.yaml"
    values.write_text(yaml.safe_dump(driver_values(config.dra_driver, config.gpu_pools)), encoding="utf-8")
    chart = Path(charts) / f"dra-driver-nvidia-gpu-{config.dra_driver.chart_version}"
    env = {**os.environ, **{k: str(tmp / k.lower()) for k in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME")}}
    result = subprocess.run([helm, "template", "nvidia-dra-driver-gpu", str(chart), "-n", "nvidia-dra-driver-gpu",
                             "-f", str(values), "--kube-version", KUBE_VERSION, "--show-only",
                             "templates/deviceclass-gpu.yaml"], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    (found,) = [d for d in yaml.safe_load_all(result.stdout) if d and d["kind"] == "DeviceClass"]
    return found


def workload(name: str, resource: str, count: int = 1) -> dict[str, Any]:
    """A pod written for the device plugin: `resources.limits: {<name>: count}`, requests equal."""
    quantity = str(count)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox", "command": ["true"],
                     "resources": {"requests": {resource: quantity}, "limits": {resource: quantity}}}]}}


class Cluster:
    """The control plane with the test's nodes, slices and namespace, and reads of what the scheduler did."""

    def __init__(self, api: Api):
        self.api = api
        self.slices: list[dict[str, Any]] = []
        for name, (vm, mig) in NODES.items():
            self.add_node(name, vm, mig)
        api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})

    def add_node(self, name: str, vm_size: str, mig: str | None = None) -> None:
        """An AKS-like GPU node made Ready, with the ResourceSlice the driver publishes there."""
        make_ready(self.api, aks_node(name, name.split("-")[1], vm_size, labels={"nvidia.com/gpu.present": "true"}))
        published = mig_node_slice(name, vm_size, mig) if mig else node_slice(name, vm_size)
        refused, _ = apply_all(self.api, [published])
        assert refused == [], refused
        self.slices.append(published)

    def classes(self) -> list[dict[str, Any]]:
        return self.api.items("resource.k8s.io/v1", "DeviceClass")

    def create_after(self, obj: dict[str, Any], after: list[str]) -> dict[str, Any]:
        """Creates a DeviceClass whose creationTimestamp is later than those of `after` (re-created until it is)."""
        def later() -> dict[str, Any] | None:
            stamps = [c["metadata"]["creationTimestamp"] for c in self.classes() if c["metadata"]["name"] in after]
            self.api.delete("resource.k8s.io/v1", "DeviceClass", obj["metadata"]["name"])
            made = self.api.create(obj)
            return made if all(made["metadata"]["creationTimestamp"] > s for s in stamps) else None
        return wait_for(f"{obj['metadata']['name']} created after {after}", later, seconds=10)

    def allocated(self, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """(pod, its extended-resource claim) once the scheduler has allocated the claim."""
        def probe() -> tuple[dict[str, Any], dict[str, Any]] | None:
            pod = self.api.get("v1", "Pod", name, NAMESPACE)
            claim = pod_claim(pod, self.api.items("resource.k8s.io/v1", "ResourceClaim", NAMESPACE))
            done = claim and ((claim.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results")
            return (pod, claim) if done and pod["spec"].get("nodeName") else None
        return wait_for(f"{name}'s extended-resource claim allocated", probe)

    def held(self, claim: dict[str, Any]) -> list[Any]:
        """The slice of each device allocated to the claim."""
        results = claim["status"]["allocation"]["devices"]["results"]
        devices = [next(d for s in self.slices if s["spec"]["pool"]["name"] == r["pool"]
                        for d in s["spec"]["devices"] if d["name"] == r["device"]) for r in results]
        return [slice_of(d, memory_mib(d), 10) for d in devices]

    def snapshot(self) -> Snapshot:
        """What verify reads, for its pure checks on the live objects."""
        return Snapshot(server="", version={}, resource_versions=["v1"], slices=self.slices,
                        device_classes=self.classes(), all_pods=self.api.items("v1", "Pod", NAMESPACE),
                        all_claims=self.api.items("resource.k8s.io/v1", "ResourceClaim", NAMESPACE))


def classes_named(claim: dict[str, Any]) -> list[str]:
    return [r["exactly"]["deviceClassName"] for r in claim["spec"]["devices"]["requests"]]


def test_extended_resources_on_a_real_scheduler(tmp_path):
    if not can_schedule(FOLDER):
        pytest.skip(f"kube-scheduler and kube-controller-manager are missing; {HOW_TO_GET}")
    ours = package_classes()
    assert [c.resource_name for c in ours] == [A10_8, A10_24, GPU, MIG_3G]
    mine = {c.resource_name: c for c in ours}
    chart = chart_class(tmp_path)
    assert chart["metadata"]["name"] == GPU_DEVICE_CLASS and chart["spec"]["extendedResourceName"] == GPU
    with ControlPlane(FOLDER, scheduling=True) as plane:
        api = Api(plane.kubeconfig)
        cluster = Cluster(api)

        # (a) The chart's class first, then the package's (as a first `pulumi up` orders them): the package's serves.
        api.create(chart)
        for found in ours:
            cluster.create_after(device_class(found), [GPU_DEVICE_CLASS])
        assert serving_class(cluster.classes(), GPU)["metadata"]["name"] == mine[GPU].class_name
        verdicts = {c.subject: c for c in check_extended_classes(cluster.snapshot(), ours)}
        assert verdicts[GPU].status == "ok" and verdicts[GPU].message.startswith(
            f"served by the stack's {mine[GPU].class_name}; also mapped by {GPU_DEVICE_CLASS}")

        # Each mapped name lands on a device of its size or profile; a count of 2 gets two.
        for pod_name, resource, count, kind in [("small", A10_8, 1, EIGHT), ("large", A10_24, 1, TWENTY_FOUR),
                                                ("mig-pair", MIG_3G, 2, THREE_G), ("plain", GPU, 1, EIGHT)]:
            api.create(workload(pod_name, resource, count))
            pod, claim = cluster.allocated(pod_name)
            assert cluster.held(claim) == [kind] * count, (pod_name, claim["status"])
            assert classes_named(claim) == [mine[resource].class_name]
            # The claim the scheduler made: owned by the pod (controller), annotated, recorded in the pod's status.
            owners = claim["metadata"]["ownerReferences"]
            assert [(o["kind"], o["name"], o["uid"], o.get("controller")) for o in owners] == [
                ("Pod", pod_name, pod["metadata"]["uid"], True)]
            assert claim["metadata"]["annotations"][EXTENDED_CLAIM_ANNOTATION] == "true"
            assert claim["metadata"]["name"].startswith(f"{pod_name}-extended-resources-")
            status = pod["status"]["extendedResourceClaimStatus"]
            assert status["resourceClaimName"] == claim["metadata"]["name"]
            assert [(m["containerName"], m["resourceName"]) for m in status["requestMappings"]] == [("main", resource)]

        # A pod that cannot fit (both whole A10s: one is taken) stays Pending with the scheduler's reason.
        api.create(workload("too-many", A10_24, 2))

        def unschedulable() -> dict[str, Any] | None:
            conditions = (api.get("v1", "Pod", "too-many", NAMESPACE).get("status") or {}).get("conditions") or []
            return next((c for c in conditions if c["type"] == "PodScheduled" and c["status"] == "False"), None)

        condition = wait_for("too-many marked unschedulable", unschedulable)
        assert condition["reason"] == "Unschedulable", condition
        assert condition["message"].startswith(f"0/{len(NODES)} nodes are available: {len(NODES)} cannot allocate "
                                               "all claims"), condition
        assert api.get("v1", "Pod", "too-many", NAMESPACE)["spec"].get("nodeName") is None

        # The last free 8 GiB slice taken, so the only free GPU device is a whole A10 (the chart's class takes any).
        api.create(workload("small-last", A10_8))
        assert cluster.held(cluster.allocated("small-last")[1]) == [EIGHT]

        # (b) The package's class first, then the chart's (a driver release replaced): the chart's serves...
        api.delete("resource.k8s.io/v1", "DeviceClass", GPU_DEVICE_CLASS)
        cluster.create_after(chart, [mine[GPU].class_name])
        assert serving_class(cluster.classes(), GPU)["metadata"]["name"] == GPU_DEVICE_CLASS
        verdicts = {c.subject: c for c in check_extended_classes(cluster.snapshot(), ours)}
        assert verdicts[GPU].status == "fail" and verdicts[GPU].message.startswith(f"served by {GPU_DEVICE_CLASS}")
        api.create(workload("plain-chart", GPU))
        _, claim = cluster.allocated("plain-chart")
        assert classes_named(claim) == [GPU_DEVICE_CLASS]
        assert cluster.held(claim) == [TWENTY_FOUR]  # any GPU device: the only one free is a whole A10
        pods = {c.subject: c for c in check_extended_pods(cluster.snapshot(), ours, 10)}
        assert pods[f"{NAMESPACE}/plain-chart"].status == "warn", pods
        assert "the driver chart's class served it" in pods[f"{NAMESPACE}/plain-chart"].message
        assert pods[f"{NAMESPACE}/plain"].status == "ok"

        # ... until the package's class is re-created (what its replaceOnChanges does after a replaced release). A new
        # 8 GiB node gives it a free slice of its size.
        cluster.add_node("aks-small-vmss000003", "Standard_NV12ads_A10_v5")
        cluster.create_after(device_class(mine[GPU]), [GPU_DEVICE_CLASS])
        assert serving_class(cluster.classes(), GPU)["metadata"]["name"] == mine[GPU].class_name
        assert {c.subject: c for c in check_extended_classes(cluster.snapshot(), ours)}[GPU].status == "ok"
        api.create(workload("plain-again", GPU))
        _, claim = cluster.allocated("plain-again")
        assert classes_named(claim) == [mine[GPU].class_name] and cluster.held(claim) == [EIGHT]


def pending_reason(api: Api, name: str) -> dict[str, Any] | None:
    """The pod's PodScheduled=False condition once the scheduler has given up on it."""
    conditions = (api.get("v1", "Pod", name, NAMESPACE).get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c["type"] == "PodScheduled" and c["status"] == "False"), None)


def run_fix(plane: Any, command: str) -> None:
    """The fix command exactly as diff and the smoke print it, through a shell, with the control plane's kubectl."""
    kubectl = FOLDER / "kubectl" if FOLDER else None
    env = {**os.environ, "KUBECONFIG": str(plane.kubeconfig),
           "PATH": f"{FOLDER}:{os.environ.get('PATH', '')}" if kubectl and kubectl.exists() else os.environ.get("PATH", "")}
    if not shutil.which("kubectl", path=env["PATH"]):
        pytest.skip("kubectl is not beside the control plane's binaries nor on PATH")
    done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_deleted_class_makes_the_1_36_scheduler_forget_a_name_another_class_maps(tmp_path):
    """What the package's diff simulates (review.scheduler_cache) and the smoke detects, on a real 1.36 scheduler:
    deleting the chart's older class, which was not serving, leaves nvidia.com/gpu with no class although the package's
    class still maps it; the package's fix command (an annotation: an update in place) gives the name back."""
    if not can_schedule(FOLDER):
        pytest.skip(f"kube-scheduler and kube-controller-manager are missing; {HOW_TO_GET}")
    mine = {c.resource_name: c for c in package_classes()}[GPU]
    chart = chart_class(tmp_path)
    with ControlPlane(FOLDER, scheduling=True) as plane:
        api = Api(plane.kubeconfig)
        cluster = Cluster(api)
        api.create(chart)
        cluster.create_after(device_class(mine), [GPU_DEVICE_CLASS])

        # What the package predicts, step by step, from the 1.36 cache's rules.
        older = LiveClass(GPU_DEVICE_CLASS, 0, GPU, "any", "chart")
        ours = LiveClass(mine.class_name, 1, GPU, "8 GiB", "ours")
        slots = steady([older, ours])
        assert slots[GPU] is ours
        slots = apply(slots, Event("delete", before=older))
        assert GPU not in slots  # forgotten, though ours still maps it

        # The real scheduler does the same.
        api.delete("resource.k8s.io/v1", "DeviceClass", GPU_DEVICE_CLASS)
        assert serving_class(cluster.classes(), GPU)["metadata"]["name"] == mine.class_name  # what the objects say
        api.create(workload("forgotten", GPU))
        condition = wait_for("forgotten marked unschedulable", lambda: pending_reason(api, "forgotten"))
        assert f"Insufficient {GPU}" in condition["message"], condition
        finding = forgotten(api.get("v1", "Pod", "forgotten", NAMESPACE), GPU, mine.class_name)
        assert finding is not None and finding.status == "fail" and fix_command(mine.class_name) in finding.message

        # The fix: an update of the class in place, as the smoke and diff print it. A new pod is served at once (one
        # already Pending waits for the scheduler's next retry of unschedulable pods, at most five minutes later:
        # DefaultPodMaxInUnschedulablePodsDuration, or for its re-creation).
        assert GPU in apply(slots, Event("update", after=ours, before=ours))
        run_fix(plane, fix_command(mine.class_name))
        api.create(workload("remembered", GPU))
        _, claim = cluster.allocated("remembered")
        assert classes_named(claim) == [mine.class_name] and cluster.held(claim) == [EIGHT]
