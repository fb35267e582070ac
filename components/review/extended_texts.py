"""The words of `extended_names`' warnings (pure): what a class selects, who serves a name, why that changes, what pods
get while an update runs, and the one command that gives a forgotten name back to its class."""

from __future__ import annotations

import re
from typing import Any

from ..catalog import GPU_DEVICE_CLASS, SIZE_CLASSES
from ..config.samples import EXTENDED_RESOURCE_FROM
from ..config.syntax import MISSING, value_at
from ..kubernetes.chart_upgrades import RELEASE_DIFF
from ..kubernetes.extended_classes import ANY_GPU_SELECTOR
from .scheduler_cache import LiveClass, Slots

RULE = ("the 1.36 scheduler keeps one class per name: a class added or updated takes it unless a newer class holds "
        "it, and deleting any class that carries it drops it (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-"
        "allocation/deviceclass/extendedresourcecache/extendedresourcecache.go, updateResourceName2class, "
        "removeResourceName2class)")
_FROM = ".".join(map(str, EXTENDED_RESOURCE_FROM))
_BAND = re.compile(r"quantity\('([0-9]+)Mi'\)\) >= 0 && [^&]*\.memory\.compareTo\(quantity\('([0-9]+)Mi'\)\) < 0")
_PROFILE = re.compile(r"\.profile == '([^']+)'")
ANY_GPU = "any GPU device, whatever its size"


def at(value: Any, *keys: str) -> Any:
    """The value under `keys` in nested mappings, or None where a level is missing or no mapping (hand-made plans)."""
    found = value_at(value, keys)
    return None if found is MISSING else found


def selects(class_name: str, spec: Any) -> str:
    """What a DeviceClass gives a pod, read from its selectors: an A10 size band, MIG profiles, nothing, or any GPU."""
    if class_name == GPU_DEVICE_CLASS:
        return ANY_GPU
    selectors = at(spec, "selectors")
    cel = " ".join(str(at(s, "cel", "expression") or "") for s in (selectors if isinstance(selectors, list) else []))
    if cel.strip() == "false":
        return "nothing (such pods stay Pending)"
    if cel.strip() == ANY_GPU_SELECTOR:
        return ANY_GPU
    sizes = sorted({size for low, high in _BAND.findall(cel) for size in SIZE_CLASSES
                    if int(low) <= size * 1024 < int(high)})
    profiles = list(dict.fromkeys(_PROFILE.findall(cel)))
    if sizes:
        return f"an A10 slice of {' or '.join(str(s) for s in sizes)} GiB"
    if profiles:
        return f"a MIG {' or '.join(profiles)} slice"
    return f"what {class_name}'s selectors select"


def served_text(holder: LiveClass | None, off_version: str | None) -> str:
    """Who serves a name, in words: the class and what it selects, or why nothing does."""
    if off_version is not None:
        return (f"no class (on Kubernetes {off_version} the DRAExtendedResource gate is off: pods asking it stay "
                "Pending unless a device plugin serves it)")
    if holder is None:
        return "no class (pods asking it stay Pending unless a device plugin serves it)"
    return f"{holder.class_name} ({holder.selects})"


def causes(name: str, before: dict[str, LiveClass], after: dict[str, LiveClass], old_index: dict[str, Any],
           new_index: dict[str, Any], steps: dict[str, tuple[str, bool]], old_off: bool, new_off: bool) -> list[str]:
    """What in the update moves `name`: the Kubernetes version, the driver chart or Release, a class made or removed."""
    found = []
    old_version = at(next((r for r in old_index.values() if r.get("type", "").endswith("ManagedCluster")), None),
                      "inputs", "kubernetesVersion")
    new_version = at(next((r for r in new_index.values() if r.get("type", "").endswith("ManagedCluster")), None),
                      "inputs", "kubernetesVersion")
    if old_off != new_off:
        found.append(f"Kubernetes {old_version} -> {new_version}: the DRAExtendedResource gate is on from {_FROM} "
                     "(kubernetes/kubernetes pkg/features/kube_features.go)")
    for key in sorted(set(before) | set(after)):
        was, now = before.get(key), after.get(key)
        operation = steps.get(key, ("same", False))[0]
        if (was is None or was.mapped != name) and (now is None or now.mapped != name):
            continue
        if GPU_DEVICE_CLASS in (getattr(was, "class_name", None), getattr(now, "class_name", None)):
            if operation == "replace":
                found.append(f"the driver's Release is replaced (its name or namespace changes: {RELEASE_DIFF}), so "
                             f"the chart's {GPU_DEVICE_CLASS} is deleted and created again, newer than every class left "
                             "in place")
            elif was is not None and now is not None and was.mapped != now.mapped and not (old_off or new_off):
                chart = (at(old_index.get(key), "inputs", "version"), at(new_index.get(key), "inputs", "version"))
                found.append(f"driver chart {chart[0]} -> {chart[1]}: the chart's {GPU_DEVICE_CLASS} "
                             f"{'now maps' if now.mapped == name else 'no longer maps'} {name} here")
            elif now is None and was is not None:
                found.append(f"the driver's Release is removed, and with it the chart's {GPU_DEVICE_CLASS}")
            continue
        if now is None:
            found.append(f"{was.class_name} is removed")  # type: ignore[union-attr]
        elif was is None:
            found.append(f"{now.class_name} is created, newer than every class left in place")
        elif was.class_name != now.class_name:
            found.append(f"{was.class_name} is renamed {now.class_name} (a new object: deleted, then created)")
        elif was.mapped != now.mapped and not (old_off or new_off):
            found.append(f"{now.class_name} now maps {now.mapped or 'no name'} instead" if was.mapped == name else
                         f"{now.class_name} now maps it instead of {was.mapped or 'no name'} (in place: it keeps its "
                         "creation time)")
        elif operation == "replace":
            found.append(f"{now.class_name} is created again by this update")
        elif was.selects != now.selects:
            found.append(f"{now.class_name}'s selectors change in place: it now selects {now.selects}")
    return found


def while_running(name: str, states: list[Slots]) -> str | None:
    """What pods asking `name` get between the update's first and last step, where that differs from both ends."""
    first, last = states[0].get(name), states[-1].get(name)
    if last is None:
        return None
    ends = {first.class_name if first else None, last.class_name}
    middle: list[LiveClass | None] = []
    for state in states[1:-1]:
        holder = state.get(name)
        if (holder.class_name if holder else None) in ends:
            continue
        if not middle or (middle[-1].class_name if middle[-1] else None) != (holder.class_name if holder else None):
            middle.append(holder)
    if not middle:
        return None
    got = ", then ".join("nothing (no class serves it: they stay Pending)" if h is None else
                         f"{h.selects} ({h.class_name})" for h in middle)
    return (f"{name}: while the update runs, pods asking it get {got}, before {last.class_name} serves it again; "
            "schedule no such pods during the update")


def chart_waits(name: str, served: LiveClass | None) -> str:
    """The chart's class was applied while the gate was off and this update does not apply it again."""
    now = f"{served.class_name} ({served.selects}) serves it" if served else "no class serves it"
    return (f"{name}: the chart's {GPU_DEVICE_CLASS} maps it only once the chart is applied again on Kubernetes "
            f"{_FROM}+ (the API server dropped the field while the gate was off: kubernetes/kubernetes pkg/registry/"
            "resource/deviceclass/strategy.go, dropDisabledDRAExtendedResourceFields), and this update leaves the "
            f"driver's Release as it is; until its next change {now}")
