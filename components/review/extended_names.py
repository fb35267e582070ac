"""Which DeviceClass serves each extended resource name before and after an update, as a 1.36 scheduler remembers it
through the update's steps, and a warning where that changes or goes wrong (pure, over the two plan documents'
DeviceClasses, the driver Release's chart, the cluster's kubernetesVersion and what the diff does to each resource).

The steps follow Pulumi's order: creates, updates and replacements by dependency depth (a replacement deletes first
where the diff says so: the package's classes and the driver's Release do), deletions of removed resources last. Each
step becomes an event of the scheduler's cache (`scheduler_cache`): the rule of kubernetes/kubernetes staging/src/k8s.io/
dynamic-resource-allocation/deviceclass/extendedresourcecache/extendedresourcecache.go at 1.36, where deleting *any*
class that carries a name empties its slot. The chart's class is not in a plan: it stands beside its Release, mapping
what `chart_extended_names` says once the chart is applied (created, replaced, or upgraded into a new mapping; Helm
patches nothing of an object whose rendering did not change: a class applied while the gate was off keeps no mapping
until then, pkg/registry/resource/deviceclass/strategy.go). Below 1.36 the gate is off and no class serves a name
(pkg/features/kube_features.go); upgrading the control plane restarts the scheduler, which then lists every class.
A plan holds no timestamps: a class the update creates is newer than every class it leaves alone, and among the classes
left alone one that depends on another was created after it.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from ..catalog import DRIVER_CHARTS, GPU_DEVICE_CLASS
from ..config.extended_rules import chart_extended_names
from ..config.samples import EXTENDED_RESOURCE_FROM
from ..config.syntax import parse_k8s_version
from ..kubernetes.chart_upgrades import chart_name
from ..kubernetes.extended_classes import fix_command
from ..offline.urns import local_urn
from .extended_texts import RULE, at, causes, chart_waits, selects, served_text, while_running
from .rules.model import CLUSTER, DEVICE_CLASS, RELEASE
from .scheduler_cache import Event, LiveClass, Slots, run, steady

__all__ = ["RULE", "extended_name_warnings", "fix_command", "selects"]

_DRIVER_CHARTS = frozenset(chart.chart for chart in DRIVER_CHARTS.values())
Index = dict[str, dict[str, Any]]  # plan resources by local URN, types canonical
Steps = dict[str, tuple[str, bool]]  # key -> (operation, delete first): what the diff does to each resource


def _release(index: Index) -> tuple[str, dict[str, Any]] | None:
    """The driver's Release: a Release whose chart is one of the NVIDIA DRA driver's (by name or OCI reference)."""
    return next(((k, r) for k, r in sorted(index.items()) if r.get("type") == RELEASE
                 and isinstance(chart := at(r, "inputs", "chart"), str) and chart_name(chart) in _DRIVER_CHARTS), None)


def _version(index: Index) -> str | None:
    found = next((r for _, r in sorted(index.items()) if r.get("type") == CLUSTER), None)
    value = at(found, "inputs", "kubernetesVersion") if found else None
    return value if isinstance(value, str) else None


def _off(version: str | None) -> bool:
    try:
        return version is not None and parse_k8s_version(version) < EXTENDED_RESOURCE_FROM
    except ValueError:
        return False


def _depths(index: Index) -> Any:
    """Dependency depth of a plan resource (a hand-made plan may hold a cycle: a dependency being walked counts as
    none)."""
    visiting: set[str] = set()

    @cache
    def depth(key: str) -> int:
        listed = index[key].get("dependencies")
        deps = {local_urn(d) for d in listed if isinstance(d, str)} & set(index) if isinstance(listed, list) else set()
        visiting.add(key)
        found = 1 + max((depth(d) for d in deps if d not in visiting), default=-1)
        visiting.discard(key)
        return found
    return depth


def _chart_class(release: tuple[str, dict[str, Any]] | None, version: str | None, age: Any) -> LiveClass | None:
    """The chart's class as its Release applies it on `version` (None without a Release)."""
    if release is None:
        return None
    chart = at(release[1], "inputs", "version")
    names = chart_extended_names(chart if isinstance(chart, str) else None, version)
    mapped = next((n for n, c in names.items() if c == GPU_DEVICE_CLASS), None)
    return LiveClass(GPU_DEVICE_CLASS, age, mapped, selects(GPU_DEVICE_CLASS, None), release[0])


def _classes(index: Index, off: bool, age: Any) -> dict[str, LiveClass]:
    """The package's (or anyone's) DeviceClasses of a plan by key, mapping nothing while the gate is off."""
    found = {}
    for key, res in sorted(index.items()):
        name, spec = at(res, "inputs", "metadata", "name"), at(res, "inputs", "spec")
        if res.get("type") == DEVICE_CLASS and isinstance(name, str):
            mapped = at(spec, "extendedResourceName")
            found[key] = LiveClass(name, age(key), mapped if isinstance(mapped, str) and not off else None,
                                   selects(name, spec), key)
    return found


def simulate(old_index: Index, new_index: Index, steps: Steps) -> tuple[dict[str, LiveClass], dict[str, LiveClass],
                                                                          list[Slots], str | None]:
    """(classes before, classes after, the scheduler's map before and after each step, the name the chart's class
    would map but does not until its next apply)."""
    old_version, new_version = _version(old_index), _version(new_index)
    old_off, new_off = _off(old_version), _off(new_version)
    old_depth, new_depth = _depths(old_index), _depths(new_index)
    before = _classes(old_index, old_off, lambda k: (0, old_depth(k)))
    old_release, new_release = _release(old_index), _release(new_index)
    chart = _chart_class(old_release, old_version, (0, old_depth(old_release[0])) if old_release else None)
    if chart is not None:
        before[chart.key] = chart
    start = {} if old_off else steady(before.values())
    after: dict[str, LiveClass] = {}
    events: list[Event] = []
    last: list[Event] = []
    made = 0
    desired = _classes(new_index, new_off, lambda k: None)
    waits: str | None = None
    if new_release is not None:
        wanted = _chart_class(new_release, new_version, None)
        assert wanted is not None
        desired[wanted.key] = wanted
    for key in sorted(desired, key=lambda k: (new_depth(k), k)):
        want, was = desired[key], before.get(key)
        operation, delete_first = steps.get(key, ("same", False))
        if key == (new_release or ("",))[0] and operation == "update" and was is not None and was.mapped == want.mapped:
            operation = "same"  # the chart's class renders as before: Helm sends it no patch
        if operation in ("create", "replace") or was is None:
            made += 1
            now = replace(want, age=(1, made))
            if was is not None and delete_first:
                events.append(Event("delete", before=was))
            events.append(Event("add", after=now))
            if was is not None and not delete_first:
                last.append(Event("delete", before=was))
        elif operation == "update":
            now = replace(want, age=was.age)
            events.append(Event("update", after=now, before=was))
        else:
            now = was
            if key == (new_release or ("",))[0] and now.mapped != want.mapped and want.mapped and not new_off:
                waits = want.mapped
        after[key] = now
    gone = sorted((k for k in before if k not in after), key=lambda k: (-old_depth(k) if k in old_index else 0, k))
    events += [Event("delete", before=before[k]) for k in gone] + last
    states = run(start, events) if not new_off else [start, {}]
    return before, after, states, waits


def extended_name_warnings(old_index: Index, new_index: Index, steps: Steps) -> list[str]:
    """One warning per extended resource name whose serving class, or what it selects, the update changes; one where
    the scheduler is left serving a name with no class, or not with the class a fresh scheduler would take (with the
    command that puts it right); one where the chart's class waits for its next apply; and one where, while the update
    runs, pods asking a name get something else."""
    before, after, states, waits = simulate(old_index, new_index, steps)
    old_off, new_off = _off(_version(old_index)), _off(_version(new_index))
    ideal = {} if new_off else steady(after.values())
    # The scheduler keeps the object it cached, but a pod gets what the class selects now (the allocator reads it).
    states = [{n: _current(h, before if i == 0 else after) for n, h in state.items()} for i, state in enumerate(states)]
    start, final = states[0], states[-1]
    names = {c.mapped for c in [*before.values(), *after.values()] if c.mapped} | set(start) | set(final)
    found = []
    for name in sorted(names):
        was, now, best = start.get(name), final.get(name), ideal.get(name)
        was_text = served_text(was, _version(old_index) if old_off else None)
        now_text = served_text(now, _version(new_index) if new_off else None)
        mapping = [c for c in after.values() if c.mapped == name]
        contested = len(mapping) > 1 or len([c for c in before.values() if c.mapped == name]) > 1
        why = "; ".join(causes(name, before, after, old_index, new_index, steps, old_off, new_off)) or \
            "the classes that map it change"
        if best is not None and (now is None or now.class_name != best.class_name):
            kept = (f"no class, although {best.class_name} maps it" if now is None else
                    f"{now.class_name} ({now.selects}), although {best.class_name} is newer")
            gets = f"nothing (they stay Pending: Insufficient {name})" if now is None else now.selects
            found.append(f"{name}: served by {was_text} before this update and by {kept} after it: {why}; {RULE}; "
                         f"pods asking it get {gets} until {best.class_name} is next updated or kube-scheduler "
                         f"restarts: run `{fix_command(best.class_name)}`")
            continue
        if was is not None and now is not None and was.class_name == now.class_name and was.selects != now.selects:
            found.append(f"{name}: pods asking it get {was.selects} before this update and {now.selects} after it: "
                         f"{now.class_name}'s selectors change in place (claims already allocated keep their devices)")
        elif (was and was.class_name, was_text) != (now and now.class_name, now_text):
            found.append(f"{name}: served by {was_text} before this update and by {now_text} after it: {why}"
                         + (f"; {RULE}" if contested else "") + _advice(name, now, mapping, new_index))
            continue
        during = while_running(name, states)
        if during:
            found.append(during)
    if waits:
        found.append(chart_waits(waits, final.get(waits)))
    return found


def _current(holder: LiveClass, live: dict[str, LiveClass]) -> LiveClass:
    """The class as it stands, for the cached object of the same class (its selectors may have changed in place)."""
    found = live.get(holder.key)
    return replace(holder, selects=found.selects) if found is not None and found.class_name == holder.class_name \
        else holder


def _advice(name: str, served: LiveClass | None, mapping: list[LiveClass], new_index: Index) -> str:
    """What to do when the chart's class ends up serving a name a class of the stack's maps too: create that one
    again after the release."""
    if served is None or served.class_name != GPU_DEVICE_CLASS:
        return ""
    losing = [c for c in mapping if c.key != served.key and c.key in new_index]
    if not losing:
        return ""
    urn = new_index[losing[0].key].get("urn")
    return (f"; {losing[0].class_name} still maps it but is older: create it again after the release "
            f"(`pulumi up --replace '{urn}'`)")
