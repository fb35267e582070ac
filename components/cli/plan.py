"""`plan`: what a stack declares, as a tree, a JSON document or a Mermaid graph; critical path and policy on request."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .findings import report_findings
from .output import EXIT_OK, EXIT_POLICY, BadInputError, bad_input_document, printable_lines, write
from .running import run_plan


def cmd_plan(args: argparse.Namespace) -> int:
    """`plan`: the tree (for people), the JSON document (for machines) or a Mermaid graph; `--fleet`: a fleet. With
    JSON asked for, bad input is a JSON document too (and its lines on stderr), so a script reading stdout always
    reads a document."""
    try:
        return _plan(args)
    except BadInputError as exc:
        if args.json or args.format == "json":
            write(sys.stdout, json.dumps(error_document(exc.lines), indent=2, sort_keys=True) + "\n")
        raise


def error_document(lines: list[str]) -> dict[str, Any]:
    """`plan --json`'s document for input it refused: nothing planned (no `resources`, so `diff` never reads it as an
    empty plan), each problem as `size --json` writes one."""
    return bad_input_document(lines)


def _plan(args: argparse.Namespace) -> int:
    if getattr(args, "fleet", None) is not None:
        from .fleet import cmd_plan_fleet

        if args.format == "mermaid" or args.policy:
            raise BadInputError(["plan --fleet: --format mermaid and --policy take one --stack"])
        args.json = args.json or args.format == "json"
        return cmd_plan_fleet(args)
    if getattr(args, "out", None):
        raise BadInputError(["plan: --out goes with --fleet (render writes a stack's manifests: `render --out`)"])
    plan = run_plan(args.project_dir, args.stack, args.timeout)
    fmt = "json" if args.json else (args.format or "text")
    fmt = "tree" if fmt == "text" else fmt  # the text for people is the tree (every command's --format default: text)
    if fmt == "json":
        out = plan.to_json()
    elif fmt == "mermaid":
        from ..review.mermaid import to_mermaid

        out = to_mermaid(plan)
    else:
        from ..review.tree import render_tree

        out = printable_lines(render_tree(plan))
    status = EXIT_OK
    extra: list[str] = []
    if args.critical_path:
        from ..review.critical_path import critical_path, format_critical_path

        extra.append(format_critical_path(critical_path(plan)))
    said: set[str] = set()
    if args.policy:
        from ..policies import check_plan, format_violations

        credentials = _stack_file_credentials(args.project_dir, plan.stack)
        said = {message for _, message in credentials}
        from ..policies.credentials import NO_PLAIN_CREDENTIALS
        from ..policies.findings import Violation

        violations = check_plan(plan) + [Violation(NO_PLAIN_CREDENTIALS, where, message, True)
                                         for where, message in credentials]
        extra.append(format_violations(violations))
        if any(v.mandatory for v in violations):
            status = EXIT_POLICY
    from ..policies import plan_findings

    if args.policy and plan_findings(plan)[0]:
        status = EXIT_POLICY
    write(sys.stdout, out)
    # The JSON and Mermaid documents stay parseable: reports go beside them, on stderr.
    report = sys.stdout if fmt == "tree" else sys.stderr
    for block in extra:
        write(report, printable_lines(block))
    # With --policy the report above already names each finding (as mandatory or advisory): each is said once.
    refused = report_findings(plan, in_document=fmt == "json", said=said, findings=not args.policy,
                              project_dir=args.project_dir)
    return EXIT_POLICY if refused else status


def _stack_file_credentials(project_dir: str, stack: str) -> list[tuple[str, str]]:
    """The no-plain-credentials policy on the stack's file, as the pack runs it: (the file, the message) each."""
    from ..offline import load_project
    from ..offline.stacks import read_stack_file
    from ..policies import check_plain_credentials

    project = load_project(project_dir)
    found = read_stack_file(project, stack)
    return [(project.shown_stack_file(stack), message)
            for message in check_plain_credentials(found.config, found.secrets, project.name, stack)]
