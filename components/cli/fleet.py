"""`plan --fleet` and `diff --fleet`: a fleet stack and its member stacks in one review, each stack planned or diffed
as the single-stack commands do it, with a summary per member (components.review.fleet)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .findings import report_findings
from .output import EXIT_CHANGES, EXIT_OK, EXIT_POLICY, BadInputError, printable, printable_lines, write
from .problems import program_problems
from .running import plan_stack


def load_fleet_set(project_dir: str, fleet_stack: str) -> Any:
    """The fleet stack and its member stacks, validated (`plan --fleet`, `diff --fleet`, `verify --fleet`,
    `fleet-rollout`); BadInputError with one line per problem across the stacks (an empty name too: it lists the
    project's fleet stacks)."""
    from ..offline.fleet_stacks import load_fleet

    with program_problems(Path(project_dir)):
        return load_fleet(project_dir, fleet_stack)


def cmd_plan_fleet(args: argparse.Namespace) -> int:
    """`plan --fleet`: the fleet stack and every member stack planned, a summary per member; `--out` keeps each plan
    document (``<stack>.json``) for `diff --fleet`; `--critical-path` the first `up` and a rollout's duration."""
    from ..review.fleet import format_summary, member_line

    fleet = load_fleet_set(args.project_dir, args.fleet)
    for line in fleet.warnings:
        write(sys.stderr, printable(f"warning: {line}") + "\n")
    # `load_fleet` checked the rules across the fleet's stacks once: each stack's plan does not check them again.
    plans = {stack: plan_stack(fleet.project, stack, args.timeout, fleet_checked=True)
             for stack in (fleet.stack, *(member.stack for member in fleet.members))}
    lines = [member_line(m.stack, m.member_name, m.config, m.group, fleet.fleet, len(plans[m.stack].resources))
             for m in fleet.members]
    if args.out:
        write_plans(_out_folder(args.out), fleet.stack, {stack: plan.to_json() for stack, plan in plans.items()})
    # What `plan --stack` says of each stack, named by its stack: a member `plan --stack` refuses (two components
    # creating one object, exit 4) is refused here too.
    refused = [report_findings(plan, in_document=args.json, prefix=f"{stack}: ", project_dir=args.project_dir)
               for stack, plan in plans.items()]
    status = EXIT_POLICY if any(refused) else EXIT_OK
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
        return status
    text = format_summary(fleet.stack, fleet.fleet, len(plans[fleet.stack].resources), lines)
    write(sys.stdout, printable_lines(text + (("\n" + extra) if extra else "")))
    return status


def _out_folder(path: str) -> Path:
    """The folder `plan --fleet --out` writes its plan documents into: created when missing, never a file."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise BadInputError([f"--out {path}: not a folder"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder


MANIFEST = "fleet-plans.manifest"  # not *.json: never read as a stack's plan


def write_plans(out: Path, fleet_stack: str, documents: dict[str, str]) -> None:
    """Writes each stack's plan document into `out`, after deleting the plans this command wrote there before that are
    no longer written (a member removed from the fleet); a file it did not write (its manifest does not name it) is
    never touched. The manifest names the fleet stack, the files and when they were planned (diff --fleet reads it)."""
    import time

    previous = _manifest(out) or {}
    written = {f"{stack}.json" for stack in documents}
    for name in previous.get("files") or []:
        path = out / str(name)
        if str(name) not in written and path.name == name and name.endswith(".json") and path.is_file():
            path.unlink()
    for stack, text in documents.items():
        (out / f"{stack}.json").write_text(text, encoding="utf-8")
    manifest = {"fleetStack": fleet_stack, "files": sorted(written),
                "planned": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest (written by `plan --fleet --out`), or None when there is none or it is not one."""
    try:
        found = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def cmd_diff_fleet(args: argparse.Namespace) -> int:
    """`diff --fleet OLD NEW`: folders of plan documents (`plan --fleet --out`), one per stack, diffed pair by pair as
    `diff` does; a stack on one side only diffs against an empty plan. The summary per member is read from the two
    plans alone (review.fleet_plans); folders of another fleet, a file holding another stack's plan, and OLD newer
    than NEW are said. The exit status is the worst pair's."""
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
    try:
        sides = {d: {s: read_plan(str(d / f"{s}.json")) for s in stacks if (d / f"{s}.json").exists()}
                 for d in (old_dir, new_dir)}
    except PlanDocumentError as exc:
        raise BadInputError(exc.lines) from None
    warnings = _pairing_problems(old_dir, new_dir, sides)
    results = {}
    for stack in stacks:
        old = sides[old_dir].get(stack) or _empty(stack)
        new = sides[new_dir].get(stack) or _empty(stack)
        results[stack] = (diff_plans(old, new), len(new.get("resources", [])))
    status = max((r.exit_status for r, _ in results.values()), default=EXIT_OK)
    for line in warnings:
        write(sys.stderr, printable(f"warning: {line}") + "\n")
    if args.json:
        doc = {"stacks": {s: r.to_dict() for s, (r, _) in results.items()}, "exitStatus": status,
               "warnings": warnings}
        write(sys.stdout, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        return status
    blocks = [format_diff(r) for r, _ in results.values() if r.has_changes]
    unchanged = [s for s, (r, _) in results.items() if not r.has_changes]
    if unchanged:
        blocks.append(f"no changes: {', '.join(unchanged)}\n")
    summary = _diff_summary(sides[new_dir], sides[old_dir], results)
    if summary:
        blocks.append(summary)
    write(sys.stdout, printable_lines("\n".join(blocks)))
    return status if status != EXIT_OK or any(r.has_changes for r, _ in results.values()) else EXIT_OK


def _empty(stack: str) -> dict[str, Any]:
    return {"project": "aks-dra-vgpu", "stack": stack, "resources": [], "outputs": {}}


def _pairing_problems(old_dir: Path, new_dir: Path, sides: dict[Path, dict[str, dict[str, Any]]]) -> list[str]:
    """Why OLD and NEW may not be the same fleet's plans before and after (BadInputError when they are not: files of
    another stack or fleet), and warnings when they look swapped (OLD planned after NEW)."""
    from ..review.fleet_plans import folder_problems, planned_fleet

    problems = [p for side, d in (("OLD", old_dir), ("NEW", new_dir)) for p in folder_problems(side, str(d), sides[d])]
    fleets = {d: next(((s, f) for s, p in sides[d].items() if (f := planned_fleet(p))), None) for d in sides}
    old_fleet, new_fleet = fleets[old_dir], fleets[new_dir]
    if old_fleet and new_fleet and (old_fleet[0] != new_fleet[0] or (old_fleet[1].name, old_fleet[1].resource_group_name)
                                    != (new_fleet[1].name, new_fleet[1].resource_group_name)):
        problems.append(f"OLD {old_dir} is fleet stack {old_fleet[0]} (fleet {old_fleet[1].name} in "
                        f"{old_fleet[1].resource_group_name}), NEW {new_dir} is fleet stack {new_fleet[0]} (fleet "
                        f"{new_fleet[1].name} in {new_fleet[1].resource_group_name}): diff two plans of one fleet")
    if problems:
        raise BadInputError([f"diff --fleet: {p}" for p in problems])
    old_m, new_m = _manifest(old_dir) or {}, _manifest(new_dir) or {}
    old_t, new_t = str(old_m.get("planned") or ""), str(new_m.get("planned") or "")
    if old_t and new_t and old_t > new_t:
        return [f"OLD {old_dir} was planned after NEW {new_dir} ({old_t} > {new_t}): were they given in the wrong "
                "order? The diff reads OLD as the plans before the change"]
    return []


def _diff_summary(new: dict[str, dict[str, Any]], old: dict[str, dict[str, Any]], results: dict[str, Any]) -> str:
    """The per-member summary of a fleet's diff, from the two plans alone (NEW's, or OLD's for a stack NEW lacks);
    empty when neither side holds a fleet stack's plan."""
    from ..review.fleet import format_summary, planned_member_line
    from ..review.fleet_plans import planned_fleet, planned_member

    found = next(((s, f) for side in (new, old) for s, p in sorted(side.items()) if (f := planned_fleet(p))), None)
    if found is None:
        return ""
    fleet_stack, fleet = found
    lines = []
    for stack, (diff, resources) in results.items():
        member = planned_member(new.get(stack) or old.get(stack) or {})
        if member is not None:
            lines.append(planned_member_line(stack, member, fleet, resources, diff))
    own = results.get(fleet_stack)
    return format_summary(fleet_stack, fleet, own[1] if own else 0, lines, own[0].summary() if own else None)


__all__ = ["EXIT_CHANGES", "cmd_diff_fleet", "cmd_plan_fleet"]
