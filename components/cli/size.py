"""`size`: the sizing planner's command (components/sizing/command.py), its bad input as one line per problem."""

from __future__ import annotations

import argparse

from .output import BadInputError


def cmd_size(args: argparse.Namespace) -> int:
    """`size`: the sizing planner (components.sizing.command)."""
    from ..config import ConfigError
    from ..sizing.command import run
    from .running import in_stack_file

    try:
        return run(args)
    except ConfigError as exc:
        raise BadInputError(in_stack_file(exc.problems, args.project_dir, args.stack)) from None
