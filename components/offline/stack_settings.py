"""This package's settings in a stack file validated: the problems of one stack's own settings, for a program that reads
them (`Project.reads_our_settings`); the problems across a fleet's stacks are `fleet_member`'s."""

from __future__ import annotations

import json
import re
from typing import Any

from ..config.errors import Problem
from .project import Project
from .stack_file import StackFile

POOL_PATH = re.compile(r"gpuPools\[(\d+)\]")


def settings_problems(found: StackFile, project: Project, file: str) -> list[str]:
    """The problems of this package's settings in the file's readable values (what the program would report first),
    at keys the file's own problems do not cover; for a program that reads them (`Project.reads_our_settings`), a file
    that sets none of them is told so, by its name (`file`).

    No value is hidden from them: offline, a secret is never decrypted (it is ``[secret]`` already), and every other
    value is the file's own plain text, so a message quotes exactly what the file shows (masked by value, never by
    the section a secret sits in)."""
    from ..config import STACK_KEYS, ConfigError, is_fleet_stack, stack_config_from_mapping
    from ..config.loading import NoSettings

    if is_fleet_stack(found.config, project.name) and project.reads_our_settings:
        from ..config.fleet_loading import fleet_config_from_mapping  # a fleet stack's models load for it alone

        try:
            fleet_config_from_mapping(found.config, project.name)
        except ConfigError as exc:
            return [str(p) for p in exc.problems if not found.covers(p.path)]
        return []
    ours = any(f"{project.name}:{key}" in found.config for key in STACK_KEYS)
    if not project.reads_our_settings or not (ours or not found.problems):
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


def pool_named(path: str, config: dict[str, Any], project: str) -> str:
    """A key path with the GPU pool it is in named beside its index (``gpuPools[2] (h100mig).gpuInstanceProfile``),
    when the pool has a readable name: a message says which pool, not only where it sits in the list."""
    match = POOL_PATH.match(path)
    if match is None:
        return path
    pools = config.get(f"{project}:gpuPools")
    if isinstance(pools, str):
        try:
            pools = json.loads(pools)
        except ValueError:
            return path
    index = int(match.group(1))
    pool = pools[index] if isinstance(pools, list) and index < len(pools) else None
    name = pool.get("name") if isinstance(pool, dict) else None
    if not isinstance(name, str) or not name.isprintable() or len(name) > 40:
        return path
    return f"{match.group(0)} ({name}){path[match.end():]}"
