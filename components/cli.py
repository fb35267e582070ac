"""Command line of the offline engine: plan, render and diff a Pulumi project's stacks with no cloud and no Pulumi CLI.

Exit status: 0 done (diff: no change), 2 bad input (one line per problem on stderr, nothing on stdout),
3 diff found changes (size: something does not fit), 4 `diff` found a change that would fail or must not be
applied, or `plan --policy` a mandatory policy violated (and `plan` found two resources creating the same
cluster-scoped DeviceClass), 1 anything unexpected.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .sdk_versions import unsupported

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT, EXIT_CHANGES, EXIT_POLICY = 0, 1, 2, 3, 4


class BadInputError(Exception):
    """Input the user can fix: each line is one problem."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        # `python -m aks_dra_vgpu` where installed, `python -m components` inside this repository.
        prog=f"python -m {__package__}",
        description="Preview what a stack declares, offline: no cloud credentials, no Pulumi CLI.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def project_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--stack", required=True, help="stack name: reads <stackConfigDir>/Pulumi.<stack>.yaml")
        p.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")

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
    render.add_argument("--out", required=True, help="output folder")

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
    size.add_argument("--prices", help="a price table (YAML) instead of the package's own (see components/data/prices.yaml)")
    size_fmt = size.add_mutually_exclusive_group()
    size_fmt.add_argument("--json", action="store_true", help="print the sizing plan as JSON")
    size_fmt.add_argument("--format", choices=["text", "json", "markdown"], default=None, help="text (default), json or markdown")

    docs = sub.add_parser("docs", help="regenerate the docs made from the code (config reference, stack schema, sizing, graph)")
    docs.add_argument("--project-dir", default=".", help="the repository's folder (default: current folder)")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 3 when a generated file is out of date")
    return parser


def _run_plan(args: argparse.Namespace):
    from pulumi.errors import InputPropertiesError

    from .config import ConfigError
    from .offline import StackFileError, load_project, run_project

    try:
        project = load_project(args.project_dir)
        return run_project(project, args.stack, preview=True)
    except StackFileError as exc:
        raise BadInputError([str(exc)]) from None
    except ConfigError as exc:
        raise BadInputError([str(p) for p in exc.problems]) from None
    except InputPropertiesError as exc:
        raise BadInputError([f"{e['property_path']}: {e['reason']}" for e in (exc.errors or [])] or [exc.message]) from None


def cmd_plan(args: argparse.Namespace) -> int:
    """`plan`: the tree (for people), the JSON document (for machines) or a Mermaid graph."""
    plan = _run_plan(args)
    fmt = "json" if args.json else (args.format or "tree")
    if fmt == "json":
        out = plan.to_json()
    elif fmt == "mermaid":
        from .offline.mermaid import to_mermaid

        out = to_mermaid(plan)
    else:
        from .offline.tree import render_tree

        out = render_tree(plan)
    status = EXIT_OK
    extra: list[str] = []
    if args.critical_path:
        from .offline.critical_path import critical_path, format_critical_path

        extra.append(format_critical_path(critical_path(plan)))
    if args.policy:
        from .policies import check_plan, format_violations

        violations = check_plan(plan)
        extra.append(format_violations(violations))
        if any(v.mandatory for v in violations):
            status = EXIT_POLICY
    from .policies import plan_findings

    # Two components creating one cluster-scoped object is refused, not just reported; advisories are warnings.
    errors, warnings = plan_findings(plan)
    sys.stdout.write(out)
    # The JSON and Mermaid documents stay parseable: reports go beside them, on stderr.
    report = sys.stdout if fmt == "tree" else sys.stderr
    for block in extra:
        report.write(block)
    for line in errors:
        print(f"error: {line}", file=sys.stderr)
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    return EXIT_POLICY if errors else status


def cmd_render(args: argparse.Namespace) -> int:
    """`render`: one YAML file per Kubernetes object and per Helm release its values and chart."""
    from .offline.render import render

    plan = _run_plan(args)
    written = render(plan, Path(args.out))
    for path in written:
        print(path)
    return EXIT_OK


def _read_plan(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise BadInputError([f"{path}: no such file"]) from None
    except json.JSONDecodeError as exc:
        raise BadInputError([f"{path}:{exc.lineno}:{exc.colno}: not a plan document: {exc.msg}"]) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("resources"), list):
        raise BadInputError([f"{path}: not a plan document (no 'resources' list); make one with `plan --json`"])
    return doc


def cmd_diff(args: argparse.Namespace) -> int:
    """`diff`: added / changed / replaced / deleted resources between two plans."""
    from .offline.diff import diff_plans
    from .offline.diff_text import format_diff

    try:
        result = diff_plans(_read_plan(args.old), _read_plan(args.new))
    except ValueError as exc:
        raise BadInputError([f"{exc}; make plans with `plan --json`"]) from None
    sys.stdout.write(json.dumps(result.to_dict(), indent=2, sort_keys=True) + "\n" if args.json else format_diff(result))
    return result.exit_status  # 0 no change, 3 changes, 4 a change that would fail or must not be applied


def cmd_docs(args: argparse.Namespace) -> int:
    """`docs`: write docs/configuration.md, the sizing table and the README's resource graph; print what changed."""
    from .docs import DocsError, sync_docs

    try:
        changed = sync_docs(Path(args.project_dir), check=args.check)
    except (DocsError, OSError) as exc:
        raise BadInputError([str(exc)]) from None
    for path in changed:
        print(path)
    return EXIT_CHANGES if args.check and changed else EXIT_OK


def cmd_size(args: argparse.Namespace) -> int:
    """`size`: the sizing planner (components.size_command)."""
    from .config import ConfigError
    from .size_command import run

    try:
        return run(args)
    except ConfigError as exc:
        raise BadInputError([str(p) for p in exc.problems]) from None


COMMANDS = {"plan": cmd_plan, "render": cmd_render, "diff": cmd_diff, "size": cmd_size, "docs": cmd_docs}


def main(argv: list[str] | None = None) -> int:
    """Runs one command; returns the exit status."""
    args = _parser().parse_args(argv)
    # Before anything imports an SDK: one line per dependency outside its declared range instead of a traceback.
    problems = unsupported()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return COMMANDS[args.command](args)
    except BadInputError as exc:
        for line in exc.lines:
            print(line, file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
