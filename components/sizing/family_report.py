"""A10 and MIG slices compared per workload (`families.compare`), for people (text, Markdown) and machines (the
`familyComparison` key of `size --json`): cheapest a slice first, the slice the plan gives each workload marked."""

from __future__ import annotations

from typing import Any

from .families import FamilyRow
from .tables import md_table, text_table

HEADER = ["workload", "family", "slice", "VM size", "usable GiB", "slices a node", "per slice an hour",
          "nodes for its replicas", "their cost an hour"]
EXPLAIN = ("A slice's price is its node's price over the slices a node holds; a workload alone pays for whole nodes "
           "(the last two columns), several workloads on one kind of slice share them. The plan is the cheapest for "
           "all the workloads together, whole nodes paid for and slices already bought filled first; --family a10 or "
           "--family mig plans on one family alone.")


def _money(value: float | None, currency: str) -> str:
    return "n/a" if value is None else f"{value:,.2f} {currency}"


def _slice(r: FamilyRow) -> str:
    """The slice a replica takes: one, or two of one GPU (MIG) or node (A10) for a two-device workload."""
    return f"2 x {r.offer.label}" if r.workload.devices == 2 else r.offer.label


def _cells(r: FamilyRow, currency: str) -> list[str]:
    o = r.offer
    vm = f"{o.vm_size} ({o.aks_profile})" if o.aks_profile else o.vm_size
    name = f"{r.workload.name} (planned)" if r.planned else r.workload.name
    return [name, o.family.upper() if o.family == "mig" else "A10", _slice(r), vm, f"{r.usable_gib:.1f}",
            str(o.per_node), _money(o.per_slice, currency), str(r.nodes), _money(r.hourly, currency)]


def to_dicts(rows: list[FamilyRow], margin_percent: int) -> list[dict[str, Any]]:
    """The JSON shape: one entry per workload and family, cheapest a slice first within a workload."""
    def money(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return [{"workload": r.workload.name, "family": r.offer.family, "slice": _slice(r), "vmSize": r.offer.vm_size,
             "gpuInstanceProfile": r.offer.aks_profile, "usableGiB": round(r.usable_gib, 2),
             "slicesPerNode": r.offer.per_node, "hourlyPerSlice": money(r.offer.per_slice), "nodes": r.nodes,
             "hourly": money(r.hourly), "planned": r.planned, "marginPercent": margin_percent} for r in rows]


def _verdicts(rows: list[FamilyRow], currency: str) -> list[str]:
    """One line per workload whose cheapest slice is not the one the plan gives it."""
    lines = []
    by_workload: dict[str, list[FamilyRow]] = {}
    for r in rows:
        by_workload.setdefault(r.workload.name, []).append(r)
    for name, here in by_workload.items():
        first, planned = here[0], next((r for r in here if r.planned), None)
        if planned is None or first is planned or first.offer.per_slice is None or planned.offer.per_slice is None:
            continue
        lines.append(f"{name}: {_slice(first)} costs {first.offer.per_slice:.2f} {currency} a slice against "
                     f"{planned.offer.per_slice:.2f} for the planned {_slice(planned)}, but its replicas would pay "
                     f"{_money(first.hourly, currency)} an hour for {first.nodes} whole {first.offer.vm_size} against "
                     f"{_money(planned.hourly, currency)} alone on the planned slice; the plan is the cheapest for all "
                     "the workloads together.")
    return lines


def text_lines(rows: list[FamilyRow], margin_percent: int, currency: str) -> list[str]:
    """The comparison for a terminal."""
    return [f"A10 and MIG slices per workload (cheapest a slice first, at the {margin_percent} % margin):",
            *text_table(HEADER, [_cells(r, currency) for r in rows]), "", *_verdicts(rows, currency), EXPLAIN, ""]


def to_markdown(rows: list[FamilyRow], margin_percent: int, currency: str, heading: str = "####") -> list[str]:
    """The comparison as a Markdown section."""
    return [f"{heading} A10 and MIG slices", "", f"Per workload, cheapest a slice first, at the {margin_percent} % "
            "margin.", "", *md_table(HEADER, [_cells(r, currency) for r in rows]), "",
            *(f"- {line}" for line in _verdicts(rows, currency)), "", EXPLAIN, ""]
