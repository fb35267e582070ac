"""CEL selectors for A10 vGPU devices, and the size classes they sort devices into by reported GPU memory.

A size class is one nominal slice size of the catalog (4, 8, 12 or 24 GiB per device). A device belongs to the class
whose band holds its reported memory: the nominal size less the margin up to the nominal size plus the margin, cut
short where the next larger class begins. Bands never overlap, so no device is in two classes; a slice that reads
further below nominal than the margin allows is in none (it never counts as a smaller size). An upper bound of the
next class's start alone would not do: with a small margin a 24 GB slice reading 23.5 GiB would count as 12 GB.
"""

from __future__ import annotations

import math

from ..catalog import A10_SIZES, GPU_DRIVER_NAME, SIZE_CLASSES, A10Size

_ATTRS = f"device.attributes['{GPU_DRIVER_NAME}']"
_CAPACITY = f"device.capacity['{GPU_DRIVER_NAME}']"
# A10 and its vGPU profiles ("NVIDIA A10-4Q", "NVIDIA A10-8Q", … with series A, B, C or Q); not A100, A10G or A16.
A10_PRODUCT_PATTERN = "^NVIDIA A10(-[0-9]+[ABCQ])?$"

"""The nominal GPU memory sizes (GiB per device) the NVadsA10_v5 sizes come in, smallest first."""


def device_class_selector() -> str:
    """CEL for the DeviceClass: a GPU published by the NVIDIA driver whose product is an A10 (or an A10 vGPU slice).

    A missing attribute is an evaluation error in CEL (and an error aborts the whole allocation), not false: every
    attribute is checked for presence first. An unknown domain yields an empty map, so the lookups themselves are safe.
    """
    return (
        f"device.driver == '{GPU_DRIVER_NAME}'"
        f" && 'type' in {_ATTRS} && {_ATTRS}.type == 'gpu'"
        f" && 'productName' in {_ATTRS} && {_ATTRS}.productName.matches('{A10_PRODUCT_PATTERN}')"
    )


def check_size_class(gpu_memory_gib: int) -> int:
    """The size class itself; ValueError naming the classes there are."""
    if gpu_memory_gib not in SIZE_CLASSES:
        raise ValueError(f"{gpu_memory_gib} GiB is not an A10 slice size; choose one of {', '.join(map(str, SIZE_CLASSES))}")
    return gpu_memory_gib


def min_memory_mib(gpu_memory_gib: int, margin_percent: int) -> int:
    """The least memory (MiB) a device of this nominal size may report and still count: nominal minus the margin.

    Slices report a little under nominal (an 8 GB slice reads about 7.8 GiB), so comparing with the nominal value, or
    with ==, would match nothing. The margin must stay below the gap to the next smaller size: the closest sizes, 8
    and 12 GiB, are 33 % apart, and the setting allows at most 25 %.
    """
    return math.floor(gpu_memory_gib * 1024 * (100 - margin_percent) / 100)


def max_memory_mib(gpu_memory_gib: int, margin_percent: int) -> int:
    """Where this size class ends (MiB, exclusive): just above its nominal size plus the margin, or where the next
    larger class begins if that is sooner (at margins above 20 % the 8 and 12 GiB bands would meet)."""
    end = math.floor(gpu_memory_gib * 1024 * (100 + margin_percent) / 100) + 1
    larger = [size for size in SIZE_CLASSES if size > check_size_class(gpu_memory_gib)]
    return min(end, min_memory_mib(larger[0], margin_percent)) if larger else end


def usable_memory_gib(gpu_memory_gib: int, margin_percent: int) -> float:
    """The GPU memory (GiB) a workload may count on in a slice of this nominal size: nominal less the margin, to a
    tenth of a GiB, rounded down.

    The one rule for "does it hold it?" (`holds`) and for what every report prints as usable (`:.1f`), so the two
    never disagree: at the default 10 % margin a 4 GiB slice holds 3.6 GiB, and a workload of 3.6 GiB goes there. (The
    band's floor in whole MiB, `min_memory_mib`, is the same figure before the tenth is taken, rounded down to whole
    MiB as devices report it: never less than this figure by more than a MiB.)
    """
    return (gpu_memory_gib * (100 - margin_percent) // 10) / 10


def holds(gpu_memory_gib: int, margin_percent: int, memory_gib: float) -> bool:
    """Whether a slice of this nominal size holds a workload needing `memory_gib` at the margin (`usable_memory_gib`)."""
    return memory_gib <= usable_memory_gib(gpu_memory_gib, margin_percent)


def size_class_of(memory_mib: float, margin_percent: int) -> int | None:
    """The size class a device reporting this much memory belongs to, or None (in no class's band)."""
    for size in SIZE_CLASSES:
        if min_memory_mib(size, margin_percent) <= memory_mib < max_memory_mib(size, margin_percent):
            return size
    return None


def size_class_selector(gpu_memory_gib: int, margin_percent: int) -> str:
    """CEL: the device's memory lies in this size class's band (both bounds); false, not an error, without a memory."""
    low = f"quantity('{min_memory_mib(gpu_memory_gib, margin_percent)}Mi')"
    high = f"quantity('{max_memory_mib(gpu_memory_gib, margin_percent)}Mi')"
    memory = f"{_CAPACITY}.memory"
    return f"'memory' in {_CAPACITY} && {memory}.compareTo({low}) >= 0 && {memory}.compareTo({high}) < 0"


def vm_sizes_of_class(gpu_memory_gib: int, devices: int = 1) -> list[A10Size]:
    """The VM sizes whose devices are of this class and whose nodes hold at least `devices` of them, smallest first."""
    return [s for s in A10_SIZES.values() if s.gpu_memory_gib == gpu_memory_gib and s.devices_per_node >= devices]
