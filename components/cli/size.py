"""`size`: the sizing planner's command (components/sizing/command.py), its bad input as one line per problem."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .durations import seconds
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


def add_size_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `python -m components size`."""
    parser.add_argument("--workload", action="append", metavar="NAME=GiB[xCOUNT]",
                        help="a workload: GPU memory per replica in GiB and replicas, e.g. embed=3x4; or written as an "
                        "extended resource, NAME=[GiB@]RESOURCE[xCOUNT]: infer=nvidia.com/gpu, a=aks-dra-vgpu.io/a10-8gibx3, "
                        "llm=20GiB@nvidia.com/gpu (placed only on the slices the name's class selects in --stack; GiB: "
                        "the memory it needs, which must fit them) (repeatable)")
    parser.add_argument("--slice", action="append", metavar="NAME=GiB[xCOUNT]",
                        help="a workload asking for a nominal slice in GiB: one of 4, 8, 12, 24 (a whole A10), 48 (two on one "
                        "node), e.g. chat=8x6 (repeatable)")
    parser.add_argument("--workloads", action="append", metavar="FILE.yaml",
                        help="workloads from a YAML file: workloads: [{name, memoryGiB or slice or resource, count, "
                        "devices, spot}] (resource: an extended resource name, memoryGiB then optional) (repeatable)")
    parser.add_argument("--spot", action="append", metavar="NAME",
                        help="let this workload run on the stack's spot pools (evictable; repeatable)")
    parser.add_argument("--stack", help="check this stack's GPU pools against the workloads (and use its samples settings)")
    parser.add_argument("--sharing", choices=["none", "memory"], default=None,
                        help="memory: also pack the workloads by GPU memory onto slices several pods share (pools with "
                        "sharing: memory), with nodes and cost; on by default when the stack has such a pool")
    parser.add_argument("--family", choices=["a10", "mig"], default=None,
                        help="only this family of slice: a10 (NVadsA10_v5 vGPU slices) or mig (MIG slices of A100, "
                        "H100, H200 sizes); default: both without a stack (A10 where one holds the workload), the "
                        "stack's pools with one")
    parser.add_argument("--regions", metavar="REGION,...|all",
                        help="also cost the plan in these regions (ARM names, comma-separated), or in every region the "
                        "price table has: cheapest first, saying which regions lack a size")
    parser.add_argument("--subscription", metavar="ID",
                        help="with --regions: also rank the regions by the vCPU quota this subscription has free there "
                        "for the plan's pools, read-only through Azure Resource Manager (an Azure credential: az login, "
                        "managed or workload identity, or $ARM_ACCESS_TOKEN); without a credential the ranking stays by "
                        "price and says so")
    parser.add_argument("--arm-endpoint", default="https://management.azure.com",
                        help="with --subscription: Azure Resource Manager's URL (another cloud's, or a test double's)")
    parser.add_argument("--timeout", type=seconds(3600.0), default=60.0, metavar="S",
                        help="with --subscription: bound on the quota reads, in seconds (default: 60)")
    parser.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
    parser.add_argument("--prices", metavar="FILE.yaml",
                        help="a price table instead of the package's own (whose row the stack's location picks)")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the sizing plan as JSON")
    fmt.add_argument("--format", choices=["text", "json", "markdown"], default=None, help="text (default), json or markdown")
