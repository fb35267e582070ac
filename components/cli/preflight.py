"""`preflight`: before the first `pulumi up`, the quota and the VM sizes a stack (or a fleet's member stacks) needs,
checked read-only against its subscription and region through Azure Resource Manager (components/preflight).

The subscription is `--subscription`, else the stack's `azure-native:subscriptionId`, else `$ARM_SUBSCRIPTION_ID` /
`$AZURE_SUBSCRIPTION_ID` (what the azure-native provider and fleet-rollout read). There is no cheaper way to the
credential's own default: azure-identity has none, and listing subscriptions would need azure-mgmt-resource, another
dependency, for a guess; without one of those three the command says which to give.

Exit status: 0 enough quota and every size open; 4 a shortfall or a restricted size; 2 bad input, no credential, or ARM
refused or unreachable (one line each, masked).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from typing import Any

from .durations import seconds
from .output import EXIT_BAD_INPUT, BadInputError, json_on_bad_input, printable_lines, write

SUBSCRIPTION_ENVS = ("ARM_SUBSCRIPTION_ID", "AZURE_SUBSCRIPTION_ID")
SUBSCRIPTION_KEY = "azure-native:subscriptionId"
GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0


def add_preflight_arguments(p: argparse.ArgumentParser) -> None:
    """The preflight subcommand's flags."""
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", help="a platform stack: reads <stackConfigDir>/Pulumi.<stack>.yaml")
    which.add_argument("--fleet", metavar="FLEET_STACK", help="a fleet stack: checks every member stack, members that "
                       "share a subscription and region summed")
    p.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
    p.add_argument("--subscription", metavar="ID", help="the subscription to check (a GUID); default: the stack's "
                   f"azure-native:subscriptionId, else ${SUBSCRIPTION_ENVS[0]} or ${SUBSCRIPTION_ENVS[1]}")
    p.add_argument("--arm-endpoint", default="https://management.azure.com", help="Azure Resource Manager's URL "
                   "(another cloud's, or a test double's: plain http only on loopback); the credential is azure-identity's "
                   "(az login, managed or workload identity, environment), or $ARM_ACCESS_TOKEN")
    p.add_argument("--timeout", type=seconds(MAX_TIMEOUT), default=DEFAULT_TIMEOUT, metavar="S", help="bound on every wait, the "
                   f"token and throttling pauses included (default: {DEFAULT_TIMEOUT:g})")
    p.add_argument("--json", action="store_true", help="print the report as JSON: {ok, exit, families[], skus[], "
                   "stacks[], notes[]}")


def subscription_problem(value: str, where: str) -> str | None:
    """Why `value` (from `where`) cannot be a subscription ID, or None."""
    if GUID.fullmatch(value):
        return None
    return (f"{where} {value!r} is not a subscription ID: give the GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, "
            "`az account show --query id -o tsv`)")


def _subscription(args: argparse.Namespace, stack: str, written: Any) -> tuple[str | None, str | None]:
    """(the subscription ID for `stack`, or None; the problem with it, or None)."""
    if args.subscription:
        return args.subscription, subscription_problem(args.subscription, "--subscription")
    if isinstance(written, str) and written:
        if written == "[secret]":
            return None, (f"{stack}: {SUBSCRIPTION_KEY} is a secure value, never decrypted offline: pass "
                          "--subscription ID")
        return written, subscription_problem(written, f"{stack}: {SUBSCRIPTION_KEY}")
    for name in SUBSCRIPTION_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value, subscription_problem(value, f"${name}")
    return None, (f"{stack}: no subscription to check: pass --subscription ID, set {SUBSCRIPTION_KEY} in the stack "
                  f"file, or set ${SUBSCRIPTION_ENVS[0]}")


def _raw_subscription(project_dir: str, stack: str) -> Any:
    """The stack file's `azure-native:subscriptionId` as written (a secure value reads '[secret]'), or None."""
    from ..offline import StackFileError, load_project
    from ..offline.stack_file import read_stack_file

    try:
        return read_stack_file(load_project(project_dir), stack).config.get(SUBSCRIPTION_KEY)
    except StackFileError:
        return None  # the stack's own reading below says why


def _stacks(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """(stack, validated StackConfig) of `--stack`, or of every member of `--fleet`: read as `size --stack` and
    `plan --fleet` read them; BadInputError with every problem."""
    from ..config import ConfigError
    from ..sizing.stack_file import read_stack_file
    from .fleet import load_fleet_set
    from .running import in_stack_file, refuse_fleet_stack

    if args.fleet is not None:
        fleet = load_fleet_set(args.project_dir, args.fleet)
        if not fleet.members:
            raise BadInputError([f"preflight --fleet {args.fleet}: the fleet has no member stacks in this project, so "
                                 "nothing to check"])
        return [(m.stack, m.config) for m in fleet.members]
    refuse_fleet_stack(args.project_dir, args.stack, "preflight")
    try:
        config, _ = read_stack_file(args.project_dir, args.stack)
    except ConfigError as exc:
        raise BadInputError(in_stack_file(exc.problems, args.project_dir, args.stack)) from None
    return [(args.stack, config)]


def failure_document(lines: list[str]) -> dict[str, Any]:
    """What `--json` prints when the command fails before a report: the report's keys, and the problems."""
    return {"ok": False, "exit": EXIT_BAD_INPUT, "families": [], "skus": [], "stacks": [], "notes": [],
            "problems": lines}


def cmd_preflight(args: argparse.Namespace) -> int:
    """`preflight`: the report and its exit status (with --json, a document on failure too)."""
    return json_on_bad_input(run_preflight, failure_document)(args)


def run_preflight(args: argparse.Namespace, clock: Any = time.monotonic, sleep: Any = time.sleep,
                  credential: Any = None) -> int:
    """The command; `clock`, `sleep` and `credential` are the seams tests inject (the real ones otherwise)."""
    from ..online.endpoints import endpoint_problem

    deadline = clock() + args.timeout  # reading the stacks counts too: --timeout bounds the whole command
    problems = [p for p in [endpoint_problem("preflight: --arm-endpoint", args.arm_endpoint)] if p]
    if args.subscription:
        problems += [f"preflight: {p}" for p in [subscription_problem(args.subscription, "--subscription")] if p]
    if problems:
        raise BadInputError(problems)
    found = _stacks(args)
    from ..preflight.demand import stack_demand

    demands = []
    for stack, config in found:
        subscription, problem = _subscription(args, stack, _raw_subscription(args.project_dir, stack))
        if problem:
            problems.append(f"preflight: {problem}")
        elif subscription:
            demands.append(stack_demand(stack, config, subscription.lower()))
    if problems:
        raise BadInputError(list(dict.fromkeys(problems)))
    return _checked(args, demands, deadline, clock, sleep, credential)


def reader_for(arm_endpoint: str, deadline: float, timeout: float, clock: Any, sleep: Any, credential: Any) -> Any:
    """A ComputeReader with a token asked for within the deadline; BadInputError (one line) when there is none or the
    Azure extra is missing. `credential` (a TokenCredential) replaces the package's own when given."""
    from ..online.credential import ARM_SCOPE, INSTALL_HINT, CredentialError, HeldToken, azure_credential, bearer_token
    from ..online.endpoints import arm_scope

    try:
        from ..preflight.arm import ComputeReader
    except ImportError:
        raise BadInputError([f"preflight: azure-mgmt-compute is not installed: {INSTALL_HINT}"]) from None
    scope = arm_scope(arm_endpoint)
    try:
        # $ARM_ACCESS_TOKEN stands for ARM whatever cloud's ARM this is; azure-identity is asked for `scope`.
        token = bearer_token(credential or azure_credential(ARM_SCOPE), scope, max(0.0, deadline - clock()))
    except CredentialError as exc:
        raise BadInputError([f"preflight: {exc}"]) from None
    # The token, once had, is what every request carries: the SDK asks the credential again per request, and a
    # DefaultAzureCredential could wait on it past the deadline.
    return ComputeReader(HeldToken(token), arm_endpoint, deadline, timeout, clock=clock, sleep=sleep,
                         secrets=(token,))


def _checked(args: argparse.Namespace, demands: list[Any], deadline: float, clock: Any, sleep: Any,
             credential: Any) -> int:
    from ..catalog.regions import size_offer
    from ..preflight.arm import ArmReadError
    from ..preflight.compare import check
    from ..preflight.report import EXIT_OK, EXIT_SHORT, to_dict, to_text

    reader = reader_for(args.arm_endpoint, deadline, args.timeout, clock, sleep, credential)
    facts = {}
    try:
        for key in dict.fromkeys((d.subscription, d.region) for d in demands):
            facts[key] = reader.read(*key)
    except ArmReadError as exc:
        raise BadInputError([f"preflight: {exc}"]) from None
    result = check(demands, facts, size_offer().regions_of)
    text = json.dumps(to_dict(result, demands), indent=2) + "\n" if args.json else to_text(result, demands)
    write(sys.stdout, printable_lines(reader.mask(text)) if not args.json else reader.mask(text))
    return EXIT_OK if result.ok else EXIT_SHORT
