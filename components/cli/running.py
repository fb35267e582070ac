"""Running a project's program for a subcommand: the plan of a stack (whatever the program raises becomes one line per
problem: problems.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .output import BadInputError, printable, write
from .problems import program_problems

if TYPE_CHECKING:
    from ..config import Problem
    from ..offline import Plan, Project


def run_plan(project_dir: str, stack: str, timeout: float | None) -> Plan:
    """The stack's plan (a first preview); BadInputError with one line per problem for anything the user can fix."""
    from ..offline import load_project
    from ..offline.project import stack_name

    with program_problems(Path(project_dir)):
        stack_name(stack)
        project = load_project(project_dir)
    return plan_stack(project, stack, timeout)


def plan_stack(project: Project, stack: str, timeout: float | None, fleet_checked: bool = False) -> Plan:
    """A stack's plan in a project already loaded (`run_plan`, and once per stack of a fleet); `fleet_checked`: the
    rules across its fleet's stacks ran already."""
    from ..offline import run_project
    from ..offline.running import ambient_config, ambient_config_warning

    ignored = ambient_config()
    if ignored:  # ignored, not refused: a shell or CI job may carry them from an earlier `pulumi` run
        write(sys.stderr, printable(ambient_config_warning(ignored)) + "\n")
    with program_problems(project.directory):
        return run_project(project, stack, preview=True, timeout=timeout, fleet_checked=fleet_checked)


def in_stack_file(problems: Sequence[Problem], project_dir: str, stack: str | None) -> list[str]:
    """The problems' lines, a stack without the package's settings said of its stack file by name (the config models
    know the namespace, not the file)."""
    from ..config.loading import NoSettings
    from ..offline import StackFileError, load_project
    from ..offline.project import stack_name

    file = ""
    if stack and any(isinstance(p, NoSettings) for p in problems):
        try:
            project = load_project(project_dir)
            file = project.shown_stack_file(stack_name(stack, project.name))
        except StackFileError:
            pass
    return [str(p.in_file(file) if isinstance(p, NoSettings) and file else p) for p in problems]


# What a command that works on one platform stack says of a fleet stack, and what to run instead.
FLEET_INSTEAD = {
    "verify": "it has no cluster of its own to verify; verify its members with `verify --fleet {stack}`",
    "render": "it declares a Fleet and no Kubernetes object, so there is nothing to render; render a member stack "
              "(`render --stack <member>`), or review the fleet with `plan --fleet {stack}`",
    "preflight": "it has no pools of its own; check its members' quota with `preflight --fleet {stack}`",
}


def refuse_fleet_stack(project_dir: str, stack: str, command: str) -> None:
    """BadInputError when `stack` is a fleet stack, which `command` (a single platform's) cannot take: says so, and
    what to run instead. A stack file that cannot be read is left to the command's own reading, which says why."""
    from ..config import is_fleet_stack
    from ..offline import StackFileError, load_project
    from ..offline.stack_file import read_stack_file

    try:
        project = load_project(project_dir)
        found = read_stack_file(project, stack)
    except StackFileError:
        return
    if is_fleet_stack(found.config, project.name):
        raise BadInputError([f"{found.file}: a fleet stack (it has the 'fleet' section); "
                             + FLEET_INSTEAD[command].format(stack=stack)])
