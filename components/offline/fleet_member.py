"""What one stack's plan needs of its fleet: the problems across the fleet's stacks that concern this stack's file,
and the fleet stack's outputs a member's StackReference reads (answered from the fleet stack's file, offline).

A stack that names no fleet and is none never loads the fleet's modules (`fleet_stacks` and what it reads with)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .project import Project, StackFileError, stack_name
from .stack_file import StackFile, in_file, read_stack_file

if TYPE_CHECKING:
    from ..config.fleet import FleetConfig


def referenced_outputs(project: Project, found: StackFile) -> dict[str, dict[str, Any]]:
    """The outputs of the fleet stack a member stack's fleetMembership names, read from its file in this project, by
    the name its StackReference uses (organization/project/stack); none for any other stack."""
    if not project.reads_our_settings:
        return {}
    fleet = referenced_fleet(project, found.config)
    if fleet is None:
        return {}
    from .capture import ORGANIZATION
    from .fleet_stacks import fleet_outputs

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
    from .fleet_stacks import load_fleet

    try:
        load_fleet(project.directory, fleet)
    except ConfigError as exc:
        return [str(p) for p in exc.problems if concerned is None or p.path.startswith(f"{concerned}:")]
    except StackFileError as exc:
        return exc.lines
    return []


def referenced_fleet(project: Project, config: Mapping[str, Any]) -> tuple[str, FleetConfig] | None:
    """The fleet stack a member stack's config map names, and its settings, read from its file in the project (None
    when the config names none); StackFileError when it names a stack that is not a valid fleet stack."""
    from ..config.fleet_membership import FLEET_MEMBERSHIP_KEY
    from ..config.loading import decoded_section

    raw = decoded_section(config.get(f"{project.name}:{FLEET_MEMBERSHIP_KEY}"))
    name = raw.get("fleetStack")
    if not isinstance(name, str):
        return None
    try:
        name = stack_name(name, project.name)
    except StackFileError:
        return None  # the membership's own validation says what is wrong with the name
    from ..config import ConfigError
    from ..config.fleet_loading import fleet_config_from_mapping
    from ..config.fleet_membership import is_fleet_stack
    from ..config.fleet_rules import at
    from .fleet_settings import fleet_stack_names, not_a_fleet
    from .project_stacks import ReadStack, read_stacks

    file, shown = project.stack_file(name), project.shown_stack_file(name)
    if not file.exists() and not file.is_symlink():
        raise StackFileError(str(not_a_fleet(project.name, "", name, {}, fleet_stack_names(read_stacks(project),
                                                                                           project.name))))
    found = read_stack_file(project, name)
    if not is_fleet_stack(found.config, project.name):
        read = {name: ReadStack(name, file, shown, found)}
        raise StackFileError(str(not_a_fleet(project.name, "", name, read,
                                             fleet_stack_names(read_stacks(project), project.name))))
    try:
        return name, fleet_config_from_mapping(found.config, project.name, found.secrets)
    except ConfigError as exc:
        raise StackFileError(*(str(at(shown, p.path, p.message)) for p in exc.problems)) from None
