"""Extended resources served by DRA on the live cluster (pure): which DeviceClass serves each name, nodes where a device
plugin would serve it instead, and the pods that ask for such names with the claim the scheduler made and the device
each got.

Sources (Kubernetes 1.36):
- Which class serves a name: staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache/
  extendedresourcecache.go at 1.36 (`updateResourceName2class`): a scheduler that lists the classes gives the name to
  the newest `metadata.creationTimestamp` among those whose `spec.extendedResourceName` is the name, ties by the lower
  name; every class also serves its implicit `deviceclass.resource.kubernetes.io/<class>`. A running scheduler may
  remember less (a deletion drops the name: `removeResourceName2class`), which no object shows: `checks_kubelets`
  says so, and the smoke asks it.
- The claim: pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go writes it at PreBind, owned by
  the pod (controller: true) and annotated `resource.kubernetes.io/extended-resource-claim: "true"`, and records it in
  the pod's `status.extendedResourceClaimStatus {resourceClaimName, requestMappings[{containerName, requestName,
  resourceName}]}` (staging/src/k8s.io/api/core/v1/types.go).
- A device plugin wins on its node: pkg/scheduler/framework/plugins/noderesources/fit.go uses the node's allocatable
  for the name wherever it is > 0, so a GPU a device plugin advertises can also be allocated through a claim.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..catalog import GPU_DEVICE_CLASS
from ..config.extended_rules import scheduler_pick
from ..kubernetes.extended_classes import NVIDIA_GPU, ExtendedClass, class_spec
from ..kubernetes.slice_kinds import Slice, order, slice_of
from .client import Obj
from .device_fields import memory_mib
from .report import Check, fail, ok, warn
from .snapshot import Snapshot

EXTENDED_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
"""Every DeviceClass also answers to `deviceclass.resource.kubernetes.io/<class name>` (resource/v1 types.go)."""


_EPOCH = datetime.fromisoformat("1970-01-01T00:00:00+00:00")


def _created(device_class: Obj) -> datetime:
    """Its creationTimestamp (RFC 3339), the epoch where it has none or one that does not read (a recorded object)."""
    stamp = str((device_class.get("metadata") or {}).get("creationTimestamp") or "")
    try:
        created = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return _EPOCH
    return created if created.tzinfo else created.replace(tzinfo=_EPOCH.tzinfo)


def _name(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def mapped_name(device_class: Obj) -> str | None:
    """The extended resource name a DeviceClass maps (`spec.extendedResourceName`), or None."""
    name = (device_class.get("spec") or {}).get("extendedResourceName")
    return str(name) if name else None


def serving_class(classes: list[Obj], name: str) -> Obj | None:
    """The DeviceClass a scheduler that lists these classes gives a pod asking for extended resource `name`, or None
    when no class maps it: the newest by creationTimestamp, ties by the lower name (extendedresourcecache.go,
    updateResourceName2class); an implicit `deviceclass.resource.kubernetes.io/<class>` name is that class's."""
    if name.startswith(IMPLICIT_PREFIX):
        return next((c for c in classes if _name(c) == name.removeprefix(IMPLICIT_PREFIX)), None)
    return scheduler_pick((c for c in classes if mapped_name(c) == name), _created, _name)


def classes_by_name(classes: list[Obj]) -> dict[str, list[str]]:
    """Every explicit extended resource name the live classes map -> the classes that map it, sorted."""
    found: dict[str, list[str]] = {}
    for device_class in classes:
        if mapped_name(device_class):
            found.setdefault(str(mapped_name(device_class)), []).append(_name(device_class))
    return {name: sorted(owners) for name, owners in sorted(found.items())}


def _stamp(classes: list[Obj], name: str) -> str:
    found = next((c for c in classes if _name(c) == name), {})
    return str((found.get("metadata") or {}).get("creationTimestamp") or "?")


def check_extended_classes(snap: Snapshot, declared: tuple[ExtendedClass, ...]) -> list[Check]:
    """Per mapped name: the class that serves it on the cluster; fail where that is not the package's class, or the
    package's class is missing or edited; warn where two classes share a name (beyond the chart's class for
    nvidia.com/gpu, which the package's class is made to win over)."""
    checks: list[Check] = []
    live = snap.device_classes
    owners = classes_by_name(live)
    ours = {c.resource_name: c for c in declared}
    for name in sorted(set(ours) | set(owners)):
        mine = ours.get(name)
        winner = serving_class(live, name)
        serving = _name(winner) if winner else None
        sharing = owners.get(name, [])
        if mine is not None:
            present = next((c for c in live if _name(c) == mine.class_name), None)
            if present is None:
                checks.append(fail("extended-class", name, f"the stack's DeviceClass {mine.class_name} is missing"
                                   + (f": {serving} serves {name} instead" if serving else ": no class serves it"),
                                   "extended-class-missing"))
                continue
            if (present.get("spec") or {}) != class_spec(mine):
                checks.append(fail("extended-class", name, f"{mine.class_name}'s spec differs from the stack's (edited "
                                   "by hand, or another tool owns the name)", "deviceclass-drift"))
                continue
            if serving != mine.class_name:
                checks.append(fail("extended-class", name, f"served by {serving} (created {_stamp(live, serving or '')}), "
                                   f"not the stack's {mine.class_name} (created {_stamp(live, mine.class_name)}): the "
                                   "scheduler takes the class created last, so pods asking for it get whatever "
                                   f"{serving} selects", "extended-name-taken"))
                continue
        others = [o for o in sharing if o != serving]
        shadowed = f"; also mapped by {', '.join(others)} (created earlier or sorting later: not used)" if others else ""
        chart = " (the driver chart's: any GPU device, whatever its size)" if serving == GPU_DEVICE_CLASS else ""
        what = f"the stack's {serving}" if mine is not None else f"{serving}{chart}"
        designed = mine is not None and name == NVIDIA_GPU and set(others) <= {GPU_DEVICE_CLASS}
        if others and not designed:
            checks.append(warn("extended-class", name, f"served by {what}, but {len(sharing)} classes map it "
                               f"({', '.join(sharing)}): which one serves follows creation order, so re-creating one "
                               "changes what such pods get", "extended-name-shared"))
        else:
            checks.append(ok("extended-class", name, f"served by {what}{shadowed}"))
    return checks


def _quantity(value: Any) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 1  # an extended resource is a whole number; anything else is still "some"


def check_device_plugin_nodes(snap: Snapshot, declared: tuple[ExtendedClass, ...]) -> list[Check]:
    """Fail on every node whose allocatable carries a name DRA serves (> 0): a device plugin runs there (AKS
    `gpuProfile.nvidia.managementMode: Managed`), the scheduler uses it on that node, and one GPU can be handed out
    twice."""
    names = set(classes_by_name(snap.device_classes)) | {c.resource_name for c in declared}
    checks = []
    for node in snap.nodes:
        allocatable = (node.get("status") or {}).get("allocatable") or {}
        both = sorted(n for n in names if _quantity(allocatable.get(n, "0")) > 0)
        if both:
            shown = ", ".join(f"{n}: {allocatable[n]}" for n in both)
            checks.append(fail("device-plugin", _name(node), f"allocatable {shown}: a device plugin serves "
                               f"{', '.join(both)} on this node, and the scheduler uses it there instead of the "
                               "DeviceClass, so a GPU can be handed out twice (by the plugin and by a claim)",
                               "device-plugin-beside-dra"))
    return checks


def requested_names(pod: Obj, names: set[str]) -> list[str]:
    """The extended resource names DRA serves that the pod's containers (and init containers) ask for."""
    spec = pod.get("spec") or {}
    found: set[str] = set()
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        resources = container.get("resources") or {}
        for part in ("requests", "limits"):
            found |= {n for n in resources.get(part) or {} if n in names or n.startswith(IMPLICIT_PREFIX)}
    return sorted(found)


def pod_claim(pod: Obj, claims: list[Obj]) -> Obj | None:
    """The claim the scheduler made for the pod's extended resources: the one its status names, else the annotated
    claim the pod controls."""
    meta = pod.get("metadata") or {}
    status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    mine = [c for c in claims if (c.get("metadata") or {}).get("namespace") == meta.get("namespace")]
    if status.get("resourceClaimName"):
        return next((c for c in mine if _name(c) == status["resourceClaimName"]), None)
    return next((c for c in mine if ((c.get("metadata") or {}).get("annotations") or {}).get(EXTENDED_CLAIM_ANNOTATION)
                 == "true" and any(o.get("uid") == meta.get("uid") and o.get("controller")
                                   for o in (c.get("metadata") or {}).get("ownerReferences") or [])), None)


def _device(snap: Snapshot, pool: str, name: str) -> Obj | None:
    return next((d for s in snap.slices if (s.get("spec") or {}).get("pool", {}).get("name") == pool
                 for d in (s.get("spec") or {}).get("devices") or [] if d.get("name") == name), None)


def held_devices(snap: Snapshot, pod: Obj, claim: Obj, margin: int) -> list[tuple[str, str, str, Slice | None]]:
    """(resource name, class, "pool/device", slice) per device allocated to the pod's claim."""
    mappings = ((pod.get("status") or {}).get("extendedResourceClaimStatus") or {}).get("requestMappings") or []
    resource_of = {m.get("requestName"): m.get("resourceName") for m in mappings}
    class_of = {r.get("name"): (r.get("exactly") or {}).get("deviceClassName")
                for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []}
    results = (((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []
    held = []
    for r in results:
        device = _device(snap, str(r.get("pool")), str(r.get("device")))
        kind = slice_of(device, memory_mib(device), margin) if device else None
        request = r.get("request")
        held.append((str(resource_of.get(request) or "?"), str(class_of.get(request) or "?"),
                     f"{r.get('pool')}/{r.get('device')}", kind))
    return held


def _pod_verdict(subject: str, held: list[tuple[str, str, str, Slice | None]],
                 promised: dict[str, ExtendedClass]) -> Check:
    lines, wrong = [], []
    for name, device_class, where, kind in held:
        label = kind.label if kind else "a device of no known slice"
        lines.append(f"{name} -> {device_class}: {where} ({label})")
        mine = promised.get(name)
        if mine is None or not mine.slices or kind in mine.slices:
            continue
        smallest = min(mine.slices, key=order)
        smaller = kind is None or order(kind) < order(smallest)
        why = ("the driver chart's class served it" if device_class == GPU_DEVICE_CLASS else
               f"class {device_class} served it" if device_class != mine.class_name else "the class changed since")
        wrong.append(f"{name} holds {label} at {where}, {'smaller than' if smaller else 'not'} what the stack's "
                     f"{mine.class_name} promises ({', '.join(k.label for k in mine.slices)}): {why}")
    if wrong:
        return warn("extended-pod", subject, "; ".join(wrong) + "; re-create the pod to get the promised slice",
                    "extended-smaller-slice")
    return ok("extended-pod", subject, "; ".join(lines))


def check_extended_pods(snap: Snapshot, declared: tuple[ExtendedClass, ...], margin: int) -> list[Check]:
    """One line per pod asking for an extended resource DRA serves: its claim and the device each request got; warn
    where a pod holds another slice than its name promises (a smaller one, typically)."""
    names = set(classes_by_name(snap.device_classes)) | {c.resource_name for c in declared}
    promised = {c.resource_name: c for c in declared}
    checks = []
    for pod in snap.all_pods:
        meta = pod.get("metadata") or {}
        status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
        # A name no class maps any more is still the pod's: its status's mappings say what it asked for.
        asked = requested_names(pod, names) or sorted(
            {str(m.get("resourceName")) for m in status.get("requestMappings") or [] if m.get("resourceName")})
        if not asked and not status:
            continue
        subject = f"{meta.get('namespace')}/{meta.get('name')}"
        claim = pod_claim(pod, snap.all_claims)
        if claim is None and status.get("resourceClaimName"):
            checks.append(warn("extended-pod", subject, f"asks for {', '.join(asked) or 'extended resources'}: the "
                               f"scheduler recorded claim {status['resourceClaimName']} for it, which the cluster does "
                               "not list (deleted, or not readable by this user)"))
            continue
        if claim is None:
            checks.append(ok("extended-pod", subject, f"asks for {', '.join(asked)}: no claim yet (not scheduled)"))
            continue
        held = held_devices(snap, pod, claim, margin)
        if not held:
            checks.append(ok("extended-pod", subject, f"asks for {', '.join(asked)}: claim {_name(claim)} not allocated "
                             "yet"))
            continue
        checks.append(_pod_verdict(subject, held, promised))
    return checks
