"""The diff for people: one block per resource (riskiest first), stack outputs, warnings and the summary line."""

from __future__ import annotations

import json
from typing import Any

from ..config.syntax import MISSING
from ..offline.plan import SECRET, UNKNOWN
from .diff_model import HIDDEN, DiffResult, ResourceDiff, ValueChange

_SYMBOL = {"create": "+ ", "update": "~ ", "replace": "+-", "refused": "!~", "delete": "- "}


def _label(d: ResourceDiff) -> str:
    if d.replacement:
        return d.replacement.header()
    if d.operation == "refused" and d.refused_by == "this package":
        return "REFUSED by this package's policy: do not apply it (Helm would not stop it)"
    if d.operation == "refused" and d.refused_by == "the Kubernetes API server":
        return "REFUSED by the Kubernetes API server: `pulumi preview` already fails (server-side apply's dry run)"
    if d.operation == "refused":
        return f"REFUSED by {d.refused_by}: `pulumi up` fails"
    return d.operation


def _show(value: Any) -> str:
    if value is MISSING:
        return "(absent)"
    if value in (SECRET, UNKNOWN, HIDDEN):
        return str(value)
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 100 else text[:97] + "..."


def _elide_common(old: str, new: str, keep: int = 24) -> tuple[str, str]:
    """Two long texts with their common beginning cut, so the difference shows (CEL selectors are long)."""
    common = 0
    while common < min(len(old), len(new)) and old[common] == new[common]:
        common += 1
    cut = max(0, common - keep)
    return (old, new) if cut < 8 else ("..." + old[cut:], "..." + new[cut:])


def change_line(change: ValueChange) -> str:
    """``path: old -> new`` with the rule that decides what the change does."""
    old, new = change.shown()
    if isinstance(old, str) and isinstance(new, str) and old not in (SECRET, HIDDEN) and new not in (SECRET, HIDDEN):
        old, new = _elide_common(old, new)
    line = f"{change.path}: {_show(old)} -> {_show(new)}"
    for effect, text in (("replace", "forces replacement"), ("refused", "refused in place")):
        rule = next((r for r in change.rules if r.effect == effect), None)
        if rule:
            return line + f"   [{text}: {rule.why}; {rule.source}]"
    return line


def format_diff(result: DiffResult) -> str:
    """The diff for people, ending with the summary line."""
    stacks = result.new_stack if result.old_stack == result.new_stack else f"{result.old_stack} -> {result.new_stack}"
    lines = [f"{result.project}/{stacks}: {len(result.resources)} resource(s) differ"]
    for d in result.resources:
        lines.append(f"{_SYMBOL[d.operation]} {d.type.rsplit(':', 1)[-1]} {d.name}  {_label(d)}")
        if d.moved_from:
            lines.append(f"      moved from {d.moved_from} (an alias keeps it: nothing is recreated)")
        if d.grants:
            lines.append(f"      {d.grants}")
        for change in d.changes:
            lines.append(f"      {change_line(change)}")
        for option in d.options:
            lines.append(f"      option {change_line(option)}   (Pulumi state only: nothing is sent to Azure)")
        for rule in d.reasons:
            verb = "refused because" if rule.effect == "refused" else "replaced because"
            lines.append(f"      {verb} {rule.why}; {rule.source}")
        if d.replacement:
            lines.append(f"      {d.replacement.line()}")
        for warning in d.warnings:
            lines.append(f"      ! {warning}")
    if result.outputs:
        lines.append("outputs:")
        lines += [f"  ~ {change_line(c)}" for c in result.outputs]
    if result.warnings or result.blocked:
        lines.append("warnings:")
        lines += [f"  ! {w}" for w in (*result.blocked, *result.warnings)]
    lines.append(result.summary())
    return "\n".join(lines) + "\n"
