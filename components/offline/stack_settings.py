"""This package's settings in a stack file validated: the problems of one stack's own settings, for a program that reads
them (`stack_file.reads_our_settings`); the problems across a fleet's stacks are `fleet_member`'s."""

from __future__ import annotations

from ..config.errors import Problem
from .project import Project
from .stack_file import StackFile, pool_named, reads_our_settings


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
        return [str(p.in_file(file) if isinstance(p, NoSettings) else
                    Problem(pool_named(p.path, found.config, project.name), p.message))
                for p in exc.problems if not found.covers(p.path)]
    return []
