"""The price tables the sizing planner costs pools with: the package's own, one row per Azure region
(components/catalog/data/prices.yaml, source and date per row), or the user's own file (one region, or rows by region).

The stack's location picks the row (region names compare as Azure compares them: case and spaces ignored); a region
the table lacks is costed at the table's fallback region, and a one-region file used for another region, both with a
warning. Every number is finite and in range, every date a real day. The catalog holds the data; the checks live here,
above config (the catalog imports nothing of ours).
"""

from __future__ import annotations

import datetime
import functools
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, Field, model_validator

from ..catalog import A10_SIZES, MIG_SIZES
from ..catalog.prices import DEFAULT_PRICES
from ..config import ConfigError, KeyedProblemsError, Model, Problem, validate
from ..config.base import matching

__all__ = ["DEFAULT_PRICES", "PriceBook", "PriceTable", "RegionPrices", "load_prices", "price_book", "prices_for"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_CURRENCY = re.compile(r"[A-Z]{3}", re.ASCII)
# No VM-hour costs a million in any currency: a larger figure is a typo or an overflow (1e999 reads as infinity).
MAX_PRICE = 1_000_000


def _real_day(text: str) -> str:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"'{text}' is not a day of the calendar; write a real date as YYYY-MM-DD") from None
    return text


Date = Annotated[str, matching(_DATE, "is not a date; write YYYY-MM-DD"), AfterValidator(_real_day)]
Currency = Annotated[str, matching(_CURRENCY, "is not a currency code; write three capital letters, e.g. 'USD'")]
Price = Annotated[float, Field(allow_inf_nan=False)]


def region_key(name: str) -> str:
    """A region name as Azure compares them: 'West Europe', 'westeurope' and 'WestEurope' are one region."""
    return "".join(name.split()).lower()


def _check_prices(v: dict[str, float]) -> dict[str, float]:
    unknown = sorted(set(v) - set(A10_SIZES) - set(MIG_SIZES))
    if unknown:
        raise ValueError(f"{', '.join(unknown)} not an NVadsA10_v5 or MIG size; price some of "
                         f"{', '.join([*A10_SIZES, *MIG_SIZES])}")
    negative = sorted(k for k, price in v.items() if price <= 0)
    if negative:
        raise ValueError(f"{', '.join(negative)}: a price must be more than 0")
    huge = sorted(k for k, price in v.items() if price > MAX_PRICE)
    if huge:
        raise ValueError(f"{', '.join(huge)}: a price per VM-hour must be at most {MAX_PRICE:,}")
    return v


Prices = Annotated[dict[str, Price], AfterValidator(_check_prices)]
"""Price per VM-hour by NVadsA10_v5 or MIG size, each a finite number more than 0."""


class PriceTable(Model):
    """Per-hour prices of NVadsA10_v5 and MIG VM sizes in one region and currency, with where and when they were taken."""

    region: str = Field(min_length=1, description="Azure region the prices are for, e.g. 'eastus'.")
    currency: Currency = Field(description="ISO 4217 currency code, e.g. 'USD'.")
    date: Date = Field(description="When the prices were taken, YYYY-MM-DD.")
    source: str = Field(min_length=1, description="Where the prices come from.")
    hours_per_month: float = Field(
        730, gt=0, le=744, allow_inf_nan=False, description="Hours in a month for monthly figures (Azure uses 730)."
    )
    prices: Prices = Field(description="Price per VM-hour by VM size; sizes left out are not costed.")

    def hourly(self, vm_size: str) -> float | None:
        """The price of one node of this size for an hour, or None when the table has none."""
        return self.prices.get(vm_size)


class RegionPrices(Model):
    """One region's row: its prices, when and where they were taken, and how far the region is known to offer them."""

    date: Date = Field(description="When the prices were taken, YYYY-MM-DD.")
    source: str = Field(min_length=1, description="Where the prices come from.")
    availability: Literal["listed-by-sku-api", "price-meter-only"] | None = Field(
        None, description="listed-by-sku-api: a SKU listing shows the sizes offered there; price-meter-only: only a "
        "price meter is known.")
    prices: Prices = Field(description="Price per VM-hour by VM size; sizes left out are not costed.")


class PriceBook(Model):
    """Price rows by Azure region, one currency, and the region a location the book lacks is costed at."""

    currency: Currency = Field(description="ISO 4217 currency code, e.g. 'USD'.")
    hours_per_month: float = Field(
        730, gt=0, le=744, allow_inf_nan=False, description="Hours in a month for monthly figures (Azure uses 730)."
    )
    fallback_region: str = Field(description="The row for a location the book has no row for.")
    regions: dict[str, RegionPrices] = Field(min_length=1, description="Rows by region name, e.g. 'westeurope'.")

    @model_validator(mode="after")
    def _fallback(self) -> PriceBook:
        problems = []
        seen: dict[str, str] = {}
        for name in self.regions:
            if region_key(name) in seen:
                problems.append((f"regions.{name}", f"is the same region as '{seen[region_key(name)]}' (region names "
                                 "ignore case and spaces); keep one row"))
            seen.setdefault(region_key(name), name)
        if region_key(self.fallback_region) not in seen:
            problems.append(("fallbackRegion", f"'{self.fallback_region}' has no row; choose one of "
                             f"{', '.join(sorted(self.regions))}"))
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    def _row(self, region: str) -> str | None:
        """The book's name for this region's row, or None."""
        return next((name for name in self.regions if region_key(name) == region_key(region)), None)

    def row(self, region: str) -> tuple[str, RegionPrices] | None:
        """The row for this region (compared as Azure compares names) under the book's own name, or None."""
        name = self._row(region)
        return None if name is None else (name, self.regions[name])

    def table(self, region: str | None) -> tuple[PriceTable, str | None]:
        """The row for this region as a PriceTable, and a one-line warning when the book fell back to another one."""
        wanted = None if region is None else self._row(region)
        found = wanted or self._row(self.fallback_region) or self.fallback_region
        row = self.regions[found]
        table = PriceTable(region=found, currency=self.currency, date=row.date, source=row.source,
                           hoursPerMonth=self.hours_per_month, prices=row.prices)
        if region is None or found == wanted:
            return table, None
        return table, (f"the price table has no row for {region}; costed at {found} prices instead (give your own with "
                       "--prices FILE)")


def _read(target: Path) -> Any:
    # The package's own book (30 KB) with libyaml's parser where installed (about six times faster); `size`, `docs` and
    # the tests read it often. A user's file keeps the pure-Python parser, whose error positions the messages quote.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader) if target == DEFAULT_PRICES else yaml.SafeLoader
    try:
        return yaml.load(target.read_text(encoding="utf-8"), Loader=loader)
    except FileNotFoundError:
        raise ConfigError([Problem(str(target), "no such file")]) from None
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(target), f"not YAML: {exc}")]) from None


MISSING_DOC: Any = object()  # no document given: read the file


@functools.cache
def _default_book() -> PriceBook:
    """The package's own book, read and validated once per process: a file of the installed package, unchanged while
    it runs, held in a frozen model no caller changes (`size`, `rightsize`, `docs` and each fleet member's cost read
    it; about 8 ms a read)."""
    return _validate(PriceBook, _read(DEFAULT_PRICES), DEFAULT_PRICES)


def _validate(model: type[Model], doc: Any, target: Path) -> Any:
    try:
        return validate(model, doc)
    except ConfigError as exc:
        raise ConfigError([Problem(f"{target}: {p.path}" if p.path else str(target), p.message) for p in exc.problems]) from None


def prices_for(
    region: str | None, path: str | Path | None = None, doc: Any = MISSING_DOC
) -> tuple[PriceTable, str | None]:
    """The prices for a region from `path` (default: the package's own book), or from `doc` already read from it (a
    caller that reads files it was handed reads them within its own bounds), and a warning when the row is another
    region's; a one-region file is used whatever the region. ConfigError naming the file and each bad key."""
    if path is None and doc is MISSING_DOC:
        return _default_book().table(region)
    target = Path(path) if path is not None else DEFAULT_PRICES
    if doc is MISSING_DOC:
        doc = _read(target)
    if isinstance(doc, dict) and "regions" in doc:
        return _validate(PriceBook, doc, target).table(region)
    table = _validate(PriceTable, doc, target)
    if region is not None and region_key(table.region) != region_key(region):
        return table, (f"{target.name} holds {table.region} prices only; the stack is in {region}, costed at "
                       f"{table.region} prices (give a table with a row for {region} to cost it there)")
    return table, None


def price_book(path: str | Path | None = None, doc: Any = MISSING_DOC) -> PriceBook:
    """The price rows by region in `path` (default: the package's own book), or in `doc` already read from it;
    ConfigError when it is a one-region table (nothing to compare regions with) or has a bad key."""
    if path is None and doc is MISSING_DOC:
        return _default_book()
    target = Path(path) if path is not None else DEFAULT_PRICES
    if doc is MISSING_DOC:
        doc = _read(target)
    if not (isinstance(doc, dict) and "regions" in doc):
        raise ConfigError([Problem("--regions", f"{target} holds one region's prices; comparing regions needs a table "
                                   "by region (`regions: {<region>: {date, source, prices}}`, the packaged file's form)")])
    return _validate(PriceBook, doc, target)


def load_prices(path: str | Path | None = None, region: str | None = None) -> PriceTable:
    """The price table in `path` (default: the package's own, at its fallback region unless `region` is given)."""
    return prices_for(region, path)[0]
