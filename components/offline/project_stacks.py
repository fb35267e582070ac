"""Every stack file of a project, each read once (`stack_file`) with this package's sections decoded: what a reader of
several stacks (a fleet) starts from, so that no later step opens a stack file or decodes a section again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config.loading import decoded_section
from .project import Project, StackFileError
from .stack_file import StackFile, in_file, read_stack_file


@dataclass(frozen=True)
class ReadStack:
    """One stack file of the project, read once: its contents, or the lines saying why it cannot be read."""

    stack: str
    file: Path
    shown: str  # the file as messages name it (`Project.shown_stack_file`)
    found: StackFile | None
    unreadable: tuple[str, ...] = ()
    # The project's sections in it by key, each as a mapping (Pulumi's JSON text decoded; {} for any other value).
    sections: Mapping[str, dict[str, Any]] = field(default_factory=dict)


def read_stacks(project: Project) -> dict[str, ReadStack]:
    """Every stack file of the project, by stack, each read once; a file that cannot be read is kept with its lines,
    each naming the file, so that it is reported beside the others' problems."""
    read = {}
    for stack in project.stacks():
        file, shown = project.stack_file(stack), project.shown_stack_file(stack)
        try:
            found = read_stack_file(project, stack)
        except StackFileError as exc:
            read[stack] = ReadStack(stack, file, shown, None, tuple(in_file(shown, line) for line in exc.lines))
            continue
        ours = f"{project.name}:"
        sections = {key.removeprefix(ours): decoded_section(value) for key, value in found.config.items()
                    if key.startswith(ours)}
        read[stack] = ReadStack(stack, file, shown, found, sections=sections)
    return read
