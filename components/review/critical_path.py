"""How long `pulumi up` takes, estimated from a plan: the longest chain of resources that wait for one another.

Pulumi creates a resource as soon as everything it waits for exists, so the wall time of a first `pulumi up` is the
longest path through the plan's waits, each resource weighted by how long its kind typically takes to provision. A
resource waits for its `dependencies` and for its provider resource; a component's children wait for nothing implicit
(a component is a name, not a step: it takes no time), and waiting for a component means waiting for all it contains.

The same table prices the AKS team's manual recipe (cluster, then each pool, then `kubectl label`, then `helm install`,
then the samples), one command after the other, for comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..offline.plan import Plan, Registration
from .pool_order import pool_order
from .provisioning_times import TYPICAL, Typical, kind_of
from .waits import waits_for

__all__ = [
    "CriticalPath", "ManualStep", "Step", "critical_path", "floor_minutes", "format_critical_path", "longest_chain",
    "manual_recipe", "schedule",
]


@dataclass(frozen=True)
class Step:
    """One resource on a chain: when it can start and when it is done (minutes from the start of `pulumi up`)."""

    urn: str
    name: str
    type: str
    kind: str
    start: float
    finish: float

    @property
    def minutes(self) -> float:
        """How long the step itself takes."""
        return self.finish - self.start


@dataclass(frozen=True)
class ManualStep:
    """One command of the manual recipe and the row of the table that prices it."""

    what: str
    typical: Typical


@dataclass(frozen=True)
class CriticalPath:
    """The longest chain of a plan, the floor the design should reach, and the manual recipe for comparison."""

    steps: tuple[Step, ...]
    minutes: float
    floor_minutes: float
    manual: tuple[ManualStep, ...]
    table: tuple[Typical, ...]
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # why the plan orders its pools as it does

    @property
    def manual_minutes(self) -> float:
        """The manual recipe, one command after the other."""
        return sum(s.typical.minutes for s in self.manual)

    @property
    def reaches_floor(self) -> bool:
        """Whether nothing in the plan waits longer than the design needs to (and nothing would fail)."""
        return not self.warnings and self.minutes <= self.floor_minutes + 1e-9

    @property
    def chain(self) -> str:
        """The chain by resource name, first to last."""
        return " -> ".join(s.name for s in self.steps)


def critical_path(plan: Plan, table: Mapping[str, Typical] = TYPICAL) -> CriticalPath:
    """The plan's critical path for a first `pulumi up`, its floor and the manual recipe, from typical times. One pass,
    each stage once: every resource's kind (`provisioning_times`), the wait graph (`waits`), the GPU pools' order
    (`pool_order`), then the schedule and what is read from it."""
    kinds = {r.urn: kind_of(r) for r in plan.resources}
    waits = waits_for(plan)
    pools = pool_order([r for r in plan.resources if kinds[r.urn] == "GPU agent pool"], waits)
    steps = schedule(plan, kinds, waits, table)
    chain = longest_chain(steps, waits)
    manual = manual_recipe(plan, kinds, steps, table)
    used = set(kinds.values()) | {s.typical.kind for s in manual}
    return CriticalPath(
        steps=chain,
        minutes=max((s.finish for s in chain), default=0.0),
        floor_minutes=floor_minutes(steps, waits, pools.networks),
        manual=manual,
        table=tuple(t for kind, t in table.items() if kind in used),
        warnings=pools.warnings,
        notes=pools.notes,
    )


def _finish_times(waits: Mapping[str, list[str]], minutes: Mapping[str, float]) -> dict[str, float]:
    """Earliest finish of every node of a wait graph (a node starts when all it waits for are done); raises ValueError
    on a cycle. Depth-first without recursion: plans with hundreds of pools must not hit the recursion limit."""
    finish: dict[str, float] = {}
    active: set[str] = set()
    for root in sorted(waits):
        if root in finish:
            continue
        active.add(root)
        stack = [(root, iter(waits[root]))]
        while stack:
            node, pending = stack[-1]
            for before in pending:
                if before in active:
                    raise ValueError(f"dependency cycle: {node} and {before} wait for each other")
                if before not in finish:
                    active.add(before)
                    stack.append((before, iter(waits[before])))
                    break
            else:
                stack.pop()
                active.discard(node)
                finish[node] = max((finish[w] for w in waits[node]), default=0.0) + minutes[node]
    return finish


def schedule(plan: Plan, kinds: Mapping[str, str], waits: Mapping[str, list[str]],
             table: Mapping[str, Typical] = TYPICAL) -> dict[str, Step]:
    """Earliest start and finish of every custom resource (the nodes of `waits`), each starting when all it waits for
    is done, each taking its kind's typical time."""
    minutes = {urn: table[kinds[urn]].minutes for urn in waits}
    finish = _finish_times(waits, minutes)
    by_urn = {r.urn: r for r in plan.resources}
    return {
        urn: Step(urn, by_urn[urn].name, by_urn[urn].type, kinds[urn], finish[urn] - minutes[urn], finish[urn])
        for urn in sorted(finish)
    }


def longest_chain(steps: Mapping[str, Step], waits: Mapping[str, list[str]]) -> tuple[Step, ...]:
    """The chain that ends last, first step first (ties broken by urn, so the answer is deterministic)."""
    if not steps:
        return ()
    chain = [max(steps.values(), key=lambda s: (s.finish, s.urn))]
    while waits[chain[-1].urn]:
        chain.append(max((steps[w] for w in waits[chain[-1].urn]), key=lambda s: (s.finish, s.urn)))
    return tuple(reversed(chain))


def floor_minutes(steps: Mapping[str, Step], waits: Mapping[str, list[str]],
                  networks: Mapping[str, list[Registration]]) -> float:
    """The least a design can take: what the cluster needs, the cluster and its other cluster-level writes (maintenance
    configurations: pools must not run beside a cluster operation), then the longer of (the GPU pools: side by side,
    except those sharing a bring-your-own VNet, one after another; `networks`, from pool_order) and (provider and
    driver release, then the longest chain among the Kubernetes objects, as if they followed the driver)."""
    ready = max((s.finish for s in steps.values() if s.kind in ("AKS cluster", "maintenance configuration")), default=0.0)
    network_of = {pool.urn: network for network, pools in networks.items() for pool in pools}
    by_network: dict[str, float] = {}
    for s in steps.values():
        if s.kind == "GPU agent pool":
            key = network_of.get(s.urn, s.urn)
            by_network[key] = by_network.get(key, 0.0) + s.minutes
    pools = max(by_network.values(), default=0.0)
    driver = sum(
        max((s.minutes for s in steps.values() if s.kind == kind), default=0.0)
        for kind in ("Kubernetes provider", "Helm release")
    )
    objects = {urn for urn, s in steps.items() if s.kind == "Kubernetes object"}
    among = {urn: [w for w in before if w in objects] for urn, before in waits.items() if urn in objects}
    samples = max(_finish_times(among, {urn: steps[urn].minutes for urn in objects}).values(), default=0.0)
    return ready + max(pools, driver + samples)


def manual_recipe(plan: Plan, kinds: Mapping[str, str], steps: Mapping[str, Step],
                  table: Mapping[str, Typical] = TYPICAL) -> tuple[ManualStep, ...]:
    """The AKS team's recipe for the same resources, one command after the other, priced by the same table; the
    Kubernetes objects in the order `steps` can apply them (a namespace before what lives in it)."""
    ordered = sorted(plan.resources, key=lambda r: r.urn)
    recipe = [(f"az group create ({r.name})", "resource group") for r in ordered if kinds[r.urn] == "resource group"]
    recipe += [(f"az aks create ({r.name})", "AKS cluster") for r in ordered if kinds[r.urn] == "AKS cluster"]
    pools = [(f"az aks nodepool add ({r.name})", "GPU agent pool") for r in ordered if kinds[r.urn] == "GPU agent pool"]
    recipe += pools
    if pools:
        recipe.append(("kubectl label nodes nvidia.com/gpu.present=true", "node label"))
    recipe += [(f"helm upgrade --install ({r.name})", "Helm release") for r in ordered if kinds[r.urn] == "Helm release"]
    objects = sorted((r for r in ordered if kinds[r.urn] == "Kubernetes object"), key=lambda r: (steps[r.urn].start, r.urn))
    recipe += [(f"kubectl apply ({r.name})", "Kubernetes object") for r in objects]
    return tuple(ManualStep(what, table[kind]) for what, kind in recipe)


def format_critical_path(result: CriticalPath) -> str:
    """The critical path for people: the chain with start and duration, the floor, the manual recipe, the table."""
    lines = ["", "pulumi up critical path (estimated from typical provisioning times):"]
    for s in result.steps:
        lines.append(f"  at {s.start:5.2f} min  {s.minutes:5.2f} min  {s.type.rsplit(':', 1)[-1]} {s.name}")
    lines.append(f"  = {result.minutes:.2f} min: {result.chain or 'nothing to create'}")
    verdict = "reached" if result.reaches_floor else f"NOT reached: {result.minutes - result.floor_minutes:.2f} min over"
    lines.append(
        f"  floor, cluster + max(GPU pools, one after another only in a shared VNet; driver + samples): "
        f"{result.floor_minutes:.2f} min ({verdict})"
    )
    lines += [f"  note: {n}" for n in result.notes]
    lines += [f"  ! {w}" for w in result.warnings]
    lines.append(f"manual recipe, one command after the other: {result.manual_minutes:.2f} min")
    for m in result.manual:
        lines.append(f"  {m.typical.minutes:5.2f} min  {m.what}")
    if result.manual_minutes > 0:
        saved = result.manual_minutes - result.minutes
        lines.append(f"  pulumi up saves {saved:.2f} min ({100 * saved / result.manual_minutes:.0f} %)")
    lines.append("typical times used:")
    for t in result.table:
        lines.append(f"  {t.kind:<20} {t.minutes:4.2f} min  {t.source}")
    return "\n".join(lines) + "\n"
