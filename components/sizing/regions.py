"""Regions as a choice: the same plan (its pools, nodes per VM size) costed at each region's prices, cheapest first,
saying which regions lack a size the plan needs (issue: where to add a fleet member).

The prices are the regional price table's rows (`components/catalog/data/prices.yaml`, or `--prices FILE` in its form);
a region "offers" a size here when its row prices it, which is the same evidence the catalog's region list rests on
(a Linux pay-as-you-go meter). `--regions all` compares every row of the table; a list compares the regions it names,
each checked as ARM names regions (`catalog.regions`), and a named region the table has no row for lacks every size.

With `--subscription`, the regions that offer every size are also ranked by the quota the subscription has free there
for the plan's pools (`RegionQuota`, read by the CLI through `preflight`'s reader; this module only ranks): those where
it fits first, each group cheapest first. Without a credential the ranking stays by price and one line says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..catalog.regions import region_catalog, region_problem
from ..config import ConfigError, Problem
from .model import PoolPlan
from .prices import PriceBook
from .tables import md_table, text_table

ALL = "all"


@dataclass(frozen=True)
class RegionQuota:
    """Whether the plan's pools fit the vCPU quota a subscription has free in a region, and what falls short."""

    fits: bool
    short: tuple[str, ...] = ()  # one line each: a quota short, a size restricted, the region unusable


QuotaOf = Callable[[list[PoolPlan], list[str]], tuple[dict[str, RegionQuota], str]]
"""(the plan's pools, regions) -> (each region's quota, one line saying what was checked or why not)."""


@dataclass(frozen=True)
class RegionCost:
    """The plan at one region's prices, or the sizes that region lacks (then no cost); its quota when checked."""

    region: str
    hourly: float | None
    monthly: float | None
    missing: tuple[str, ...]
    availability: str | None
    date: str | None
    quota: RegionQuota | None = None


@dataclass(frozen=True)
class RegionComparison:
    """Every region compared, cheapest first, those lacking a size last; the table's currency and source."""

    rows: tuple[RegionCost, ...]
    currency: str
    hours_per_month: float
    sizes: tuple[str, ...]
    unpriced: int = 0  # with `all`: regions of Azure's list the table has no row for
    quota_note: str | None = None  # with --subscription: what was checked, or why the quota was not

    @property
    def cheapest(self) -> RegionCost | None:
        """The cheapest region that offers every size, or None (whatever its quota)."""
        priced = [r for r in self.rows if r.hourly is not None]
        return min(priced, key=lambda r: (round(r.hourly or 0.0, 4), r.region), default=None)

    @property
    def best(self) -> RegionCost | None:
        """The first region of the ranking: the cheapest where the quota fits, when the quota was checked."""
        return next((r for r in self.rows if r.hourly is not None and r.quota is not None and r.quota.fits), None)


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


def compare_regions(pools: list[PoolPlan], book: PriceBook, regions: list[str] | None,
                    quota_of: QuotaOf | None = None) -> RegionComparison:
    """The plan's nodes per VM size costed in each region (`None`: every row of the book), cheapest first, then those
    lacking a size (by name); with `quota_of`, the regions offering every size ranked by quota first (fits, then
    short), each group cheapest first."""
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
    note = None
    if quota_of is not None and nodes:
        found, note = quota_of(pools, [r.region for r in rows if r.hourly is not None])
        rows = [replace(r, quota=found.get(r.region)) for r in rows]
    rows.sort(key=lambda r: (r.hourly is None, r.quota is not None and not r.quota.fits, round(r.hourly or 0.0, 4),
                             r.region))
    unpriced = 0
    if regions is None:
        priced = {"".join(n.split()).lower() for n in book.regions}
        unpriced = sum(1 for n in region_catalog().regions if n not in priced)
    return RegionComparison(tuple(rows), book.currency, book.hours_per_month, tuple(nodes), unpriced, note)


def to_dict(c: RegionComparison) -> dict[str, Any]:
    """The JSON shape (`regions`): cheapest first, each with its cost or the sizes it lacks."""
    def row(r: RegionCost) -> dict[str, Any]:
        found = {"region": r.region, "hourly": None if r.hourly is None else round(r.hourly, 4),
                 "monthly": None if r.monthly is None else round(r.monthly, 2), "missing": list(r.missing),
                 "availability": r.availability, "date": r.date}
        if c.quota_note is not None:  # with --subscription only: the document is otherwise as it was
            found["quota"] = None if r.quota is None else {"fits": r.quota.fits, "short": list(r.quota.short)}
        return found

    doc = {"currency": c.currency, "hoursPerMonth": c.hours_per_month, "vmSizes": list(c.sizes),
           "rows": [row(r) for r in c.rows], "cheapest": c.cheapest.region if c.cheapest else None,
           "unpricedRegions": c.unpriced}
    if c.quota_note is not None:
        doc.update(quotaNote=c.quota_note, cheapestWithQuota=c.best.region if c.best else None)
    return doc


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
        quota = [] if not _quota_checked(c) else ["-" if r.quota is None else "fits" if r.quota.fits else
                                                  "short: " + "; ".join(r.quota.short)]
        rows.append([r.region, *money, ", ".join(r.missing) or "-", r.availability or "-", r.date or "-", *quota])
    return rows


HEADER = ["region", "per hour", "per month", "more than the cheapest", "lacks", "availability", "prices as of"]


def _quota_checked(c: RegionComparison) -> bool:
    return any(r.quota is not None for r in c.rows)


def _header(c: RegionComparison) -> list[str]:
    return [*HEADER, "quota"] if _quota_checked(c) else HEADER


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
    if c.quota_note:
        lines.append(c.quota_note)
    best = c.best
    if best is not None and best.hourly is not None:
        lines.append(f"Cheapest where the subscription's free quota holds the plan: {code}{best.region}{code} at "
                     f"{best.hourly:,.2f} {c.currency} an hour.")
    elif _quota_checked(c):
        lines.append("The subscription's free quota holds the plan in none of these regions: request more (`preflight` "
                     "says how) or choose others.")
    return lines


def text_lines(c: RegionComparison) -> list[str]:
    """The comparison for a terminal."""
    if not c.sizes:
        return ["regions: nothing is placed, so nothing to compare", ""]
    order = "where the quota fits first, then cheapest first" if _quota_checked(c) else "cheapest first"
    return [f"regions (the plan's pools at each region's prices, {order}):", *text_table(_header(c), _cells(c)), "",
            *_summary(c, ""), ""]


def to_markdown(c: RegionComparison, heading: str = "####") -> list[str]:
    """The comparison as a Markdown section."""
    if not c.sizes:
        return [f"{heading} Regions", "", "Nothing is placed, so nothing to compare.", ""]
    order = "where the quota fits first, then cheapest first" if _quota_checked(c) else "cheapest first"
    return [f"{heading} Regions", "", f"The plan's pools at each region's prices, {order}.", "",
            *md_table(_header(c), [[f"`{r[0]}`", *r[1:]] for r in _cells(c)]), "", *_summary(c, "`"), ""]
