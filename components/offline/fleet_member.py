"""What one stack's plan needs of its fleet: the problems across the fleet's stacks that concern this stack's file,
and the fleet stack's outputs a member's StackReference reads (answered from the fleet stack's file, offline)."""

from __future__ import annotations

from typing import Any

from .fleet_stacks import fleet_outputs, load_fleet, referenced_fleet
from .project import Project, StackFileError
from .stack_file import StackFile, in_file


def referenced_outputs(project: Project, found: StackFile) -> dict[str, dict[str, Any]]:
    """The outputs of the fleet stack a member stack's fleetMembership names, read from its file in this project, by
    the name its StackReference uses (organization/project/stack); none for any other stack."""
    if not project.reads_our_settings:
        return {}
    from .capture import ORGANIZATION

    fleet = referenced_fleet(project, found.config)
    if fleet is None:
        return {}
    name, config = fleet
    return {f"{ORGANIZATION}/{project.name}/{name}": fleet_outputs(config)}


def fleet_problems(found: StackFile, project: Project, stack: str) -> list[str]:
    """For a fleet stack or a member stack: the problems across the fleet's stacks (`fleet_stacks.load_fleet`) that
    concern this stack's file (a fleet stack: all of them, its strategy names every member's group), and for a member
    whose fleet stack cannot be read, why; none for any other stack."""
    from ..config import ConfigError, is_fleet_stack

    if not project.reads_our_settings:
        return []
    if is_fleet_stack(found.config, project.name):
        fleet, concerned = stack, None
    else:
        try:
            member = referenced_fleet(project, found.config)
        except StackFileError as exc:  # the fleet stack it names is missing, broken, or not one: said beside its own
            return [in_file(found.file, line) for line in exc.lines]
        if member is None:
            return []
        fleet, concerned = member[0], found.file
    try:
        load_fleet(project.directory, fleet)
    except ConfigError as exc:
        return [str(p) for p in exc.problems if concerned is None or p.path.startswith(f"{concerned}:")]
    except StackFileError as exc:
        return exc.lines
    return []

