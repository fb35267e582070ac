"""`verify`: check a deployed stack's cluster (read-only unless --smoke) and report one line per check, or JSON.

Exit status: 0 every check ok, 3 nothing broken but something not there yet (a pool at zero, pods still starting;
--wait S waits for it), 4 something is broken (what a user must fix), 2 bad input: a bad stack file or flag, no
kubeconfig, the Kubernetes client not installed, or no reachable cluster (one line, never a traceback).
Progress goes to stderr; the report to stdout. Imports the Kubernetes client only when it runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..catalog import SIZE_CLASSES
from .durations import seconds
from .output import BadInputError, json_on_bad_input, printable, printable_lines, write

DEFAULT_TIMEOUT = 300.0
MAX_SECONDS = 86400.0
SECONDS = seconds(MAX_SECONDS, zero=True)
"""--wait and --timeout (verify, fleet-rollout): seconds from 0."""


def _size(text: str) -> int:
    if not text.isdigit() or int(text) not in SIZE_CLASSES:
        raise argparse.ArgumentTypeError(f"{text!r} is not a slice size; choose one of {', '.join(map(str, SIZE_CLASSES))}")
    return int(text)


def add_verify_arguments(p: argparse.ArgumentParser) -> None:
    """The verify subcommand's flags."""
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", help="stack name: reads <stackConfigDir>/Pulumi.<stack>.yaml for what "
                       "should be on the cluster")
    which.add_argument("--fleet", metavar="FLEET_STACK", help="a fleet stack: verify every member stack of that fleet, "
                       "each on the kubeconfig context named after its cluster (as `az aks get-credentials` names it), "
                       "in parallel; exit 4 a member broken, 2 a member unreachable, 3 a member not there yet")
    p.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
    p.add_argument("--kubeconfig", help="kubeconfig of the cluster (default: $KUBECONFIG; get this stack's with "
                   "`pulumi stack output kubeconfig --show-secrets`); exec users (kubelogin) work")
    p.add_argument("--context", action="append", help="kubeconfig context (default: its current context); with "
                   "--fleet: member=context, repeat for several (default: the member's cluster name)")
    p.add_argument("--smoke", action="store_true", help="also run a short nvidia-smi -L pod per claim template, and one "
                   "per extended resource name the stack maps (asking for <name>: 1 as device-plugin workloads do), in a "
                   "scratch namespace (created and deleted by verify; nothing else is written)")
    p.add_argument("--size", type=_size, action="append", metavar="GIB", help="with --smoke: only this slice size "
                   f"({', '.join(map(str, SIZE_CLASSES))}); repeat for several")
    p.add_argument("--image", help="with --smoke: the pod's image (default: a pinned CUDA base image; nvidia-smi "
                   "comes from the host driver)")
    p.add_argument("--wait", type=SECONDS, default=0.0, metavar="S", help="re-check for up to S seconds while "
                   "something is not there yet (exit 3)")
    p.add_argument("--timeout", type=SECONDS, default=DEFAULT_TIMEOUT, metavar="S",
                   help=f"bound on the whole run, smoke included (default: {DEFAULT_TIMEOUT:g})")
    p.add_argument("--json", action="store_true", help="print the report as JSON: {checks: [{check, subject, status, "
                   "message}], summary}")


def read_stack(project_dir: str, stack: str):
    """The stack's validated StackConfig from its stack file, as `plan` reads it; BadInputError with one line per problem."""
    from ..config import ConfigError, stack_config_from_mapping
    from ..offline import StackFileError, load_project, read_stack_config
    from ..offline.project import stack_name
    from .running import in_stack_file, refuse_fleet_stack

    try:
        stack_name(stack)
        refuse_fleet_stack(project_dir, stack, "verify")
        project = load_project(Path(project_dir))
        config, secrets = read_stack_config(project, stack)
        return stack_config_from_mapping(config, project.name, secrets)
    except StackFileError as exc:
        raise BadInputError(exc.lines) from None
    except ConfigError as exc:
        raise BadInputError(in_stack_file(exc.problems, project_dir, stack)) from None


def cmd_verify(args: argparse.Namespace) -> int:
    """`verify`: the report, and its exit status; with --json, a bad input is a JSON document too (and its line on
    stderr)."""
    return json_on_bad_input(_verify, _error_report)(args)


def _error_report(lines: list[str]) -> dict[str, object]:
    from ..verify.report import error_report  # verify's modules load only when the command runs

    return error_report(lines)


def _verify(args: argparse.Namespace) -> int:
    if (args.size or args.image) and not args.smoke:
        raise BadInputError(["verify: --size and --image go with --smoke"])
    config = read_stack(args.project_dir, args.stack)
    from ..verify import UnreachableError, verify
    from ..verify.kube import KubeconfigError

    def progress(line: str) -> None:
        write(sys.stderr, printable(line) + "\n")

    try:
        doc = verify(config, kubeconfig=args.kubeconfig, context=args.context[-1] if args.context else None,
                     smoke=args.smoke, sizes=args.size, image=args.image, wait=args.wait, timeout=args.timeout,
                     progress=progress)  # --context given twice: the last wins, as before
    except (KubeconfigError, UnreachableError) as exc:
        raise BadInputError([f"verify: {exc}"]) from None
    if args.json:
        write(sys.stdout, json.dumps(doc, indent=2) + "\n")
    else:
        from ..verify.report import text_lines

        write(sys.stdout, printable_lines("\n".join(text_lines(doc))) + "\n")
    return int(doc["summary"]["exit"])
