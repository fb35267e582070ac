"""The right-sizing report: a document for machines (`--json`) and a text for people, from the same figures. Pure.

The text: one line per unit (slice held, devices at once, peak, utilisation, slice needed, verdict, cost per hour now
and recommended), the totals and the monthly saving, idle capacity, the cost per namespace over the window
(slice-hours x slice price), what each verdict asks, and, last, the claim template each workload should use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..kubernetes.claim_specs import claim_template_name
from ..kubernetes.mig_claims import mig_template_name
from ..kubernetes.slice_kinds import usable_memory_gib
from ..sizing.cost_text import rounded
from ..sizing.prices import PriceTable
from ..sizing.tables import text_table
from .cost import Costed, IdleLine
from .units import MIG_SLICE, POD, SHARED, Unit
from .verdicts import CHANGES, IDLE, INSUFFICIENT_DATA, KEEP, PREALLOCATED, slice_name
from .window import Window, iso

EXIT_ALL_KEEP, EXIT_CHANGE = 0, 3


@dataclass
class Report:
    """Everything the report says."""

    source: str
    window: Window
    prices: PriceTable
    margin_percent: int
    device_class: str
    costed: list[Costed]
    idle: list[IdleLine]
    namespaces: list[tuple[str, str, float, float | None]]  # cluster, namespace, slice-hours, cost
    notes: list[str] = field(default_factory=list)

    @property
    def exit(self) -> int:
        """0 when every unit keeps its slice (or has too little data to say), 3 when something should change."""
        change = any(c.assessment.verdict in CHANGES for c in self.costed) or bool(self.idle)
        return EXIT_CHANGE if change else EXIT_ALL_KEEP


def notes(held: list[Unit], price_note: str | None) -> list[str]:
    """What the reader should know about what could not be measured, and a price table that fell back."""
    found = [price_note] if price_note else []
    count = {kind: sum(1 for u in held if u.kind == kind) for kind in (MIG_SLICE, POD, SHARED)}
    if count[MIG_SLICE]:
        found.append(f"{count[MIG_SLICE]} MIG slice(s) are named by node, GPU and GPU instance: dcgm-exporter puts no "
                     "pod on MIG rows (docs/observability.md), so who holds them is not known here; `kubectl get "
                     "resourceclaims -A -o wide` says which claim holds each device.")
    if count[POD]:
        found.append(f"{count[POD]} pod(s) have no workload in namespace_workload_pod:kube_pod_owner:relabel (a bare "
                     "pod, or a Prometheus without AKS's recording rules): each is reported under its own name.")
    if count[SHARED]:
        found.append(f"{count[SHARED]} shared claim(s): the exporter reports a shared slice's whole framebuffer for each "
                     "pod on it, so memory per process inside a shared slice cannot be measured; the claim is "
                     "right-sized as one.")
    return found


def _sum(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def totals(report: Report) -> dict[str, float | None]:
    """Per hour now and recommended, per month and the monthly saving; idle capacity per hour and month."""
    now = _sum([c.hourly_now for c in report.costed])
    recommended = _sum([c.hourly_recommended for c in report.costed])
    idle = _sum([line.hourly for line in report.idle])
    month = report.prices.hours_per_month
    saving = None if now is None or recommended is None else (now - recommended) * month
    return {"hourlyNow": now, "hourlyRecommended": recommended, "monthlyNow": None if now is None else now * month,
            "monthlyRecommended": None if recommended is None else recommended * month, "monthlySaving": saving,
            "idleCapacityHourly": idle, "idleCapacityMonthly": None if idle is None else idle * month}


def claim_template(item: Costed, device_class: str) -> str | None:
    """The claim template the unit should use: the recommended slice's, else the held one's (none when idle)."""
    found = item.assessment
    kind = found.recommended or found.held
    if found.verdict == IDLE or kind is None:
        return None
    if kind.family == "a10":
        return claim_template_name(device_class, kind.memory_gib)
    return mig_template_name(kind)


def _unit(item: Costed, report: Report) -> dict[str, Any]:
    found, unit = item.assessment, item.assessment.unit
    held = found.held
    entry: dict[str, Any] = {
        "namespace": unit.namespace or None, "workload": unit.name,
        "kind": unit.workload_type or unit.kind, "slice": slice_name(held),
        "gpu": held.gpu_model if held and held.family == "mig" else None,
        "framebufferGiB": rounded(found.framebuffer_mib / 1024 if found.framebuffer_mib else None),
        "usableGiB": usable_memory_gib(held, report.margin_percent) if held else None,
        "devices": found.devices, "devicesPerPod": found.per_pod, "peakGiB": round(found.peak_mib / 1024, 2),
        "utilisationPercent": rounded(found.utilisation, 1), "recommended": slice_name(found.recommended),
        "verdict": found.verdict, "reason": found.reason, "hourlyNow": rounded(item.hourly_now),
        "hourlyRecommended": rounded(item.hourly_recommended), "sliceHours": round(found.hours, 2),
        "windowCost": rounded(item.window_cost), "claimTemplate": claim_template(item, report.device_class),
        "vmSize": item.now.vm_size if item.now else None,
    }
    if unit.cluster:
        entry["cluster"] = unit.cluster
    if unit.kind == SHARED:
        entry["users"] = list(unit.users)
    if unit.kind == MIG_SLICE:
        device = unit.rows[0].device
        entry.update(node=device.node, gpuUuid=device.uuid, gpuInstance=device.instance)
    return entry


def document(report: Report) -> dict[str, Any]:
    """The `--json` document."""
    prices = report.prices
    return {
        "source": {"prometheus": report.source, "window": report.window.text, "start": iso(report.window.start),
                   "end": iso(report.window.end), "stepSeconds": report.window.step_s},
        "prices": {"region": prices.region, "currency": prices.currency, "date": prices.date,
                   "hoursPerMonth": prices.hours_per_month},
        "marginPercent": report.margin_percent,
        "workloads": [_unit(item, report) for item in report.costed],
        "idleCapacity": [{"node": line.device.device.node, "gpuUuid": line.device.device.uuid,
                          "slice": slice_name(line.kind), "hours": round(line.hours, 2), "hourly": rounded(line.hourly)}
                         for line in report.idle],
        "namespaces": [{"namespace": ns or None, "sliceHours": round(hours, 2), "cost": rounded(money),
                        **({"cluster": cluster} if cluster else {})} for cluster, ns, hours, money in report.namespaces],
        "totals": {key: rounded(value) for key, value in totals(report).items()},
        "notes": list(report.notes),
        "exit": report.exit,
    }


def to_json(report: Report) -> str:
    return json.dumps(document(report), indent=2, sort_keys=True) + "\n"


def _money(value: float | None, currency: str) -> str:
    return "no price" if value is None else f"{value:,.2f} {currency}"


def _name(item: Costed) -> str:
    unit = item.assessment.unit
    where = f"{unit.cluster}:" if unit.cluster else ""
    label = {POD: " (pod)", SHARED: " (shared claim)", MIG_SLICE: " (MIG, no pod)"}.get(unit.kind, "")
    return f"{where}{unit.namespace + '/' if unit.namespace else ''}{unit.name}{label}"


def to_text(report: Report) -> str:
    """The report for people."""
    cur = report.prices.currency
    header = ["workload", "slice", "devices", "peak GiB", "GPU util", "needs", "verdict", "now/h", "then/h"]
    rows = []
    for item in report.costed:
        found = item.assessment
        rows.append([_name(item), slice_name(found.held) or "?", str(found.devices), f"{found.peak_mib / 1024:.1f}",
                     "-" if found.utilisation is None else f"{found.utilisation:.0f} %",
                     slice_name(found.recommended) or "-", found.verdict, _money(item.hourly_now, cur),
                     _money(item.hourly_recommended, cur)])
    window = report.window
    lines = [f"GPU memory used per workload, {iso(window.start)} to {iso(window.end)} ({window.text}), from "
             f"{report.source}; prices: {report.prices.region} ({report.prices.date}), margin "
             f"{report.margin_percent} %", ""]
    lines += text_table(header, rows) if rows else ["  no workload held a GPU slice in the window"]
    sums = totals(report)
    saving = sums["monthlySaving"]
    change = "no change" if saving is None or abs(saving) < 0.005 else (
        f"{_money(saving, cur)} saved" if saving > 0 else f"{_money(-saving, cur)} more")
    lines += ["", f"Total per hour: {_money(sums['hourlyNow'], cur)} now, {_money(sums['hourlyRecommended'], cur)} "
              f"recommended; per month {change}"]
    if report.idle:
        lines += ["", f"Idle capacity (published, never allocated in the window): {len(report.idle)} device(s), "
                  f"{_money(sums['idleCapacityHourly'], cur)} per hour"]
        lines += [f"  {line.device.device.node} {line.device.device.uuid}: {slice_name(line.kind) or '?'}, "
                  f"{line.hours:.1f} h, {_money(line.hourly, cur)}/h" for line in report.idle]
    if report.namespaces:
        lines += ["", "Cost per namespace over the window (slice-hours x slice price):"]
        lines += text_table(["namespace", "slice-hours", "cost"], [
            [f"{cluster + ':' if cluster else ''}{ns or '(MIG, no pod)'}", f"{hours:.1f}", _money(money, cur)]
            for cluster, ns, hours, money in report.namespaces])
    reasons = [f"  {_name(c)}: {c.assessment.verdict}: {c.assessment.reason}" for c in report.costed
               if c.assessment.verdict != KEEP]
    if reasons:
        lines += ["", "Why:", *reasons]
    if report.notes:
        lines += ["", *report.notes]
    templates = [(item, claim_template(item, report.device_class)) for item in report.costed]
    lines += ["", "Claim template each workload should use:"]
    lines += [f"  {_name(item)}: {name or 'none (release the slice)'}"
              + ("" if item.assessment.verdict not in (INSUFFICIENT_DATA, PREALLOCATED) else " (as now)")
              for item, name in templates] or ["  none"]
    return "\n".join(lines) + "\n"
