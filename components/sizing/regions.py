"""Regions as a choice: the same plan (its pools, nodes per VM size) costed at each region's prices, cheapest first,
saying which regions lack a size the plan needs (issue: where to add a fleet member).

The prices are the regional price table's rows (`components/catalog/data/prices.yaml`, or `--prices FILE` in its form);
a region "offers" a size here when its row prices it, which is the same evidence the catalog's region list rests on
(a Linux pay-as-you-go meter). `--regions all` compares every row of the table; a list compares the regions it names,
each checked as ARM names regions (`catalog.regions`), and a named region the table has no row for lacks every size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog.regions import region_catalog, region_problem
from ..config import ConfigError, Problem
from .model import PoolPlan
from .prices import PriceBook
from .tables import md_table, text_table

ALL = "all"


@dataclass(frozen=True)
class RegionCost:
    """The plan at one region's prices, or the sizes that region lacks (then no cost)."""

    region: str
    hourly: float | None
    monthly: float | None
    missing: tuple[str, ...]
    availability: str | None
    date: str | None


@dataclass(frozen=True)
class RegionComparison:
    """Every region compared, cheapest first, those lacking a size last; the table's currency and source."""

    rows: tuple[RegionCost, ...]
    currency: str
    hours_per_month: float
    sizes: tuple[str, ...]
    unpriced: int = 0  # with `all`: regions of Azure's list the table has no row for

    @property
    def cheapest(self) -> RegionCost | None:
        """The cheapest region that offers every size, or None."""
        return next((r for r in self.rows if r.hourly is not None), None)


def parse_regions(text: str) -> list[str] | None:
    """`--regions` -> the region names (None for `all`); ConfigError naming each name that is not an ARM region."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if [n.lower() for n in names] == [ALL]:
        return None
    problems = []
    if not names:
        problems.append(Problem("", f"--regions '{text}': name regions as ARM writes them, comma-separated (e.g. "
                                    "'westeurope,eastus'), or 'all'"))
    if ALL in (n.lower() for n in names) and len(names) > 1:
        problems.append(Problem("", f"--regions '{text}': 'all' compares every region; give it alone"))
    for name in names:
        problem = None if name.lower() == ALL else region_problem(name)
        if problem:
            problems.append(Problem("", f"--regions '{name}': {problem}"))
    if problems:
        raise ConfigError(problems)
    return names


def _row_cost(nodes: dict[str, int], prices: dict[str, float]) -> tuple[float | None, tuple[str, ...]]:
    missing = tuple(vm for vm in nodes if vm not in prices)
    return (None, missing) if missing else (sum(n * prices[vm] for vm, n in nodes.items()), ())


def compare_regions(pools: list[PoolPlan], book: PriceBook, regions: list[str] | None) -> RegionComparison:
    """The plan's nodes per VM size costed in each region (`None`: every row of the book), cheapest first, then those
    lacking a size (by name)."""
    nodes: dict[str, int] = {}
    for p in pools:
        nodes[p.vm_size] = nodes.get(p.vm_size, 0) + p.nodes
    rows = []
    for name in regions if regions is not None else list(book.regions):
        found = book.row(name)
        if found is None:
            rows.append(RegionCost(name, None, None, tuple(nodes) or ("every size",), None, None))
            continue
        own, row = found
        hourly, missing = _row_cost(nodes, row.prices)
        monthly = None if hourly is None else hourly * book.hours_per_month
        rows.append(RegionCost(own, hourly, monthly, missing, row.availability, row.date))
    rows.sort(key=lambda r: (r.hourly is None, round(r.hourly or 0.0, 4), r.region))
    unpriced = 0
    if regions is None:
        priced = {"".join(n.split()).lower() for n in book.regions}
        unpriced = sum(1 for n in region_catalog().regions if n not in priced)
    return RegionComparison(tuple(rows), book.currency, book.hours_per_month, tuple(nodes), unpriced)


def to_dict(c: RegionComparison) -> dict[str, Any]:
    """The JSON shape (`regions`): cheapest first, each with its cost or the sizes it lacks."""
    def row(r: RegionCost) -> dict[str, Any]:
        return {"region": r.region, "hourly": None if r.hourly is None else round(r.hourly, 4),
                "monthly": None if r.monthly is None else round(r.monthly, 2), "missing": list(r.missing),
                "availability": r.availability, "date": r.date}

    return {"currency": c.currency, "hoursPerMonth": c.hours_per_month, "vmSizes": list(c.sizes),
            "rows": [row(r) for r in c.rows], "cheapest": c.cheapest.region if c.cheapest else None,
            "unpricedRegions": c.unpriced}


def _cells(c: RegionComparison) -> list[list[str]]:
    least = c.cheapest.hourly if c.cheapest else None
    rows = []
    for r in c.rows:
        if r.hourly is None:
            money = ["-", "-", "-"]
        else:
            more = None if least is None else r.hourly - least
            extra = ("-" if r is c.cheapest else "the same" if more is None or more < 0.005 or not least
                     else f"+{more:,.2f} {c.currency} (+{more / least:.0%})")
            money = [f"{r.hourly:,.2f} {c.currency}", f"{r.monthly:,.0f} {c.currency}", extra]
        rows.append([r.region, *money, ", ".join(r.missing) or "-", r.availability or "-", r.date or "-"])
    return rows


HEADER = ["region", "per hour", "per month", "more than the cheapest", "lacks", "availability", "prices as of"]


def _summary(c: RegionComparison, code: str) -> list[str]:
    lines = []
    best = c.cheapest
    if best is not None and best.hourly is not None:
        tied = [r.region for r in c.rows if r.hourly is not None and r.hourly - best.hourly < 0.005]
        names = ", ".join(f"{code}{n}{code}" for n in tied)
        lines.append(f"Cheapest: {names} at {best.hourly:,.2f} {c.currency} an hour.")
    else:
        lines.append("No region compared offers every size the plan needs.")
    lacking = [r for r in c.rows if r.missing]
    if lacking:
        lines.append("Lacking a size: " + "; ".join(f"{code}{r.region}{code} ({', '.join(r.missing)})" for r in lacking)
                     + ".")
    if c.unpriced:
        lines.append(f"{c.unpriced} other Azure regions have no row in the price table: the sizes are not known to be "
                     "offered there.")
    return lines


def text_lines(c: RegionComparison) -> list[str]:
    """The comparison for a terminal."""
    if not c.sizes:
        return ["regions: nothing is placed, so nothing to compare", ""]
    return ["regions (the plan's pools at each region's prices, cheapest first):", *text_table(HEADER, _cells(c)), "",
            *_summary(c, ""), ""]


def to_markdown(c: RegionComparison, heading: str = "####") -> list[str]:
    """The comparison as a Markdown section."""
    if not c.sizes:
        return [f"{heading} Regions", "", "Nothing is placed, so nothing to compare.", ""]
    return [f"{heading} Regions", "", "The plan's pools at each region's prices, cheapest first.", "",
            *md_table(HEADER, [[f"`{r[0]}`", *r[1:]] for r in _cells(c)]), "", *_summary(c, "`"), ""]
