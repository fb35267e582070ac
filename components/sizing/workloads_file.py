"""A `--workloads` file of the `size` command: one entry per workload, asked for by the memory it needs (`memoryGiB`),
by a nominal slice (`slice`) or by an extended resource name as its pod writes it (`resource`, `sizing.extended`),
validated as a stack's config is, every bad key named with the file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..config import ConfigError, KeyedProblemsError, Model, Problem, validate
from ..config.base import unset
from ..config.extended_resources import extended_resource_name_problem
from .extended import ExtendedAsk
from .model import MAX_COUNT, MAX_GIB, SLICE_SIZES, Workload

_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9_.]{0,62}", re.ASCII)
SLICES_TEXT = f"{', '.join(map(str, SLICE_SIZES))} (24: a whole A10; 48: two whole A10s on one node)"


class WorkloadSpec(Model):
    """One workload of a `--workloads` file."""

    name: str = Field(description="A name to report it by (letters, digits, '-', '_', '.').")
    memory_gib: float | None = Field(None, gt=0, le=MAX_GIB, alias="memoryGiB",
                                     description="GPU memory per device the workload needs, in GiB (or `slice`).")
    slice: Literal[4, 8, 12, 24, 48] | None = Field(
        None, description="The nominal slice to run on, in GiB (or `memoryGiB`): 4, 8, 12, 24 (a whole A10), or 48 "
        "(two whole A10s on one node).")
    count: int = Field(1, ge=1, le=MAX_COUNT, description="Replicas that run at the same time.")
    devices: Literal[1, 2] | None = unset("Devices per replica: 2 means two 24 GiB devices on one "
                                          "node (default 1; 2 with slice: 48).")
    resource: str | None = Field(
        None, description="An extended resource name the workload asks for, as its pod writes it (nvidia.com/gpu, "
        "aks-dra-vgpu.io/a10-8gib, nvidia.com/mig-3g.40gb): it gets only the slices that name's DeviceClass selects, "
        "and memoryGiB, when given, must fit them.")
    spot: bool = Field(False, description="May run on spot pools (evictable); without it a spot pool never serves it.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.fullmatch(v):
            raise ValueError(f"'{v}' is not a workload name; use letters, digits, '-', '_' or '.' (at most 63)")
        return v

    @field_validator("resource")
    @classmethod
    def _resource(cls, v: str | None) -> str | None:
        problem = None if v is None else extended_resource_name_problem(v)
        if problem:
            raise ValueError(problem)
        return v

    @model_validator(mode="after")
    def _memory_or_slice(self) -> WorkloadSpec:
        if self.resource is not None:
            if self.slice is not None:
                raise KeyedProblemsError(("slice", "resource names the slices the workload gets; leave slice out "
                                          "(memoryGiB says what it needs, if you want it checked)"))
            if self.devices is not None:
                raise KeyedProblemsError(("devices", "a workload asking for a resource name gets one device of it "
                                          "per replica here; leave devices out"))
            return self
        if (self.memory_gib is None) == (self.slice is None):
            raise KeyedProblemsError(("memoryGiB", "give memoryGiB (GiB the workload needs) or slice (one of "
                                      f"{SLICES_TEXT}), one of the two, or resource (an extended resource name)"))
        if self.slice is not None and self.slice < 24 and self.devices == 2:
            raise KeyedProblemsError(("devices", f"two devices on one node are 24 GiB each, not {self.slice}; write "
                                      "slice: 48 (or devices: 1)"))
        if self.slice == 48 and self.devices == 1:
            raise KeyedProblemsError(("devices", "slice: 48 is two devices on one node; leave devices out (or 2)"))
        return self

    def ask(self, key: str) -> ExtendedAsk | None:
        """What it asks for by an extended resource name (findings name `key`), or None when it asks otherwise."""
        if self.resource is None:
            return None
        return ExtendedAsk(self.name, self.resource, self.memory_gib, self.count, self.spot, key)

    def workload(self) -> Workload:
        """The planner's Workload (for a workload not asked for by resource name)."""
        if self.slice is not None:
            devices = 2 if self.slice == 48 or self.devices == 2 else 1
            gib = min(self.slice, 24)
            return Workload(self.name, float(gib), self.count, devices, gib, self.spot)
        assert self.memory_gib is not None
        return Workload(self.name, self.memory_gib, self.count, self.devices or 1, None, self.spot)


class WorkloadSet(Model):
    """A `--workloads` file: `workloads:` and the list (a bare list works too)."""

    workloads: list[WorkloadSpec] = Field(min_length=1, description="The workloads to size.")

    @model_validator(mode="after")
    def _unique(self) -> WorkloadSet:
        seen: dict[str, int] = {}
        for index, w in enumerate(self.workloads):
            if w.name in seen:
                raise KeyedProblemsError((f"workloads[{index}].name", f"'{w.name}' is also workloads[{seen[w.name]}]'s "
                                          "name; give each workload its own"))
            seen[w.name] = index
        return self


def read_yaml_file(path: str) -> Any:
    """A YAML file named on the command line, read within the offline engine's bounds and as Pulumi reads YAML (a FIFO,
    a device, a folder, a huge or non-UTF-8 file, an alias bomb: one line, never a hang or a traceback)."""
    from ..offline.safe_yaml import YamlInputError, read

    try:
        return read(Path(path), path)
    except YamlInputError as exc:
        raise ConfigError([Problem("", str(exc))]) from None


def read_workloads(path: str) -> tuple[list[Workload], list[ExtendedAsk]]:
    """The workloads of a YAML file, and those it asks for by extended resource name; ConfigError naming the file and
    each bad key."""
    doc = read_yaml_file(path)
    if isinstance(doc, list):
        doc = {"workloads": doc}
    try:
        found = validate(WorkloadSet, doc)
    except ConfigError as exc:
        raise ConfigError([Problem(f"{path}: {p.path}" if p.path else path, p.message) for p in exc.problems]) from None
    asks = [w.ask(f"{path}: workloads[{i}]") for i, w in enumerate(found.workloads)]
    return ([w.workload() for w, a in zip(found.workloads, asks, strict=True) if a is None],
            [a for a in asks if a is not None])
