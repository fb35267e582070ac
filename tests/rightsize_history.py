"""A week of GPU metrics as dcgm-exporter 4.6.0-4.8.3 writes them under DRA and the package's scrape object labels
them, for the rightsize tests against a real Prometheus (tests/prometheus_server.py).

Shapes (components/observability/usage_queries.py cites the sources): each device's rows carry `gpu`, `UUID`,
`pci_bus_id`, `device`, `modelName`, `hostname`, and the scrape object's `job="gpu-metrics"` and `node`. A device a
claim holds has one row per pod using it, with `pod`, `namespace`, `container` and the `dra_*` labels; a device nobody
uses has one row carrying the scrape target's own `namespace`, `pod` and `container` (the exporter pod's). MIG rows
add `GPU_I_PROFILE` and `GPU_I_ID`, keep the parent GPU's `UUID` and `modelName`, and never name a pod. AKS's
recording rule maps pods to workloads. Framebuffer totals read a little under nominal, as a vGPU guest's do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

END = 1_760_000_400  # October 2025 (older than any head), a multiple of the 15-minute subquery step and the scrape
SCRAPE = 600  # seconds between samples (the server's lookback is 15 minutes)
WEEK = 7 * 86400
FIRST = END - (WEEK // SCRAPE - 1) * SCRAPE  # the window (END - 7d, END] holds 1008 samples per series
QUIET = "quiet"  # a second cluster writing to the same Prometheus (AKS's agent labels its series `cluster`)
EXPORTER = {"namespace": "gpu-metrics", "pod": "dcgm-exporter-x7k2p", "container": "exporter"}
OWNER = "namespace_workload_pod:kube_pod_owner:relabel"


def busy_hour(t: int) -> bool:
    """Noon of every day: when the peaks happen."""
    return (t // 3600) % 24 == 12


@dataclass
class Device:
    """One device: its identity labels and framebuffer (MiB, used + free)."""

    uuid: str
    node: str
    total: float
    model: str
    profile: str = ""
    instance: str = ""
    cluster: str = ""

    def labels(self) -> dict[str, str]:
        found = {"gpu": "0", "UUID": self.uuid, "pci_bus_id": "00000001:00:00.0", "device": "nvidia0",
                 "modelName": self.model, "hostname": self.node, "node": self.node, "job": "gpu-metrics",
                 "instance": "10.244.1.7:9400"}
        if self.profile:
            found.update(GPU_I_PROFILE=self.profile, GPU_I_ID=self.instance)
        if self.cluster:
            found["cluster"] = self.cluster
        return found


@dataclass
class Use:
    """A device's rows over [start, end]: who uses it (a pod and claim, or nobody), how much, and its utilisation."""

    device: Device
    used: Callable[[int], float]
    util: float
    pod: str = ""
    namespace: str = ""
    claim: str = ""
    claim_namespace: str = ""
    start: int = FIRST
    end: int = END

    def labels(self) -> dict[str, str]:
        found = self.device.labels()
        if self.claim:
            found.update(namespace=self.namespace, pod=self.pod, container="main", dra_claim_name=self.claim,
                         dra_claim_namespace=self.claim_namespace or self.namespace, dra_driver_name="gpu.nvidia.com",
                         dra_pool_name=self.device.node, dra_device_name="gpu-0")
        else:
            found.update(EXPORTER)
        return found


@dataclass
class History:
    """Every row and owner of the history."""

    uses: list[Use] = field(default_factory=list)
    owners: list[tuple[str, str, str, str, int, int, str]] = field(default_factory=list)  # ns, pod, workload, type,
    # start, end, cluster

    def samples(self) -> Iterator[tuple[str, dict[str, str], int, float]]:
        for use in self.uses:
            labels = use.labels()
            for t in range(use.start, use.end + 1, SCRAPE):
                used = use.used(t)
                yield "DCGM_FI_DEV_FB_USED", labels, t, used
                yield "DCGM_FI_DEV_FB_FREE", labels, t, use.device.total - used
                yield "DCGM_FI_DEV_GPU_UTIL", labels, t, use.util
        for namespace, pod, workload, kind, start, end, cluster in self.owners:
            labels = {"namespace": namespace, "pod": pod, "workload": workload, "workload_type": kind}
            if cluster:
                labels["cluster"] = cluster
            for t in range(start, end + 1, SCRAPE):
                yield OWNER, labels, t, 1


def peaked(high: float, low: float) -> Callable[[int], float]:
    return lambda t: high if busy_hour(t) else low


def flat(value: float) -> Callable[[int], float]:
    return lambda t: value


A10_4, A10_8, A10_12, A10_24 = "NVIDIA A10-4Q", "NVIDIA A10-8Q", "NVIDIA A10-12Q", "NVIDIA A10-24Q"
A100 = "NVIDIA A100 80GB PCIe"  # NVML's name, as catalog/mig.py has it
NEW_MODEL_START = END - 5 * 3600


def history() -> History:
    """The week: every kind of slice and every verdict, and the quiet older days."""
    h = History()

    def claimed(device: Device, used: Callable[[int], float], util: float, namespace: str, pod: str, workload: str,
                kind: str, claim: str = "", start: int = FIRST, claim_namespace: str = "") -> None:
        h.uses.append(Use(device, used, util, pod, namespace, claim or f"{pod}-gpu-abc12", claim_namespace, start))
        if workload:
            h.owners.append((namespace, pod, workload, kind, start, END, device.cluster))

    claimed(Device("GPU-4a", "aks-a10s-0", 3840, A10_4), peaked(1200, 800), 20, "web", "embed-5c9d-1", "embed",
            "deployment")
    for suffix, node in (("a", "aks-a10m-0"), ("b", "aks-a10m-1")):
        claimed(Device(f"GPU-8{suffix}", node, 7987, A10_8), peaked(3000, 1500), 40, "ml", f"chat-7f-{suffix}", "chat",
                "deployment")
    claimed(Device("GPU-12a", "aks-a10l-0", 12000, A10_12), peaked(11500, 6000), 55, "ml", "asr-0", "asr", "statefulset")
    claimed(Device("GPU-24a", "aks-a10x-0", 24000, A10_24), peaked(5000, 3000), 90, "research", "finetune-x9k2p",
            "finetune", "job")
    claimed(Device("GPU-24b", "aks-a10x-1", 24000, A10_24), flat(22080), 30, "serving", "vllm-6b-q", "vllm", "deployment")
    claimed(Device("GPU-8c", "aks-a10m-2", 7987, A10_8), flat(0), 0, "web", "idle-app-1", "idle-app", "deployment")
    fresh = Device("GPU-8d", "aks-a10m-3", 7987, A10_8)
    h.uses.append(Use(fresh, flat(0), 0, end=NEW_MODEL_START - SCRAPE))  # nobody's until the new model came
    claimed(fresh, flat(2000), 5, "batch", "new-model-1", "new-model", "deployment", start=NEW_MODEL_START)
    shared = Device("GPU-12b", "aks-a10l-1", 12000, A10_12)
    for pod, workload in (("alpha-1", "alpha"), ("beta-1", "beta")):
        claimed(shared, peaked(6000, 4000), 25, "shared", pod, workload, "deployment", claim="team-gpu")
    # A pod written for the device plugin: the 1.36 scheduler made its claim (<pod>-extended-resources-<random>).
    claimed(Device("GPU-8e", "aks-a10m-4", 7987, A10_8), peaked(7000, 4000), 60, "legacy", "classic-7d9f-x", "classic",
            "deployment", claim="classic-7d9f-x-extended-resources-k2j4q")
    claimed(Device("GPU-4b", "aks-a10s-1", 3840, A10_4), peaked(100, 50), 1, "dev", "scratch", "", "")  # a bare pod
    for instance, used in (("1", peaked(10000, 8000)), ("2", flat(0))):
        h.uses.append(Use(Device("GPU-a100", "aks-a100-0", 40320, A100, "3g.40gb", instance), used, 70))
    h.uses.append(Use(Device("GPU-8f", "aks-a10m-9", 7987, A10_8), flat(0), 0))  # published, never allocated
    h.owners += [("gpu-metrics", EXPORTER["pod"], "dcgm-exporter", "daemonset", FIRST, END, ""),
                 ("web", "frontend-1", "frontend", "deployment", FIRST, END, "")]  # no GPU: never asked for
    # The other cluster: one steady workload, and an owner row of the same name as one of the first cluster's pods.
    claimed(Device("GPU-4q", "aks-a10s-0", 3840, A10_4, cluster=QUIET), peaked(1000, 600), 15, "web", "steady-1",
            "steady", "deployment")
    h.owners.append(("web", "embed-5c9d-1", "not-embed", "deployment", FIRST, END, QUIET))
    return h
