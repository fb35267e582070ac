"""Claims for slices shared by memory: a request for N GiB of GPU memory on a shared A10 slice, smallest slice first.

A memory claim asks for one device with `capacity.requests.memory` (resource.k8s.io/v1 ExactDeviceRequest and
DeviceSubRequest `capacity: CapacityRequirements {requests: {name: quantity}}`, kubernetes/kubernetes staging/src/k8s.io/
api/resource/v1/types.go); the driver publishes the capacity as `memory` (consumable_shares.go), and an unqualified
name means the driver's own (consumable_capacity.go, resolveCapacityName). The best-fit thinking is the whole-slice
templates' (`claim_templates`): a prioritized list of size classes, smallest first, each admitting only its own band of
reported memory, so a claim lands on a larger slice only when no smaller one on the node has room. A class is offered
only when a slice of it, empty, surely holds the request: its usable memory (nominal less the margin) is at least the
request; a request no class holds is refused when the settings are made.
"""

from __future__ import annotations

from typing import Any

from .selectors import holds, size_class_selector, usable_memory_gib

MAX_ALTERNATIVES = 8  # resource.k8s.io/v1 DeviceRequest.firstAvailable: at most 8 sub-requests


def memory_template_name(device_class: str, memory_gib: int) -> str:
    """The ResourceClaimTemplate asking for this much memory on a shared slice, e.g. ``a10-vgpu-mem-5gib``."""
    return f"{device_class}-mem-{memory_gib}gib"


def memory_template_key(memory_gib: int) -> str:
    """How outputs key a memory template: ``mem5GiB``."""
    return f"mem{memory_gib}GiB"


def memory_classes(memory_gib: int, sizes: list[int], margin_percent: int) -> list[int]:
    """The size classes (smallest first) whose slices, empty, hold this request at the margin."""
    return [size for size in sorted(sizes) if holds(size, margin_percent, memory_gib)]


def memory_problem(memory_gib: int, sizes: list[int], margin_percent: int) -> str | None:
    """Why no shared slice on offer can hold this request, or None."""
    if memory_classes(memory_gib, sizes, margin_percent):
        return None
    usable = ", ".join(f"{size} GiB slices hold {usable_memory_gib(size, margin_percent):.1f}" for size in sorted(sizes))
    return (f"{memory_gib} GiB fits no shared slice on offer ({usable} GiB at a {margin_percent} % memory margin); "
            "ask for less, or share a larger slice size")


def memory_request(device_class: str, memory_gib: int, sizes: list[int], margin_percent: int, exact: bool
                   ) -> dict[str, Any]:
    """A v1 device request named `gpu` for `memory_gib` GiB of one shared slice: `exactly` when one class is on offer (or
    `exact`: the smallest class that holds it), else `firstAvailable`, smallest class first."""
    classes = memory_classes(memory_gib, sizes, margin_percent)
    if not classes:
        raise ValueError(memory_problem(memory_gib, sizes, margin_percent))
    classes = classes[:1] if exact else classes[:MAX_ALTERNATIVES]

    def selection(size: int) -> dict[str, Any]:
        return {
            "deviceClassName": device_class,
            "allocationMode": "ExactCount",
            "count": 1,
            "selectors": [{"cel": {"expression": size_class_selector(size, margin_percent)}}],
            "capacity": {"requests": {"memory": f"{memory_gib}Gi"}},
        }

    if len(classes) == 1:
        return {"name": "gpu", "exactly": selection(classes[0])}
    return {"name": "gpu", "firstAvailable": [{"name": f"{size}gib", **selection(size)} for size in classes]}


def memory_claim_spec(device_class: str, memory_gib: int, sizes: list[int], margin_percent: int, exact: bool = False
                      ) -> dict[str, Any]:
    """A ResourceClaimSpec asking for `memory_gib` GiB of GPU memory on one shared A10 slice."""
    return {"devices": {"requests": [memory_request(device_class, memory_gib, sizes, margin_percent, exact)]}}
