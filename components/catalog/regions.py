"""Azure regions as ARM names them (data/regions.yaml: sources and dates), and the GPU sizes each is known to sell:
the sizes its row of the price table (data/prices.yaml) prices.

ARM answers with the lower-case name (`westeurope`), and that name is what the diff, the replacement identity and the
price table compare; a display name (`West Europe`) or any other spelling is refused with the name to write instead.
Imports nothing of ours.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REGIONS_FILE = Path(__file__).resolve().parent / "data" / "regions.yaml"
PRICES_FILE = Path(__file__).resolve().parent / "data" / "prices.yaml"
A10_SERIES = "NVadsA10_v5"


def _loader() -> Any:
    """libyaml's safe loader where installed, else the pure-Python one: our own data files are read by every plan
    (the price table: 4 ms instead of 33), and only the stack files need the pure parser's error positions."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Region:
    """One physical Azure region."""

    name: str  # as ARM writes it, e.g. 'westeurope'
    display_name: str  # e.g. 'West Europe'
    geography: str  # ARM's geographyGroup, e.g. 'Europe'
    offers_a10: bool  # a Linux pay-as-you-go meter exists for every NVadsA10_v5 size


@dataclass(frozen=True)
class RegionCatalog:
    """The regions, their source and date."""

    regions: dict[str, Region]
    source: dict[str, str]

    @property
    def a10_regions(self) -> list[str]:
        """The names of the regions that offer NVadsA10_v5, sorted."""
        return sorted(r.name for r in self.regions.values() if r.offers_a10)


@functools.cache
def region_catalog(path: Path = REGIONS_FILE) -> RegionCatalog:
    """The catalog in data/regions.yaml."""
    # Our own data file, not a user's: libyaml's parser where installed (many times faster than the pure-Python one, whose
    # error positions only the stack files need), with the same safe constructor either way.
    doc: dict[str, Any] = yaml.load(path.read_text(), Loader=_loader())
    offering = set(doc["nvadsA10v5"])
    regions = {
        name: Region(name, display, geography, name in offering) for name, (display, geography) in doc["regions"].items()
    }
    unknown = offering - set(regions)
    if unknown:
        raise ValueError(f"{path}: nvadsA10v5 lists regions that are not regions: {sorted(unknown)}")
    return RegionCatalog(regions, {k: str(v) for k, v in doc["source"].items()})


@dataclass(frozen=True)
class SizeOffer:
    """Where the price table says each GPU size is sold: the sizes priced per region, and the table's source."""

    sizes: dict[str, frozenset[str]]  # region -> the VM sizes its row prices
    source: dict[str, tuple[str, str]]  # region -> (source, date) of its row

    def regions_of(self, vm_size: str) -> list[str]:
        """The regions whose row prices this size, sorted."""
        return sorted(r for r, sizes in self.sizes.items() if vm_size in sizes)


@functools.cache
def size_offer(path: Path = PRICES_FILE) -> SizeOffer:
    """The sizes each region's row of the price table prices (data/prices.yaml; its rows are checked by
    `sizing.prices`, and a test holds this reading to that one)."""
    doc: dict[str, Any] = yaml.load(path.read_text(), Loader=_loader())
    rows: dict[str, Any] = doc["regions"]
    return SizeOffer({name: frozenset(row["prices"]) for name, row in rows.items()},
                     {name: (str(row["source"]), str(row["date"])) for name, row in rows.items()})


def _folded(text: str) -> str:
    """A spelling reduced to what tells regions apart: 'West Europe' and 'west-europe' -> 'westeurope'."""
    return re.sub(r"[\s_\-]+", "", text).lower()


def _listed(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def region_problem(location: str, catalog: RegionCatalog | None = None) -> str | None:
    """What is wrong with a region name (not as ARM writes it, or no such region), or None; any region will do (an
    Azure Monitor workspace needs no GPU sizes)."""
    catalog = catalog or region_catalog()
    regions = catalog.regions
    if location in regions:
        return None
    folded = _folded(location)
    if folded in regions:
        return f"'{location}' is not how ARM names the region; write '{folded}' ({regions[folded].display_name})"
    by_display = {_folded(r.display_name): r.name for r in regions.values()}
    if folded in by_display:
        name = by_display[folded]
        return f"'{location}' is not how ARM names the region; write '{name}' ({regions[name].display_name})"
    near = difflib.get_close_matches(folded, list(regions), n=3, cutoff=0.75)
    hint = f"did you mean {_listed(near)}?" if near else f"regions offering {A10_SERIES}: {_listed(catalog.a10_regions)}"
    return (f"'{location}' is not an Azure region (ARM's list of {len(regions)} public-cloud regions, "
            f"{catalog.source['regionsDate']}); {hint}")
