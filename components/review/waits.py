"""What each planned resource waits for before Pulumi creates it: its dependencies and its provider. The wait graph,
computed once per plan by `critical_path` and handed to the stages after it (`pool_order`)."""

from __future__ import annotations

from ..offline.plan import Plan
from ..offline.urns import provider_urn


def waits_for(plan: Plan) -> dict[str, list[str]]:
    """Per custom resource (by urn), the custom resources it waits for: dependencies and provider; a dependency on a
    component stands for every custom resource inside it. Resources outside the plan (default providers) are ignored."""
    by_urn = {r.urn: r for r in plan.resources}
    children: dict[str, list[str]] = {}
    for r in plan.resources:
        if r.parent:
            children.setdefault(r.parent, []).append(r.urn)

    inside: dict[str, list[str]] = {}

    def custom_inside(urn: str) -> list[str]:
        if urn not in inside:  # many resources may wait for one component: walk it once
            found, todo = [], [urn]
            while todo:
                current = todo.pop()
                for child in children.get(current, []):
                    if by_urn[child].custom:
                        found.append(child)
                    todo.append(child)
            inside[urn] = found
        return inside[urn]

    result: dict[str, list[str]] = {}
    for r in plan.resources:
        if not r.custom:
            continue
        wanted: set[str] = set()
        for dep in [*r.dependencies, provider_urn(r.provider)]:
            if dep is None or dep not in by_urn or dep == r.urn:
                continue
            wanted.update([dep] if by_urn[dep].custom else custom_inside(dep))
        result[r.urn] = sorted(wanted)
    return result

