"""A stack of a Pulumi project run: its stack file read (`stack_file`), this package's settings in it checked
(`stack_settings`, and across its fleet's stacks: `fleet_member`), then the project's program run with its config.

Only the file counts: ``PULUMI_CONFIG`` and the other config variables of the caller's environment are hidden from the
program (`running`), so the plan is the file's.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from .capture import capture
from .fleet_member import fleet_problems, referenced_outputs
from .plan import Plan
from .project import Project, StackFileError, stack_name
from .running import isolated_program
from .stack_file import StackFile, in_file, read_stack_config, read_stack_file
from .stack_settings import settings_problems

DEFAULT_TIMEOUT = 120.0

__all__ = ["DEFAULT_TIMEOUT", "StackFile", "read_stack_config", "read_stack_file", "run_project"]


def run_project(project: Project, stack: str, *, preview: bool = True, timeout: float | None = DEFAULT_TIMEOUT,
                fleet_checked: bool = False) -> Plan:
    """Runs the project's program with the stack's config under the offline engine.

    The program runs as the language host runs it, apart from the caller: its stdout goes to stderr (a ``print`` never
    mixes into a plan document), its stdin is empty, ambient ``PULUMI_*`` variables are hidden. A program that stops
    early (``sys.exit``), fails, or runs past `timeout` seconds raises `running.ProgramError` (one line).

    Problems of the stack file's values and of the package's settings in it are all reported at once, before the
    program runs: StackFileError lists the file's and the settings' at keys the file's do not already cover.
    """
    found = read_stack_file(project, stack)
    stack = stack_name(stack, project.name)
    problems = [*found.lines(), *(in_file(found.file, line) for line in settings_problems(found, project, found.file))]
    if not fleet_checked:  # `fleet_checked`: the caller ran `load_fleet` on this stack's fleet
        problems += fleet_problems(found, project, stack)  # its own problems again, said the same way: once
    if problems:
        raise StackFileError(*dict.fromkeys(problems))

    def program() -> None:
        with _ProjectOnPath(project.directory):
            runpy.run_path(str(project.main), run_name="__main__")

    with isolated_program(project.main, timeout):
        return capture(program, project=project.name, stack=stack, config=found.config, preview=preview,
                       secret_keys=found.secrets, timeout=timeout, stack_outputs=referenced_outputs(project, found))


class _ProjectOnPath:
    """Makes the project's folder importable while its program runs, as the language host does."""

    def __init__(self, directory: Path):
        self.directory = str(directory)

    def __enter__(self) -> None:
        sys.path.insert(0, self.directory)

    def __exit__(self, *exc: object) -> None:
        if self.directory in sys.path:
            sys.path.remove(self.directory)
