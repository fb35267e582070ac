"""A fleet's stack files validated: the fleet stack's `fleet` section and each member stack's settings, every problem
said at its stack file and key; where a section did not validate whole, what the rules across the stacks
(`config.fleet_rules`) can still read of it; and the Azure resources each stack file declares (a Fleet, an AKS cluster).

The stack files come read once (`project_stacks`); the rules across them run after this, on what it hands over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import ConfigError, Problem, StackConfig, stack_config_from_mapping
from ..config.fleet import (
    FLEET_KEY,
    FLEET_MEMBERSHIP_KEY,
    AutoUpgradeConfig,
    FleetConfig,
    FleetMembershipConfig,
    UpdateStageConfig,
    UpdateStrategyConfig,
)
from ..config.fleet_loading import fleet_config_from_mapping
from ..config.fleet_membership import is_fleet_stack
from ..config.fleet_rules import Declared, MemberView, at
from ..config.syntax import CLUSTER_NAME
from ..config.upgrades import UpgradesConfig
from ..config.validation import validated_or_none as _part
from .project import Project, StackFileError, located_stack_file, stack_name
from .project_stacks import ReadStack
from .stack_settings import pool_named

SUBSCRIPTION_KEY = "azure-native:subscriptionId"


@dataclass(frozen=True)
class MemberStack:
    """One member stack of a fleet: its settings, and its place in the fleet."""

    stack: str
    file: Path
    config: StackConfig
    group: str
    member_name: str
    cluster_name: str


@dataclass(frozen=True)
class FleetSettings:
    """A fleet stack and the stacks that name it, as validated: every problem found so far, and what the rules across
    them read (the strategy and profile, or what validated of them; a view of each member; who declares what)."""

    stack: str
    file: Path
    shown: str
    fleet: FleetConfig | None  # None when the fleet section did not validate whole
    strategy: UpdateStrategyConfig | None
    profile: AutoUpgradeConfig | None
    members: list[MemberStack]
    views: list[MemberView]
    member_files: dict[str, str | None]  # every member stack's file -> its member name, where it reads
    fleets_declared: list[Declared]
    clusters_declared: list[Declared]
    problems: list[Problem]


def fleet_settings(project: Project, stacks: dict[str, ReadStack], fleet_stack: str) -> FleetSettings:
    """The fleet stack `fleet_stack` and the project's stacks that name it, validated, with every problem of all those
    stacks (StackFileError: no such fleet stack, or a stack that is not one). A stack file that cannot be read is
    reported beside the others' problems (it may be a member: the rules that need every member's group then wait for
    it); a key that does not validate leaves out only the rules that read it."""
    fleets = fleet_stack_names(stacks, project.name)
    own = _named_fleet_stack(project, stacks, fleet_stack, fleets)
    problems: list[Problem] = [Problem("", line) for line in own.unreadable]
    fleet, strategy, profile = None, None, None
    if own.found is not None:
        problems += [Problem("", line) for line in own.found.lines()]
        try:
            fleet = fleet_config_from_mapping(own.found.config, project.name, own.found.secrets)
            strategy, profile = fleet.update_strategy, fleet.auto_upgrade
        except ConfigError as exc:
            problems += [at(own.shown, p.path, p.message) for p in exc.problems]
            raw = own.sections.get(FLEET_KEY, {})
            strategy = partial_strategy(raw.get("updateStrategy"))
            profile = _part(AutoUpgradeConfig, raw.get("autoUpgrade"))
    members: list[MemberStack] = []
    views: list[MemberView] = []
    member_files: dict[str, str | None] = {}
    for read in stacks.values():
        if read.stack == own.stack:
            continue
        if read.found is None:  # it may be a member: its group is unknown
            problems += [Problem("", line) for line in read.unreadable]
            views.append(MemberView(read.shown, None, None, "cluster.name", None))
            continue
        named = read.sections.get(FLEET_MEMBERSHIP_KEY, {}).get("fleetStack")
        if not isinstance(named, str) and f"{project.name}:{FLEET_MEMBERSHIP_KEY}" in read.found.secrets:
            problems.append(at(read.shown, FLEET_MEMBERSHIP_KEY, (
                "is a secure value, which is never decrypted offline, so which fleet this stack joins cannot be read; "
                "a membership holds no secret: write fleetStack and group in plain text")))
            views.append(MemberView(read.shown, None, None, "cluster.name", None))  # it may be a member
            continue
        if isinstance(named, str) and named != own.stack and named not in fleets:
            problems.append(not_a_fleet(project.name, read.shown, named, stacks, fleets))
        if named != own.stack:
            continue
        problems += [Problem("", line) for line in read.found.lines()]
        try:
            config = stack_config_from_mapping(read.found.config, project.name, read.found.secrets)
        except ConfigError as exc:
            problems += [at(read.shown, pool_named(p.path, read.found.config, project.name), p.message)
                         for p in exc.problems]
            view = _partial_view(read)
            views.append(view)
            # It names this fleet whatever else is wrong: its cluster is compared with the other stacks' all the same.
            member_files[read.shown] = view.member_name
            continue
        membership = config.fleet_membership
        assert membership is not None  # it names this fleet stack
        name = membership.member_name or config.cluster.name
        members.append(MemberStack(read.stack, read.file, config, membership.group, name, config.cluster.name))
        views.append(MemberView(read.shown, membership.group, name, _name_key(membership), config.cluster.upgrades))
        member_files[read.shown] = name
    readable = [r for r in stacks.values() if r.found is not None]
    fleets_declared = [d for r in readable if (d := _declared_fleet(r)) is not None]
    clusters_declared = [d for r in readable if (d := _declared_cluster(r)) is not None]
    return FleetSettings(own.stack, own.file, own.shown, fleet, strategy, profile, members, views, member_files,
                         fleets_declared, clusters_declared, problems)


def _named_fleet_stack(project: Project, stacks: Mapping[str, ReadStack], fleet_stack: str,
                       fleets: list[str]) -> ReadStack:
    """The stack file `fleet_stack` names, as read; StackFileError when the name is empty or not a stack name, when
    the project has no such stack file, or when the file, read, holds no `fleet` section."""
    if not fleet_stack.strip():
        raise StackFileError(f"--fleet {fleet_stack!r}: empty; name a fleet stack (fleet stacks of this project: "
                             f"{', '.join(fleets) or 'none'})")
    fleet_stack = stack_name(fleet_stack, project.name)
    if fleet_stack not in stacks:
        located_stack_file(project, fleet_stack)  # raises: no such stack file, and why
    own = stacks[fleet_stack]
    if own.found is not None and fleet_stack not in fleets:
        raise StackFileError(f"{own.shown}: not a fleet stack: it has no '{project.name}:{FLEET_KEY}' section; fleet "
                             f"stacks of this project: {', '.join(fleets) or 'none'}")
    return own


def fleet_stack_names(stacks: Mapping[str, ReadStack], project: str) -> list[str]:
    """The stacks whose file holds a `fleet` section."""
    return [s for s, r in stacks.items() if r.found is not None and is_fleet_stack(r.found.config, project)]


def not_a_fleet(project: str, shown: str, named: str, stacks: Mapping[str, ReadStack], fleets: list[str]) -> Problem:
    """A fleetMembership.fleetStack naming no fleet stack: no stack file at all, or a stack that is not one (said of
    the member's file `shown`, or of the key alone when '')."""
    known = ", ".join(fleets) or "none"
    where = f"{shown}: {FLEET_MEMBERSHIP_KEY}.fleetStack" if shown else f"{FLEET_MEMBERSHIP_KEY}.fleetStack"
    if named not in stacks:  # a member of no fleet at all: a typo of this one, maybe
        return Problem(where, f"'{named}' has no stack file in this project, so this stack joins no fleet; fleet "
                       f"stacks: {known}")
    return Problem(where, f"'{named}' is not a fleet stack ({stacks[named].shown} has no '{project}:{FLEET_KEY}' "
                   f"section: it is a platform stack, a member at most), so this stack joins no fleet; name a fleet "
                   f"stack: {known}")


def partial_strategy(raw: Any) -> UpdateStrategyConfig | None:
    """What the fleet rules can read of an update strategy that did not validate whole: each stage that validates
    with its wait left out (a wait is read by no rule), an empty stage left out (it upgrades no one); None when a
    stage's groups cannot be read (a group in it could be any member's)."""
    whole = _part(UpdateStrategyConfig, raw)
    if whole is not None or not isinstance(raw, Mapping) or not isinstance(raw.get("stages"), list):
        return whole
    stages = []
    for i, stage in enumerate(raw["stages"]):
        if isinstance(stage, Mapping) and stage.get("groups") == []:
            continue
        groups = stage.get("groups") if isinstance(stage, Mapping) else None
        if _part(UpdateStageConfig, {"name": "stage", "groups": groups}) is None:
            return None
        name = stage.get("name") if isinstance(stage.get("name"), str) else f"stages[{i}]"
        stages.append(UpdateStageConfig.model_construct(name=name, groups=list(groups), after_stage_wait_in_seconds=0))
    if not stages:
        return None
    name = raw.get("name") if isinstance(raw.get("name"), str) else "updateStrategy"
    return UpdateStrategyConfig.model_construct(name=name, stages=stages)


def _name_key(membership: FleetMembershipConfig) -> str:
    return "fleetMembership.memberName" if membership.member_name else "cluster.name"


def _partial_view(read: ReadStack) -> MemberView:
    """What the fleet rules can read of a member stack that did not validate whole."""
    membership = _part(FleetMembershipConfig, read.sections.get(FLEET_MEMBERSHIP_KEY, {}))
    cluster = read.sections.get("cluster", {})
    upgrades = _part(UpgradesConfig, cluster.get("upgrades", {}))
    cluster_name = cluster.get("name") if isinstance(cluster.get("name"), str) else None
    if cluster_name is not None and not CLUSTER_NAME.fullmatch(cluster_name):
        cluster_name = None
    name = (membership.member_name or cluster_name) if membership else None
    return MemberView(read.shown, membership.group if membership else None, name,
                      _name_key(membership) if membership else "cluster.name", upgrades)


def _declared_fleet(read: ReadStack) -> Declared | None:
    """The Fleet a stack file declares (its `fleet` section's name and resource group), None when it names none."""
    fleet = read.sections.get(FLEET_KEY, {})
    return _declared(read, "fleet.name", fleet.get("name"), fleet.get("resourceGroupName"))


def _declared_cluster(read: ReadStack) -> Declared | None:
    """The AKS cluster a stack file declares (cluster.name in cluster.resourceGroup.name), None when it names none."""
    cluster = read.sections.get("cluster", {})
    group = cluster.get("resourceGroup")
    return _declared(read, "cluster.name", cluster.get("name"), group.get("name") if isinstance(group, Mapping) else None)


def _declared(read: ReadStack, key: str, name: Any, group: Any) -> Declared | None:
    """An Azure resource as ARM names it (casefolded: ARM names are case-insensitive; no subscription: the caller's)."""
    if not isinstance(name, str) or not isinstance(group, str) or not name or not group or read.found is None:
        return None
    subscription = read.found.config.get(SUBSCRIPTION_KEY)
    sub = subscription.casefold() if isinstance(subscription, str) else ""
    return Declared(read.shown, key, (sub, group.casefold(), name.casefold()), (name, group))
