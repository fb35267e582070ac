"""What a published device says (API JSON of a ResourceSlice's `spec.devices[]` entry): an attribute's value and the
memory capacity, unqualified names being the NVIDIA driver's own domain."""

from __future__ import annotations

from ..catalog import GPU_DRIVER_NAME
from ..kubernetes.slice_kinds import device_attribute as attribute  # the reader `slice_of` uses
from .cel import any_quantity_mib
from .client import Obj

__all__ = ["attribute", "memory_mib"]


def memory_mib(device: Obj) -> float | None:
    """The device's `memory` capacity in MiB, or None."""
    capacity = device.get("capacity") or {}
    value = capacity.get("memory") or capacity.get(f"{GPU_DRIVER_NAME}/memory") or {}
    return any_quantity_mib(value.get("value")) if value else None
