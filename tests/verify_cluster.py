"""A GPU cluster as the Kubernetes API returns it (API JSON), for the verify tests and the control-plane tests.

Nodes carry what AKS sets (learn.microsoft.com/azure/aks/use-labels: kubernetes.azure.com/agentpool, .../mode,
node.kubernetes.io/instance-type; spot nodes the label and taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule)
plus the pool's own labels and taints. ResourceSlices are shaped as the NVIDIA driver publishes them
(kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/deviceinfo.go: driver gpu.nvidia.com, one pool per node
named after it, devices gpu-<minor> with type, uuid, productName, brand, architecture, cudaComputeCapability,
driverVersion, cudaDriverVersion, capacity memory), memory a little under nominal (the driver publishes NVML's total
memory, nvlib.go GetMemoryInfo -> partitions.go fullGpuCapacity; an 8 GB slice reads about 7.8 GiB, docs/sizing.md
"Size classes and claim templates"). The DaemonSets carry the package's own Helm values (node selector, tolerations)
and the chart's default plugin affinity.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from components.catalog import A10_SIZES, GPU_DRIVER_NAME
from components.catalog.mig import MIG_SIZES, mig_slice
from components.config import StackConfig, stack_config_from_mapping
from components.kubernetes.dra_driver import driver_values
from components.kubernetes.extended_classes import chart_extended_names, class_spec
from components.kubernetes.tolerations import pool_tolerations
from components.verify.client import ApiError
from components.verify.expected import expected

ROOT = Path(__file__).resolve().parents[1]
# The chart's default kubelet-plugin affinity (values.yaml kubeletPlugin.affinity): NFD labels or nvidia.com/gpu.present.
PLUGIN_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In", "values": ["true"]}]},
    {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]},
]}}}
REPORTED = 0.955  # share of nominal GPU memory a slice reports (an 8 GB slice reads about 7.8 GiB)


def stack(name: str) -> StackConfig:
    """A stack file of this repository, validated (read as the CLI reads it)."""
    from components.offline import load_project, read_stack_config

    project = load_project(ROOT)
    config, secrets = read_stack_config(project, name)
    return stack_config_from_mapping(config, project.name, secrets)


def stack_fixture(name: str) -> Any:
    """A module-scoped pytest fixture named `name`: that stack of this repository (`stack`), read once per module."""
    import pytest

    return pytest.fixture(scope="module", name=name)(lambda: stack(name))


def _uid(text: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, text))


def meta(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    """Object metadata as the API server returns it."""
    found = {"name": name, "uid": _uid(f"{namespace}/{name}"), "resourceVersion": "1",
             "creationTimestamp": "2026-12-01T10:00:00Z", **extra}
    if namespace:
        found["namespace"] = namespace
    return found


def aks_node(name: str, pool: str, vm_size: str, *, labels: dict[str, str] | None = None,
             taints: list[str] | None = None, mode: str = "User", ready: bool = True,
             kubelet: str | None = None) -> dict[str, Any]:
    """A node as AKS registers it (with `status.nodeInfo.kubeletVersion` when `kubelet` is given)."""
    node_labels = {"kubernetes.azure.com/agentpool": pool, "kubernetes.azure.com/mode": mode.lower(),
                   "node.kubernetes.io/instance-type": vm_size, "kubernetes.io/hostname": name,
                   "kubernetes.io/os": "linux", "agentpool": pool, **(labels or {})}
    parsed = []
    for text in taints or []:
        body, effect = text.rsplit(":", 1)
        key, _, value = body.partition("=")
        parsed.append({"key": key, "effect": effect, **({"value": value} if value else {})})
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": meta(name, labels=node_labels),
        "spec": {"taints": parsed} if parsed else {},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False", "reason": "KubeletReady"}],
                   "capacity": {"cpu": "6", "memory": "56Gi", "pods": "110"},
                   "allocatable": {"cpu": "5800m", "memory": "50Gi", "pods": "110"},
                   **({"nodeInfo": {"kubeletVersion": kubelet}} if kubelet else {})},
    }


def gpu_device(index: int, product: str, memory: str) -> dict[str, Any]:
    """One device as the driver publishes it."""
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "type": {"string": "gpu"}, "uuid": {"string": f"GPU-{_uid(f'{product}{index}{memory}')}"},
            "productName": {"string": product}, "brand": {"string": "Nvidia"}, "architecture": {"string": "Ampere"},
            "cudaComputeCapability": {"version": "8.6.0"}, "driverVersion": {"version": "550.144.6"},
            "cudaDriverVersion": {"version": "12.4.0"},
        },
        "capacity": {"memory": {"value": memory}},
    }


def node_slice(node: str, vm_size: str, *, product: str | None = None, memory: str | None = None,
               devices: int | None = None) -> dict[str, Any]:
    """The ResourceSlice the NVIDIA driver publishes for a node of this VM size (overrides make a wrong one)."""
    size = A10_SIZES[vm_size]
    reported = memory or f"{int(size.gpu_memory_gib * 1024 * REPORTED)}Mi"
    count = size.devices_per_node if devices is None else devices
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": meta(f"{node}-{GPU_DRIVER_NAME}-x7k2q"),
        "spec": {"driver": GPU_DRIVER_NAME, "nodeName": node,
                 "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": [gpu_device(i, product or size.vgpu_profile, reported) for i in range(count)]},
    }


# MIG devices as the driver publishes them (kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/mig.go,
# CommonAttributesMig / CommonCapacitiesMig / ToCanonicalName, deviceinfo.go MigDeviceInfo.GetDevice, v0.4.1 and
# v25.12.0): name gpu-<minor>-mig-<profile without dots>-<GI profile ID>-<placement start>; attributes type "mig", uuid,
# parentUUID, profile and the parent's productName, brand, architecture, versions; capacity memory (NVML's MiB as
# bytes), multiprocessors, engines, one memorySliceN per memory slice it occupies. The 1g.10gb memory is a reading
# (9728Mi, driver issue #719); the others are nominal x 0.95 and the SM counts illustrative, not readings.
MIG_PLACEMENT = {1: (1, (0, 1, 2, 3, 4, 5, 6)), 2: (2, (0, 2, 4)), 3: (4, (0, 4)), 4: (4, (0,)), 7: (8, (0,))}
MIG_MEMORY_READ = {"1g.10gb": "9728Mi"}
MIG_DRIVER_VERSION = "580.159.4"  # a 580 datacenter driver, as the plugin publishes it (semver); illustrative


def mig_device(minor: int, vm_size: str, aks_profile: str, start: int, *, profile: str | None = None,
               memory: str | None = None, architecture: str | None = None) -> dict[str, Any]:
    """One MIG slice of GPU `minor` of a node of this size, laid out by AKS with this profile (overrides: a wrong one)."""
    size = MIG_SIZES[vm_size]
    piece = mig_slice(vm_size, aks_profile)
    name = profile or piece.profile
    slices, _ = MIG_PLACEMENT[piece.compute_units]
    arch = architecture or ("Ampere" if size.gpu.model.startswith("A100") else "Hopper")
    parent = f"GPU-{_uid(f'{vm_size}/{minor}')}"
    reported = memory or MIG_MEMORY_READ.get(name) or f"{int(piece.memory_gib * 1024 * REPORTED)}Mi"
    capacity: dict[str, Any] = {
        "multiprocessors": {"value": str(14 * piece.compute_units)}, "copyEngines": {"value": str(piece.compute_units)},
        "decoders": {"value": str(piece.compute_units)}, "encoders": {"value": "0"},
        "jpegEngines": {"value": "1"}, "ofaEngines": {"value": "0"}, "memory": {"value": reported},
        **{f"memorySlice{i}": {"value": "1"} for i in range(start, start + slices)},
    }
    return {
        "name": f"gpu-{minor}-mig-{name.replace('.', '')}-{piece.gi_profile_id}-{start}",
        "attributes": {
            "type": {"string": "mig"}, "uuid": {"string": f"MIG-{_uid(f'{parent}/{start}')}"},
            "parentUUID": {"string": parent}, "profile": {"string": name},
            "productName": {"string": size.gpu.product_name}, "brand": {"string": "Nvidia"},
            "architecture": {"string": arch},
            "cudaComputeCapability": {"version": "8.0.0" if arch == "Ampere" else "9.0.0"},
            "driverVersion": {"version": MIG_DRIVER_VERSION}, "cudaDriverVersion": {"version": "13.0.0"},
            "resource.kubernetes.io/pciBusID": {"string": f"0000:{minor + 1:02x}:00.0"},
        },
        "capacity": capacity,
    }


def mig_devices(vm_size: str, aks_profile: str, **overrides: Any) -> list[dict[str, Any]]:
    """Every slice a node of this size publishes once AKS has laid out the profile on each GPU."""
    piece = mig_slice(vm_size, aks_profile)
    _, starts = MIG_PLACEMENT[piece.compute_units]
    return [mig_device(minor, vm_size, aks_profile, start, **overrides)
            for minor in range(MIG_SIZES[vm_size].gpus) for start in starts[:piece.per_gpu]]


def whole_gpu(minor: int, vm_size: str) -> dict[str, Any]:
    """A MIG GPU announced whole beside its slices (what charts before 25.12.0 / 0.4.1 did: driver #719, #776)."""
    size = MIG_SIZES[vm_size]
    device = gpu_device(minor, size.gpu.product_name, f"{size.gpu.memory_gib * 1024 * 95 // 100}Mi")
    device["attributes"]["architecture"] = {"string": "Ampere" if size.gpu.model.startswith("A100") else "Hopper"}
    return device


def mig_node_slice(node: str, vm_size: str, aks_profile: str, *, devices: list[dict[str, Any]] | None = None,
                   generation: int = 1) -> dict[str, Any]:
    """The ResourceSlice of a MIG node (its slices; `devices` replaces them to make a wrong one)."""
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": meta(f"{node}-{GPU_DRIVER_NAME}-m1g9q"),
        "spec": {"driver": GPU_DRIVER_NAME, "nodeName": node,
                 "pool": {"name": node, "generation": generation, "resourceSliceCount": 1},
                 "devices": mig_devices(vm_size, aks_profile) if devices is None else devices},
    }


def daemon_set(name: str, namespace: str, template_spec: dict[str, Any], selector: dict[str, str]) -> dict[str, Any]:
    """A DaemonSet as the API returns it."""
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta(name, namespace),
            "spec": {"selector": {"matchLabels": selector},
                     "template": {"metadata": {"labels": selector}, "spec": template_spec}}}


def daemon_pod(ds: dict[str, Any], node: str, *, ready: bool = True, started: bool = True) -> dict[str, Any]:
    """A daemon pod on a node: ready, or still starting (`started`: the node's kubelet has picked it up)."""
    name = f"{ds['metadata']['name']}-{_uid(node)[:5]}"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": meta(name, ds["metadata"]["namespace"], labels=dict(ds["spec"]["selector"]["matchLabels"]),
                         ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
                                           "uid": ds["metadata"]["uid"], "controller": True}]),
        "spec": {**copy.deepcopy(ds["spec"]["template"]["spec"]), "nodeName": node},
        "status": {"phase": "Running" if ready else "Pending",
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                   **({"startTime": "2026-12-01T10:01:00Z"} if started else {})},
    }


@dataclass
class Cluster:
    """What a fake API serves: lists of objects by kind."""

    version: str = "v1.35.3"
    resource_versions: list[str] = field(default_factory=lambda: ["v1", "v1beta2", "v1beta1"])
    nodes: list[dict[str, Any]] = field(default_factory=list)
    slices: list[dict[str, Any]] = field(default_factory=list)
    device_classes: list[dict[str, Any]] = field(default_factory=list)
    templates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    claims: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    daemon_sets: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    deployments: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    pods: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    forbidden: set[str] = field(default_factory=set)

    def node(self, name: str) -> dict[str, Any]:
        """The node of this name."""
        return next(n for n in self.nodes if n["metadata"]["name"] == name)

    def without_node(self, name: str) -> None:
        """Removes a node and everything on it (slice, daemon pods)."""
        self.nodes = [n for n in self.nodes if n["metadata"]["name"] != name]
        self.slices = [s for s in self.slices if s["spec"]["nodeName"] != name]
        for ns, pods in self.pods.items():
            self.pods[ns] = [p for p in pods if p["spec"].get("nodeName") != name]


# The chart's gpu.nvidia.com class (templates/deviceclass-gpu.yaml); on Kubernetes 1.36+ charts 25.12.0/0.4.x add
# extendedResourceName: nvidia.com/gpu (`extended_chart_names`).
CHART_GPU_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta(GPU_DRIVER_NAME),
                   "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com' && "
                                                   "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}}
EXTENDED_CREATED = "2026-12-01T10:05:00Z"  # after the chart's classes (meta's 10:00:00)


def extended_chart_names(config: StackConfig) -> dict[str, str]:
    """The names the driver chart's own classes map on this stack's cluster (none where the package has no driver)."""
    if not config.dra_driver.enabled:
        return {}
    return chart_extended_names(config.dra_driver.chart_version, config.cluster.kubernetes_version)


def plugin_template(config: StackConfig) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(name, pod template spec, selector labels) of the driver's kubelet plugin DaemonSet, from the package's values."""
    exp = expected(config)
    values = driver_values(config.dra_driver, config.gpu_pools)
    spec = {"nodeSelector": values["kubeletPlugin"]["nodeSelector"], "affinity": PLUGIN_AFFINITY,
            "tolerations": values["kubeletPlugin"]["tolerations"],
            "containers": [{"name": "gpus", "image": "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"}]}
    return exp.plugin_daemon_set or "", spec, {"nvidia-dra-driver-gpu-component": "kubelet-plugin"}


def healthy(config: StackConfig, nodes_per_pool: dict[str, int] | None = None) -> Cluster:
    """A cluster where everything the stack declares is in place and ready."""
    exp = expected(config)
    cluster = Cluster()
    gpu_names = []
    for pool in config.gpu_pools:
        for i in range((nodes_per_pool or {}).get(pool.name, 1)):
            name = f"aks-{pool.name}-12345678-vmss00000{i}"
            kubelet = f"v{pool.kubernetes_version or config.cluster.kubernetes_version}.2"
            cluster.nodes.append(aks_node(name, pool.name, pool.vm_size, labels=pool.node_labels, taints=pool.node_taints,
                                          kubelet=kubelet))
            cluster.slices.append(mig_node_slice(name, pool.vm_size, pool.mig_profile) if pool.is_mig
                                  else node_slice(name, pool.vm_size))
            gpu_names.append(name)
    cluster.nodes.append(aks_node("aks-system-12345678-vmss000000", config.cluster.system_pool.name,
                                  config.cluster.system_pool.vm_size, mode="System",
                                  taints=["CriticalAddonsOnly=true:NoSchedule"]))
    if exp.driver_namespace:
        name, spec, selector = plugin_template(config)
        ds = daemon_set(name, exp.driver_namespace, spec, selector)
        cluster.daemon_sets[exp.driver_namespace] = [ds]
        cluster.pods[exp.driver_namespace] = [daemon_pod(ds, n) for n in gpu_names]
    if exp.device_class:
        cluster.device_classes = [
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta(exp.device_class),
             "spec": copy.deepcopy(exp.device_class_spec)},
            copy.deepcopy(CHART_GPU_CLASS),
        ]
        if any(p.is_mig for p in config.gpu_pools):  # the chart's MIG class (templates/deviceclass-mig.yaml)
            cluster.device_classes.append(
                {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta("mig.nvidia.com"),
                 "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com' && "
                                                 "device.attributes['gpu.nvidia.com'].type == 'mig'"}}]}})
    if exp.extended or extended_chart_names(config):
        chart = next((c for c in cluster.device_classes if c["metadata"]["name"] == GPU_DRIVER_NAME), None)
        if chart is None:
            chart = copy.deepcopy(CHART_GPU_CLASS)
            cluster.device_classes.append(chart)
        if extended_chart_names(config):
            chart["spec"]["extendedResourceName"] = "nvidia.com/gpu"
        # The package's classes, created after the driver's release (the component's depends_on).
        cluster.device_classes += [
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": meta(found.class_name, creationTimestamp=EXTENDED_CREATED), "spec": class_spec(found)}
            for found in exp.extended]
    if exp.samples_namespace:
        ns = exp.samples_namespace
        cluster.templates[ns] = [
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": meta(t.name, ns),
             "spec": {"spec": copy.deepcopy(t.spec)}} for t in exp.templates]
        if exp.shared_claim:
            name, spec = exp.shared_claim
            cluster.claims[ns] = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta(name, ns),
                                   "spec": copy.deepcopy(spec), "status": {}}]
    if exp.metrics_namespace and exp.metrics_release:
        spec = {"nodeSelector": {"nvidia.com/gpu.present": "true"}, "tolerations": pool_tolerations(config.gpu_pools),
                "containers": [{"name": "exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-distroless"}]}
        ds = daemon_set(exp.metrics_release, exp.metrics_namespace, spec, {"app.kubernetes.io/name": "dcgm-exporter"})
        cluster.daemon_sets[exp.metrics_namespace] = [ds]
        cluster.pods[exp.metrics_namespace] = [daemon_pod(ds, n) for n in gpu_names]
    return cluster


class FakeClient:
    """A ClusterClient over a Cluster (what recorded responses would give)."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster

    def _read(self, what: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if what in self.cluster.forbidden:
            raise ApiError(403, f'{what} is forbidden: User "ci" cannot list resource "{what}"')
        return copy.deepcopy(items)

    def server(self) -> str:
        return "https://fake.example:443"

    def version(self) -> dict[str, Any]:
        major, minor = self.cluster.version.lstrip("v").split(".")[:2]
        return {"major": major, "minor": minor, "gitVersion": self.cluster.version}

    def group_versions(self, group: str) -> list[str]:
        return list(self.cluster.resource_versions)

    def list_nodes(self):
        return self._read("nodes", self.cluster.nodes)

    def list_resource_slices(self):
        return self._read("resourceslices", self.cluster.slices)

    def list_device_classes(self):
        return self._read("deviceclasses", self.cluster.device_classes)

    def list_resource_claim_templates(self, namespace):
        return self._read("resourceclaimtemplates", self.cluster.templates.get(namespace, []))

    def list_resource_claims(self, namespace):
        return self._read("resourceclaims", self.cluster.claims.get(namespace, []))

    def list_pods(self, namespace, label_selector=None):
        return self._read("pods", self.cluster.pods.get(namespace, []))

    def list_all_pods(self):
        return self._read("pods", [p for pods in self.cluster.pods.values() for p in pods])

    def list_all_resource_claims(self):
        return self._read("resourceclaims", [c for claims in self.cluster.claims.values() for c in claims])

    def list_daemon_sets(self, namespace):
        return self._read("daemonsets", self.cluster.daemon_sets.get(namespace, []))

    def list_deployments(self, namespace):
        return self._read("deployments", self.cluster.deployments.get(namespace, []))
