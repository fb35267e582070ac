"""`fleet-rollout`: upgrade a fleet's members stage by stage, proving the canary stage before the others start.

Creates an update run through ARM at Fleet API 2026-06-01 with the fleet stack's stages and an Approval gate after
the first (canary) stage, starts it, and follows it; when the gate is Pending it verifies the canary's member stacks
(`verify --fleet` on those members, with `--smoke` where a stack has claim templates, unless --no-smoke) and approves
the gate only when they pass. `--attach-run` follows a run someone else started (an auto-upgrade profile's) the same
way; without a gate there, the canary is verified once its stage is Completed and the run is stopped when it fails.
Exit status: 0 proven and approved (and the run Completed, unless --no-follow); 2 bad input, or ARM refused (a 403
names the role); 3 --timeout ran out (run and gate left as they are); 4 the canary was not proven (gate left Pending,
or the run stopped); 5 the run ended without this command's proof.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from typing import Any

from .output import BadInputError, printable, printable_lines, write
from .verify import SECONDS
from .verify_fleet import context_pairs

SUBSCRIPTION_ENVS = ("ARM_SUBSCRIPTION_ID", "AZURE_SUBSCRIPTION_ID")
DEFAULT_POLL = 60.0
DEFAULT_TIMEOUT = 21600.0
DEFAULT_VERIFY_WAIT = 600.0


def add_rollout_arguments(p: argparse.ArgumentParser) -> None:
    """The fleet-rollout subcommand's flags."""
    p.add_argument("--fleet", required=True, metavar="FLEET_STACK", help="the fleet stack (its `fleet` section gives "
                   "the fleet, its resource group and the update strategy's stages; its member stacks what to verify)")
    p.add_argument("--project-dir", default=".", help="the Pulumi project's folder (default: current folder)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kubernetes-version", metavar="X.Y.Z", help="create a run upgrading every member to this "
                      "Kubernetes version (control plane and node pools)")
    what.add_argument("--node-image", action="store_true", help="create a run upgrading every member's node images")
    what.add_argument("--attach-run", metavar="RUN", help="follow an existing run instead (e.g. one an auto-upgrade "
                      "profile started): approve its canary gate once proven; without a gate, stop it when the canary "
                      "fails")
    p.add_argument("--control-plane-only", action="store_true", help="with --kubernetes-version: upgrade the control "
                   "planes only (ControlPlaneOnly)")
    p.add_argument("--node-image-selection", choices=["Latest", "Consistent"], help="node images of the run (default: "
                   "the fleet's autoUpgrade.nodeImageSelection, else Latest)")
    p.add_argument("--run-name", help="name of the run to create (default: gpu-rollout-<UTC time>)")
    p.add_argument("--subscription", help="the fleet's subscription ID (default: $ARM_SUBSCRIPTION_ID, "
                   "$AZURE_SUBSCRIPTION_ID)")
    p.add_argument("--arm-endpoint", default="https://management.azure.com", help="Azure Resource Manager's URL "
                   "(another cloud's, or a test double's); the token comes from $ARM_ACCESS_TOKEN, else from "
                   "azure-identity (az login, managed or workload identity, environment credentials)")
    p.add_argument("--kubeconfig", help="kubeconfig holding a context per canary member cluster, named after the "
                   "cluster as `az aks get-credentials` names it (default: $KUBECONFIG)")
    p.add_argument("--context", action="append", metavar="MEMBER=CONTEXT", help="a member's kubeconfig context when it "
                   "is not the cluster's name; repeat for several")
    p.add_argument("--no-smoke", action="store_true", help="skip the smoke (by default a canary member whose stack has "
                   "claim templates is also verified with --smoke: a pod claims a slice of each size, then is deleted)")
    p.add_argument("--verify-wait", type=SECONDS, default=DEFAULT_VERIFY_WAIT, metavar="S", help="re-check a canary "
                   f"member for up to S seconds while it settles after its upgrade (default: {DEFAULT_VERIFY_WAIT:g})")
    p.add_argument("--on-failure", choices=["hold", "stop"], default="hold", help="when the canary is not proven: "
                   "leave the gate Pending (hold, default) or stop the run (stop)")
    p.add_argument("--no-follow", action="store_true", help="return once the gate is approved instead of following "
                   "the run to its end")
    p.add_argument("--poll", type=SECONDS, default=DEFAULT_POLL, metavar="S", help=f"seconds between reads of the run "
                   f"(default: {DEFAULT_POLL:g})")
    p.add_argument("--timeout", type=SECONDS, default=DEFAULT_TIMEOUT, metavar="S", help="bound on the whole command "
                   f"(default: {DEFAULT_TIMEOUT:g}); the run is left as it is when it runs out")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON: {run, state, action, exit, message, "
                   "canaryMembers, verify}")


def _token(endpoint: str) -> Any:
    """The TokenProvider of the package's one credential ($ARM_ACCESS_TOKEN, else azure-identity's), for this ARM."""
    from ..online.credential import ARM_SCOPE, CredentialError, azure_credential
    from ..online.endpoints import arm_scope
    from ..rollout.arm import CredentialToken

    try:
        # $ARM_ACCESS_TOKEN stands for ARM whatever cloud's ARM this is; azure-identity is asked for its scope.
        return CredentialToken(azure_credential(ARM_SCOPE), arm_scope(endpoint))
    except CredentialError as exc:
        raise BadInputError([f"fleet-rollout: {exc}"]) from None


def version_problem(text: str) -> str | None:
    """Why `--kubernetes-version` cannot be a run's target, or None: X.Y.Z of a minor AKS offers, no newer than the
    newest patch known (components/catalog/kubernetes_versions.py, the catalog stack files are checked against). A run
    takes any text and fails member by member hours later, so it is refused before anything is created. X.Y.Z: the
    Fleet docs name a patch (MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/update-orchestration.md,
    `az fleet updaterun create ... --upgrade-type Full --kubernetes-version 1.26.0`)."""
    from ..catalog.kubernetes_versions import AKS_MINORS, AKS_VERSIONS_AS_OF, supported_list
    from ..config.versions import offered_problem, parse

    try:
        major, minor, patch = parse(text)
    except ValueError:
        return (f"--kubernetes-version {text!r} is not a Kubernetes version: give X.Y.Z of a minor AKS offers "
                f"({supported_list()})")
    problem = offered_problem(f"{major}.{minor}")  # the minor; the patch is judged below (a run names one)
    if problem:
        return f"--kubernetes-version {problem.replace(f'{major}.{minor}', text, 1)}"
    entry = AKS_MINORS[(major, minor)]
    newest = entry.newest_patch
    if patch is None or (newest is not None and patch > newest):
        known = f"{entry.text}.{newest}" if newest is not None else None
        why = "an update run names a patch" if patch is None else (
            f"not a patch AKS offers (the newest {entry.text} patch known on {AKS_VERSIONS_AS_OF.isoformat()} is "
            f"{known})")
        return f"--kubernetes-version {text!r}: {why}: give X.Y.Z" + (f" no newer than {known}" if known else "")
    return None


def _problems(args: argparse.Namespace) -> list[str]:
    from ..online.endpoints import endpoint_problem
    from ..rollout.updaterun import run_name_problem

    problems = []
    if args.control_plane_only and not args.kubernetes_version:
        problems.append("fleet-rollout: --control-plane-only goes with --kubernetes-version")
    if args.kubernetes_version is not None:
        why = version_problem(args.kubernetes_version)
        if why:
            problems.append(f"fleet-rollout: {why}")
    if args.attach_run and (args.run_name or args.node_image_selection):
        problems.append("fleet-rollout: --run-name and --node-image-selection are for a run this command creates, "
                        "not with --attach-run")
    for name in filter(None, (args.run_name, args.attach_run)):
        why = run_name_problem(name)
        if why:
            problems.append(f"fleet-rollout: {why}")
    endpoint = endpoint_problem("fleet-rollout: --arm-endpoint", args.arm_endpoint)
    if endpoint:
        problems.append(endpoint)
    if not (args.subscription or any(os.environ.get(e) for e in SUBSCRIPTION_ENVS)):
        problems.append(f"fleet-rollout: the fleet's subscription: pass --subscription or set {SUBSCRIPTION_ENVS[0]}")
    return problems


def _checked(args: argparse.Namespace) -> tuple[Any, dict[str, str]]:
    """(the fleet's stacks, --context overrides) once every input is checked: BadInputError with all the problems of
    the flags, the contexts and the stack files at once, before the first ARM call."""
    problems = _problems(args)
    overrides, bad = context_pairs(args.context)
    problems += [line.replace("verify --fleet:", "fleet-rollout:", 1) for line in bad]
    try:
        from .fleet import load_fleet_set  # the fleet's models and readers load only when this command runs

        fleet_set = load_fleet_set(args.project_dir, args.fleet)
    except BadInputError as exc:
        raise BadInputError(problems + exc.lines) from None
    by_name = [m.member_name for m in fleet_set.members]
    unknown = sorted(set(overrides) - set(by_name))
    if unknown:
        problems.append(f"fleet-rollout: --context {', '.join(unknown)}: no such member of this fleet; members: "
                        f"{', '.join(by_name)}")
    if problems:
        raise BadInputError(problems)
    return fleet_set, overrides


def failure_document(lines: list[str], exit_status: int) -> dict[str, Any]:
    """What `--json` prints when the command fails before an outcome: the outcome's keys, and the problems."""
    return {"run": None, "state": None, "action": "none", "exit": exit_status,
            "message": lines[0] if lines else "bad input", "canaryMembers": [], "verify": None, "problems": lines}


def cmd_rollout(args: argparse.Namespace) -> int:
    """`fleet-rollout`: the outcome, and its exit status (with --json, a document on failure too)."""
    from .output import EXIT_BAD_INPUT, json_on_bad_input

    return json_on_bad_input(_rollout, lambda lines: failure_document(lines, EXIT_BAD_INPUT))(args)


def _rollout(args: argparse.Namespace) -> int:
    follow_clock = time.monotonic
    started = follow_clock()  # the command's deadline counts from here: reading the stacks is part of it
    fleet_set, overrides = _checked(args)
    from ..rollout.arm import ArmClient, ArmError
    from ..rollout.flow import EXIT_TIMED_OUT, Follow, Outcome, create_and_start, follow_run
    from ..rollout.updaterun import FleetRef, Stage, run_body, upgrade
    from ..verify.expected import expected
    from ..verify.fleet import targets_for, verify_fleet

    fleet = fleet_set.fleet
    stages = [Stage(s.name, tuple(s.groups), s.after_stage_wait_in_seconds) for s in fleet.update_strategy.stages]
    canary = stages[0]
    by_name = {m.member_name: m for m in fleet_set.members}
    subscription = args.subscription or next(os.environ[e] for e in SUBSCRIPTION_ENVS if os.environ.get(e))
    ref = FleetRef(subscription, fleet.resource_group_name, fleet.name)
    follow = Follow(poll=args.poll, timeout=args.timeout, on_failure=args.on_failure, to_the_end=not args.no_follow,
                    clock=follow_clock, started=started)
    arm = ArmClient(_token(args.arm_endpoint), base_url=args.arm_endpoint, clock=follow_clock, deadline=follow.end())

    def say(line: str) -> None:
        write(sys.stderr, printable(arm.mask(line)) + "\n")

    def prove(names: list[str]) -> tuple[bool, dict[str, Any]]:
        known = [by_name[n] for n in names if n in by_name]
        targets = targets_for([(m.member_name, m.stack, m.config, m.cluster_name) for m in known],
                              {k: v for k, v in overrides.items() if k in names})
        targets = [replace(t, smoke=bool(expected(t.config).templates)) for t in targets]
        left = max(1.0, follow.end() - follow.clock())  # the proof is bounded by the command's deadline too
        doc = verify_fleet(targets, fleet=args.fleet, kubeconfig=args.kubeconfig, smoke=not args.no_smoke,
                           wait=min(args.verify_wait, left), timeout=min(max(args.verify_wait + 300.0, 300.0), left),
                           progress=say)
        strangers = [n for n in names if n not in by_name]
        if strangers:  # in the run but in no member stack of this project: nothing says what should be there
            doc["summary"]["unknownMembers"] = strangers
            say(f"cannot verify {', '.join(strangers)}: no member stack of {args.fleet} in this project names them")
        return bool(names) and doc["summary"]["exit"] == 0 and not strangers, doc

    canary_members = [m.member_name for m in fleet_set.members if m.group in canary.groups]
    try:
        if args.attach_run:
            run = args.attach_run
        else:
            run = args.run_name or time.strftime("gpu-rollout-%Y%m%d-%H%M%S", time.gmtime())
            selection = args.node_image_selection or (
                (fleet.auto_upgrade.node_image_selection if fleet.auto_upgrade else None) or "Latest")
            body = run_body(stages, upgrade(args.kubernetes_version, args.node_image, args.control_plane_only),
                            selection)
            create_and_start(arm, ref, run, body, follow, say)
        outcome = follow_run(arm, ref, run, canary, prove, follow, say, canary_members)
    except ArmError as exc:
        if exc.code != "Timeout":
            raise BadInputError([f"fleet-rollout: {exc}"]) from None
        outcome = Outcome(EXIT_TIMED_OUT, "none", run, "unknown", f"{exc}: --timeout {args.timeout:g} s ran out; "
                          "the run is left as it is")
    except ValueError as exc:  # a gate the run names outside this fleet is never approved
        raise BadInputError([f"fleet-rollout: {arm.mask(str(exc))}"]) from None
    if args.json:
        write(sys.stdout, arm.mask(json.dumps(outcome.to_dict(), indent=2)) + "\n")
    else:
        lines = [outcome.message]
        if outcome.report is not None:
            from ..verify.fleet import fleet_text_lines

            lines = [*fleet_text_lines(outcome.report), "", outcome.message]
        write(sys.stdout, printable_lines(arm.mask("\n".join(lines))) + "\n")
    return outcome.exit
