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
    UpdateStrategyConfig,
)
from ..config.fleet_loading import fleet_config_from_mapping, is_fleet_stack
from ..config.fleet_rules import MemberView, at, fleet_problems
from ..config.loading import decoded_section
from ..config.syntax import CLUSTER_NAME
from ..config.upgrades import UpgradesConfig
from ..config.validation import validated_or_none as _part
from .mocks import SUBSCRIPTION
from .project import Project, StackFileError, load_project, stack_name
from .stack_file import StackFile, read_stack_file


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


def load_fleet(project_dir: Path, fleet_stack: str) -> FleetSet:
    """The fleet stack `fleet_stack` of the project in `project_dir` and its member stacks; ConfigError listing every
    problem of all those stacks at once, each naming its stack file and key (StackFileError: no such fleet stack)."""
    project = load_project(project_dir)
    fleet_stack = stack_name(fleet_stack, project.name)
    fleet_found = read_stack_file(project, fleet_stack)
    fleet_file = project.stack_file(fleet_stack)
    shown = shown_file(project, fleet_file)
    problems = _file_problems(fleet_found)
    fleet, strategy, profile = None, None, None
    if not is_fleet_stack(fleet_found.config, project.name):
        raise StackFileError(f"{shown}: not a fleet stack: it has no '{project.name}:{FLEET_KEY}' section; fleet stacks "
                             f"of this project: {', '.join(fleet_stacks(project)) or 'none'}")
    try:
        fleet = fleet_config_from_mapping(fleet_found.config, project.name, fleet_found.secrets)
        strategy, profile = fleet.update_strategy, fleet.auto_upgrade
    except ConfigError as exc:
        problems += [at(shown, p.path, p.message) for p in exc.problems]
        raw = decoded_section(fleet_found.config.get(f"{project.name}:{FLEET_KEY}"))
        strategy = _part(UpdateStrategyConfig, raw.get("updateStrategy"))
        profile = _part(AutoUpgradeConfig, raw.get("autoUpgrade"))
    members: list[MemberStack] = []
    views: list[MemberView] = []
    stacks = project.stacks()
    for stack in stacks:
        if stack == fleet_stack:
            continue
        found = read_stack_file(project, stack)
        raw = decoded_section(found.config.get(f"{project.name}:{FLEET_MEMBERSHIP_KEY}"))
        named = raw.get("fleetStack")
        if isinstance(named, str) and named not in stacks:  # a member of no fleet at all: a typo of this one, maybe
            problems.append(at(shown_file(project, project.stack_file(stack)), f"{FLEET_MEMBERSHIP_KEY}.fleetStack",
                               f"'{named}' has no stack file in this project, so this stack joins no fleet; fleet "
                               f"stacks: {', '.join(fleet_stacks(project)) or 'none'}"))
        if named != fleet_stack:
            continue
        file = project.stack_file(stack)
        member_shown = shown_file(project, file)
        problems += _file_problems(found)
        try:
            config = stack_config_from_mapping(found.config, project.name, found.secrets)
        except ConfigError as exc:
            problems += [at(member_shown, p.path, p.message) for p in exc.problems]
            views.append(_partial_view(member_shown, found.config, project.name))
            continue
        membership = config.fleet_membership
        assert membership is not None  # it names this fleet stack
        name = membership.member_name or config.cluster.name
        members.append(MemberStack(stack, file, config, membership.group, name, config.cluster.name))
        views.append(MemberView(member_shown, membership.group, name, _name_key(membership),
                                config.cluster.upgrades))
    problems += fleet_problems(shown, strategy, profile, views)
    if problems:
        raise ConfigError(list(dict.fromkeys(problems)))
    assert fleet is not None
    return FleetSet(fleet_stack, fleet_file, fleet, members)


def fleet_stacks(project: Project) -> list[str]:
    """The project's stacks whose file holds a `fleet` section."""
    found = []
    for stack in project.stacks():
        try:
            if is_fleet_stack(read_stack_file(project, stack).config, project.name):
                found.append(stack)
        except StackFileError:
            continue
    return found


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
    file = project.stack_file(name)
    if not file.exists():
        raise StackFileError(f"{FLEET_MEMBERSHIP_KEY}.fleetStack: '{name}' has no stack file ({file.name}) in this "
                             f"project; fleet stacks: {', '.join(fleet_stacks(project)) or 'none'}")
    found = read_stack_file(project, name)
    if not is_fleet_stack(found.config, project.name):
        raise StackFileError(f"{FLEET_MEMBERSHIP_KEY}.fleetStack: '{name}' is not a fleet stack ({file.name} has no "
                             f"'{project.name}:{FLEET_KEY}' section)")
    try:
        return name, fleet_config_from_mapping(found.config, project.name, found.secrets)
    except ConfigError as exc:
        raise StackFileError(*(f"{file.name}: {p}" for p in exc.problems)) from None


def shown_file(project: Project, file: Path) -> str:
    """A stack file as messages name it: relative to the project's folder."""
    try:
        return file.relative_to(project.directory).as_posix()
    except ValueError:
        return file.name


def _file_problems(found: StackFile) -> list[Problem]:
    return [Problem("", line) for line in found.lines()]


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
