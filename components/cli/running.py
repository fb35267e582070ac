"""Running a project's program for a subcommand: the plan of a stack (whatever the program raises becomes one line per
problem: problems.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from .output import printable, write
from .problems import program_problems


def run_plan(project_dir: str, stack: str, timeout: float | None, fleet_checked: bool = False):
    """The stack's plan (a first preview); BadInputError with one line per problem for anything the user can fix
    (`fleet_checked`: the rules across its fleet's stacks ran already)."""
    from ..offline import load_project, run_project
    from ..offline.project import stack_name
    from ..offline.running import ambient_config, ambient_config_warning

    with program_problems(Path(project_dir)):
        stack_name(stack)
        project = load_project(project_dir)
    ignored = ambient_config()
    if ignored:  # ignored, not refused: a shell or CI job may carry them from an earlier `pulumi` run
        write(sys.stderr, printable(ambient_config_warning(ignored)) + "\n")
    with program_problems(project.directory):
        return run_project(project, stack, preview=True, timeout=timeout, fleet_checked=fleet_checked)
