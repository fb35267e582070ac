"""This package's settings in a stack file: what each key takes, their problems (the stack's own and across its fleet's
stacks), and the fleet stack outputs a member stack reads; only for a program that reads them (`reads_our_settings`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .project import Project

if TYPE_CHECKING:
    from .stacks import StackFile


def expects(project: Project, full: str) -> Callable[[tuple[str | int, ...]], str | None] | None:
    """What each key path inside the package's section `full` takes (its config model says), for messages about a
    value of the wrong shape; None for other keys, and for a program that does not read the package's settings."""
    from ..config import STACK_KEYS, StackConfig
    from ..config.model_paths import expected_shape

    namespace, _, key = full.partition(":")
    if namespace != project.name or key not in STACK_KEYS or not reads_our_settings(project):
        return None
    return lambda where: expected_shape(StackConfig, (key, *where))


def referenced_outputs(project: Project, found: StackFile) -> dict[str, dict[str, Any]]:
    """The outputs of the fleet stack a member stack's fleetMembership names, read from its file in this project, by
    the name its StackReference uses (organization/project/stack); none for any other stack."""
    if not reads_our_settings(project):
        return {}
    from .capture import ORGANIZATION
    from .fleet_stacks import fleet_outputs, referenced_fleet

    fleet = referenced_fleet(project, found.config)
    if fleet is None:
        return {}
    name, config = fleet
    return {f"{ORGANIZATION}/{project.name}/{name}": fleet_outputs(config)}


def fleet_problems(found: StackFile, project: Project, stack: str) -> list[str]:
    """For a fleet stack or a member stack whose own settings are right: the problems across the fleet's stacks
    (`fleet_stacks.load_fleet`) that concern this stack's file (a fleet stack: all of them, its strategy names every
    member's group); none for any other stack."""
    from ..config import ConfigError, is_fleet_stack
    from .fleet_stacks import load_fleet, referenced_fleet, shown_file

    if not reads_our_settings(project):
        return []
    if is_fleet_stack(found.config, project.name):
        fleet, concerned = stack, None
    else:
        member = referenced_fleet(project, found.config)
        if member is None:
            return []
        fleet, concerned = member[0], shown_file(project, project.stack_file(stack))
    try:
        load_fleet(project.directory, fleet)
    except ConfigError as exc:
        return [str(p) for p in exc.problems if concerned is None or p.path.startswith(f"{concerned}:")]
    return []


def reads_our_settings(project: Project) -> bool:
    """Whether the project's config sections are this package's settings: the package's own project, or a program
    that loads them with `load_stack_config` (another program's `cluster` key may mean something else)."""
    from ..config import PROJECT

    if project.name == PROJECT:
        return True
    try:
        return "load_stack_config" in project.main.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def settings_problems(found: StackFile, project: Project, file: str) -> list[str]:
    """The problems of this package's settings in the file's readable values (what the program would report first),
    at keys the file's own problems do not cover; for a program that reads them (`reads_our_settings`), a file that
    sets none of them is told so, by its name (`file`).

    No value is hidden from them: offline, a secret is never decrypted (it is ``[secret]`` already), and every other
    value is the file's own plain text, so a message quotes exactly what the file shows (masked by value, never by
    the section a secret sits in)."""
    from ..config import STACK_KEYS, ConfigError, fleet_config_from_mapping, is_fleet_stack, stack_config_from_mapping
    from ..config.loading import NoSettings

    if is_fleet_stack(found.config, project.name) and reads_our_settings(project):
        try:
            fleet_config_from_mapping(found.config, project.name)
        except ConfigError as exc:
            return [str(p) for p in exc.problems if not found.covers(p.path)]
        return []
    ours = any(f"{project.name}:{key}" in found.config for key in STACK_KEYS)
    if not reads_our_settings(project) or not (ours or not found.problems):
        return []
    try:
        stack_config_from_mapping(found.config, project.name)
    except ConfigError as exc:
        if any(isinstance(p, NoSettings) and p.elsewhere for p in exc.problems):
            return []  # the program may read them under that namespace (load_stack_config(project=...)): it tells
        return [str(p.in_file(file) if isinstance(p, NoSettings) else p) for p in exc.problems
                if not found.covers(p.path)]
    return []
