"""Command line of the offline engine: plan, render and diff a Pulumi project's stacks with no cloud and no Pulumi CLI.

Exit status: 0 done (diff: no change), 2 bad input (one line per problem on stderr, nothing on stdout),
3 diff found changes (size: something does not fit), 4 `diff` found a change that would fail or must not be
applied, or `plan --policy` a mandatory policy violated (and `plan` found two resources creating the same
cluster-scoped DeviceClass), 1 anything unexpected (one line too; set AKS_DRA_VGPU_TRACEBACK=1 to see the traceback).
Whatever the input, no traceback is printed, every line is printable (control characters are escaped), and the
program's own output never reaches stdout.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import NoReturn

from ..catalog.sdk_versions import unsupported
from .output import printable, printable_lines, write
from .problems import BadInputError, Interrupted, program_problems

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT, EXIT_CHANGES, EXIT_POLICY = 0, 1, 2, 3, 4
DEBUG_ENV = "AKS_DRA_VGPU_TRACEBACK"
MAX_TIMEOUT = 86400.0
MAX_PROBLEMS = 50
DEFAULT_TIMEOUT = 120.0  # the same as offline.stacks.DEFAULT_TIMEOUT (not imported here: no SDK before the version check)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake reported as one line (argparse prints the usage block and exits)."""

    def error(self, message: str) -> NoReturn:
        raise BadInputError([f"{self.prog}: {message} (see --help)"])


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds above 0 and at most {MAX_TIMEOUT:g}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        # `python -m aks_dra_vgpu` where installed, `python -m components` inside this repository.
        prog=f"python -m {__package__.rpartition('.')[0]}",
        description="Preview what a stack declares, offline: no cloud credentials, no Pulumi CLI. Ambient PULUMI_* "
        "environment variables are hidden from the program: the plan depends only on the project and its stack file. "
        "PULUMI_CONFIG and PULUMI_CONFIG_<KEY> are ignored with a warning (the Pulumi CLI sets them itself for the "
        "program it runs, so a value in the shell belongs to another run, not to this stack's file).",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def project_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--stack", required=True, help="stack name: reads <stackConfigDir>/Pulumi.<stack>.yaml")
        p.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
        p.add_argument("--timeout", type=_timeout, default=DEFAULT_TIMEOUT,
                       help=f"seconds the program may run, Outputs included, before the plan gives up with exit 2 "
                       f"(default: {DEFAULT_TIMEOUT:g})")

    plan = sub.add_parser("plan", help="run the program under mocks and print what it declares")
    project_args(plan)
    fmt = plan.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the plan document (deterministic JSON)")
    fmt.add_argument(
        "--format", choices=["tree", "json", "mermaid"], default=None, help="tree (default), json or mermaid"
    )
    plan.add_argument("--critical-path", action="store_true", help="estimate the `pulumi up` critical path")
    plan.add_argument("--policy", action="store_true", help="also check the plan against the policy pack")

    render = sub.add_parser("render", help="write the Kubernetes manifests and Helm values a stack declares")
    project_args(render)
    render.add_argument("--out", required=True, help="output folder (files it did not write are never touched)")

    diff = sub.add_parser("diff", help="compare two `plan --json` documents; exit 3 when something changes")
    diff.add_argument("old", help="the plan before (JSON file)")
    diff.add_argument("new", help="the plan after (JSON file)")
    diff.add_argument("--json", action="store_true", help="print the diff as JSON")

    size = sub.add_parser("size", help="size GPU pools for workloads: slice sizes, claim templates, nodes, cost; exit 3 "
                          "when something does not fit")
    size.add_argument("--workload", action="append", metavar="NAME=GiB[xCOUNT]",
                      help="a workload: GPU memory per replica in GiB and replicas, e.g. embed=3x4 (repeatable)")
    size.add_argument("--workloads", action="append", metavar="FILE.yaml",
                      help="workloads from a YAML file: workloads: [{name, memoryGiB, count, devices}] (repeatable)")
    size.add_argument("--stack", help="check this stack's GPU pools against the workloads (and use its samples settings)")
    size.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
    size.add_argument("--prices", help="a price table (YAML) instead of the package's own (components/catalog/data/prices.yaml)")
    size_fmt = size.add_mutually_exclusive_group()
    size_fmt.add_argument("--json", action="store_true", help="print the sizing plan as JSON")
    size_fmt.add_argument("--format", choices=["text", "json", "markdown"], default=None, help="text (default), json or markdown")

    docs = sub.add_parser("docs", help="regenerate the docs made from the code (config reference, stack schema, sizing, graph)")
    docs.add_argument("--project-dir", default=".", help="the repository's folder (default: current folder)")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 3 when a generated file is out of date")
    return parser


def run_plan(project_dir: str, stack: str, timeout: float | None):
    """The stack's plan (a first preview); BadInputError with one line per problem for anything the user can fix."""
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
        return run_project(project, stack, preview=True, timeout=timeout)


def cmd_plan(args: argparse.Namespace) -> int:
    """`plan`: the tree (for people), the JSON document (for machines) or a Mermaid graph."""
    plan = run_plan(args.project_dir, args.stack, args.timeout)
    fmt = "json" if args.json else (args.format or "tree")
    if fmt == "json":
        out = plan.to_json()
    elif fmt == "mermaid":
        from ..offline.mermaid import to_mermaid

        out = to_mermaid(plan)
    else:
        from ..offline.tree import render_tree

        out = printable_lines(render_tree(plan))
    status = EXIT_OK
    extra: list[str] = []
    if args.critical_path:
        from ..offline.critical_path import critical_path, format_critical_path

        extra.append(format_critical_path(critical_path(plan)))
    if args.policy:
        from ..policies import check_plan, format_violations

        violations = check_plan(plan)
        extra.append(format_violations(violations))
        if any(v.mandatory for v in violations):
            status = EXIT_POLICY
    from ..policies import plan_findings

    # Two components creating one cluster-scoped object is refused, not just reported; advisories are warnings.
    errors, warnings = plan_findings(plan)
    write(sys.stdout, out)
    # The JSON and Mermaid documents stay parseable: reports go beside them, on stderr.
    report = sys.stdout if fmt == "tree" else sys.stderr
    for block in extra:
        write(report, printable_lines(block))
    for line in errors:
        write(sys.stderr, printable(f"error: {line}") + "\n")
    for line in warnings:
        write(sys.stderr, printable(f"warning: {line}") + "\n")
    return EXIT_POLICY if errors else status


def cmd_render(args: argparse.Namespace) -> int:
    """`render`: one YAML file per Kubernetes object and per Helm release its values and chart."""
    from ..offline.output_dir import OutputError, check_folder
    from ..offline.render import render

    try:
        check_folder(args.out)  # before the program runs: a wrong --out costs nothing
    except OutputError as exc:
        raise BadInputError([str(exc)]) from None
    out = Path(args.out).absolute()  # fixed before the program runs, whatever folder it moves to
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


def cmd_diff(args: argparse.Namespace) -> int:
    """`diff`: added / changed / replaced / deleted resources between two plans."""
    import json

    from ..offline.diff import diff_plans
    from ..offline.diff_text import format_diff
    from ..offline.plan_input import PlanDocumentError, read_plan

    try:
        old, new = read_plan(args.old), read_plan(args.new)
        result = diff_plans(old, new)
    except PlanDocumentError as exc:
        raise BadInputError(exc.lines) from None
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        # A document that passed the shape check but still trips the diff: a bad plan all the same.
        raise BadInputError([f"not a plan document the diff can read ({type(exc).__name__}: {exc}); make plans with "
                             "`plan --json`"]) from None
    from ..offline.equal import json_safe

    doc = json_safe(result.to_dict())  # strict JSON even when a plan held NaN
    text = json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n" if args.json else printable_lines(
        format_diff(result))
    write(sys.stdout, text)
    return result.exit_status  # 0 no change, 3 changes, 4 a change that would fail or must not be applied


def cmd_docs(args: argparse.Namespace) -> int:
    """`docs`: write docs/configuration.md, the sizing table and the README's resource graph; print what changed."""
    from .docs import DocsError, sync_docs

    directory = Path(args.project_dir).absolute()
    own = (DocsError, OSError, UnicodeError)
    try:
        with program_problems(directory.resolve(), passthrough=own):
            changed = sync_docs(directory, check=args.check)
    except own as exc:
        raise BadInputError([" ".join(str(exc).split())]) from None
    for path in changed:
        write(sys.stdout, printable(str(path)) + "\n")
    return EXIT_CHANGES if args.check and changed else EXIT_OK


def cmd_size(args: argparse.Namespace) -> int:
    """`size`: the sizing planner (components.sizing.command)."""
    from ..config import ConfigError
    from ..sizing.command import run

    try:
        return run(args)
    except ConfigError as exc:
        raise BadInputError([str(p) for p in exc.problems]) from None


COMMANDS = {"plan": cmd_plan, "render": cmd_render, "diff": cmd_diff, "size": cmd_size, "docs": cmd_docs}


def _report(lines: list[str]) -> None:
    shown = list(lines or ["bad input"])
    if len(shown) > MAX_PROBLEMS:  # a file of 5000 mistakes is told in a screenful, not 5000 lines
        shown = [*shown[:MAX_PROBLEMS], f"... and {len(shown) - MAX_PROBLEMS} more problems (fix these first)"]
    for line in shown:
        write(sys.stderr, printable(str(line)) + "\n")  # a newline inside a problem is escaped: one line each


def main(argv: list[str] | None = None) -> int:
    """Runs one command; returns the exit status (never raises, never prints a traceback)."""
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help (0), or argparse giving up on its own
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        # Before anything imports an SDK: one line per dependency outside its declared range instead of a traceback.
        problems = unsupported()
        if problems:
            _report(problems)
            return EXIT_BAD_INPUT
        with Interrupted.watched():
            return COMMANDS[args.command](args)
    except BadInputError as exc:
        _report(exc.lines)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`| head`): nothing left to say
        return EXIT_ERROR
    except BaseException as exc:  # the last line of defence: one line, never a traceback
        if os.environ.get(DEBUG_ENV) == "1":
            raise
        _report([f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} (set {DEBUG_ENV}=1 to see "
                 "the traceback)"])
        return EXIT_ERROR
