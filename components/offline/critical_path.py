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

from .plan import Plan, Registration
from .urns import provider_urn


@dataclass(frozen=True)
class Typical:
    """How long one kind of resource typically takes to create, and where that figure comes from."""

    kind: str
    minutes: float
    source: str


# Typical first-creation times. Where no primary source states a figure, the source says so: treat it as an estimate.
TYPICAL: dict[str, Typical] = {
    t.kind: t
    for t in (
        Typical("resource group", 0.1, "estimate: a synchronous ARM write (Azure Resource Manager), seconds"),
        Typical(
            "AKS cluster",
            8.0,
            "estimate: AKS quickstarts (learn.microsoft.com/azure/aks) say 'a few minutes'; measured runs of 5-18 min "
            "are reported",
        ),
        Typical(
            "GPU agent pool",
            6.0,
            "estimate: VM scale set plus AKS's GRID driver install; Microsoft Q&A reports 5-10 min for a GPU node on AKS",
        ),
        Typical("Kubernetes provider", 0.0, "Pulumi docs (explicit providers): a provider holds configuration only"),
        Typical(
            "Helm release",
            2.0,
            "estimate: helm.v3.Release waits for the release's workloads (Pulumi docs: Release, skipAwait=false); "
            "the driver images come from nvcr.io",
        ),
        Typical(
            "Kubernetes object",
            0.05,
            "estimate: Pulumi's await logic treats Namespaces, DeviceClasses, claims and policies as ready when created; "
            "the sample Job is skipAwait",
        ),
        Typical("node label", 0.1, "estimate: one `kubectl label nodes` (manual recipe only)"),
        Typical("other provider", 0.0, "Pulumi docs (explicit providers): a provider holds configuration only"),
        Typical("component", 0.0, "Pulumi docs (component resources): a logical grouping, nothing is provisioned"),
        Typical("other", 1.0, "estimate: a resource kind this table does not know"),
    )
}

_KIND_OF_TYPE = {
    "azure-native:resources:ResourceGroup": "resource group",
    "azure-native:containerservice:ManagedCluster": "AKS cluster",
    "azure-native:containerservice:AgentPool": "GPU agent pool",
    "pulumi:providers:kubernetes": "Kubernetes provider",
    "kubernetes:helm.sh/v3:Release": "Helm release",
}


def kind_of(resource: Registration) -> str:
    """The row of the table a resource is priced by."""
    if not resource.custom:
        return "component"
    if resource.type in _KIND_OF_TYPE:
        return _KIND_OF_TYPE[resource.type]
    if resource.type.startswith("kubernetes:"):
        return "Kubernetes object"
    if resource.type.startswith("pulumi:providers:"):
        return "other provider"
    return "other"


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
    """One command of the manual recipe and its typical time."""

    what: str
    kind: str
    minutes: float


@dataclass(frozen=True)
class CriticalPath:
    """The longest chain of a plan, the floor the design should reach, and the manual recipe for comparison."""

    steps: tuple[Step, ...]
    minutes: float
    floor_minutes: float
    manual: tuple[ManualStep, ...]
    table: tuple[Typical, ...]
    warnings: tuple[str, ...] = ()

    @property
    def manual_minutes(self) -> float:
        """The manual recipe, one command after the other."""
        return sum(s.minutes for s in self.manual)

    @property
    def reaches_floor(self) -> bool:
        """Whether nothing in the plan waits longer than the design needs to (and nothing would fail)."""
        return not self.warnings and self.minutes <= self.floor_minutes + 1e-9

    @property
    def chain(self) -> str:
        """The chain by resource name, first to last."""
        return " -> ".join(s.name for s in self.steps)


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


def schedule(plan: Plan, table: Mapping[str, Typical] = TYPICAL) -> dict[str, Step]:
    """Earliest start and finish of every custom resource, each starting when all it waits for is done."""
    kinds = {r.urn: kind_of(r) for r in plan.resources if r.custom}
    minutes = {urn: table[kind].minutes for urn, kind in kinds.items()}
    finish = _finish_times(waits_for(plan), minutes)
    by_urn = {r.urn: r for r in plan.resources}
    return {
        urn: Step(urn, by_urn[urn].name, by_urn[urn].type, kinds[urn], finish[urn] - minutes[urn], finish[urn])
        for urn in sorted(finish)
    }


def longest_chain(plan: Plan, table: Mapping[str, Typical] = TYPICAL) -> tuple[Step, ...]:
    """The chain that ends last, first step first (ties broken by urn, so the answer is deterministic)."""
    steps = schedule(plan, table)
    if not steps:
        return ()
    waits = waits_for(plan)
    chain = [max(steps.values(), key=lambda s: (s.finish, s.urn))]
    while waits[chain[-1].urn]:
        chain.append(max((steps[w] for w in waits[chain[-1].urn]), key=lambda s: (s.finish, s.urn)))
    return tuple(reversed(chain))


def floor_minutes(plan: Plan, table: Mapping[str, Typical] = TYPICAL) -> float:
    """The least a design can take: what the cluster needs, the cluster, then the longer of (its GPU pools, one after
    another: AKS runs one agent pool operation per cluster at a time) and (provider and driver release, then the longest
    chain among the Kubernetes objects, as if they followed the driver)."""
    steps = schedule(plan, table)
    ready = max((s.finish for s in steps.values() if s.kind == "AKS cluster"), default=0.0)
    pools = sum(s.minutes for s in steps.values() if s.kind == "GPU agent pool")
    driver = sum(
        max((s.minutes for s in steps.values() if s.kind == kind), default=0.0)
        for kind in ("Kubernetes provider", "Helm release")
    )
    objects = {urn for urn, s in steps.items() if s.kind == "Kubernetes object"}
    among = {urn: [w for w in waits if w in objects] for urn, waits in waits_for(plan).items() if urn in objects}
    samples = max(_finish_times(among, {urn: steps[urn].minutes for urn in objects}).values(), default=0.0)
    return ready + max(pools, driver + samples)


def manual_recipe(plan: Plan, table: Mapping[str, Typical] = TYPICAL) -> tuple[ManualStep, ...]:
    """The AKS team's recipe for the same resources, one command after the other, priced by the same table."""
    steps: list[ManualStep] = []

    def add(what: str, kind: str) -> None:
        steps.append(ManualStep(what, kind, table[kind].minutes))

    ordered = sorted(plan.resources, key=lambda r: r.urn)
    for r in ordered:
        if kind_of(r) == "resource group":
            add(f"az group create ({r.name})", "resource group")
    for r in ordered:
        if kind_of(r) == "AKS cluster":
            add(f"az aks create ({r.name})", "AKS cluster")
    pools = [r for r in ordered if kind_of(r) == "GPU agent pool"]
    for r in pools:
        add(f"az aks nodepool add ({r.name})", "GPU agent pool")
    if pools:
        add("kubectl label nodes nvidia.com/gpu.present=true", "node label")
    for r in ordered:
        if kind_of(r) == "Helm release":
            add(f"helm upgrade --install ({r.name})", "Helm release")
    # Objects in the order they can be applied (a namespace before what lives in it).
    when = schedule(plan, table)
    for r in sorted((r for r in ordered if kind_of(r) == "Kubernetes object"), key=lambda r: (when[r.urn].start, r.urn)):
        add(f"kubectl apply ({r.name})", "Kubernetes object")
    return tuple(steps)


def unordered_pools(plan: Plan) -> list[str]:
    """GPU pools that the plan lets run at the same time: AKS refuses the second one ("OperationNotAllowed: Another
    agentpool operation ... is in progress"; cilium/cilium #25944), so `pulumi up` would fail."""
    waits = waits_for(plan)
    pools = sorted(r.urn for r in plan.resources if kind_of(r) == "GPU agent pool")
    before: dict[str, set[str]] = {}

    def upstream(urn: str) -> set[str]:
        if urn not in before:
            before[urn] = set()
            stack = list(waits.get(urn, []))
            while stack:
                dep = stack.pop()
                if dep not in before[urn]:
                    before[urn].add(dep)
                    stack.extend(waits.get(dep, []))
        return before[urn]

    found = []
    for i, a in enumerate(pools):
        for b in pools[i + 1:]:
            if a not in upstream(b) and b not in upstream(a):
                found.append(
                    f"GPU pools {a.rsplit('::', 1)[-1]} and {b.rsplit('::', 1)[-1]} may run at once: AKS allows one agent "
                    "pool operation per cluster at a time (OperationNotAllowed), so `pulumi up` would fail; chain them"
                )
    return found


def critical_path(plan: Plan, table: Mapping[str, Typical] = TYPICAL) -> CriticalPath:
    """The plan's critical path for a first `pulumi up`, its floor and the manual recipe, from typical times."""
    chain = longest_chain(plan, table)
    manual = manual_recipe(plan, table)
    used = {kind_of(r) for r in plan.resources} | {s.kind for s in manual}
    return CriticalPath(
        steps=chain,
        minutes=max((s.finish for s in chain), default=0.0),
        floor_minutes=floor_minutes(plan, table),
        manual=manual,
        table=tuple(t for kind, t in table.items() if kind in used),
        warnings=tuple(unordered_pools(plan)),
    )


def format_critical_path(result: CriticalPath) -> str:
    """The critical path for people: the chain with start and duration, the floor, the manual recipe, the table."""
    lines = ["", "pulumi up critical path (estimated from typical provisioning times):"]
    for s in result.steps:
        lines.append(f"  at {s.start:5.2f} min  {s.minutes:5.2f} min  {s.type.rsplit(':', 1)[-1]} {s.name}")
    lines.append(f"  = {result.minutes:.2f} min: {result.chain or 'nothing to create'}")
    verdict = "reached" if result.reaches_floor else f"NOT reached: {result.minutes - result.floor_minutes:.2f} min over"
    lines.append(
        f"  floor, cluster + max(GPU pools one after another, driver + samples): {result.floor_minutes:.2f} min ({verdict})"
    )
    lines += [f"  ! {w}" for w in result.warnings]
    lines.append(f"manual recipe, one command after the other: {result.manual_minutes:.2f} min")
    for m in result.manual:
        lines.append(f"  {m.minutes:5.2f} min  {m.what}")
    if result.manual_minutes > 0:
        saved = result.manual_minutes - result.minutes
        lines.append(f"  pulumi up saves {saved:.2f} min ({100 * saved / result.manual_minutes:.0f} %)")
    lines.append("typical times used:")
    for t in result.table:
        lines.append(f"  {t.kind:<20} {t.minutes:4.2f} min  {t.source}")
    return "\n".join(lines) + "\n"
