"""A fleet's stacks read together: the fleet stack (its `fleet` section) and every member stack of the same project
whose ``fleetMembership.fleetStack`` names it, with the rules that span them checked at once.

One pass, each step once: the project's files (`project`), every stack file read with its sections decoded
(`project_stacks`), the fleet's stacks validated (`fleet_settings`), then the rules across them (`config.fleet_rules`).
The stack files are read as `stacks` reads them (the CLI's way, secrets never decrypted); a member's StackReference to
the fleet stack is answered from the fleet stack's file (`fleet_outputs`), so no stack needs Pulumi Cloud offline.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import ConfigError
from ..config.fleet import FleetConfig
from ..config.fleet_rules import fleet_problems, fleet_warnings, twice_declared
from .fleet_settings import MemberStack, fleet_settings
from .mocks import SUBSCRIPTION
from .project import Project, load_project
from .project_stacks import read_stacks


@dataclass(frozen=True)
class FleetSet:
    """A fleet stack and its member stacks, every rule between them checked, with the project they were read from (a
    caller plans its stacks without loading it again)."""

    project: Project
    stack: str
    file: Path
    fleet: FleetConfig
    members: list[MemberStack]
    warnings: tuple[str, ...] = ()  # allowed, but likely a mistake (`fleet_rules.fleet_warnings`)


def load_fleet(project_dir: str | os.PathLike[str], fleet_stack: str) -> FleetSet:
    """The fleet stack `fleet_stack` of the project in `project_dir` and its member stacks; ConfigError listing every
    problem of all those stacks at once, each naming its stack file and key (StackFileError: no such fleet stack)."""
    project = load_project(project_dir)
    stacks = read_stacks(project)
    settings = fleet_settings(project, stacks, fleet_stack)
    problems = [
        *settings.problems,
        *fleet_problems(settings.shown, settings.strategy, settings.profile, settings.views),
        # The fleet this fleet stack declares, or a member's cluster, declared by another stack file of the project too.
        *twice_declared(settings.fleets_declared, "fleet", {settings.shown}),
        *twice_declared(settings.clusters_declared, "cluster", set(settings.member_files),
                        {file: name for file, name in settings.member_files.items() if name is not None}),
    ]
    if problems:
        raise ConfigError(list(dict.fromkeys(problems)))
    fleet = settings.fleet
    assert fleet is not None
    warnings = tuple(fleet_warnings(settings.shown, fleet.update_strategy, fleet.auto_upgrade))
    return FleetSet(project, settings.stack, settings.file, fleet, settings.members, warnings)


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
