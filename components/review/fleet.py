"""A fleet in one review: the plans of a fleet stack and its member stacks side by side, with a line per member (its
region, group and stage, its resources, what a diff replaces, what its GPU nodes cost per hour at its region's prices).

Pure: plans and diffs in, text and data out. The per-stack logic (the diff, its rules, the tree) is the single-stack
one, called once per stack; nothing here forks it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import StackConfig
from ..config.fleet import FleetConfig
from ..sizing.stack_pools import max_nodes
from .diff_model import DiffResult
from .fleet_plans import GpuCost, PlannedFleet, PlannedMember, planned_cost

AnyFleet = FleetConfig | PlannedFleet  # from the stack files (plan --fleet) or from a plan (diff --fleet)


def gpu_cost(config: StackConfig) -> GpuCost:
    """The GPU pools' cost per hour in the stack's region (on-demand prices; spot nodes cost less), from the package's
    price table (sizing.prices), fewest nodes (minCount or count) to most (maxCount or count)."""
    pools = tuple((p.vm_size, p.autoscaling.min_count if p.autoscaling else max_nodes(p), max_nodes(p))
                  for p in config.gpu_pools)
    return planned_cost(PlannedMember("", "", "", "", config.cluster.location, pools))


def stage_of(fleet: AnyFleet, group: str) -> str:
    """The name and position of the stage whose groups hold `group` ('-' when none does)."""
    for index, stage in enumerate(fleet.update_strategy.stages, start=1):
        if group in stage.groups:
            return f"{index}/{len(fleet.update_strategy.stages)} {stage.name}"
    return "-"


@dataclass(frozen=True)
class MemberLine:
    """One member in the fleet's summary."""

    stack: str
    member_name: str
    region: str
    group: str
    stage: str
    resources: int
    cost: GpuCost
    replaced: tuple[str, ...] = ()
    changes: str | None = None  # the diff's count line, when the summary is of a diff

    def to_dict(self) -> dict[str, object]:
        """The line as plain data (JSON)."""
        return {
            "stack": self.stack, "memberName": self.member_name, "region": self.region, "group": self.group,
            "stage": self.stage, "resources": self.resources, "replaced": list(self.replaced), "changes": self.changes,
            "gpuCostPerHour": {"currency": self.cost.currency,
                               "least": round(self.cost.least, 2) if self.cost.priced else None,
                               "most": round(self.cost.most, 2) if self.cost.priced else None,
                               "pricesOf": self.cost.region, "warning": self.cost.warning,
                               "unpriced": list(self.cost.unpriced), "partial": bool(self.cost.unpriced)},
        }


def member_line(stack: str, member_name: str, config: StackConfig, group: str, fleet: FleetConfig, resources: int,
                diff: DiffResult | None = None) -> MemberLine:
    """A member's line, from its settings and its plan's resource count (and the diff of its plan, if there is one)."""
    replaced: tuple[str, ...] = ()
    changes = None
    if diff is not None:
        replaced = tuple(f"{r.type.rsplit(':', 1)[-1]} {r.name}" for r in diff.resources if r.operation == "replace")
        changes = diff.summary()
    return MemberLine(stack, member_name, config.cluster.location, group, stage_of(fleet, group),
                      resources, gpu_cost(config), replaced, changes)


def planned_member_line(stack: str, member: PlannedMember, fleet: PlannedFleet, resources: int,
                        diff: DiffResult | None = None) -> MemberLine:
    """A member's line from its plan document alone (`diff --fleet`): what the plans compared say, not the files now."""
    replaced: tuple[str, ...] = ()
    if diff is not None:
        replaced = tuple(f"{r.type.rsplit(':', 1)[-1]} {r.name}" for r in diff.resources if r.operation == "replace")
    return MemberLine(stack, member.member_name, member.region, member.group, stage_of(fleet, member.group), resources,
                      planned_cost(member), replaced, diff.summary() if diff is not None else None)


def _range(cost: GpuCost) -> str:
    if round(cost.least, 2) == round(cost.most, 2):
        return f"{cost.most:,.2f} {cost.currency}/h"
    return f"{cost.least:,.2f}-{cost.most:,.2f} {cost.currency}/h"


def _money(cost: GpuCost) -> str:
    """The member's cost per hour; a pool with no price is named, never costed as 0, and a sum without it is partial."""
    if not cost.priced:
        return cost.unpriced_text
    if cost.unpriced:
        return f"{_range(cost)}, partial: {cost.unpriced_text}, left out"
    return _range(cost)


def _fleet_money(lines: list[MemberLine]) -> str | None:
    """The fleet's cost per hour, summed over what has a price, saying when the sum leaves pools out (None: no
    price known at all, or members in different currencies)."""
    currencies = {m.cost.currency for m in lines}
    priced = [m for m in lines if m.cost.priced]
    if len(currencies) != 1 or not priced:
        return None
    total = _range(GpuCost(currencies.pop(), sum(m.cost.least for m in priced), sum(m.cost.most for m in priced), "",
                           None))
    left_out = [m.stack for m in lines if m.cost.unpriced]
    return f"{total}, partial: leaves out the pools with no price of {', '.join(left_out)}" if left_out else total


def format_summary(fleet_stack: str, fleet: AnyFleet, fleet_resources: int, lines: list[MemberLine],
                   fleet_changes: str | None = None) -> str:
    """The fleet's summary for people: the fleet stack, then one block per member, in stage order."""
    order = {stage.name: i for i, stage in enumerate(fleet.update_strategy.stages)}
    ranked = sorted(lines, key=lambda m: (order.get(m.stage.partition(" ")[2], len(order)), m.stack))
    hub = "with a hub" if fleet.hub else "hubless"
    out = [f"fleet {fleet.name} (stack {fleet_stack}, {hub}, {fleet.location}): {fleet_resources} resources, "
           f"strategy '{fleet.update_strategy.name}' in {len(fleet.update_strategy.stages)} stage(s)"]
    if fleet_changes:
        out.append(f"  {fleet_changes}")
    out.append(f"members ({len(lines)}):")
    for m in ranked:
        at = f" (at {m.cost.region} prices)" if m.cost.priced else ""
        out.append(f"- {m.stack}: member {m.member_name}, {m.region}, group {m.group}, stage {m.stage}; "
                   f"{m.resources} resources; GPU nodes {_money(m.cost)}{at}")
        if m.changes:
            out.append(f"    {m.changes}")
        for name in m.replaced:
            out.append(f"    REPLACE {name}")
        if m.cost.warning:
            out.append(f"    note: {m.cost.warning}")
    total = _fleet_money(lines)
    if total is not None:
        out.append(f"fleet GPU nodes: {total}")
    elif lines and all(not m.cost.priced for m in lines):
        out.append("fleet GPU nodes: no price known for any member's GPU pools")
    return "\n".join(out) + "\n"
