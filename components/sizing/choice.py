"""The cheapest plan by the planner's own numbers: which slice each workload gets when no pool of the stack takes it.

A node is bought whole, so a slice's price alone does not decide: a 40 GiB workload on a 3g.47gb (half of an H100 NVL
node, 3.49 USD a slice) pays for the whole node (6.98), while a 7g.80gb (a whole A100 node, 3.67) holds it for less.
So the plan is costed as it will be bought: workloads on the same kind of slice (VM size, and MIG profile) share its
nodes (`placement.node_count`: slices already bought are filled before a node is added), and each node costs its
region's price. The choice, per workload asked for by memory on one device, is among every slice of the open families
that holds it at the margin (`slice_kinds.holds`, the rule the report prints as usable):

1. each workload starts on the slice whose nodes cost least for its replicas alone (ties: the slice the family rules
   gave it, then the offer order of `families.rank`);
2. then, while it lowers the plan's cost by more than half a cent an hour, the best single gathering is made: for one
   kind of slice, workloads it holds are moved onto it one at a time (the move that costs least first), and the
   cheapest prefix of those moves is kept (so two workloads that only share a node together are gathered together).

This is a local search, not an exhaustive one; it never returns a plan dearer than the family rules' answer, because
it starts no dearer and only accepts savings. Workloads asked for by slice name, two-device ones, those on the stack's
pools, and those no priced slice holds keep the placement the family rules gave them, and their nodes count. A
two-device workload moves between the kinds of node that hold it as a pair (`Offer.holds`), counted as pairs there.
"""

from __future__ import annotations

from ..kubernetes.claim_templates import claim_template_name, pair_template_name
from ..kubernetes.mig_claims import mig_template_name
from .families import Family, Offer, mig_ready, offers, rank
from .model import Placement, Workload
from .placement import node_count
from .prices import PriceTable

SAVING = 5000  # micro-USD an hour (half a cent): less is a tie (the report prints cents)
Key = tuple[str, str | None]  # (VM size, MIG profile or None): one kind of node
Load = tuple[int, int]  # (two-device replicas, one-device replicas) on one kind of node


def _key(o: Offer) -> Key:
    return o.vm_size, o.aks_profile


def _free(p: Placement) -> bool:
    """A workload the choice may move: placed on a new pool, not asked for by A10 slice size."""
    return p.vm_size is not None and not p.stack_pools and mig_ready(p.workload) is None


def _load(w: Workload) -> Load:
    """What a workload's replicas put on a kind of node: pairs or single devices."""
    return (w.count, 0) if w.devices == 2 else (0, w.count)


class _Costs:
    """What the new pools' nodes cost an hour, in whole micro-USD (sums are exact, so equal plans tie exactly), from
    the replicas on each kind of node: a kind's cost depends on its counts alone (`placement.node_count`), so a move
    is costed by the two kinds it changes, not by re-counting the plan."""

    def __init__(self, by_key: dict[Key, Offer], fixed: dict[Key, list[Workload]]) -> None:
        self.per_node = {k: (o.per_node, o.pairs) for k, o in by_key.items()}
        self.hourly = {k: round((o.node_hourly or 0.0) * 1_000_000) for k, o in by_key.items()}
        self.fixed = {k: _plus(*(_load(w) for w in fixed.get(k, []))) for k in by_key}

    def of(self, key: Key, free: Load) -> int:
        """One kind of node's cost with `free` replicas beside its fixed ones."""
        (per_node, pairs_per_node), (pairs, singles) = self.per_node[key], _plus(self.fixed[key], free)
        return node_count(per_node, pairs, singles, pairs_per_node) * self.hourly[key]

    def load(self, choice: dict[str, Key], free: dict[str, Workload]) -> dict[Key, Load]:
        """Free replicas per kind of node."""
        found: dict[Key, Load] = dict.fromkeys(self.per_node, (0, 0))
        for name, key in choice.items():
            found[key] = _plus(found[key], _load(free[name]))
        return found

    def total(self, load: dict[Key, Load]) -> int:
        """The plan's cost with this load."""
        return sum(self.of(key, count) for key, count in load.items())

    def moved(self, cost: int, load: dict[Key, Load], frm: Key, to: Key, w: Workload) -> int:
        """The plan's cost once `w`'s replicas move from `frm` to `to`."""
        return (cost - self.of(frm, load[frm]) - self.of(to, load[to])
                + self.of(frm, _less(load[frm], _load(w))) + self.of(to, _plus(load[to], _load(w))))


def _plus(*loads: Load) -> Load:
    return sum(p for p, _ in loads), sum(s for _, s in loads)


def _less(load: Load, part: Load) -> Load:
    return load[0] - part[0], load[1] - part[1]


def _alone(w: Workload, held: list[Offer], given: Key | None) -> Key:
    """The slice whose nodes cost least for this workload's replicas alone (ties: the one it was given, then rank)."""
    def cost(o: Offer) -> tuple[float, bool, tuple[object, ...]]:
        assert o.node_hourly is not None
        return o.nodes(w) * o.node_hourly, _key(o) != given, rank(o)

    return _key(min(held, key=cost))


def _gather(key: Key, choice: dict[str, Key], movable: list[str], free: dict[str, Workload], costs: _Costs
            ) -> tuple[int, dict[str, Key]]:
    """Workloads moved onto one kind of slice one at a time, the cheapest move first; the cheapest state seen."""
    trial, load = dict(choice), costs.load(choice, free)
    cost = costs.total(load)
    best_cost, best = cost, dict(trial)
    left = list(movable)
    while left:
        name = min(left, key=lambda n: (costs.moved(cost, load, trial[n], key, free[n]), n))
        cost = costs.moved(cost, load, trial[name], key, free[name])
        load[trial[name]] = _less(load[trial[name]], _load(free[name]))
        load[key] = _plus(load[key], _load(free[name]))
        trial[name] = key
        left.remove(name)
        if cost < best_cost:
            best_cost, best = cost, dict(trial)
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
    holders = {name: {_key(o) for o in held[name]} for name in free}
    costs = _Costs(by_key, fixed)
    current = costs.total(costs.load(choice, free))
    while True:
        best_cost, best = current, choice
        for key in by_key:
            movable = [n for n in free if choice[n] != key and key in holders[n]]
            if movable:
                cost, trial = _gather(key, choice, movable, free, costs)
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
    w = p.workload
    if o.aks_profile is None:
        template = (pair_template_name(device_class) if w.devices == 2
                    else claim_template_name(device_class, o.kind.memory_gib))
        return Placement(w, o.kind.memory_gib, o.vm_size, template, [], ())
    return Placement(w, o.kind.memory_gib, o.vm_size, mig_template_name(o.kind, w.devices), [], (), o.aks_profile)
