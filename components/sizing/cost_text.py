"""How a cost line reads, in the report's tables and its JSON: a figure, a partial figure when a size has no price
(named, left out of the sum, never counted as 0), "no price known", or "nothing placed" when no workload fits."""

from __future__ import annotations

from typing import Any

from .model import CostLine
from .plan import SizingPlan

COST_ORDER = ("plan", "wholeA10PerWorkload", "largestSizePool")
NO_PRICE = "no price known"
NOTHING = "nothing placed"


def rounded(value: float | None, digits: int = 2) -> float | None:
    """A figure as the JSON documents carry it (to the cent by default), or None where it is not known."""
    return None if value is None else round(value, digits)


def nothing_placed(line: CostLine) -> bool:
    """No node at all: there is nothing to cost (not a cost of 0)."""
    return line.provisioned_gib == 0 and not line.unpriced


def cost_dict(line: CostLine) -> dict[str, Any]:
    """A cost line in `size --json`: null figures when nothing is placed or a size has no price; then `unpriced`
    names the sizes and `pricedPartHourly` is the sum of the rest."""
    utilisation = line.utilisation
    empty = nothing_placed(line)
    return {
        "label": line.label,
        "vmSize": line.vm_size,
        "hourly": None if empty else rounded(line.hourly),
        "monthly": None if empty else rounded(line.monthly),
        "nothingPlaced": empty,
        "unpriced": list(line.unpriced),
        "pricedPartHourly": rounded(line.priced_hourly) if line.unpriced else None,
        "gpuMemoryGiB": {"requested": round(line.requested_gib, 2), "provisioned": round(line.provisioned_gib, 2)},
        "utilisation": None if utilisation is None else round(utilisation, 4),
    }


def money_cell(value: float | None, currency: str) -> str:
    """A price for a table cell, or what is not known."""
    return NO_PRICE if value is None else f"{value:,.2f} {currency}"


def line_cell(line: CostLine, currency: str, hours: float = 1.0) -> str:
    """A cost line's hourly (hours=1) or monthly figure for a table cell."""
    if nothing_placed(line):
        return NOTHING
    if line.hourly is not None:
        return f"{line.hourly * hours:,.2f} {currency}"
    if line.priced_hourly:
        return f"{line.priced_hourly * hours:,.2f} {currency}, partial"
    return NO_PRICE


def _figures(line: CostLine) -> tuple[float | None, float, float, tuple[str, ...]]:
    return None if line.hourly is None else round(line.hourly, 2), line.requested_gib, line.provisioned_gib, line.unpriced


def distinct_costs(plan: SizingPlan) -> tuple[list[CostLine], list[str]]:
    """The cost lines to print, a baseline that comes to the same figures as a line above it left out (the plan
    itself, or one whole GPU per replica where that is the plan), and one sentence per line left out; then what a
    partial figure leaves out."""
    shown: list[CostLine] = []
    same: list[str] = []
    for key in COST_ORDER:
        line = plan.costs[key]
        twin = next((s for s in shown if _figures(s) == _figures(line)), None)
        if twin is None:
            shown.append(line)
        else:
            same.append(f"{line.label[:1].upper()}{line.label[1:]}: the same cost and GPU memory as {twin.label}.")
    unpriced = sorted({size for line in shown for size in line.unpriced})
    if unpriced:
        same.append(f"{'; '.join(f'No price known for {s} in {plan.prices.region}' for s in unpriced)}: left out of "
                    "the figures above, which are partial where they say so, never counted as 0.")
    return shown, same
