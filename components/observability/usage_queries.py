"""What a workload uses of its GPU slices, as PromQL, written once: `rightsize` runs these queries and the dashboard's
right-sizing row shows them (`dashboard.py`).

Prometheus does the work: every query is an instant query at the window's end that folds the window on the server
(`max_over_time`, `quantile_over_time`, `last_over_time`, `avg_over_time`, and `min`/`max_over_time` of `time()`
in a subquery), so an answer holds one value per series, never the samples: its size grows with the devices and pods
seen, not with the scrape interval or the window's length.

Where each name comes from:
- `DCGM_FI_DEV_FB_USED`, `DCGM_FI_DEV_FB_FREE` (MiB) and `DCGM_FI_DEV_GPU_UTIL` (%): the package's counter list
  (`counters.py`), gauges dcgm-exporter names after their DCGM fields; used + free is the guest's framebuffer.
- `UUID`, `modelName` and, on MIG rows only, `GPU_I_PROFILE` and `GPU_I_ID`: the exporter's metric line
  (NVIDIA/dcgm-exporter internal/pkg/rendermetrics/render_metrics.go at d5e5f510, the pinned image's source;
  `counters.MIG_LABELS`). A MIG slice is (UUID, GPU_I_ID): its rows keep the parent GPU's UUID.
- `pod`, `namespace`, `dra_claim_name`, `dra_claim_namespace`: the exporter's DRA attribution
  (internal/pkg/transformation/const.go and kubernetes.go, `Process`: one copy of a device's row per pod using it);
  A10 slices carry them, MIG rows do not (docs/observability.md). The scrape object keeps them over the target's own
  (`honorLabels`, `scrape.py`).
- `node` and `job="gpu-metrics"`: the package's scrape object (`scrape.py`, `_relabelings`), whatever the image; and
  the image's own node label, `hostname` from exporter 4.8.3 and `Hostname` before (`GpuMetricsConfig.node_label`,
  catalog/dcgm_exporter.py `node_label`), for a Prometheus that scrapes the exporter its own way.
- `cluster`: set on every series AKS's managed Prometheus collects (AKS's own recording rules group by it,
  Azure/prometheus-collector AddonArmTemplate); absent elsewhere, where grouping by it changes nothing.
- `namespace_workload_pod:kube_pod_owner:relabel{namespace, pod, workload, workload_type}`: AKS's recording rules,
  which the package creates with managed Prometheus (`rules.aks_recording_groups`): pods to their workloads.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.monitoring import GpuMetricsConfig
from .counters import DEVICE_LABEL, MIG_LABELS, MODEL_LABEL
from .scrape import EXPORTER_JOB

FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
OWNER_RULE = "namespace_workload_pod:kube_pod_owner:relabel"
DEFAULT_NODE_LABEL = GpuMetricsConfig().node_label
USER_LABELS = ("namespace", "pod", "dra_claim_name", "dra_claim_namespace")
"""Who uses a device: the pod and the ResourceClaim that allocated it (no claim on a row nobody uses)."""
OWNER_LABELS = ("cluster", "namespace", "pod", "workload", "workload_type")
LOW_QUANTILE = 0.05
"""The low end of a series' use: a preallocating engine sits high from its first minutes, so even this is high."""

_JOB = f'job="{EXPORTER_JOB}"'
CLAIMED = 'dra_claim_name!=""'
DEVICE = "cluster, node, UUID, GPU_I_ID"  # one device, whatever else its rows carry


@dataclass(frozen=True)
class UsageQuery:
    """One instant query: what it answers and the metric whose absence it would mean."""

    name: str
    expr: str
    metric: str


def _by(labels: tuple[str, ...]) -> str:
    return ", ".join(labels)


def device_labels(node_label: str = DEFAULT_NODE_LABEL) -> tuple[str, ...]:
    """What names one device (a slice): its cluster, node (the scrape object's `node` and the image's own label), GPU
    and, for MIG, GPU instance and profile; and its model."""
    return ("cluster", "node", node_label, DEVICE_LABEL, *MIG_LABELS, MODEL_LABEL)


def _rows(node_label: str) -> str:
    return _by((*device_labels(node_label), *USER_LABELS))


def _in(cluster: str | None) -> str:
    """The matcher that keeps one cluster's series (a workspace may hold several), or nothing. The name is one AKS
    allows (letters, digits, '-', '_'), checked by the caller, so it needs no escaping."""
    return f', cluster="{cluster}"' if cluster else ""


def _exporter(metric: str, cluster: str | None, *more: str) -> str:
    return f"{metric}{{{', '.join((_JOB, *more))}{_in(cluster)}}}"


def usage_queries(window: str, step: str, cluster: str | None = None,
                  node_label: str = DEFAULT_NODE_LABEL) -> tuple[UsageQuery, ...]:
    """The queries `rightsize` runs for a window (`7d`), a subquery step (`15m`), optionally one cluster, and the
    exporter image's node label; the owners of the pods they name come after (`owners`).

    Only the peak reads every sample (a spike between two steps must not be missed). The rest read the series at the
    subquery's steps, whose number is the same whatever the window and the scrape interval: when each series was first
    and last seen, its framebuffer, the low end of its use and its utilisation."""
    rows = _rows(node_label)
    used = _exporter(FB_USED, cluster)
    # The step's own time wherever the series has a sample within the lookback: when it was first and last seen, to
    # the step (`timestamp()` would give the samples' own times, and costs ten times as much in a subquery).
    seen = f"(time() + 0 * {used})"
    return (
        UsageQuery("peak", peak_used(window, cluster, node_label=node_label), FB_USED),
        UsageQuery("framebuffer", framebuffer(window, cluster, step, node_label), FB_FREE),
        UsageQuery("first", f"min by ({rows}) (min_over_time({seen}[{window}:{step}]))", FB_USED),
        UsageQuery("last", f"max by ({rows}) (max_over_time({seen}[{window}:{step}]))", FB_USED),
        UsageQuery("low", f"max by ({rows}) (quantile_over_time({LOW_QUANTILE}, {used}[{window}:{step}]))", FB_USED),
        UsageQuery("utilisation", f"max by ({rows}) (avg_over_time({_exporter(GPU_UTIL, cluster)}[{window}:{step}]))",
                   GPU_UTIL),
    )


def peak_used(window: str, cluster: str | None = None, claimed: bool = False,
              node_label: str = DEFAULT_NODE_LABEL) -> str:
    """The most framebuffer (MiB) each device showed for each pod using it (a row without a claim: nobody's);
    `claimed`: only rows a ResourceClaim holds."""
    selector = _exporter(FB_USED, cluster, *((CLAIMED,) if claimed else ()))
    return f"max by ({_rows(node_label)}) (max_over_time({selector}[{window}]))"


def framebuffer(window: str, cluster: str | None = None, step: str | None = None,
                node_label: str = DEFAULT_NODE_LABEL) -> str:
    """Each device's framebuffer (MiB): used + free at its last sample (at the last step, with `step`), a constant
    of the slice."""
    over = f"[{window}:{step}]" if step else f"[{window}]"
    return (f"max by ({_by(device_labels(node_label))}) (last_over_time({_exporter(FB_USED, cluster)}{over}) + "
            f"last_over_time({_exporter(FB_FREE, cluster)}{over}))")


def owners(window: str, namespaces: tuple[str, ...], cluster: str | None = None) -> UsageQuery:
    """The workloads of the pods in these namespaces (those whose pods held a claim: not the whole cluster's). A
    namespace is a DNS label (letters, digits, '-'), so the alternatives need no escaping."""
    matchers = f'namespace=~"{"|".join(namespaces)}"' + _in(cluster)
    expr = f"max by ({_by(OWNER_LABELS)}) (max_over_time({OWNER_RULE}{{{matchers}}}[{window}]))"
    return UsageQuery("owners", expr, OWNER_RULE)


# --- the dashboard's row: the same pieces, joined on the server --------------------------------------------------------
def owner_map(window: str) -> str:
    """Each pod's workload as a series of value 1 (the right side of a join)."""
    return f"max by (cluster, namespace, pod, workload) (max_over_time({OWNER_RULE}[{window}]))"


def _per_workload(per_pod: str, window: str) -> str:
    return (f"max by (cluster, namespace, workload) ({per_pod} "
            f"* on (cluster, namespace, pod) group_left (workload) {owner_map(window)})")


def workload_peak_mib(window: str, node_label: str = DEFAULT_NODE_LABEL) -> str:
    """Per workload, its peak framebuffer used (MiB)."""
    return _per_workload(peak_used(window, claimed=True, node_label=node_label), window)


def workload_slice_mib(window: str, node_label: str = DEFAULT_NODE_LABEL) -> str:
    """Per workload, the framebuffer (MiB) of the largest slice it held."""
    return _per_workload(f"({peak_used(window, claimed=True, node_label=node_label)} * 0 + on ({DEVICE}) "
                         f"group_left () {framebuffer(window, node_label=node_label)})", window)


def workload_peak_ratio(window: str, node_label: str = DEFAULT_NODE_LABEL) -> str:
    """Per workload, its peak framebuffer used as a fraction of its slice's framebuffer."""
    return _per_workload(f"({peak_used(window, claimed=True, node_label=node_label)} / on ({DEVICE}) group_left () "
                         f"{framebuffer(window, node_label=node_label)})", window)
