"""The DCGM fields the exporter collects on A10 vGPU slices: the package's own metric list, written once.

Everything that names a GPU metric (the exporter's counter CSV, the alerts, the recording rules, the dashboard) takes
it from here, so that the dashboard can only query what the exporter emits or the rules record (a test checks it).

The list is dcgm-exporter chart 4.8.2's default (NVIDIA/dcgm-exporter tag 4.5.3-4.8.2,
deployment/templates/metrics-configmap.yaml), with two changes: no NVLink field (an A10 vGPU guest has no NVLink),
and the profiling (DCP, ``DCGM_FI_PROF_*``) fields only where every GPU is a whole A10. A fractional vGPU guest cannot
collect them: DCGM's GPM/profiling calls fail there (``Got unexpected return -14 from m_gpmManager.GetLatestSample``,
NVIDIA/dcgm-exporter#661; the fix that skips them, #701, is not released), and the exporter then logs on every
sample and exports nothing for those fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..config import GpuPoolConfig


@dataclass(frozen=True)
class Counter:
    """One DCGM field as the exporter's CSV names it: `FIELD, type, help`."""

    field: str
    kind: str  # Prometheus metric type: gauge or counter
    help: str
    profiling: bool = False  # a DCP field: never on a fractional vGPU slice

    def csv_line(self) -> str:
        """The counter's line in the exporter's CSV."""
        return f"{self.field}, {self.kind}, {self.help}"


COUNTERS: tuple[Counter, ...] = (
    Counter("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."),
    Counter("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz)."),
    Counter("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C)."),
    Counter("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."),
    Counter("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
    Counter("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ)."),
    Counter("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries."),
    Counter("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."),
    Counter("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %)."),
    Counter("DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %)."),
    Counter("DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %)."),
    # The exporter adds err_code and err_msg labels (internal/pkg/collector/gpu_collector.go at 4.5.3-4.8.2).
    Counter("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
    Counter("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB)."),
    Counter("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."),
    # Field 526; dcgm_fields.h: 0 = the vGPU is not licensed, 1 = licensed.
    Counter("DCGM_FI_DEV_VGPU_LICENSE_STATUS", "gauge", "vGPU License status"),
    Counter("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors"),
    Counter("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors"),
    Counter("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed"),
    Counter("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.", profiling=True),
    Counter("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.", profiling=True),
    Counter(
        "DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
        "Ratio of cycles the device memory interface is active sending or receiving data.", profiling=True,
    ),
    Counter("DCGM_FI_PROF_PCIE_TX_BYTES", "gauge", "The rate of data transmitted over the PCIe bus in bytes per second.",
            profiling=True),
    Counter("DCGM_FI_PROF_PCIE_RX_BYTES", "gauge", "The rate of data received over the PCIe bus in bytes per second.",
            profiling=True),
)

# The labels the exporter puts on a slice's metrics with KUBERNETES_ENABLE_DRA (internal/pkg/transformation/const.go,
# the same at 4.5.3-4.8.2 and 4.6.0-4.8.3): the pod using the device and the ResourceClaim that allocated it. Base
# labels: gpu, UUID, pci_bus_id, device, modelName (the vGPU profile, e.g. "NVIDIA A10-8Q"), and the node's, whose name
# depends on the image (Hostname, hostname from 4.8.3): GpuMetricsConfig.node_label, never a constant here.
DRA_LABELS = ("pod", "namespace", "container", "dra_claim_name", "dra_claim_namespace", "dra_driver_name",
              "dra_pool_name", "dra_device_name")
DEVICE_LABEL = "UUID"
MODEL_LABEL = "modelName"


def whole_gpus_only(pools: Iterable[GpuPoolConfig]) -> bool:
    """Every pool's devices are whole A10s (the 24 GB profile): the only guests that can collect profiling fields.
    A MIG pool counts as fractional: profiling fields on MIG slices are not established here (docs/mig.md)."""
    pools = list(pools)
    return bool(pools) and all(not p.is_mig and p.size.gpu_memory_gib >= 24 for p in pools)


def counters_for(pools: Iterable[GpuPoolConfig]) -> tuple[Counter, ...]:
    """The counters for these pools: profiling fields only when no pool has fractional slices (one exporter list
    serves every GPU node: the chart names its counter ConfigMap itself, so one release per namespace)."""
    profiling = whole_gpus_only(pools)
    return tuple(c for c in COUNTERS if profiling or not c.profiling)


def counters_csv(counters: Iterable[Counter]) -> str:
    """The exporter's counter file (the chart's `customMetrics`: the complete list, not added to the default)."""
    lines = ["# DCGM FIELD, Prometheus metric type, help message (generated by aks-dra-vgpu)"]
    lines += [c.csv_line() for c in counters]
    return "\n".join(lines) + "\n"


def emitted_metrics(counters: Iterable[Counter] = COUNTERS) -> frozenset[str]:
    """The metric names the exporter emits for these counters (dcgm-exporter names each metric after its field)."""
    return frozenset(c.field for c in counters)
