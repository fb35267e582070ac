"""The GPU pools section: one NVadsA10_v5 size per pool, labels, taints, autoscaling."""

from __future__ import annotations

import difflib
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..catalog import A10_SIZES, GPU_PRESENT_LABEL, RESERVED_LABEL_PREFIXES, A10Size
from .base import Model, PoolName, Zones
from .errors import KeyedProblemsError
from .syntax import SURGE, Taint, check_label_key, check_label_value, parse_taint


class AutoscalingConfig(Model):
    """Cluster-autoscaler bounds; with autoscaling the node count is the autoscaler's, never drift."""

    min_count: int = Field(ge=0, le=1000, description="Fewest nodes (0-1000; 0 lets the pool scale to zero).")
    max_count: int = Field(ge=1, le=1000, description="Most nodes (1-1000), at least minCount.")

    @model_validator(mode="after")
    def _bounds(self) -> AutoscalingConfig:
        if self.min_count > self.max_count:
            raise KeyedProblemsError(("minCount", f"{self.min_count} is greater than maxCount {self.max_count}; need min <= max"))
        return self


class GpuPoolConfig(Model):
    """A GPU node pool of one NVadsA10_v5 size: every node presents fixed vGPU slices to the DRA driver."""

    name: PoolName = Field(description="Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters.")
    vm_size: str = Field(description="One of the NVadsA10_v5 sizes: " + ", ".join(A10_SIZES) + ".")
    count: int | None = Field(
        None, ge=0, le=1000,
        description="Node count (0-1000). With autoscaling, the initial count only (default minCount); never diffed.",
    )
    autoscaling: AutoscalingConfig | None = Field(None, description="Turn on the cluster autoscaler with these bounds.")
    zones: Zones = Field(description="Availability zones ('1', '2', '3'); immutable (a change replaces the pool).")
    labels: dict[str, str] = Field(
        default_factory=dict, description="Extra node labels; nvidia.com/gpu.present=true is always added."
    )
    taints: list[str] = Field(
        default_factory=list, description="Node taints, 'key=value:Effect'; the DRA plugin and samples tolerate them."
    )
    max_pods: int = Field(110, ge=10, le=250, description="Maximum pods per node (10-250); immutable.")
    os_type: Literal["Linux"] = Field("Linux", description="GPU pools are Linux: the DRA driver runs only there.")
    os_sku: Literal["Ubuntu", "AzureLinux"] = Field("Ubuntu", description="Node OS image; immutable.")
    os_disk_size_gb: int = Field(128, ge=30, le=2048, description="OS disk size in GB.")
    max_surge: str = Field("1", description="Upgrade surge: extra nodes during upgrades, a number or a percentage.")

    @field_validator("vm_size")
    @classmethod
    def _vm_size(cls, v: str) -> str:
        if v not in A10_SIZES:
            close = difflib.get_close_matches(v, list(A10_SIZES), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"'{v}' is not an NVadsA10_v5 size{hint}; choose one of {', '.join(A10_SIZES)}")
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        problems = []
        for key, value in v.items():
            if key.startswith(RESERVED_LABEL_PREFIXES):
                problems.append(
                    f"label key '{key}' uses a reserved prefix; AKS reserves {', '.join(RESERVED_LABEL_PREFIXES)}"
                )
            elif key == GPU_PRESENT_LABEL[0] and value != GPU_PRESENT_LABEL[1]:
                problems.append(f"label '{key}' must be '{GPU_PRESENT_LABEL[1]}' (the DRA plugin selects nodes by it)")
            else:
                problem = check_label_key(key) or check_label_value(value)
                if problem:
                    problems.append(problem)
        if problems:
            raise ValueError("; ".join(problems))
        return v

    @field_validator("taints")
    @classmethod
    def _taints(cls, v: list[str]) -> list[str]:
        parsed = [parse_taint(text) for text in v]
        twice = sorted({t for t in v if v.count(t) > 1})
        if twice:
            raise ValueError(f"{', '.join(repr(t) for t in twice)} listed twice; list each taint once")
        # Kubernetes refuses a node whose taints repeat a key and effect (kubernetes/kubernetes
        # pkg/apis/core/validation/validation.go, validateNodeTaints: "taints must be unique by key and effect pair").
        seen: dict[tuple[str, str], str] = {}
        for text, taint in zip(v, parsed, strict=True):
            first = seen.setdefault((taint.key, taint.effect), text)
            if first != text:
                raise ValueError(
                    f"'{first}' and '{text}' have the same key and effect; Kubernetes allows one taint per key and effect"
                )
        return v

    @field_validator("max_surge")
    @classmethod
    def _surge(cls, v: str) -> str:
        if not SURGE.fullmatch(v):
            raise ValueError(f"'{v}' is not a surge; write a node count like '1' or a percentage like '33%'")
        return v

    @model_validator(mode="after")
    def _count(self) -> GpuPoolConfig:
        a = self.autoscaling
        if a and self.count is not None and not a.min_count <= self.count <= a.max_count:
            raise KeyedProblemsError(("count", f"{self.count} is outside the autoscaling bounds [{a.min_count}, {a.max_count}]"))
        return self

    @property
    def size(self) -> A10Size:
        """The catalog entry of this pool's VM size."""
        return A10_SIZES[self.vm_size]

    @property
    def node_labels(self) -> dict[str, str]:
        """The labels every node gets: the user's, plus the one the DRA plugin selects by."""
        return {**self.labels, GPU_PRESENT_LABEL[0]: GPU_PRESENT_LABEL[1]}

    @property
    def parsed_taints(self) -> list[Taint]:
        """The taints, parsed."""
        return [parse_taint(t) for t in self.taints]

    @property
    def initial_count(self) -> int:
        """The count sent to AKS at creation: the configured one, or the autoscaler's minimum, or 1."""
        if self.count is not None:
            return self.count
        return self.autoscaling.min_count if self.autoscaling else 1


