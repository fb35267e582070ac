"""`render`: the Kubernetes manifests and Helm values a stack declares, written to a folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import EXIT_OK, BadInputError, printable, write
from .running import refuse_fleet_stack, run_plan


def cmd_render(args: argparse.Namespace) -> int:
    """`render`: one YAML file per Kubernetes object and per Helm release its values and chart."""
    from ..offline.output_dir import OutputError, check_folder
    from ..offline.render import render

    try:
        # Before the program runs: a wrong --out costs nothing. The project's folder and those above it are refused.
        check_folder(args.out, project=Path(args.project_dir))
    except OutputError as exc:
        raise BadInputError([str(exc)]) from None
    out = Path(args.out).absolute()  # fixed before the program runs, whatever folder it moves to
    refuse_fleet_stack(args.project_dir, args.stack, "render")
    plan = run_plan(args.project_dir, args.stack, args.timeout)
    notes: list[str] = []
    try:
        written = [Path(args.out) / path.relative_to(out) for path in render(plan, out, notes)]
    except OutputError as exc:
        raise BadInputError([str(exc)]) from None
    for note in notes:
        write(sys.stderr, printable(note) + "\n")
    for path in written:
        write(sys.stdout, printable(str(path)) + "\n")
    return EXIT_OK
