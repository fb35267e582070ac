"""The price table the sizing planner costs pools with: data (components/catalog/data/prices.yaml), or the user's own file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import Field, field_validator

from ..config import ConfigError, Model, Problem, validate
from ..config.base import matching
from . import A10_SIZES

DEFAULT_PRICES = Path(__file__).resolve().parent / "data" / "prices.yaml"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_CURRENCY = re.compile(r"[A-Z]{3}", re.ASCII)


class PriceTable(Model):
    """Per-hour prices of NVadsA10_v5 VM sizes in one region and currency, with where and when they were taken."""

    region: str = Field(min_length=1, description="Azure region the prices are for, e.g. 'eastus'.")
    currency: Annotated[str, matching(_CURRENCY, "is not a currency code; write three capital letters, e.g. 'USD'")] = (
        Field(description="ISO 4217 currency code, e.g. 'USD'.")
    )
    date: Annotated[str, matching(_DATE, "is not a date; write YYYY-MM-DD")] = Field(
        description="When the prices were taken, YYYY-MM-DD."
    )
    source: str = Field(min_length=1, description="Where the prices come from.")
    hours_per_month: float = Field(730, gt=0, le=744, description="Hours in a month for monthly figures (Azure uses 730).")
    prices: dict[str, float] = Field(description="Price per VM-hour by VM size; sizes left out are not costed.")

    @field_validator("prices")
    @classmethod
    def _prices(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(A10_SIZES))
        if unknown:
            raise ValueError(f"{', '.join(unknown)} not an NVadsA10_v5 size; price some of {', '.join(A10_SIZES)}")
        negative = sorted(k for k, price in v.items() if price <= 0)
        if negative:
            raise ValueError(f"{', '.join(negative)}: a price must be more than 0")
        return v

    def hourly(self, vm_size: str) -> float | None:
        """The price of one node of this size for an hour, or None when the table has none."""
        return self.prices.get(vm_size)


MISSING_DOC: Any = object()  # no document given: read the file


def load_prices(path: str | Path | None = None, doc: Any = MISSING_DOC) -> PriceTable:
    """The price table in `path` (default: the package's own), or `doc` already read from it (a caller that reads
    files it was handed reads them within its own bounds); ConfigError naming the file and each bad key."""
    target = Path(path) if path is not None else DEFAULT_PRICES
    if doc is MISSING_DOC:
        try:
            doc = yaml.safe_load(target.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError([Problem(str(target), "no such file")]) from None
        except yaml.YAMLError as exc:
            raise ConfigError([Problem(str(target), f"not YAML: {exc}")]) from None
    try:
        return validate(PriceTable, doc)
    except ConfigError as exc:
        raise ConfigError([Problem(f"{target}: {p.path}" if p.path else str(target), p.message) for p in exc.problems]) from None
