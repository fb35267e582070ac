"""Command line of the offline engine: plan, render and diff a Pulumi project's stacks with no cloud and no Pulumi CLI.

Exit status: 0 done (diff: no change), 2 bad input (one line per problem on stderr; nothing on stdout, or with
--json the command's document holding the problems),
3 diff found changes (size: something does not fit; verify: something not there yet), 4 `diff` found a change that
would fail or must not be applied, `verify` something broken, or `plan --policy` a mandatory policy violated (and
`plan` found two resources creating the same cluster-scoped DeviceClass), 1 anything unexpected (one line too; set
AKS_DRA_VGPU_TRACEBACK=1 to see the traceback).
Whatever the input, no traceback is printed, every line is printable (control characters are escaped), and the
program's own output never reaches stdout.

Thin, on top of everything: one module per subcommand (`plan`, `render`, `diff`, `size`, `verify`, `regenerate` for `docs`;
`fleet` for `plan --fleet` and `diff --fleet`; `verify_fleet` for `verify --fleet`; `rollout` for `fleet-rollout`;
`preflight`; `rightsize`),
what they share (`output`, `problems`, `running`, `findings`), and `docs` (the files made from the code). Nothing of
the package imports it but `__main__`, in the child process `components/watchdog.py` supervises.
"""

from __future__ import annotations

import argparse
import functools
import os
from typing import NoReturn

from ..catalog.sdk_versions import unsupported
from .diff import cmd_diff
from .durations import seconds
from .output import (
    EXIT_BAD_INPUT,
    EXIT_CHANGES,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_POLICY,
    BadInputError,
    _report,
    printable,
    printable_lines,
    write,
)
from .plan import cmd_plan
from .preflight import add_preflight_arguments, cmd_preflight
from .problems import Interrupted
from .regenerate import cmd_docs
from .render import cmd_render
from .rightsize import add_rightsize_arguments, cmd_rightsize
from .rollout import add_rollout_arguments, cmd_rollout
from .size import add_size_arguments, cmd_size
from .verify import add_verify_arguments
from .verify_fleet import cmd_verify_or_fleet

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CHANGES",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_POLICY",
    "BadInputError",
    "main",
    "printable",
    "printable_lines",
    "write",
]

DEBUG_ENV = "AKS_DRA_VGPU_TRACEBACK"
DEFAULT_TIMEOUT = 120.0  # the same as offline.stacks.DEFAULT_TIMEOUT (not imported here: no SDK before the version check)
MAX_TIMEOUT = 86400.0
FLEET_METAVAR = "FLEET_STACK"  # every --fleet that takes a value names it so (plan, verify, fleet-rollout)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake reported as one line (argparse prints the usage block and exits)."""

    def error(self, message: str) -> NoReturn:
        raise BadInputError([f"{self.prog}: {message} (see --help)"])


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line's parser, built once per process: it is the same every time (no choice or default read from
    anywhere), and argparse keeps nothing of one parse for the next (a parse fills a new Namespace), so a caller that
    runs `main` many times in one process (a notebook, a test suite) does not build sixty arguments each time."""
    parser = _Parser(
        # `python -m aks_dra_vgpu` where installed, `python -m components` inside this repository.
        prog=f"python -m {__package__.rpartition('.')[0]}",
        description="Preview, size and check what a stack declares. Offline (no cloud credentials, no Pulumi CLI, "
        "nothing leaves the machine): plan, render, diff, size (unless --subscription), docs. Online: verify (reads, "
        "and with --smoke writes to, a cluster through a kubeconfig), fleet-rollout (Azure Resource Manager with a "
        "token, and the canary's clusters), preflight (reads quota and VM sizes from Azure Resource Manager) and "
        "rightsize (reads a Prometheus query API). "
        "Ambient PULUMI_* environment variables are hidden from the program: the plan depends only on the "
        "project and its stack file. PULUMI_CONFIG and PULUMI_CONFIG_<KEY> are ignored with a warning (the Pulumi CLI "
        "sets them itself for the program it runs, so a value in the shell belongs to another run, not to this stack's "
        "file). Every command: exit 2 bad input (one line per problem on stderr; with --json, also the command's "
        "JSON document on stdout, its problems in it), 1 anything unexpected. The output is text for people unless "
        "--json (or, for plan and size, --format) asks otherwise; plan's text is its resource tree.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def project_args(p: argparse.ArgumentParser, fleet: bool = False) -> None:
        if fleet:  # one stack, or a fleet stack and all its member stacks
            which = p.add_mutually_exclusive_group(required=True)
            which.add_argument("--stack", help="stack name: reads <stackConfigDir>/Pulumi.<stack>.yaml")
            which.add_argument("--fleet", metavar=FLEET_METAVAR, help="a fleet stack's name: plans it and every member "
                               "stack of the project "
                               "whose fleetMembership names it, with a summary per member (docs/fleet.md)")
        else:
            p.add_argument("--stack", required=True, help="stack name: reads <stackConfigDir>/Pulumi.<stack>.yaml")
        p.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
        p.add_argument("--timeout", type=seconds(MAX_TIMEOUT), default=DEFAULT_TIMEOUT,
                       help=f"seconds the program may run, Outputs included, before the plan gives up with exit 2 "
                       f"(default: {DEFAULT_TIMEOUT:g})")

    plan = sub.add_parser("plan", help="run the program under mocks and print what it declares (offline)",
                          description="Run the project's program for a stack under mocks (offline) and print what it "
                          "declares: a resource tree, the plan document (JSON, for `diff`) or a Mermaid graph. Exit 0 "
                          "planned, 2 bad input or the program failed or ran past --timeout, 4 --policy found a "
                          "mandatory policy violated (or two resources create the same cluster-scoped DeviceClass).")
    project_args(plan, fleet=True)
    plan.add_argument("--out", help="with --fleet: also write each stack's plan document into this folder "
                      "(<stack>.json), for `diff --fleet`")
    fmt = plan.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the plan document (deterministic JSON)")
    fmt.add_argument(
        "--format", choices=["text", "tree", "json", "mermaid"], default=None,
        help="text (default: the resource tree; 'tree' says the same), json or mermaid")
    plan.add_argument("--critical-path", action="store_true", help="estimate the `pulumi up` critical path")
    plan.add_argument("--policy", action="store_true", help="also check the plan against the policy pack")

    render = sub.add_parser("render", help="write the Kubernetes manifests and Helm values a stack declares (offline)",
                            description="Write the Kubernetes manifests and Helm values a stack declares into a "
                            "folder (offline). Exit 0 written, 2 bad input (the folder refused, the program failed).")
    project_args(render)
    render.add_argument("--out", required=True,
                        help="a folder of its own: files render did not write are never touched; the file system's "
                        "root and the folders directly below it, the home folder, the project's folder (and those "
                        "above them) and a repository's root are refused")

    diff = sub.add_parser("diff", help="compare two `plan --json` documents; exit 3 when something changes, 4 when a "
                          "change would fail (offline)",
                          description="Compare two plan documents (`plan --json`) as an update preview would "
                          "(offline): what is created, updated in place, replaced, deleted, or refused. Exit 0 no "
                          "change, 3 changes, 4 a change `pulumi up` would fail on or that must not be applied (a "
                          "refused change: e.g. a create-only setting Azure will not change in place, or a blocked "
                          "one), 2 bad input (not a plan document; with --fleet, folders of another fleet).")
    diff.add_argument("old", help="the plan before (JSON file; with --fleet a folder)")
    diff.add_argument("new", help="the plan after (JSON file; with --fleet a folder)")
    diff.add_argument("--json", action="store_true", help="print the diff as JSON")
    diff.add_argument("--fleet", action="store_true", help="OLD and NEW are folders of plan documents (`plan --fleet "
                      f"{FLEET_METAVAR} --out FOLDER`), diffed stack by stack, with a summary per fleet member read "
                      "from the plans. Unlike the other commands' --fleet it takes no value: the folders' plans say "
                      "which fleet stack they are")
    diff.add_argument("--project-dir", default=".", help=argparse.SUPPRESS)  # read before the summary came from plans

    size = sub.add_parser("size", help="size GPU pools for workloads: slice sizes, claim templates, nodes, cost; exit 3 "
                          "when something does not fit (offline)",
                          description="Size GPU pools for workloads (offline): the slice each workload needs, claim "
                          "templates, nodes and their cost per hour; with --stack, check that stack's pools. Exit 0 "
                          "everything fits, 3 something does not fit, 2 bad input.")
    add_size_arguments(size)

    verify = sub.add_parser(
        "verify", help="check a deployed stack's cluster: nodes, DRA driver, ResourceSlices, claims; --smoke claims a "
        "slice of each size (exit 3 not there yet, 4 broken)",
        description="Check a deployed stack's cluster against its stack file (read-only unless --smoke). Exit 0 all "
        "ok, 3 nothing broken but something not there yet, 4 something broken, 2 bad input or no reachable cluster. "
        "Fixes: docs/troubleshooting.md.")
    add_verify_arguments(verify)

    rollout = sub.add_parser(
        "fleet-rollout", help="upgrade a fleet's members through an update run with an approval gate after the canary "
        "stage, approved only once `verify` proves the canary (exit 4 not proven, 5 the run ended without the proof)",
        description="Create an update run through ARM (Fleet API 2026-06-01) with the fleet stack's stages and an "
        "approval gate after the canary stage, start it, and approve the gate only when the canary's members pass "
        "`verify`. Needs the 'Azure Kubernetes Fleet Manager Contributor Role' on the fleet. Exit 0 approved, 2 bad "
        "input or ARM refused, 3 timed out, 4 canary not proven, 5 the run ended without the proof. "
        "Docs: docs/fleet-rollout.md.")
    add_rollout_arguments(rollout)

    preflight = sub.add_parser(
        "preflight", help="before the first `pulumi up`: a stack's (or a fleet's) vCPU quota and VM sizes checked "
        "read-only against its subscription and region (exit 4 short or restricted)",
        description="Read, through Azure Resource Manager, the Compute usages and VM SKUs of the stack's subscription "
        "and region, and compare them with what the stack can use at most: every pool at maxCount (or count) plus its "
        "upgrade surge, per VM family, the regional total and Spot; and whether each size is offered to the subscription "
        "in the region and the pools' zones. A fleet sums its members that share a subscription and region. The Reader "
        "role on the subscription is enough. Exit 0 enough, 4 a shortfall or a restricted size (each with the request "
        "to file), 2 bad input, no credential, or ARM refused or unreachable. Docs: docs/production.md.")
    add_preflight_arguments(preflight)

    rightsize = sub.add_parser(
        "rightsize", help="what each workload used of its GPU slices, read from Prometheus: the slice it needs and what "
        "that saves (exit 3 something to change)",
        description="Read a window of GPU metrics (dcgm-exporter's, per DRA claim) from a Prometheus query API, self-"
        "hosted or Azure Monitor's, and say per workload the slice it holds, its peak GPU memory, the smallest slice "
        "that holds the peak, a verdict, and the cost per hour now and recommended. Exit 0 every workload keeps its "
        "slice, 3 something should change, 2 bad input or an endpoint that cannot be read. Docs: docs/rightsizing.md.")
    add_rightsize_arguments(rightsize)

    docs = sub.add_parser("docs", help="regenerate the docs made from the code (config reference, stack schema, sizing, "
                          "graph; offline)",
                          description="Regenerate the files made from the code (offline): the configuration "
                          "reference, the stack and plugin schemas, the sizing tables, the graph. Exit 0 written (or, "
                          "with --check, up to date), 3 --check found a generated file out of date, 2 bad input.")
    docs.add_argument("--project-dir", default=".", help="the repository's folder (default: current folder)")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 3 when a generated file is out of date")
    return parser


COMMANDS = {"plan": cmd_plan, "render": cmd_render, "diff": cmd_diff, "size": cmd_size, "docs": cmd_docs,
            "verify": cmd_verify_or_fleet, "fleet-rollout": cmd_rollout, "preflight": cmd_preflight,
            "rightsize": cmd_rightsize}
"""Each subcommand's function, in a module of its own."""


def main(argv: list[str] | None = None) -> int:
    """Runs one command; returns the exit status (never raises, never prints a traceback)."""
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help (0), or argparse giving up on its own
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        except BadInputError as exc:  # a usage mistake: under --json, the command's document too
            from .usage_documents import write_usage_document

            write_usage_document(argv, exc.lines)
            raise
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
