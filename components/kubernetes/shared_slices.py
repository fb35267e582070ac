"""Slices shared by GPU memory: what the driver publishes for a shared device, and how the scheduler charges a claim.

With `consumableShares: memory` and its gate (chart 0.5.0+), the kubelet plugin publishes each GPU with
`allowMultipleAllocations: true` and its memory capacity rounded down to whole MiB, with the request policy
`{default: <all of it>, validRange: {min: 1Mi, max: <all of it>, step: 1Mi}}` (kubernetes-sigs/dra-driver-nvidia-gpu
cmd/gpu-kubelet-plugin/consumable_shares.go, applyConsumableShares, case "memory").

The scheduler's allocator charges each claim request against that policy (kubernetes/kubernetes staging/src/k8s.io/
dynamic-resource-allocation/structured/internal/incubating/consumable_capacity.go): a request without a capacity
consumes the policy's default (fillEmptyRequestQuantity: here the whole memory, so a whole-slice claim stays exclusive);
a request below `min` is raised to `min`, anything else is rounded up to the next `min + n * step` (roundUpRange); the
result must not exceed `max` nor miss the step grid (violatesPolicy); and the device takes it only while the sum of
what its claims consume stays within its capacity (cmpRequestOverCapacity). The functions below do the same in MiB,
for tests and for the sizing planner; they are not a second scheduler.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024
STEP_MIB = 1  # consumable_shares.go: step 1Mi, and min 1Mi in "memory" mode


@dataclass(frozen=True)
class MemoryPolicy:
    """A shared device's memory capacity and request policy, in MiB (as consumable_shares.go publishes it)."""

    capacity_mib: int
    default_mib: int
    min_mib: int
    max_mib: int
    step_mib: int


def published_policy(memory_bytes: int) -> MemoryPolicy:
    """What the plugin publishes for a device reporting this much memory: capacity rounded down to whole MiB, default
    and max all of it, min and step 1 MiB."""
    whole = memory_bytes // MIB
    return MemoryPolicy(whole, whole, STEP_MIB, whole, STEP_MIB)


def device_capacity(policy: MemoryPolicy) -> dict[str, object]:
    """The device's `capacity.memory` as a ResourceSlice carries it (resource.k8s.io/v1 DeviceCapacity)."""
    return {
        "value": f"{policy.capacity_mib}Mi",
        "requestPolicy": {
            "default": f"{policy.default_mib}Mi",
            "validRange": {"min": f"{policy.min_mib}Mi", "max": f"{policy.max_mib}Mi", "step": f"{policy.step_mib}Mi"},
        },
    }


def consumed_mib(requested_mib: int | None, policy: MemoryPolicy) -> int | None:
    """What a request consumes on the device, or None when the policy refuses it (above max, or off the step grid)."""
    if requested_mib is None:
        consumed = policy.default_mib  # fillEmptyRequestQuantity
    elif requested_mib < policy.min_mib:
        consumed = policy.min_mib  # roundUpRange: below min is min
    else:
        steps = -(-(requested_mib - policy.min_mib) // policy.step_mib)  # roundUpRange: up to the next step from min
        consumed = policy.min_mib + steps * policy.step_mib
    if consumed == policy.default_mib:
        return consumed  # violatesPolicy: the default never violates
    if consumed > policy.max_mib or (consumed - policy.min_mib) % policy.step_mib:
        return None
    return consumed


def fits(requests_mib: list[int | None], policy: MemoryPolicy) -> bool:
    """Whether the device takes all these requests at once: each within the policy, their sum within the capacity."""
    total = 0
    for request in requests_mib:
        consumed = consumed_mib(request, policy)
        if consumed is None:
            return False
        total += consumed
        if total > policy.capacity_mib:
            return False
    return True


def quantity_mib(text: str) -> int:
    """'5Gi' or '512Mi' -> MiB (the binary suffixes the package writes; anything else is refused)."""
    for suffix, factor in (("Gi", 1024), ("Mi", 1)):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            return int(text[: -len(suffix)]) * factor
    raise ValueError(f"'{text}' is not a whole number of Gi or Mi")
