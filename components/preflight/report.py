"""`preflight`'s report: a table per subscription and region, each shortfall with the request that fixes it, each
restricted size with where it is offered; and the same as a JSON document (`families[]`, `skus[]`, `ok`).

The requests are Azure's own: a VM family's limit through the Azure CLI's quota extension (Azure/azure-cli-extensions
src/quota/azext_quota/aaz/latest/quota/_update.py: `az quota update --resource-name standardFSv2Family --scope
/subscriptions/.../providers/Microsoft.Compute/locations/eastus --limit-object value=10 --resource-type dedicated`);
the regional total and Spot through the portal's Quotas page (MicrosoftDocs/azure-management-docs articles/quotas/
regional-quota-requests.md, spot-quota.md), where a family's increase "increases the regional vCPU quota limit by the
same amount". The new limit asked for is what is in use plus what the stacks need.
"""

from __future__ import annotations

from typing import Any

from .compare import FAMILY, REGIONAL, SPOT, Preflight, QuotaCheck, SkuCheck
from .demand import StackDemand

EXIT_OK, EXIT_SHORT = 0, 4
KIND_TEXT = {FAMILY: "", REGIONAL: " (regional total)", SPOT: " (Spot, all families)"}


def request(q: QuotaCheck) -> str:
    """The request that raises this quota enough: the limit to ask for is what is in use plus what is needed."""
    value = q.used + q.needed
    if q.kind == FAMILY:
        return (f"az quota update --resource-name {q.name} --scope /subscriptions/{q.subscription}/providers/"
                f"Microsoft.Compute/locations/{q.region} --limit-object value={value} --resource-type dedicated")
    which = "'Total Regional vCPUs'" if q.kind == REGIONAL else "the Spot vCPUs quota (search 'spot')"
    return (f"Azure portal > Quotas > Compute > My quotas, region {q.region}: select {which}, New Quota Request, "
            f"new limit {value}")


def shortfall_line(q: QuotaCheck) -> str:
    """One shortfall: quota, region, needed, limit, in use, missing, and the request to file."""
    unlisted = "" if q.listed else " (the region lists no such quota: limit taken as 0)"
    surge = (f" (the pools fit at their most; the {q.surge} vCPUs of upgrade surge do not)"
             if q.surge and q.needed - q.surge <= q.available else "")
    return (f"{q.name}{KIND_TEXT[q.kind]} in {q.region}: needed {q.needed}, limit {q.limit}, in use {q.used}, "
            f"missing {q.missing} vCPUs{unlisted}{surge}; request: {request(q)}")


def sku_line(s: SkuCheck) -> str:
    """One restricted size: why, the zones where it is open to the subscription, where else the price table has it."""
    zones = f"open zones here: {', '.join(s.zones)}" if s.zones else "no zone open here"
    elsewhere = (f"; priced in {', '.join(s.priced_in[:8])}{' ...' if len(s.priced_in) > 8 else ''}" if s.priced_in
                 else "")
    return f"{s.vm_size} in {s.region} ({', '.join(s.pools)}): {'; '.join(s.restricted)}; {zones}{elsewhere}"


def _pool_lines(demands: list[StackDemand], sub: str, region: str) -> list[str]:
    lines = []
    for d in demands:
        if (d.subscription, d.region) != (sub, region):
            continue
        for p in d.pools:
            extra = [x for x in ("Spot" if p.spot else "", "held when scaled down" if p.held else "") if x]
            zones = f", zones {','.join(p.zones)}" if p.zones else ""
            lines.append(f"  {p.stack}/{p.pool}: {p.vm_size} x {p.total} ({p.basis} + {p.surge} surge: {p.surge_basis}"
                         f"{zones}){' [' + ', '.join(extra) + ']' if extra else ''}")
    return lines


def to_text(result: Preflight, demands: list[StackDemand]) -> str:
    """The report for a terminal: per subscription and region, the pools, the quotas, the sizes; then what to do."""
    out: list[str] = []
    places = list(dict.fromkeys((d.subscription, d.region) for d in demands))
    for sub, region in places:
        stacks = ", ".join(dict.fromkeys(d.stack for d in demands if (d.subscription, d.region) == (sub, region)))
        out += [f"subscription {sub}, region {region} (stacks: {stacks})", "pools at their most:",
                *_pool_lines(demands, sub, region), "quotas (vCPUs):"]
        width = max([len(q.name) + len(KIND_TEXT[q.kind]) for q in result.quotas] + [5])
        out.append(f"  {'quota'.ljust(width)}  needed   limit  in use    free")
        for q in (q for q in result.quotas if (q.subscription, q.region) == (sub, region)):
            verdict = "ok" if q.ok else f"SHORT by {q.missing}"
            out.append(f"  {(q.name + KIND_TEXT[q.kind]).ljust(width)}  {q.needed:>6}  {q.limit:>6}  {q.used:>6}  "
                       f"{q.available:>6}  {verdict}")
        out.append("sizes:")
        for s in (s for s in result.skus if (s.subscription, s.region) == (sub, region)):
            where = f"zones {', '.join(s.pool_zones)}" if s.pool_zones else "no zones asked"
            out.append(f"  {s.vm_size}: {'ok' if s.ok else 'RESTRICTED'} ({where}; open zones: "
                       f"{', '.join(s.zones) or 'none'})")
        out.append("")
    short = [q for q in result.quotas if not q.ok]
    restricted = [s for s in result.skus if not s.ok]
    out += [f"note: {n}" for n in result.notes]
    if short or restricted:
        out.append("to fix before `pulumi up`:")
        out += [f"- {shortfall_line(q)}" for q in short]
        out += [f"- {sku_line(s)}" for s in restricted]
    out.append(verdict_line(result))
    return "\n".join(out) + "\n"


def verdict_line(result: Preflight) -> str:
    """The last line: enough, or how many shortfalls and restrictions."""
    short = sum(1 for q in result.quotas if not q.ok)
    restricted = sum(1 for s in result.skus if not s.ok)
    if not short and not restricted:
        return "preflight: enough quota for every pool at its most, and every size open in its zones"
    return f"preflight: {short} quota shortfall(s), {restricted} restricted size(s): `pulumi up` would fail"


def to_dict(result: Preflight, demands: list[StackDemand]) -> dict[str, Any]:
    """The JSON document: families[] (every quota checked), skus[], stacks[] (the pools at their most), ok, exit."""
    families = [{"subscription": q.subscription, "region": q.region, "family": q.name, "kind": q.kind,
                 "needed": q.needed, "surge": q.surge,
                 "limit": q.limit, "used": q.used, "available": q.available, "missing": q.missing,
                 "ok": q.ok, "listed": q.listed, "pools": list(q.pools), "request": None if q.ok else request(q)}
                for q in result.quotas]
    skus = [{"subscription": s.subscription, "region": s.region, "vmSize": s.vm_size, "restricted": list(s.restricted),
             "zones": list(s.zones), "poolZones": list(s.pool_zones), "pools": list(s.pools), "ok": s.ok,
             "pricedIn": list(s.priced_in)} for s in result.skus]
    stacks = [{"stack": d.stack, "subscription": d.subscription, "region": d.region,
               "pools": [{"pool": p.pool, "vmSize": p.vm_size, "nodes": p.nodes, "surge": p.surge, "total": p.total,
                          "spot": p.spot, "held": p.held, "zones": list(p.zones), "basis": p.basis,
                          "surgeBasis": p.surge_basis} for p in d.pools]} for d in demands]
    return {"ok": result.ok, "exit": EXIT_OK if result.ok else EXIT_SHORT, "families": families, "skus": skus,
            "stacks": stacks, "notes": list(result.notes)}
