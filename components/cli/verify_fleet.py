"""`verify --fleet <fleet stack>`: `verify` on every member stack of a fleet, each on its own kubeconfig context, in
parallel; one report with each member's checks under the member's name.

The fleet and its members come from the project's stack files (`offline.fleet_stacks.load_fleet`: the member stacks
are those whose `fleetMembership.fleetStack` names the fleet stack). A member's context is its cluster's name (what
`az aks get-credentials` names it) unless `--context member=context` says otherwise.
Exit status: 4 a member is broken, else 2 a member cannot be reached (each named on stderr; the others are still
reported on stdout), else 3 a member is not there yet, else 0; 2 also for bad input (nothing on stdout).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .output import BadInputError, printable, printable_lines, write


def context_overrides(values: list[str] | None) -> dict[str, str]:
    """`--context member=context` pairs; BadInputError naming each value that is not one, and each member given twice."""
    found, bad = context_pairs(values)
    if bad:
        raise BadInputError(bad)
    return found


def context_pairs(values: list[str] | None) -> tuple[dict[str, str], list[str]]:
    """(the `--context member=context` pairs, a problem per value that is not one): a caller collecting every problem
    still checks the good pairs."""
    found: dict[str, str] = {}
    bad = []
    for value in values or []:
        member, sep, context = value.partition("=")
        if not sep or not member.strip() or not context.strip():
            bad.append(f"verify --fleet: --context {value!r}: give member=context (a member name, then the kubeconfig "
                       "context of its cluster)")
        elif member.strip() in found:  # the last one would win, silently
            bad.append(f"verify --fleet: --context is given twice for member '{member.strip()}' "
                       f"({found[member.strip()]!r} and {context.strip()!r}); give one context per member")
        else:
            found[member.strip()] = context.strip()
    return found, bad


def member_rows(fleet_set: Any) -> list[tuple[str, str, Any, str]]:
    """(member name, stack, StackConfig, cluster name) of each member stack, in the loader's order."""
    return [(m.member_name, m.stack, m.config, m.cluster_name) for m in fleet_set.members]


def cmd_verify_or_fleet(args: argparse.Namespace) -> int:
    """`verify`: one stack (`--stack`, cli/verify.py, unchanged) or every member of a fleet (`--fleet`)."""
    if args.fleet is not None:
        return cmd_verify_fleet(args)
    from .verify import cmd_verify

    return cmd_verify(args)


def cmd_verify_fleet(args: argparse.Namespace) -> int:
    """`verify --fleet`: the fleet's report, and its exit status."""
    if (args.size or args.image) and not args.smoke:
        raise BadInputError(["verify: --size and --image go with --smoke"])
    overrides = context_overrides(args.context)
    from .fleet import load_fleet_set  # the fleet's models and readers load only for --fleet

    fleet_set = load_fleet_set(args.project_dir, args.fleet)
    if not fleet_set.members:
        raise BadInputError([f"verify --fleet {args.fleet}: no member stack names this fleet stack (a member stack has "
                             f"fleetMembership.fleetStack: {args.fleet})"])
    from ..verify.fleet import targets_for, verify_fleet
    from ..verify.kube import kubeconfig_path

    try:
        targets = targets_for(member_rows(fleet_set), overrides)
    except ValueError as exc:
        raise BadInputError([f"verify --fleet {args.fleet}: {exc}"]) from None
    from ..verify.kube import KubeconfigError

    try:
        kubeconfig = kubeconfig_path(args.kubeconfig)  # one file for every member: no point starting the threads without
    except KubeconfigError as exc:
        raise BadInputError([f"verify: {exc}"]) from None

    def progress(line: str) -> None:
        write(sys.stderr, printable(line) + "\n")

    doc = verify_fleet(targets, fleet=args.fleet, kubeconfig=kubeconfig, smoke=args.smoke, sizes=args.size,
                       image=args.image, wait=args.wait, timeout=args.timeout, progress=progress)
    for member in doc["members"]:
        if member.get("error"):
            write(sys.stderr, printable(f"verify --fleet {args.fleet}: cannot reach {member['error']}") + "\n")
    if args.json:
        write(sys.stdout, json.dumps(doc, indent=2) + "\n")
    else:
        from ..verify.fleet import fleet_text_lines

        write(sys.stdout, printable_lines("\n".join(fleet_text_lines(doc))) + "\n")
    return int(doc["summary"]["exit"])
