"""The cheapest plan by the planner's own numbers: which slice each workload gets when no pool of the stack takes it.

A node is bought whole, so a slice's price alone does not decide: a 40 GiB workload on a 3g.47gb (half of an H100 NVL
node, 3.49 USD a slice) pays for the whole node (6.98), while a 7g.80gb (a whole A100 node, 3.67) holds it for less.
So the plan is costed as it will be bought: workloads on the same kind of slice (VM size, and MIG profile) share its
nodes (`placement.nodes_of`: slices already bought are filled before a node is added), and each node costs its
region's price. The choice, per workload asked for by memory on one device, is among every slice of the open families
that holds it at the margin (`slice_kinds.holds`, the rule the report prints as usable):

1. each workload starts on the slice whose nodes cost least for its replicas alone (ties: the slice the family rules
   gave it, then the offer order of `families.rank`);
2. then, while it lowers the plan's cost by more than half a cent an hour, the best single gathering is made: for one
   kind of slice, workloads it holds are moved onto it one at a time (the move that costs least first), and the
   cheapest prefix of those moves is kept (so two workloads that only share a node together are gathered together).

This is a local search, not an exhaustive one; it never returns a plan dearer than the family rules' answer, because
it starts no dearer and only accepts savings. Workloads asked for by slice name, two-device ones, those on the stack's
pools, and those no priced slice holds keep the placement the family rules gave them, and their nodes count.
"""

from __future__ import annotations

from collections.abc import Callable

from ..kubernetes.claim_templates import claim_template_name
from ..kubernetes.mig_claims import mig_template_name
from .families import Family, Offer, mig_ready, offers, rank
from .model import Placement, Workload
from .placement import nodes_of
from .prices import PriceTable

SAVING = 0.005  # USD an hour: less is a tie (the report prints cents)
Key = tuple[str, str | None]  # (VM size, MIG profile or None): one kind of node


def _key(o: Offer) -> Key:
    return o.vm_size, o.aks_profile


def _free(p: Placement) -> bool:
    """A workload the choice may move: placed on a new pool, asked for by memory on one device."""
    return p.vm_size is not None and not p.stack_pools and mig_ready(p.workload) is None


def _cost(groups: dict[Key, list[Workload]], by_key: dict[Key, Offer]) -> float:
    """What the new pools' nodes cost an hour (kinds of node without a price count nothing)."""
    total = 0.0
    for key, here in groups.items():
        o = by_key[key]
        if here and o.node_hourly is not None:
            total += nodes_of(o.per_node, (Placement(w, None, None, None, []) for w in here)) * o.node_hourly
    return total


def _groups(fixed: dict[Key, list[Workload]], choice: dict[str, Key], free: dict[str, Workload]
            ) -> dict[Key, list[Workload]]:
    groups = {k: list(v) for k, v in fixed.items()}
    for name, key in choice.items():
        groups.setdefault(key, []).append(free[name])
    return groups


def _alone(w: Workload, held: list[Offer], given: Key | None) -> Key:
    """The slice whose nodes cost least for this workload's replicas alone (ties: the one it was given, then rank)."""
    def cost(o: Offer) -> tuple[float, bool, tuple[object, ...]]:
        assert o.node_hourly is not None
        return -(-w.count // o.per_node) * o.node_hourly, _key(o) != given, rank(o)

    return _key(min(held, key=cost))


def _gather(key: Key, choice: dict[str, Key], movable: list[str], cost_of: Callable[[dict[str, Key]], float]
            ) -> tuple[float, dict[str, Key]]:
    """Workloads moved onto one kind of slice one at a time, the cheapest move first; the cheapest state seen."""
    trial = dict(choice)
    best_cost, best = cost_of(trial), dict(trial)
    left = list(movable)
    while left:
        name = min(left, key=lambda n: (cost_of({**trial, n: key}), n))
        trial[name] = key
        left.remove(name)
        here = cost_of(trial)
        if here < best_cost:
            best_cost, best = here, dict(trial)
    return best_cost, best


def choose(placements: list[Placement], margin_percent: int, device_class: str, prices: PriceTable,
           families: tuple[Family, ...]) -> list[Placement]:
    """The placements with every free workload (new pool, by memory, one device) on the slices of the cheapest plan."""
    on_sale = [o for f in families for o in offers(prices, f) if o.node_hourly is not None]
    by_key = {_key(o): o for o in on_sale}
    free: dict[str, Workload] = {}
    held: dict[str, list[Offer]] = {}
    fixed: dict[Key, list[Workload]] = {}
    given: dict[str, Key] = {}
    for p in placements:
        w = p.workload
        here = [o for o in on_sale if o.holds(w, margin_percent)] if _free(p) else []
        if here and w.name not in free:
            free[w.name], held[w.name] = w, here
            given[w.name] = (p.vm_size or "", p.aks_profile)
        elif p.vm_size is not None and not p.stack_pools and (p.vm_size, p.aks_profile) in by_key:
            fixed.setdefault((p.vm_size, p.aks_profile), []).append(w)
    if not free:
        return placements
    choice = {name: _alone(free[name], held[name], given[name]) for name in free}

    def cost_of(c: dict[str, Key]) -> float:
        return _cost(_groups(fixed, c, free), by_key)

    current = cost_of(choice)
    while True:
        best_cost, best = current, choice
        for key in by_key:
            movable = [n for n in free if choice[n] != key and any(_key(o) == key for o in held[n])]
            if movable:
                cost, trial = _gather(key, choice, movable, cost_of)
                if cost < best_cost - SAVING:
                    best_cost, best = cost, trial
        if best is choice:
            break
        choice, current = best, best_cost
    return [_placed(p, by_key[choice[p.workload.name]], device_class) if p.workload.name in choice else p
            for p in placements]


def _placed(p: Placement, o: Offer, device_class: str) -> Placement:
    """The workload on a new pool of this offer's slices (no stack pool, so no toleration)."""
    if p.vm_size == o.vm_size and p.aks_profile == o.aks_profile:
        return p
    if o.aks_profile is None:
        return Placement(p.workload, o.kind.memory_gib, o.vm_size, claim_template_name(device_class, o.kind.memory_gib),
                         [], ())
    return Placement(p.workload, o.kind.memory_gib, o.vm_size, mig_template_name(o.kind), [], (), o.aks_profile)
