"""`size`: the sizing planner's command (components/sizing/command.py), its bad input as one line per problem."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .output import EXIT_BAD_INPUT, BadInputError, bad_input_problems, write


def cmd_size(args: argparse.Namespace) -> int:
    """`size`: the sizing planner (components.sizing.command); with --json, bad input is a JSON document too (and its
    lines on stderr), so a script reading stdout always reads a document."""
    from ..config import ConfigError
    from ..sizing.command import run
    from .running import in_stack_file
    from .size_quota import quota_of, quota_problems

    try:
        problems = quota_problems(args)
        if problems:
            raise BadInputError(problems)
        try:
            return run(args, quota_of(args) if args.subscription else None)
        except ConfigError as exc:
            raise BadInputError(in_stack_file(exc.problems, args.project_dir, args.stack)) from None
    except BadInputError as exc:
        if args.json:
            write(sys.stdout, json.dumps(error_document(exc.lines), indent=2, sort_keys=True) + "\n")
        raise


def error_document(lines: list[str]) -> dict[str, Any]:
    """`size --json`'s document for input it refused: nothing planned, each problem as a plan's problems are written."""
    return {"exit": EXIT_BAD_INPUT, "fits": False, "problems": bad_input_problems(lines)}
