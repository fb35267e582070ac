"""Azure regions as ARM names them, and the ones that offer the NVadsA10_v5 sizes (data/regions.yaml: sources and dates).

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
A10_SERIES = "NVadsA10_v5"


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
    doc: dict[str, Any] = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    offering = set(doc["nvadsA10v5"])
    regions = {
        name: Region(name, display, geography, name in offering) for name, (display, geography) in doc["regions"].items()
    }
    unknown = offering - set(regions)
    if unknown:
        raise ValueError(f"{path}: nvadsA10v5 lists regions that are not regions: {sorted(unknown)}")
    return RegionCatalog(regions, {k: str(v) for k, v in doc["source"].items()})


def _folded(text: str) -> str:
    """A spelling reduced to what tells regions apart: 'West Europe' and 'west-europe' -> 'westeurope'."""
    return re.sub(r"[\s_\-]+", "", text).lower()


def _listed(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def location_problem(location: str, catalog: RegionCatalog | None = None) -> str | None:
    """What is wrong with a cluster location (not an ARM region name, not a region, no NVadsA10_v5 there), or None."""
    catalog = catalog or region_catalog()
    regions = catalog.regions
    if location not in regions:
        return region_problem(location, catalog)
    region = regions[location]
    if not region.offers_a10:
        near = [n for n in catalog.a10_regions if regions[n].geography == region.geography]
        where = (f"in {region.geography}: {_listed(near)}" if near
                 else f"in no {region.geography} region; elsewhere: {_listed(catalog.a10_regions)}")
        return (f"'{location}' ({region.display_name}) does not offer the {A10_SERIES} sizes (no price meter known there: "
                f"{catalog.source['nvadsA10v5']}, {catalog.source['nvadsA10v5Date']}); they are offered {where}")
    return None


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
