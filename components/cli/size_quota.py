"""`size --regions ... --subscription ID`: the quota a subscription has free for the plan's pools in each region, read
through `preflight`'s reader (azure-mgmt-compute, the package's one credential) and handed to `sizing.regions`, which
ranks. Without a credential (or with ARM refusing the role or the token) nothing is read: the ranking stays by price and
one line says why. A region the subscription cannot use is short there, the others still checked.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .output import BadInputError

WORKERS = 8  # regions read at once (`--regions all` is some forty regions, two reads each)


def quota_problems(args: argparse.Namespace) -> list[str]:
    """Why the quota flags cannot be used as given (empty without --subscription)."""
    from ..online.endpoints import endpoint_problem
    from .preflight import subscription_problem

    if not args.subscription:
        return []
    problems = [p for p in (subscription_problem(args.subscription, "--subscription"),
                            endpoint_problem("--arm-endpoint", args.arm_endpoint)) if p]
    if not args.regions:
        problems.append("--subscription goes with --regions: it ranks those regions by the quota free there")
    return [f"size: {p}" for p in problems]


def quota_of(args: argparse.Namespace, clock: Any = time.monotonic, sleep: Any = time.sleep,
             credential: Any = None) -> Any:
    """The `sizing.regions.QuotaOf` for --subscription; `clock`, `sleep`, `credential` are the seams tests inject."""
    from ..catalog.regions import size_offer
    from ..preflight.arm import ArmReadError
    from ..preflight.compare import check
    from ..preflight.demand import StackDemand, planned_pool_demand
    from ..sizing.regions import RegionQuota
    from .preflight import reader_for

    subscription = args.subscription.lower()

    def read(pools: list[Any], regions: list[str]) -> tuple[dict[str, Any], str]:
        deadline = clock() + args.timeout
        try:
            reader = reader_for(args.arm_endpoint, deadline, args.timeout, clock, sleep, credential)
        except BadInputError as exc:
            return {}, f"Quota: not checked ({exc.lines[0].removeprefix('preflight: ')}); regions ranked by price only."
        demand = tuple(planned_pool_demand("plan", f"pool{i + 1}", p.vm_size, p.max_count) for i, p in enumerate(pools))

        def one(region: str) -> Any:
            try:
                return reader.read(subscription, region)
            except ArmReadError as exc:
                return exc

        found: dict[str, Any] = {}
        if regions:  # the first alone: a token or role ARM refuses is refused everywhere, said once
            found[regions[0]] = one(regions[0])
            first = found[regions[0]]
            if isinstance(first, ArmReadError) and not first.region_only:
                return {}, f"Quota: not checked ({first}); regions ranked by price only."
            with ThreadPoolExecutor(WORKERS) as pool:
                found.update(zip(regions[1:], pool.map(one, regions[1:]), strict=True))
        quotas: dict[str, RegionQuota] = {}
        failed = []
        for region, facts in found.items():
            if isinstance(facts, ArmReadError):
                said = "this subscription cannot use the region" if facts.region_only else f"not read: {facts}"
                quotas[region] = RegionQuota(False, (said,))
                failed += [] if facts.region_only else [region]
                continue
            result = check([StackDemand("plan", subscription, region, demand)], {(subscription, region): facts},
                           size_offer().regions_of)
            short = [f"{q.name}: {q.needed} vCPUs needed, {q.available} free" for q in result.quotas if not q.ok]
            short += [f"{s.vm_size}: {'; '.join(s.restricted)}" for s in result.skus if not s.ok]
            quotas[region] = RegionQuota(result.ok, tuple(short))
        unread = f"; {len(failed)} could not be read" if failed else ""
        return quotas, (f"Quota: subscription {subscription}'s free vCPUs checked for the plan's pools (each at maxCount "
                        f"plus one surge node) in {len(found)} regions{unread}: regions where they fit come first.")

    return read
