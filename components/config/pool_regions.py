"""Is each GPU pool's VM size sold in the cluster's region? The evidence is the price table (catalog/data/prices.yaml):
a size is sold in a region when that region's row prices it.

Why a missing price is a refusal, not a warning: the table is copied from the Azure Retail Prices API (Linux
pay-as-you-go meters, by region; via Azure/karpenter-provider-azure `pkg/providers/pricing/zz_generated.pricing.go`,
which queries every public region but the 4 listed in data/regions.yaml). That API lists every meter Azure bills, so a
size with no meter in a region cannot be bought there on demand: `pulumi up` would create the group and the cluster and
then fail on the pool (SkuNotAvailable). That is how the NVadsA10_v5 sizes have been judged since they were first
checked (data/regions.yaml `nvadsA10v5`), and the MIG sizes rest on the same meters, so they are judged the same way.
A region the table has no row for (no GPU size priced there, or not queried) is refused at `cluster.location`, once.
What the table cannot say is capacity or quota in a subscription: a priced size may still be out of stock.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog.mig import MIG_SIZES
from ..catalog.regions import SizeOffer, region_catalog, size_offer
from .pools import GpuPoolConfig

SHOWN = 5  # regions named in a message; the rest are counted


def _where(regions: list[str], location: str) -> str:
    """A few of these regions, those in the location's geography first, each group sorted: "'a', 'b' (UK), then 'c'
    and 9 more"."""
    catalog = region_catalog().regions
    here = catalog[location].geography if location in catalog else None
    near = sorted(r for r in regions if r in catalog and catalog[r].geography == here)
    far = sorted(r for r in regions if r not in near)
    shown_near, shown_far = near[:SHOWN], far[:max(0, SHOWN - len(near))]
    text = ", ".join(f"'{r}'" for r in shown_near)
    if shown_near:
        text += f" ({here})"
    if shown_far:
        text += (", then " if shown_near else "") + ", ".join(f"'{r}'" for r in shown_far)
    rest = len(regions) - len(shown_near) - len(shown_far)
    return f"{text} and {rest} more" if rest else text


def _source(offer: SizeOffer, location: str) -> str:
    if location in offer.source:
        source, date = offer.source[location]
        return f"{source}, {date}"
    catalog = region_catalog()
    return f"{catalog.source['nvadsA10v5']}, {catalog.source['nvadsA10v5Date']}"


def pool_region_problems(location: str, pools: Sequence[tuple[int, GpuPoolConfig]]) -> list[tuple[str, str]]:
    """Each pool whose VM size the price table has no price for in `location` (`gpuPools[i].vmSize`, which the stack
    file's reader names with the pool's name), or, when the table prices no GPU size there at all, one problem at
    `cluster.location`; each names regions that sell the size."""
    offer = size_offer()
    catalog = region_catalog().regions
    if location not in catalog or not pools:
        return []  # not a region: cluster.location says so on its own
    display = catalog[location].display_name
    sizes = sorted({pool.vm_size for _, pool in pools})
    if location not in offer.sizes:
        everywhere = sorted(set.intersection(*(set(offer.regions_of(s)) for s in sizes)))
        them = "it" if len(sizes) == 1 else "them"
        choose = (f"choose a region that prices {'it' if len(sizes) == 1 else 'all of them'}: "
                  f"{_where(everywhere, location)}" if everywhere else "no region prices all of them: split the pools")
        return [("cluster.location", f"the price table has no {', '.join(sizes)} in {location} ({display}), nor any "
                 f"other GPU size (no price meter known there: {_source(offer, location)}), so Azure is not known to "
                 f"sell {them} there; {choose}")]
    here = offer.sizes[location]
    problems = []
    for index, pool in pools:
        if pool.vm_size in here:
            continue
        elsewhere = offer.regions_of(pool.vm_size)
        regions = f"regions that price it: {_where(elsewhere, location)}" if elsewhere else "no region prices it"
        local = sorted(here, key=lambda size: ((size in MIG_SIZES) != pool.is_mig, size))  # its own family first
        sold = ", ".join(local[:3]) + (f" and {len(local) - 3} more" if len(local) > 3 else "")
        problems.append((
            f"gpuPools[{index}].vmSize",
            f"the price table has no {pool.vm_size} in {location} ({display}, cluster.location; "
            f"no price meter there: {_source(offer, location)}), so Azure is not known to sell it there; "
            f"{regions}; or a size priced in {location}: {sold}",
        ))
    return problems
