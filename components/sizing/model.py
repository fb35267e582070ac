"""The sizing planner's plain data types: what is asked for (workloads), what it decides (placements, pools, changes
to the stack's pools, costs) and what it reports (findings). Types only: it imports no module of the planner (the whole
plan, which holds the packing, the regions and the family comparison, is `plan.SizingPlan`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..catalog import PAIR_SIZE, SIZE_CLASSES
from ..kubernetes.slice_kinds import Slice, holds

# One unit in every line of the sizing output: GiB. The catalog's GPU memory per device (catalog/sizes.py,
# `gpu_memory_gib`: 4, 8, 12, 24) is what Microsoft's size table lists as "GPU Memory: GB" for NVadsA10_v5
# (MicrosoftDocs/azure-compute-docs, articles/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series.md); the figures
# are binary frame-buffer sizes (an A10 is 24 GiB; a slice reads a little below nominal, about 7.8 GiB for 8 GB, which
# docs/sizing.md "What is and is not verified" lists as reported, not measured), the unit workloads, claims
# (`memory: 8Gi`) and the margin are counted in.
UNIT = "GiB"


SLICE_SIZES: tuple[int, ...] = (*SIZE_CLASSES, 2 * PAIR_SIZE)  # 4, 8, 12, 24 and 48: two whole A10s on one node
"""The nominal slices a workload can ask for by name (`--slice NAME=GiB`, `slice:`): an A10's 1/6, 1/3, 1/2, the whole
A10, and 48 for two whole A10s on one node (Standard_NV72ads_A10_v5)."""

MAX_GIB, MAX_COUNT = 1024, 10000
WORKLOAD_LIMITS = f"GiB is more than 0 and at most {MAX_GIB}, COUNT at least 1 and at most {MAX_COUNT}"
WORKLOAD_DIGITS = {"count": 6, "gib": 12}  # a --workload number longer than this is refused before it is read
"""The most GPU memory (GiB) and replicas one workload may ask for, however it is written."""

@dataclass(frozen=True)
class Workload:
    """A workload: GPU memory it needs per device (GiB) or a nominal slice it asks for, replicas, devices per replica
    (1, or 2 on one node), whether it may run on spot pools, and, when it asks for an extended resource name, that
    name and the only slices its class selects."""

    name: str
    memory_gib: float  # 0 for an extended resource name asked without a memory: it takes what its name's slice holds
    count: int = 1
    devices: int = 1
    slice_gib: int | None = None  # asked for by slice: this size class (24 for `48`, with devices=2), margin aside
    spot: bool = False
    resource: str | None = None  # the extended resource name it asks for (`NAME=[GiB@]RESOURCE`, `resource:`)
    served_by: tuple[Slice, ...] = ()  # with a resource: the slices its name's class selects, the only ones it may get

    @property
    def requested_gib(self) -> float:
        """GPU memory per device it counts for: what it needs, or the whole nominal slice it asked for (a name asked
        without a memory counts for the smallest slice its name gives)."""
        if self.slice_gib is not None:
            return float(self.slice_gib)
        if self.resource is not None and not self.memory_gib and self.served_by:
            return float(min(k.memory_gib for k in self.served_by))
        return self.memory_gib

    @property
    def stated_gib(self) -> float | None:
        """The GPU memory the user said it needs, or None (asked for by slice, or by a name alone)."""
        return None if self.slice_gib is not None or not self.memory_gib else self.memory_gib

    def takes(self, kind: Slice, margin_percent: int) -> bool:
        """Whether one slice of this kind may serve it: one its name's class selects (any, for a workload asked for by
        memory), holding the memory it needs at the margin (`slice_kinds.holds`, the one rule)."""
        if self.resource is not None and kind not in self.served_by:
            return False
        return holds(kind, margin_percent, self.memory_gib)

    @property
    def asked(self) -> str:
        """How it was asked for: '8 GiB slice', '2 x 24 GiB slice', '7 GiB', 'nvidia.com/gpu' or '20 GiB as
        nvidia.com/gpu' (only what the user wrote)."""
        if self.resource is not None:
            return f"{self.memory_gib:g} {UNIT} as {self.resource}" if self.memory_gib else self.resource
        if self.slice_gib is None:
            return f"{self.memory_gib:g} {UNIT}"
        return f"2 x {self.slice_gib} {UNIT} slice" if self.devices == 2 else f"{self.slice_gib} {UNIT} slice"


@dataclass(frozen=True)
class Finding:
    """One thing the planner reports: an error (something does not fit) or a warning, at a key when there is one."""

    severity: Literal["error", "warning"]
    kind: str
    message: str
    key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape."""
        return {"severity": self.severity, "kind": self.kind, "key": self.key, "message": self.message}


@dataclass(frozen=True)
class Placement:
    """Where one workload goes: its size class, VM size, claim template, tolerations and the stack's pools that may run
    it (all None / empty when it fits nowhere)."""

    workload: Workload
    size_class: int | None
    vm_size: str | None
    claim_template: str | None
    tolerations: list[dict[str, str]]
    stack_pools: tuple[int, ...] = ()  # indexes into the stack's gpuPools this workload may run on
    aks_profile: str | None = None  # a MIG slice: the AKS gpuInstanceProfile of its VM size (None: an A10 slice)


@dataclass(frozen=True)
class PoolPlan:
    """Nodes of one VM size a set of workloads needs, the suggested autoscaling, and the stack's pools that serve them
    (none: a new pool)."""

    vm_size: str
    devices: int
    nodes: int
    min_count: int
    max_count: int
    stack_pools: tuple[int, ...] = ()
    workloads: tuple[str, ...] = ()
    aks_profile: str | None = None  # MIG pools: the gpuInstanceProfile


@dataclass(frozen=True)
class Change:
    """One change the suggested gpuPools make to the stack's pools, with why."""

    pool: str
    key: str
    old: Any
    new: Any
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape."""
        return {"pool": self.pool, "key": self.key, "old": self.old, "new": self.new, "reason": self.reason}

    def __str__(self) -> str:
        if self.old is None:
            return f"{self.pool}: new pool ({self.reason})"
        return f"{self.pool}: {self.key} {self.old} -> {self.new} ({self.reason})"


@dataclass(frozen=True)
class CostLine:
    """One way to run the workloads: what it costs and how much of its GPU memory the workloads use."""

    label: str
    hourly: float | None
    monthly: float | None
    requested_gib: float
    provisioned_gib: float
    vm_size: str | None = None
    unpriced: tuple[str, ...] = ()  # sizes with no price in the table: hourly/monthly are None, never a sum without them
    priced_hourly: float = 0.0  # what the sizes that have a price cost an hour (the partial figure when some have none)

    @property
    def utilisation(self) -> float | None:
        """Memory asked for / memory provisioned, or None when nothing is provisioned."""
        return self.requested_gib / self.provisioned_gib if self.provisioned_gib else None
