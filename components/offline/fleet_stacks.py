"""A fleet's stacks read together: the fleet stack (its `fleet` section) and every member stack of the same project
whose ``fleetMembership.fleetStack`` names it, with the rules that span them checked at once (`config.fleet_rules`).

The stack files are read as `stacks` reads them (the CLI's way, secrets never decrypted); a member's StackReference to
the fleet stack is answered from the fleet stack's file (`fleet_outputs`), so no stack needs Pulumi Cloud offline.
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
from ..config.fleet_loading import fleet_config_from_mapping, is_fleet_stack
from ..config.fleet_rules import MemberView, at, fleet_problems, fleet_warnings
from ..config.loading import decoded_section
from ..config.syntax import CLUSTER_NAME
from ..config.upgrades import UpgradesConfig
from ..config.validation import validated_or_none as _part
from .mocks import SUBSCRIPTION
from .project import Project, StackFileError, load_project, stack_name
from .stack_file import StackFile, in_file, read_stack_file
from .stack_identities import declared_cluster, declared_fleet, twice_declared
from .stack_settings import pool_named


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
class FleetSet:
    """A fleet stack and its member stacks, every rule between them checked."""

    stack: str
    file: Path
    fleet: FleetConfig
    members: list[MemberStack]
    warnings: tuple[str, ...] = ()  # allowed, but likely a mistake (`fleet_rules.fleet_warnings`)


@dataclass(frozen=True)
class ReadStack:
    """One stack file of the project, read once: its contents, or the lines saying why it cannot be read."""

    stack: str
    shown: str
    found: StackFile | None
    unreadable: tuple[str, ...] = ()


def read_stacks(project: Project) -> dict[str, ReadStack]:
    """Every stack file of the project, each read once (a fleet is a reader of several stack files)."""
    read = {}
    for stack in project.stacks():
        shown = project.shown_stack_file(stack)
        try:
            read[stack] = ReadStack(stack, shown, read_stack_file(project, stack))
        except StackFileError as exc:
            read[stack] = ReadStack(stack, shown, None, tuple(in_file(shown, line) for line in exc.lines))
    return read


def load_fleet(project_dir: Path, fleet_stack: str) -> FleetSet:
    """The fleet stack `fleet_stack` of the project in `project_dir` and its member stacks; ConfigError listing every
    problem of all those stacks at once, each naming its stack file and key (StackFileError: no such fleet stack).

    A stack file that cannot be read is reported beside the others' problems (it may be a member: the rules that need
    every member's group then wait for it); a key that does not validate leaves out only the rules that read it."""
    project = load_project(project_dir)
    fleet_stack = stack_name(fleet_stack, project.name)
    stacks = read_stacks(project)
    if fleet_stack not in stacks:
        read_stack_file(project, fleet_stack)  # raises: no such stack file, and why
    own = stacks[fleet_stack]
    shown = own.shown
    fleets = [s for s, r in stacks.items() if r.found is not None and is_fleet_stack(r.found.config, project.name)]
    problems: list[Problem] = [Problem("", line) for line in own.unreadable]
    fleet, strategy, profile = None, None, None
    if own.found is not None:
        if fleet_stack not in fleets:
            raise StackFileError(f"{shown}: not a fleet stack: it has no '{project.name}:{FLEET_KEY}' section; fleet "
                                 f"stacks of this project: {', '.join(fleets) or 'none'}")
        problems += [Problem("", line) for line in own.found.lines()]
        try:
            fleet = fleet_config_from_mapping(own.found.config, project.name, own.found.secrets)
            strategy, profile = fleet.update_strategy, fleet.auto_upgrade
        except ConfigError as exc:
            problems += [at(shown, p.path, p.message) for p in exc.problems]
            raw = decoded_section(own.found.config.get(f"{project.name}:{FLEET_KEY}"))
            strategy = partial_strategy(raw.get("updateStrategy"))
            profile = _part(AutoUpgradeConfig, raw.get("autoUpgrade"))
    members: list[MemberStack] = []
    views: list[MemberView] = []
    member_files: dict[str, str | None] = {}  # every member stack's file -> its member name, where it reads
    for stack, read in stacks.items():
        if stack == fleet_stack:
            continue
        if read.found is None:  # it may be a member: its group is unknown
            problems += [Problem("", line) for line in read.unreadable]
            views.append(MemberView(read.shown, None, None, "cluster.name", None))
            continue
        found, member_shown = read.found, read.shown
        raw = decoded_section(found.config.get(f"{project.name}:{FLEET_MEMBERSHIP_KEY}"))
        named = raw.get("fleetStack")
        if not isinstance(named, str) and f"{project.name}:{FLEET_MEMBERSHIP_KEY}" in found.secrets:
            problems.append(at(member_shown, FLEET_MEMBERSHIP_KEY, (
                "is a secure value, which is never decrypted offline, so which fleet this stack joins cannot be read; "
                "a membership holds no secret: write fleetStack and group in plain text")))
            views.append(MemberView(member_shown, None, None, "cluster.name", None))  # it may be a member
            continue
        if isinstance(named, str) and named != fleet_stack and named not in fleets:
            problems.append(_not_a_fleet(project, member_shown, named, stacks, fleets))
        if named != fleet_stack:
            continue
        problems += [Problem("", line) for line in found.lines()]
        try:
            config = stack_config_from_mapping(found.config, project.name, found.secrets)
        except ConfigError as exc:
            problems += [at(member_shown, pool_named(p.path, found.config, project.name), p.message)
                         for p in exc.problems]
            view = _partial_view(member_shown, found.config, project.name)
            views.append(view)
            # It names this fleet whatever else is wrong: its cluster is compared with the other stacks' all the same.
            member_files[member_shown] = view.member_name
            continue
        membership = config.fleet_membership
        assert membership is not None  # it names this fleet stack
        name = membership.member_name or config.cluster.name
        members.append(MemberStack(stack, project.stack_file(stack), config, membership.group, name,
                                   config.cluster.name))
        views.append(MemberView(member_shown, membership.group, name, _name_key(membership), config.cluster.upgrades))
        member_files[member_shown] = name
    problems += fleet_problems(shown, strategy, profile, views)
    problems += _shared_resources(project, stacks, shown, member_files)
    if problems:
        raise ConfigError(list(dict.fromkeys(problems)))
    assert fleet is not None
    warnings = tuple(fleet_warnings(shown, fleet.update_strategy, fleet.auto_upgrade))
    return FleetSet(fleet_stack, project.stack_file(fleet_stack), fleet, members, warnings)


def _not_a_fleet(project: Project, shown: str, named: str, stacks: dict[str, ReadStack], fleets: list[str]) -> Problem:
    """A fleetMembership.fleetStack naming no fleet stack: no stack file at all, or a stack that is not one (said of
    the member's file `shown`, or of the key alone when '')."""
    known = ", ".join(fleets) or "none"
    where = f"{shown}: {FLEET_MEMBERSHIP_KEY}.fleetStack" if shown else f"{FLEET_MEMBERSHIP_KEY}.fleetStack"
    if named not in stacks:  # a member of no fleet at all: a typo of this one, maybe
        return Problem(where, f"'{named}' has no stack file in this project, so this stack joins no fleet; fleet "
                       f"stacks: {known}")
    return Problem(where, f"'{named}' is not a fleet stack ({stacks[named].shown} has no '{project.name}:{FLEET_KEY}' "
                   f"section: it is a platform stack, a member at most), so this stack joins no fleet; name a fleet "
                   f"stack: {known}")


def _shared_resources(project: Project, stacks: dict[str, ReadStack], shown: str,
                      member_files: dict[str, str | None]) -> list[Problem]:
    """The fleet this fleet stack declares, or a member's cluster, declared by another stack file of the project too."""
    readable = [r for r in stacks.values() if r.found is not None]
    fleets = [d for r in readable if (d := declared_fleet(r.shown, r.found.config, project.name)) is not None]
    clusters = [d for r in readable if (d := declared_cluster(r.shown, r.found.config, project.name)) is not None]
    return (twice_declared(fleets, "fleet", {shown})
            + twice_declared(clusters, "cluster", set(member_files),
                             {file: name for file, name in member_files.items() if name is not None}))


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


def fleet_stacks(project: Project) -> list[str]:
    """The project's stacks whose file holds a `fleet` section."""
    return [s for s, r in read_stacks(project).items()
            if r.found is not None and is_fleet_stack(r.found.config, project.name)]


def fleet_outputs(fleet: FleetConfig, subscription: str = SUBSCRIPTION) -> dict[str, Any]:
    """The fleet stack's outputs as a deployed fleet stack would export them (`__main__.py`), from its settings alone:
    what a member's StackReference reads, offline."""
    fleet_id = (f"/subscriptions/{subscription}/resourceGroups/{fleet.resource_group_name}/providers/"
                f"Microsoft.ContainerService/fleets/{fleet.name}")
    outputs = {
        "fleetId": fleet_id,
        "fleetName": fleet.name,
        "fleetResourceGroupName": fleet.resource_group_name,
        "updateStrategyId": f"{fleet_id}/updateStrategies/{fleet.update_strategy.name}",
        "updateStrategyName": fleet.update_strategy.name,
    }
    if fleet.auto_upgrade is not None:
        outputs["autoUpgradeProfileName"] = fleet.auto_upgrade.profile_name
    return outputs


def referenced_fleet(project: Project, config: Mapping[str, Any]) -> tuple[str, FleetConfig] | None:
    """The fleet stack a member stack's config map names, and its settings, read from its file in the project (None
    when the config names none); StackFileError when it names a stack that is not a valid fleet stack."""
    raw = decoded_section(config.get(f"{project.name}:{FLEET_MEMBERSHIP_KEY}"))
    name = raw.get("fleetStack")
    if not isinstance(name, str):
        return None
    try:
        name = stack_name(name, project.name)
    except StackFileError:
        return None  # the membership's own validation says what is wrong with the name
    shown = project.shown_stack_file(name)
    if not project.stack_file(name).exists() and not project.stack_file(name).is_symlink():
        raise StackFileError(str(_not_a_fleet(project, "", name, {}, fleet_stacks(project))))
    found = read_stack_file(project, name)
    if not is_fleet_stack(found.config, project.name):
        read = {name: ReadStack(name, shown, found)}
        raise StackFileError(str(_not_a_fleet(project, "", name, read, fleet_stacks(project))))
    try:
        return name, fleet_config_from_mapping(found.config, project.name, found.secrets)
    except ConfigError as exc:
        raise StackFileError(*(str(at(shown, p.path, p.message)) for p in exc.problems)) from None


def _name_key(membership: FleetMembershipConfig) -> str:
    return "fleetMembership.memberName" if membership.member_name else "cluster.name"


def _partial_view(shown: str, config: Mapping[str, Any], project: str) -> MemberView:
    """What the fleet rules can read of a member stack that did not validate whole."""
    membership = _part(FleetMembershipConfig, decoded_section(config.get(f"{project}:{FLEET_MEMBERSHIP_KEY}")))
    cluster = decoded_section(config.get(f"{project}:cluster"))
    upgrades = _part(UpgradesConfig, cluster.get("upgrades", {}))
    cluster_name = cluster.get("name") if isinstance(cluster.get("name"), str) else None
    if cluster_name is not None and not CLUSTER_NAME.fullmatch(cluster_name):
        cluster_name = None
    name = (membership.member_name or cluster_name) if membership else None
    return MemberView(shown, membership.group if membership else None, name,
                      _name_key(membership) if membership else "cluster.name", upgrades)
