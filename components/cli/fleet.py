"""`plan --fleet` and `diff --fleet`: a fleet stack and its member stacks in one review, each stack planned or diffed
as the single-stack commands do it, with a summary per member (components.review.fleet)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .output import EXIT_CHANGES, EXIT_OK, BadInputError, printable, printable_lines, write
from .problems import program_problems
from .running import run_plan


def load_fleet_set(project_dir: str, fleet_stack: str) -> Any:
    """The fleet stack and its member stacks, validated (`plan --fleet`, `diff --fleet`, `verify --fleet`,
    `fleet-rollout`); BadInputError with one line per problem across the stacks."""
    from ..offline import load_project
    from ..offline.fleet_stacks import fleet_stacks, load_fleet

    with program_problems(Path(project_dir)):
        if not fleet_stack.strip():
            known = ", ".join(fleet_stacks(load_project(project_dir))) or "none"
            raise BadInputError([f"--fleet {fleet_stack!r}: empty; name a fleet stack (fleet stacks of this project: "
                                 f"{known})"])
        return load_fleet(Path(project_dir), fleet_stack)


def cmd_plan_fleet(args: argparse.Namespace) -> int:
    """`plan --fleet`: the fleet stack and every member stack planned, a summary per member; `--out` keeps each plan
    document (``<stack>.json``) for `diff --fleet`; `--critical-path` the first `up` and a rollout's duration."""
    from ..review.fleet import format_summary, member_line

    fleet = load_fleet_set(args.project_dir, args.fleet)
    for line in fleet.warnings:
        write(sys.stderr, printable(f"warning: {line}") + "\n")
    # `load_fleet` checked the rules across the fleet's stacks once: each stack's plan does not check them again.
    plans = {fleet.stack: run_plan(args.project_dir, fleet.stack, args.timeout, fleet_checked=True)}
    for member in fleet.members:
        plans[member.stack] = run_plan(args.project_dir, member.stack, args.timeout, fleet_checked=True)
    lines = [member_line(m.stack, m.member_name, m.config, m.group, fleet.fleet, len(plans[m.stack].resources))
             for m in fleet.members]
    if args.out:
        out = _out_folder(args.out)
        for stack, plan in plans.items():
            (out / f"{stack}.json").write_text(plan.to_json(), encoding="utf-8")
    extra = ""
    if args.critical_path:
        from ..review.fleet_rollout import fleet_critical_path, format_fleet_critical_path

        extra = format_fleet_critical_path(fleet_critical_path(fleet, plans))
    if args.json:
        doc = {"fleet": fleet.stack, "plans": {s: p.to_dict() for s, p in plans.items()},
               "members": [line.to_dict() for line in lines]}
        write(sys.stdout, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        if extra:
            write(sys.stderr, printable_lines(extra))
        return EXIT_OK
    text = format_summary(fleet.stack, fleet.fleet, len(plans[fleet.stack].resources), lines)
    write(sys.stdout, printable_lines(text + (("\n" + extra) if extra else "")))
    return EXIT_OK


def _out_folder(path: str) -> Path:
    """The folder `plan --fleet --out` writes its plan documents into: created when missing, never a file."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise BadInputError([f"--out {path}: not a folder"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def cmd_diff_fleet(args: argparse.Namespace) -> int:
    """`diff --fleet OLD NEW`: folders of plan documents (`plan --fleet --out`), one per stack, diffed pair by pair as
    `diff` does; a stack on one side only diffs against an empty plan. When one of the plans is a fleet stack's (it
    declares a GpuFleet) of the project in `--project-dir`, a summary per member follows; the exit status is the
    worst pair's."""
    from ..review.diff import diff_plans
    from ..review.diff_text import format_diff
    from ..review.plan_input import PlanDocumentError, read_plan

    old_dir, new_dir = Path(args.old), Path(args.new)
    for folder in (old_dir, new_dir):
        if not folder.is_dir():
            raise BadInputError([f"{folder}: not a folder of plan documents (make one with `plan --fleet NAME --out "
                                 "FOLDER`)"])
    stacks = sorted({p.stem for d in (old_dir, new_dir) for p in d.glob("*.json")})
    if not stacks:
        raise BadInputError([f"{old_dir} and {new_dir} hold no plan documents (*.json)"])
    results = {}
    try:
        for stack in stacks:
            old = _read_or_empty(old_dir / f"{stack}.json", stack, read_plan)
            new = _read_or_empty(new_dir / f"{stack}.json", stack, read_plan)
            results[stack] = (diff_plans(old, new), len(new.get("resources", [])))
    except PlanDocumentError as exc:
        raise BadInputError(exc.lines) from None
    status = max((r.exit_status for r, _ in results.values()), default=EXIT_OK)
    if args.json:
        doc = {"stacks": {s: r.to_dict() for s, (r, _) in results.items()}, "exitStatus": status}
        write(sys.stdout, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        return status
    blocks = [format_diff(r) for r, _ in results.values() if r.has_changes]
    unchanged = [s for s, (r, _) in results.items() if not r.has_changes]
    if unchanged:
        blocks.append(f"no changes: {', '.join(unchanged)}\n")
    fleet_stack = _fleet_stack_of(new_dir, old_dir, stacks)
    if fleet_stack is not None and Path(args.project_dir, "Pulumi.yaml").exists():
        blocks.append(_diff_summary(args.project_dir, fleet_stack, results))
    write(sys.stdout, printable_lines("\n".join(blocks)))
    return status if status != EXIT_OK or any(r.has_changes for r, _ in results.values()) else EXIT_OK


def _read_or_empty(path: Path, stack: str, read_plan: Any) -> dict[str, Any]:
    if path.exists():
        return read_plan(str(path))
    return {"project": "aks-dra-vgpu", "stack": stack, "resources": [], "outputs": {}}


FLEET_COMPONENT = "aks-dra-vgpu:index:GpuFleet"


def _fleet_stack_of(new_dir: Path, old_dir: Path, stacks: list[str]) -> str | None:
    """The stack among the plans that declares a GpuFleet (the newer side first), or None."""
    for folder in (new_dir, old_dir):
        for stack in stacks:
            path = folder / f"{stack}.json"
            try:
                doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            except (OSError, ValueError):
                continue
            resources = doc.get("resources") if isinstance(doc, dict) else None
            if isinstance(resources, list) and any(isinstance(r, dict) and r.get("type") == FLEET_COMPONENT
                                                   for r in resources):
                return stack
    return None


def _diff_summary(project_dir: str, fleet_stack: str, results: dict[str, Any]) -> str:
    """The per-member summary of a fleet's diff, from the fleet as the project's stack files now say it."""
    from ..review.fleet import format_summary, member_line

    fleet = load_fleet_set(project_dir, fleet_stack)
    lines = [member_line(m.stack, m.member_name, m.config, m.group, fleet.fleet, results[m.stack][1],
                         results[m.stack][0])
             for m in fleet.members if m.stack in results]
    own = results.get(fleet.stack)
    return format_summary(fleet.stack, fleet.fleet, own[1] if own else 0, lines,
                          own[0].summary() if own else None)


__all__ = ["EXIT_CHANGES", "cmd_diff_fleet", "cmd_plan_fleet"]
