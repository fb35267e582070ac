"""The whole sizing plan as the report reads it: the model's data, with the packing onto shared slices, the regions
compared and the families compared (the modules that decide those import the model; this imports them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .families import FamilyRow
from .model import Change, CostLine, Finding, Placement, PoolPlan
from .packing import SharedPlan
from .prices import PriceTable
from .regions import RegionComparison


@dataclass
class SizingPlan:
    """Everything the planner decided, in the order people read it."""

    margin_percent: int
    device_class: str
    placements: list[Placement]
    pools: list[PoolPlan]
    costs: dict[str, CostLine]
    prices: PriceTable
    findings: list[Finding] = field(default_factory=list)
    gpu_pools: list[dict[str, Any]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per workload the margin moved up a size
    pool_names: list[str] = field(default_factory=list)  # the stack's gpuPools names, by index (none without a stack)
    has_stack: bool = False
    shared: SharedPlan | None = None  # the packing onto shared slices, when asked for (or the stack shares)
    regions: RegionComparison | None = None  # the plan at other regions' prices (`--regions`)
    families: tuple[str, ...] = ("a10",)  # the families of slice the plan chose from
    compared: list[FamilyRow] = field(default_factory=list)  # A10 and MIG slices per workload, when both were open

    @property
    def fits(self) -> bool:
        """Whether everything fits: no error among the findings."""
        return not any(f.severity == "error" for f in self.findings)
