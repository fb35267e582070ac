"""Which DeviceClass serves each extended resource name before and after an update, and a warning where that changes
(pure, over the two plan documents' DeviceClasses, the driver Release's chart and the cluster's kubernetesVersion).

The scheduler's rule (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/deviceclass/
extendedresourcecache/extendedresourcecache.go, `betterDeviceClass`, `recomputeWinner`): among the classes whose
`spec.extendedResourceName` is the name, the newest `metadata.creationTimestamp` wins, ties by the lower name. A plan
holds no timestamps, so creation order is read from what the update does: a class the update creates (or replaces) is
newer than every class it leaves alone, and among those made in one update a class waits for its dependencies (the
package's nvidia.com/gpu class depends on the driver's Release, so it is created after the chart's `gpu.nvidia.com`).
The chart's class is not in a plan: it stands beside its Release, mapping what `chart_extended_names` says its chart
version maps on the cluster's Kubernetes version, and is created again only when the Release is replaced (its name or
namespace changes: pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go, Diff); a chart upgrade edits it in
place and keeps its creation time. Below 1.36 the DRAExtendedResource gate is off and no class serves a name
(kubernetes/kubernetes pkg/features/kube_features.go).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..catalog import DRIVER_CHARTS, GPU_DEVICE_CLASS, SIZE_CLASSES
from ..config.extended_resources import CHART_CLASS, NOT_SERVED, NVIDIA_GPU
from ..config.extended_rules import chart_extended_names, scheduler_pick
from ..config.samples import EXTENDED_RESOURCE_FROM
from ..config.syntax import MISSING, parse_k8s_version, value_at
from ..kubernetes.chart_upgrades import RELEASE_DIFF, chart_name
from ..offline.urns import local_urn
from .rules.model import CLUSTER, DEVICE_CLASS, RELEASE

RULE = ("the scheduler serves a name with the newest class that maps it, ties by the lower name (kubernetes/kubernetes "
        "staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache/extendedresourcecache.go)")
_FROM = ".".join(map(str, EXTENDED_RESOURCE_FROM))
_DRIVER_CHARTS = frozenset(chart.chart for chart in DRIVER_CHARTS.values())
_BAND = re.compile(r"quantity\('([0-9]+)Mi'\)\) >= 0 && [^&]*\.memory\.compareTo\(quantity\('([0-9]+)Mi'\)\) < 0")
_PROFILE = re.compile(r"\.profile == '([^']+)'")
Index = dict[str, dict[str, Any]]  # plan resources by local URN, types canonical


@dataclass(frozen=True)
class Candidate:
    """One class that maps a name on one side of the update, with what it selects and when it was created."""

    class_name: str
    resource_name: str
    selects: str  # what a pod asking the name gets from it, in words
    rank: tuple[int, int]  # (made by this update, dependency depth): a higher rank was created later
    key: str  # the plan resource it comes from (the Release's, for the chart's class)


@dataclass(frozen=True)
class Side:
    """What one plan maps: its candidates by name, and why it serves none (the gate off), if so."""

    candidates: dict[str, list[Candidate]]
    version: str | None
    off: bool  # Kubernetes older than 1.36: no class serves a name


def at(value: Any, *keys: str) -> Any:
    """The value under `keys` in nested mappings, or None where a level is missing or no mapping (hand-made plans)."""
    found = value_at(value, keys)
    return None if found is MISSING else found


def selects(class_name: str, spec: Any) -> str:
    """What a DeviceClass gives a pod, read from its selectors: an A10 size band, MIG profiles, nothing, or any GPU."""
    if class_name == GPU_DEVICE_CLASS:
        return "any GPU device, whatever its size"
    selectors = at(spec, "selectors")
    cel = " ".join(str(at(s, "cel", "expression") or "") for s in (selectors if isinstance(selectors, list) else []))
    if cel.strip() == "false":
        return "nothing (such pods stay Pending)"
    sizes = sorted({size for low, high in _BAND.findall(cel) for size in SIZE_CLASSES
                    if int(low) <= size * 1024 < int(high)})
    profiles = list(dict.fromkeys(_PROFILE.findall(cel)))
    if sizes:
        return f"an A10 slice of {' or '.join(str(s) for s in sizes)} GiB"
    if profiles:
        return f"a MIG {' or '.join(profiles)} slice"
    return f"what {class_name}'s selectors select"


def _first(index: Index, type_: str) -> tuple[str, dict[str, Any]] | None:
    return next(((k, r) for k, r in sorted(index.items()) if r.get("type") == type_), None)


def _release(index: Index) -> tuple[str, dict[str, Any]] | None:
    """The driver's Release: a Release whose chart is one of the NVIDIA DRA driver's (by name or OCI reference)."""
    return next(((k, r) for k, r in sorted(index.items()) if r.get("type") == RELEASE
                 and isinstance(chart := at(r, "inputs", "chart"), str) and chart_name(chart) in _DRIVER_CHARTS), None)


def _version(index: Index) -> str | None:
    found = _first(index, CLUSTER)
    value = at(found[1], "inputs", "kubernetesVersion") if found else None
    return value if isinstance(value, str) else None


def _off(version: str | None) -> bool:
    try:
        return version is not None and parse_k8s_version(version) < EXTENDED_RESOURCE_FROM
    except ValueError:
        return False


def side(index: Index, made: frozenset[str]) -> Side:
    """The classes one plan maps; `made` are the keys of resources this update creates or replaces (empty for the
    deployed side)."""

    visiting: set[str] = set()

    @cache
    def depth(key: str) -> int:
        listed = index[key].get("dependencies")
        deps = {local_urn(d) for d in listed if isinstance(d, str)} & set(index) if isinstance(listed, list) else set()
        visiting.add(key)  # a hand-made plan may hold a cycle: a dependency being walked counts as none
        found = 1 + max((depth(d) for d in deps if d not in visiting), default=-1)
        visiting.discard(key)
        return found

    def rank(key: str) -> tuple[int, int]:
        return (1 if key in made else 0, depth(key))

    found: list[Candidate] = []
    for key, res in sorted(index.items()):
        spec, name = at(res, "inputs", "spec"), at(res, "inputs", "metadata", "name")
        mapped = at(spec, "extendedResourceName")
        if res.get("type") == DEVICE_CLASS and isinstance(mapped, str) and isinstance(name, str):
            found.append(Candidate(name, mapped, selects(name, spec), rank(key), key))
    version, release = _version(index), _release(index)
    if release is not None:
        chart_version = at(release[1], "inputs", "version")
        for mapped, name in chart_extended_names(chart_version if isinstance(chart_version, str) else None,
                                                 version).items():
            found.append(Candidate(name, mapped, selects(name, None), rank(release[0]), release[0]))
    by_name: dict[str, list[Candidate]] = {}
    for candidate in found:
        by_name.setdefault(candidate.resource_name, []).append(candidate)
    return Side(by_name, version, _off(version))


def winner(candidates: list[Candidate]) -> Candidate | None:
    """The class the scheduler picks: created last, ties by the lower name."""
    return scheduler_pick(candidates, lambda c: c.rank, lambda c: c.class_name)


def _served(found: Side, name: str) -> tuple[Candidate | None, str]:
    """Who serves `name` on one side, and in words: the class and what it selects, or why nothing does."""
    if found.off:
        return None, (f"no class (on Kubernetes {found.version} the DRAExtendedResource gate is off: pods asking it "
                      "stay Pending unless a device plugin serves it)")
    best = winner(found.candidates.get(name, []))
    if best is None:
        return None, "no class (pods asking it stay Pending unless a device plugin serves it)"
    return best, f"{best.class_name} ({best.selects})"


def _causes(old: Side, new: Side, name: str, old_index: Index, new_index: Index, made: frozenset[str]) -> list[str]:
    """What in the update moves `name`: the Kubernetes version, the driver chart or Release, a class made or removed."""
    causes = []
    if old.off != new.off:
        causes.append(f"Kubernetes {old.version} -> {new.version}: the DRAExtendedResource gate is on from {_FROM} "
                      "(kubernetes/kubernetes pkg/features/kube_features.go)")
    old_release, new_release = _release(old_index), _release(new_index)
    old_chart = {c.class_name for c in old.candidates.get(name, []) if old_release and c.key == old_release[0]}
    new_chart = {c.class_name for c in new.candidates.get(name, []) if new_release and c.key == new_release[0]}
    if old_chart != new_chart and new_release is not None and not new.off and not old.off:
        before = at(old_release[1], "inputs", "version") if old_release else None
        after = at(new_release[1], "inputs", "version")
        causes.append(f"driver chart {before} -> {after}: the chart's {GPU_DEVICE_CLASS} "
                      f"{'now maps' if new_chart else 'no longer maps'} {name} here")
    elif new_release is not None and new_release[0] in made and new_chart and old_release is not None \
            and old_release[0] == new_release[0]:
        causes.append(f"the driver's Release is replaced (its name or namespace changes: {RELEASE_DIFF}), so the "
                      f"chart's {GPU_DEVICE_CLASS} is deleted and created again, newer than every class left in place")
    before = {c.key: c for c in old.candidates.get(name, []) if c.key in old_index}
    after = {c.key: c for c in new.candidates.get(name, [])}
    for key, gone in before.items():
        if key == (old_release or ("",))[0]:
            continue
        now_name = at(new_index.get(key), "inputs", "metadata", "name")
        now_maps = at(new_index.get(key), "inputs", "spec", "extendedResourceName")
        if key not in new_index:
            causes.append(f"{gone.class_name} is removed")
        elif now_name != gone.class_name:
            causes.append(f"{gone.class_name} is renamed {now_name} (a new object: deleted, then created)")
        elif now_maps != name:
            causes.append(f"{gone.class_name} now maps {now_maps or 'no name'} instead")
        elif after.get(key) and after[key].selects != gone.selects:
            causes.append(f"{gone.class_name}'s selectors change in place: it now selects {after[key].selects}")
    for key, come in after.items():
        if key == (new_release or ("",))[0]:
            continue
        if key not in before and key in old_index and key not in made:
            was_maps = at(old_index[key], "inputs", "spec", "extendedResourceName")
            causes.append(f"{come.class_name} now maps it instead of {was_maps or 'no name'} (in place: it keeps its "
                          "creation time)")
        elif key not in before:
            causes.append(f"{come.class_name} is created, newer than every class left in place")
        elif key in made and key in before and before[key].class_name == come.class_name:
            causes.append(f"{come.class_name} is created again by this update")
    return causes


def _advice(new: Side, name: str, served: Candidate | None, new_index: Index) -> str:
    """What to do when the chart's class ends up serving nvidia.com/gpu: replace a class of the stack's that maps it
    and now loses, or state what nvidia.com/gpu means."""
    if served is None or served.class_name != GPU_DEVICE_CLASS or name != NVIDIA_GPU:
        return ""
    losing = [c for c in new.candidates.get(name, []) if c.key != served.key]
    if losing:
        urn = new_index[losing[0].key].get("urn")
        return (f"; {losing[0].class_name} still maps it but is older: create it again after the release "
                f"(`pulumi up --replace '{urn}'`)")
    return (f"; unless that is meant (extendedResources.nvidiaGpu: '{CHART_CLASS}'), set extendedResources.nvidiaGpu "
            f"to a slice size (e.g. '8GiB') or '{NOT_SERVED}'")


def extended_name_warnings(old_index: Index, new_index: Index, made: frozenset[str]) -> list[str]:
    """One warning per extended resource name whose serving class, or what that class selects, the update changes, and
    one per name that another class serves while the update runs. `made`: keys of the new plan's resources this update
    creates or replaces."""
    old, new = side(old_index, frozenset()), side(new_index, made)
    found = []
    for name in sorted(set(old.candidates) | set(new.candidates)):
        (was, was_text), (now, now_text) = _served(old, name), _served(new, name)
        contested = max(len(old.candidates.get(name, [])), len(new.candidates.get(name, []))) > 1
        rule = f"; {RULE}" if contested else ""
        if was is not None and now is not None and was.class_name == now.class_name and was.key == now.key \
                and was.selects != now.selects:
            found.append(f"{name}: pods asking it get {was.selects} before this update and {now.selects} after it: "
                         f"{now.class_name}'s selectors change in place (claims already allocated keep their devices)"
                         + _advice(new, name, now, new_index))
        elif (was and was.class_name, was_text) != (now and now.class_name, now_text):
            why = "; ".join(_causes(old, new, name, old_index, new_index, made)) or "the classes that map it change"
            found.append(f"{name}: served by {was_text} before this update and by {now_text} after it: {why}{rule}"
                         + _advice(new, name, now, new_index))
            continue  # what pods get while the update runs matters less than what they get after it
        if now is None or new.off or now.key not in made:
            continue
        others = [c for c in new.candidates.get(name, []) if c.key != now.key]
        earlier = sorted((c for c in others if c.key in made and c.rank < now.rank), key=lambda c: c.class_name)
        delete_first = now.key in old_index and bool(at(new_index[now.key], "options", "deleteBeforeReplace"))
        standing = winner([c for c in others if c.key not in made]) if delete_first else None
        if earlier:
            found.append(f"{name}: while the update runs, {earlier[0].class_name} is created before {now.class_name}, "
                         f"and until {now.class_name} is created pods asking {name} get {earlier[0].selects}; "
                         "schedule no such pods during the update")
        elif standing is not None:
            found.append(f"{name}: while the update runs, {now.class_name} is deleted before it is created again, and "
                         f"in between {standing.class_name} serves it: pods asking {name} get {standing.selects}; "
                         "schedule no such pods during the update")
    return found
