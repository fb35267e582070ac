"""The stack `size --stack` reads: its validated settings and its gpuPools as the file writes them, or, for a fleet
stack, what to size instead (the program is not run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..config import (
    ConfigError,
    Problem,
    StackConfig,
    stack_config_from_mapping,
)
from ..config.fleet_membership import is_fleet_stack


def read_stack_file(project_dir: str, stack: str) -> tuple[StackConfig, list[dict[str, Any]] | None]:
    """The stack's validated settings and its gpuPools as the stack file writes them (the program is not run): a
    secure value stays as its ciphertext ({secure: ...}), so a suggestion pasted back keeps the same secret. Every
    problem of the file and of its settings at once."""
    from ..offline import StackFileError, load_project
    from ..offline.stacks import read_stack_file as read_file

    try:
        project = load_project(project_dir)
        found = read_file(project, stack)
    except StackFileError as exc:
        raise ConfigError([Problem("", line) for line in exc.lines]) from None
    if is_fleet_stack(found.config, project.name):
        raise ConfigError([Problem("--stack", fleet_stack_problem(project_dir, stack))])
    try:
        validated = stack_config_from_mapping(found.config, project.name)
    except ConfigError as exc:
        more = [p for p in exc.problems if not found.covers(p.path)]
        raise ConfigError([*(Problem("", line) for line in found.lines()), *more]) from None
    if found.problems:
        raise ConfigError([Problem("", line) for line in found.lines()])
    written = found.written.get(f"{project.name}:gpuPools")
    if isinstance(written, str):  # `pulumi config set --path` stores structured values as JSON text
        written = json.loads(written)
    ok = isinstance(written, list) and len(written) == len(validated.gpu_pools) and all(isinstance(p, dict) for p in written)
    return validated, written if ok else None


def fleet_stack_problem(project_dir: str, stack: str) -> str:
    """What to say when `--stack` names a fleet stack: it has no GPU pools to size; size each member instead."""
    from ..offline import StackFileError
    from ..offline.fleet_stacks import load_fleet

    try:
        members = [m.stack for m in load_fleet(Path(project_dir), stack).members]
    except (ConfigError, StackFileError):
        members = []
    todo = ("; size each member stack instead: " + ", ".join(f"`size --stack {m}`" for m in members) if members
            else "; size one of its member stacks instead (`size --stack <member>`, a stack whose fleetMembership."
                 f"fleetStack is '{stack}')")
    return (f"'{stack}' is a fleet stack (it sets `fleet`: the Fleet, its update strategy and auto-upgrade profile), "
            f"which has no GPU pools to size{todo}")
