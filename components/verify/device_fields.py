"""What a published device says (API JSON of a ResourceSlice's `spec.devices[]` entry): an attribute's value and the
memory capacity, unqualified names being the NVIDIA driver's own domain."""

from __future__ import annotations

from typing import Any

from ..catalog import GPU_DRIVER_NAME
from .cel import any_quantity_mib
from .client import Obj


def attribute(device: Obj, name: str) -> Any:
    """A device attribute's value (unqualified, or in the driver's domain), or None."""
    attrs = device.get("attributes") or {}
    value = attrs.get(name) or attrs.get(f"{GPU_DRIVER_NAME}/{name}") or {}
    return next(iter(value.values()), None) if value else None


def memory_mib(device: Obj) -> float | None:
    """The device's `memory` capacity in MiB, or None."""
    capacity = device.get("capacity") or {}
    value = capacity.get("memory") or capacity.get(f"{GPU_DRIVER_NAME}/memory") or {}
    return any_quantity_mib(value.get("value")) if value else None
