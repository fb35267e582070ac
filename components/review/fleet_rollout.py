"""A fleet's timings, estimated: the first `pulumi up` of every stack, and how long an update run takes.

- First `up`: the fleet stack first (a member's StackReference reads its outputs), then the members, in parallel
  (separate stacks, separate `pulumi up`s): the fleet stack's critical path plus the longest member's.
- An update run (Azure Kubernetes Fleet Manager, fleets.json ``UpdateRunStrategy``: "Stages within a run are executed
  sequentially one after another. Groups within a stage are executed in parallel. Member clusters within a group are
  updated sequentially one after another"), each stage followed by its ``afterStageWaitInSeconds``: a stage takes its
  slowest group, a group the sum of its members, a member its control plane and then its pools (AKS upgrades a
  cluster's pools one after the other, `upgrade_times` below), each pool in batches of its surge.

The per-member figures are estimates with their sources (the rows of `UPGRADE_TIMES`, beside `provisioning_times`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import GpuPoolConfig, StackConfig
from ..offline.fleet_stacks import FleetSet
from ..offline.plan import Plan
from .critical_path import critical_path
from .provisioning_times import Typical

UPGRADE_TIMES: dict[str, Typical] = {
    t.kind: t
    for t in (
        Typical("control plane upgrade", 10.0,
                "estimate: AKS upgrades the control plane before any pool (learn.microsoft.com/azure/aks/upgrade-cluster); "
                "no figure is published, runs of 5-15 min are reported"),
        Typical("GPU node upgrade", 6.0,
                "estimate: a surge node of the new image boots and installs the GRID driver, as a new GPU node does "
                "(the 'GPU agent pool' row), then the old node is drained and deleted"),
        Typical("system node upgrade", 3.0,
                "estimate: a surge node boots, the old one is cordoned, drained and deleted "
                "(learn.microsoft.com/azure/aks/upgrade-aks-cluster, 'How the upgrade works')"),
    )
}


def _batches(nodes: int, surge: str | None) -> int:
    """How many rounds AKS needs to upgrade `nodes` with this surge ('1', '3', '33%'; none: one node at a time)."""
    if nodes <= 0:
        return 0
    if not surge:
        per_round = 1
    elif surge.endswith("%"):
        per_round = max(1, math.ceil(nodes * int(surge[:-1]) / 100))
    else:
        per_round = int(surge)
    return math.ceil(nodes / per_round)


def _pool_nodes(pool: GpuPoolConfig) -> int:
    return pool.autoscaling.max_count if pool.autoscaling else (pool.count or 0)


def member_upgrade_minutes(config: StackConfig) -> float:
    """One member's upgrade, estimated: control plane, then the system pool, then each GPU pool at its most nodes."""
    table = UPGRADE_TIMES
    minutes = table["control plane upgrade"].minutes
    minutes += _batches(config.cluster.system_pool.count, "1") * table["system node upgrade"].minutes
    for pool in config.gpu_pools:
        minutes += _batches(_pool_nodes(pool), pool.upgrade_surge) * table["GPU node upgrade"].minutes
    return minutes


@dataclass(frozen=True)
class StageTime:
    """One stage of an update run: its groups, their members, how long it takes and the wait after it."""

    name: str
    groups: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]  # group -> ((member stack, minutes), ...)
    minutes: float
    wait_minutes: float


@dataclass(frozen=True)
class FleetTimes:
    """The fleet's first `up` and one update run, estimated."""

    fleet_up: float
    members_up: tuple[tuple[str, float], ...]
    stages: tuple[StageTime, ...]
    table: tuple[Typical, ...] = ()  # the provisioning times the first `up` figures used

    @property
    def first_up(self) -> float:
        """Fleet stack first, then every member in parallel."""
        return self.fleet_up + max((m for _, m in self.members_up), default=0.0)

    @property
    def rollout(self) -> float:
        """An update run through every stage, with the waits between them (the last stage's wait included)."""
        return sum(s.minutes + s.wait_minutes for s in self.stages)


def fleet_critical_path(fleet: FleetSet, plans: dict[str, Plan]) -> FleetTimes:
    """The fleet's timings from its stacks' settings (an update run's stages) and plans (each stack's critical path,
    computed once)."""
    stages = update_run(fleet)
    paths = {stack: critical_path(plans[stack]) for stack in plans}
    up = tuple((m.stack, paths[m.stack].minutes) for m in fleet.members)
    used = tuple({t.kind: t for path in paths.values() for t in path.table}.values())
    return FleetTimes(paths[fleet.stack].minutes, up, stages, used)


def update_run(fleet: FleetSet) -> tuple[StageTime, ...]:
    """One update run's stages, each with its groups' members and their upgrades, estimated from their settings."""
    members = {m.stack: m for m in fleet.members}
    stages = []
    for stage in fleet.fleet.update_strategy.stages:
        groups = []
        for group in stage.groups:
            in_group = tuple((m.stack, member_upgrade_minutes(m.config))
                             for m in members.values() if m.group == group)
            groups.append((group, in_group))
        minutes = max((sum(t for _, t in g) for _, g in groups), default=0.0)
        stages.append(StageTime(stage.name, tuple(groups), minutes, stage.after_stage_wait_in_seconds / 60))
    return tuple(stages)


def format_fleet_critical_path(times: FleetTimes) -> str:
    """The fleet's timings for people, with the estimates' sources."""
    lines = ["fleet: first pulumi up (fleet stack first, then every member in parallel; estimated):",
             f"  fleet stack  {times.fleet_up:6.2f} min"]
    lines += [f"  {stack:<12} {minutes:6.2f} min  (after the fleet stack)" for stack, minutes in times.members_up]
    lines.append(f"  = {times.first_up:.2f} min")
    lines.append("fleet: one update run (stages one after another, groups in parallel, members of a group one after "
                 "another; estimated):")
    for stage in times.stages:
        lines.append(f"  stage {stage.name}: {stage.minutes:.2f} min, then wait {stage.wait_minutes:.2f} min")
        for group, members in stage.groups:
            shown = ", ".join(f"{s} {m:.2f} min" for s, m in members) or "no member"
            lines.append(f"    group {group}: {shown}")
    lines.append(f"  = {times.rollout:.2f} min ({times.rollout / 60:.1f} h)")
    lines.append("provisioning times used (first up):")
    for t in times.table:
        lines.append(f"  {t.kind:<22} {t.minutes:5.2f} min  {t.source}")
    lines.append("upgrade times used (per member: control plane, then each pool in batches of its surge, at its most "
                 "nodes):")
    for t in UPGRADE_TIMES.values():
        lines.append(f"  {t.kind:<22} {t.minutes:5.2f} min  {t.source}")
    return "\n".join(lines) + "\n"
