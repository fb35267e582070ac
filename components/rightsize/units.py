"""Who holds what: the rows of a window grouped into the units a report speaks of. Pure.

- A workload: the pods AKS's recording rule gives one owner (`namespace_workload_pod:kube_pod_owner:relabel`); a pod
  the rule does not know (a bare pod, a cluster without the rule) is a unit of its own, named after itself.
- A shared claim: a ResourceClaim whose devices pods of more than one workload used. The exporter reports a device
  once per pod with the whole device's framebuffer, so a shared slice's memory cannot be split between its pods; the
  claim is the unit, its workloads its users.
- A MIG slice no pod is named on: dcgm-exporter gives MIG rows no pod or claim labels (docs/observability.md, "MIG
  slices"), so such a slice is reported by node, GPU and GPU instance.
- Idle capacity: an A10 device whose rows never named a pod in the window (published, never allocated). A MIG slice's
  rows never name one, so a MIG slice is never called idle capacity: only idle, by its framebuffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from .usage import DeviceKey, Measurements, UsageRow

WORKLOAD, POD, SHARED, MIG_SLICE = "workload", "pod", "shared-claim", "mig-slice"


@dataclass(frozen=True)
class Unit:
    """A workload, a pod, a shared claim or an unnamed MIG slice, with every row of the window that is its own."""

    cluster: str
    namespace: str
    name: str
    kind: str  # WORKLOAD, POD, SHARED or MIG_SLICE
    workload_type: str  # a workload's kind (deployment, job, ...), else ""
    rows: tuple[UsageRow, ...]
    users: tuple[str, ...] = ()  # a shared claim's workloads, "namespace/workload"

    @property
    def devices(self) -> tuple[DeviceKey, ...]:
        return tuple(sorted({r.device for r in self.rows}))


@dataclass(frozen=True)
class IdleDevice:
    """A device published in the window that no pod used."""

    device: DeviceKey
    rows: tuple[UsageRow, ...]


def _workload(found: Measurements, row: UsageRow) -> tuple[str, str, str, str]:
    """(namespace, name, unit kind, workload type) of the pod a row names."""
    owner = found.owners.get((row.device.cluster, row.namespace, row.pod))
    if owner is None:
        return row.namespace, row.pod, POD, ""
    return row.namespace, owner.workload, WORKLOAD, owner.kind


def units(found: Measurements) -> tuple[list[Unit], list[IdleDevice]]:
    """The window's units, sorted by cluster, namespace and name, and its idle A10 devices."""
    used = [r for r in found.rows if r.used]
    users_of: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    for row in used:
        if row.claim:
            namespace, name, _, _ = _workload(found, row)
            users_of.setdefault((row.device.cluster, row.claim_namespace, row.claim), set()).add((namespace, name))
    grouped: dict[tuple[str, str, str, str], list[UsageRow]] = {}
    types: dict[tuple[str, str, str, str], str] = {}
    for row in used:
        claim = (row.device.cluster, row.claim_namespace, row.claim)
        if row.claim and len(users_of[claim]) > 1:
            key = (row.device.cluster, row.claim_namespace, row.claim, SHARED)
        else:
            namespace, name, kind, workload_type = _workload(found, row)
            key = (row.device.cluster, namespace, name, kind)
            types[key] = workload_type
        grouped.setdefault(key, []).append(row)
    taken = {r.device for r in used}
    for row in found.rows:
        if row.mig and not row.used and row.device not in taken:
            device = row.device
            grouped.setdefault((device.cluster, "", f"{device.node}/{device.uuid}/{device.instance}", MIG_SLICE),
                               []).append(row)
    found_units = []
    for key, rows in sorted(grouped.items()):
        cluster, namespace, name, kind = key
        users = tuple(sorted(f"{ns}/{w}" for ns, w in users_of[(cluster, namespace, name)])) if kind == SHARED else ()
        found_units.append(Unit(cluster, namespace, name, kind, types.get(key, ""), tuple(rows), users))
    idle: dict[DeviceKey, list[UsageRow]] = {}
    for row in found.rows:
        if not row.mig and row.device not in taken:
            idle.setdefault(row.device, []).append(row)
    return found_units, [IdleDevice(device, tuple(rows)) for device, rows in sorted(idle.items())]
