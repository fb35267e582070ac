"""Compare two plan documents (``plan --json``): what `pulumi up` would add, change, replace and delete, and what it costs.

Pure functions over plain data: ``diff_plans(old, new)`` decides, ``format_diff(result)`` writes it for people,
``DiffResult.to_dict()`` for machines. What replaces what is not decided here but looked up in one table
(``replacement_rules.RULES``), each rule with its source.

Resources are matched by URN without its ``urn:pulumi:<stack>::<project>::`` prefix, so a plan of a copy of a stack
compares with the stack itself. Inputs compare leaf by leaf; paths the new plan's ``ignoreChanges`` names never diff
(an autoscaled pool's ``count``). Secrets compare as their marker: two ``[secret]`` values are equal (a secret may have
changed only when the marker itself differs), and a value whose counterpart is secret is never printed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from .plan import SECRET, UNKNOWN
from .replacement_rules import (
    IMPACTS,
    POOL,
    PROVIDER_CHANGED,
    SAFE_CHANGES_DOC,
    PathPart,
    Rule,
    cascade_rules,
    format_path,
    input_rules,
    is_prefix,
    parse_path,
    replace_on_changes_rule,
)

Action = Literal["add", "change", "replace", "delete"]
ACTIONS: tuple[Action, ...] = ("add", "change", "replace", "delete")
OPTION_KEYS = ("protect", "retainOnDelete", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace")


class _Missing:
    """The value of a key that one side does not have."""

    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()
HIDDEN = "(not shown: the other side is secret)"

_URN_PREFIX = re.compile(r"^urn:pulumi:[^:]*::[^:]*::")


def local_urn(urn: str) -> str:
    """A URN without its stack and project, e.g. ``aks-dra-vgpu:index:GpuNodePool$azure-native:…:AgentPool::gpu-a10s-pool``."""
    return _URN_PREFIX.sub("", urn)


def provider_urn(reference: str | None) -> str | None:
    """The provider's local URN in a provider reference (``<urn>::<id>``); None for a default provider."""
    if not reference:
        return None
    return local_urn(reference.rsplit("::", 1)[0])


# --- result -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ValueChange:
    """One changed value: where, before, after, and the rules the change triggers."""

    path: str
    old: Any
    new: Any
    rules: tuple[Rule, ...] = ()

    @property
    def effects(self) -> set[str]:
        """The effects of the matching rules (replace, rebuild, refused, note)."""
        return {r.effect for r in self.rules}

    @property
    def secret(self) -> bool:
        """Whether either side is a secret (the other side is then never shown)."""
        return SECRET in (self.old, self.new)

    def shown(self) -> tuple[Any, Any]:
        """Old and new as they may be shown: a value whose counterpart is secret stays hidden."""
        old, new = self.old, self.new
        if new == SECRET and old is not MISSING:
            old = HIDDEN
        if old == SECRET and new is not MISSING:
            new = HIDDEN
        return old, new

    def to_dict(self) -> dict[str, Any]:
        """JSON shape: absent sides are left out."""
        old, new = self.shown()
        doc: dict[str, Any] = {"path": self.path}
        if old is not MISSING:
            doc["old"] = old
        if new is not MISSING:
            doc["new"] = new
        if self.rules:
            doc["rules"] = [_rule_dict(r) for r in self.rules]
        return doc


@dataclass(frozen=True)
class ResourceDiff:
    """What happens to one resource, why, and what it costs."""

    key: str
    urn: str
    type: str
    name: str
    action: Action
    changes: tuple[ValueChange, ...] = ()
    options: tuple[ValueChange, ...] = ()
    reasons: tuple[Rule, ...] = ()  # replacement reasons that are not an input change (provider, cascade)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of one resource's diff."""
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "action": self.action,
            "changes": [c.to_dict() for c in self.changes],
            "options": [c.to_dict() for c in self.options],
            "reasons": [_rule_dict(r) for r in self.reasons],
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class DiffResult:
    """Everything that differs between two plans, in a deterministic order (riskiest first)."""

    project: str
    old_stack: str
    new_stack: str
    resources: tuple[ResourceDiff, ...] = ()
    outputs: tuple[ValueChange, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        """Resources per action."""
        return {a: sum(1 for r in self.resources if r.action == a) for a in ACTIONS}

    @property
    def has_changes(self) -> bool:
        """Whether `pulumi up` would do anything (a resource or a stack output differs)."""
        return bool(self.resources or self.outputs)

    def summary(self) -> str:
        """``N to add, N to change, N to replace, N to delete``."""
        c = self.counts
        return f"{c['add']} to add, {c['change']} to change, {c['replace']} to replace, {c['delete']} to delete"

    def to_dict(self) -> dict[str, Any]:
        """The diff document (``diff --json``)."""
        return {
            "project": self.project,
            "stacks": {"old": self.old_stack, "new": self.new_stack},
            "summary": self.counts,
            "hasChanges": self.has_changes,
            "resources": [r.to_dict() for r in self.resources],
            "outputs": [c.to_dict() for c in self.outputs],
            "warnings": list(self.warnings),
        }


def _rule_dict(rule: Rule) -> dict[str, str]:
    return {"effect": rule.effect, "mechanism": rule.mechanism, "why": rule.why, "source": rule.source}


# --- comparing values -------------------------------------------------------------------------------------------------
def value_changes(old: Any, new: Any, path: tuple[PathPart, ...] = ()) -> list[tuple[tuple[PathPart, ...], Any, Any]]:
    """Leaf-level differences between two JSON values: maps key by key, lists item by item (extra items as added/removed)."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new)):
            found += value_changes(old.get(key, MISSING), new.get(key, MISSING), (*path, key))
        return found
    if isinstance(old, list) and isinstance(new, list):
        found = []
        for index in range(max(len(old), len(new))):
            found += value_changes(
                old[index] if index < len(old) else MISSING, new[index] if index < len(new) else MISSING, (*path, index)
            )
        return found
    return [(path, old, new)]


def _resolve(value: Any, parts: tuple[PathPart, ...]) -> Any:
    """The value(s) under a path pattern inside `value` ("*" collects every item); MISSING where there is none."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if head == "*":
        items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        return tuple(_resolve(v, rest) for v in items)
    if isinstance(value, dict) and isinstance(head, str):
        return _resolve(value.get(head, MISSING), rest)
    if isinstance(value, list) and isinstance(head, int) and head < len(value):
        return _resolve(value[head], rest)
    return MISSING


def _triggers(pattern: tuple[PathPart, ...], path: tuple[PathPart, ...], old: Any, new: Any) -> bool:
    """Whether a change at `path` (old -> new) changes what `pattern` names."""
    if is_prefix(pattern, path):
        return True
    if len(path) >= len(pattern) or not is_prefix(pattern[: len(path)], path):
        return False
    # The change sits above the rule's path (a whole object or list item appeared, went or changed type).
    if (old is MISSING or new is MISSING) and path and isinstance(path[-1], int):
        return False  # adding or removing a list item does not change an existing item's property
    rest = pattern[len(path):]
    return _resolve(old, rest) != _resolve(new, rest)


def _ignored(path: tuple[PathPart, ...], ignore: list[tuple[PathPart, ...]]) -> bool:
    return any(is_prefix(p, path) for p in ignore)


def _parse_all(paths: list[str]) -> list[tuple[PathPart, ...]]:
    parsed = []
    for text in paths:
        try:
            parsed.append(parse_path(text))
        except ValueError:
            continue  # a path Pulumi would reject as well; nothing to ignore or replace by it
    return parsed


# --- the diff ---------------------------------------------------------------------------------------------------------
def _index(plan: dict[str, Any], side: str) -> dict[str, dict[str, Any]]:
    """Resources by local URN; raises ValueError naming the first resource a plan document cannot hold."""
    index = {}
    for number, res in enumerate(plan.get("resources") or []):
        if not isinstance(res, dict) or not all(isinstance(res.get(k), str) for k in ("urn", "type", "name")):
            raise ValueError(f"{side} plan: resources[{number}] needs text values for urn, type and name")
        index[local_urn(res["urn"])] = res
    return index


def _short_type(type_: str) -> str:
    return type_.rsplit(":", 1)[-1]


def _input_diff(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[ValueChange], list[ValueChange]]:
    """Input and option changes of one resource, each input change with the rules it triggers."""
    type_ = new["type"]
    new_options = new.get("options") or {}
    ignore = _parse_all(list(new_options.get("ignoreChanges") or []))
    rules = input_rules(type_)
    rules += [(p, replace_on_changes_rule(format_path(p))) for p in _parse_all(list(new_options.get("replaceOnChanges") or []))]
    changes = []
    for path, before, after in value_changes(old.get("inputs") or {}, new.get("inputs") or {}):
        if _ignored(path, ignore):
            continue
        matched = tuple(rule for pattern, rule in rules if pattern == ("*",) or _triggers(pattern, path, before, after))
        changes.append(ValueChange(format_path(path), before, after, matched))
    old_options = old.get("options") or {}
    options = [
        ValueChange(key, old_options.get(key, MISSING), new_options.get(key, MISSING))
        for key in OPTION_KEYS
        if _normal_option(old_options.get(key)) != _normal_option(new_options.get(key))
    ]
    return changes, options


def _normal_option(value: Any) -> Any:
    """Unset, false and empty are the same option value; lists compare as sets."""
    if value in (None, False, []):
        return None
    return sorted(value) if isinstance(value, list) else value


def _cascade(
    common: list[str], old_index: dict[str, dict[str, Any]], new_index: dict[str, dict[str, Any]], replaced: dict[str, list[Rule]]
) -> None:
    """Adds to `replaced` every resource whose provider or a resource it lives in is replaced (until nothing changes)."""
    grew = True
    while grew:
        grew = False
        for key in common:
            if key in replaced:
                continue
            res = new_index[key]
            upstream = {local_urn(u) for u in res.get("dependencies") or []}
            provider = provider_urn(res.get("provider"))
            if provider:
                upstream.add(provider)
            for dep in sorted(upstream & set(replaced)):
                dep_type = (new_index.get(dep) or old_index[dep])["type"]
                found = cascade_rules(res["type"], dep_type)
                if found:
                    replaced[key] = found
                    grew = True
                    break


def diff_plans(old: dict[str, Any], new: dict[str, Any]) -> DiffResult:
    """What changes between two plan documents, resource by resource, with replacements and their cost called out.

    Raises ValueError when a document's resources lack a urn, type or name.
    """
    old_index, new_index = _index(old, "old"), _index(new, "new")
    common = sorted(set(old_index) & set(new_index))
    inputs: dict[str, tuple[list[ValueChange], list[ValueChange]]] = {}
    replaced: dict[str, list[Rule]] = {}  # key -> replacement reasons that are not input changes
    for key in common:
        inputs[key] = _input_diff(old_index[key], new_index[key])
        changes = inputs[key][0]
        if any("replace" in c.effects for c in changes):
            replaced[key] = []
        if provider_urn(old_index[key].get("provider")) != provider_urn(new_index[key].get("provider")):
            replaced.setdefault(key, []).append(PROVIDER_CHANGED)
    _cascade(common, old_index, new_index, replaced)

    diffs: list[ResourceDiff] = []
    for key in common:
        changes, options = inputs[key]
        if key in replaced:
            action: Action = "replace"
        elif changes or options:
            action = "change"
        else:
            continue
        res = new_index[key]
        diffs.append(ResourceDiff(
            key, res["urn"], res["type"], res["name"], action, tuple(changes), tuple(options), tuple(replaced.get(key, ())),
            tuple(_resource_warnings(action, old_index[key], new_index[key], changes)),
        ))
    for key in sorted(set(new_index) - set(old_index)):
        res = new_index[key]
        diffs.append(ResourceDiff(key, res["urn"], res["type"], res["name"], "add"))
    for key in sorted(set(old_index) - set(new_index)):
        res = old_index[key]
        diffs.append(ResourceDiff(
            key, res["urn"], res["type"], res["name"], "delete", warnings=tuple(_resource_warnings("delete", res, None, []))
        ))
    order = {"replace": 0, "delete": 1, "change": 2, "add": 3}
    diffs.sort(key=lambda d: (order[d.action], d.key))

    outputs = tuple(
        ValueChange(format_path(path), before, after)
        for path, before, after in value_changes(old.get("outputs") or {}, new.get("outputs") or {})
    )
    return DiffResult(
        project=str(new.get("project") or old.get("project") or ""),
        old_stack=str(old.get("stack") or ""),
        new_stack=str(new.get("stack") or ""),
        resources=tuple(diffs),
        outputs=outputs,
        warnings=tuple(_plan_warnings(diffs, outputs)),
    )


# --- what the reader must know ------------------------------------------------------------------------------------------
def _resource_warnings(
    action: Action, old: dict[str, Any], new: dict[str, Any] | None, changes: list[ValueChange]
) -> list[str]:
    """Downtime, protection, retention, refused and rebuilding changes, secrets: one line each."""
    found: list[str] = []
    type_ = old["type"]
    old_options = old.get("options") or {}
    impact = IMPACTS.get(type_)
    if action == "replace" and impact:
        found.append(impact.replaced)
    if action == "delete" and impact and impact.deleted:
        found.append(impact.deleted)
    if action in ("replace", "delete") and old_options.get("protect"):
        found.append(
            "protected: `pulumi up` stops with an error instead of deleting it; to do this on purpose, turn protect off "
            "in one update and make the change in the next"
        )
    if action == "delete" and old_options.get("retainOnDelete"):
        found.append("retainOnDelete: Pulumi forgets it but it stays in Azure (and keeps costing) until removed there")
    if action == "replace" and old_options.get("retainOnDelete"):
        found.append(
            "retainOnDelete: the old one is left in Azure; a replacement with the same name then collides with it"
        )
    if action == "replace" and type_ == POOL and any("replace" in c.effects for c in changes):
        # Only the pool's own settings can move to a pool beside it; a pool replaced with its cluster cannot.
        name = str((old.get("inputs") or {}).get("agentPoolName", ""))
        found.append(
            f"safe path: add a pool beside it (e.g. '{successor_name(name)}' with the new settings), `pulumi up`, drain "
            f"'{name}', then remove it in a second update ({SAFE_CHANGES_DOC})"
        )
    elif action in ("replace", "delete") and impact and impact.safe_path:
        found.append(f"see {SAFE_CHANGES_DOC} before you apply this")
    for change in changes:
        for rule in change.rules:
            if rule.effect == "refused":
                found.append(f"Azure refuses {change.path} in place, so `pulumi up` fails: {rule.why} ({SAFE_CHANGES_DOC})")
            elif rule.effect == "rebuild":
                found.append(f"{change.path}: every node is rebuilt, workloads are evicted node by node: {rule.why}")
            elif rule.effect == "note":
                found.append(f"{change.path}: {rule.why}")
        if change.old == SECRET and change.new not in (SECRET, MISSING):
            found.append(f"{change.path} was a secret and is not one now: a credential may end up in plain text")
        elif change.secret:
            found.append(f"{change.path}: a secret may have changed (only its marker is compared)")
    return list(dict.fromkeys(found))


def successor_name(name: str) -> str:
    """A name for the pool that takes over from `name`: the same stem with the next number, still 1-12 characters."""
    stem = name.rstrip("0123456789") or "pool"
    digits = name[len(stem):]
    number = str(int(digits) + 1 if digits else 2)
    return stem[: 12 - len(number)] + number


def _plan_warnings(diffs: list[ResourceDiff], outputs: tuple[ValueChange, ...]) -> list[str]:
    """Warnings about the update as a whole."""
    found = []
    added = {d.name for d in diffs if d.action == "add" and d.type == POOL}
    gone = {d.name for d in diffs if d.action in ("delete", "replace") and d.type == POOL}
    if added and gone:
        found.append(
            "GPU pools are added and removed (or replaced) in the same update: Pulumi runs both at once, so workloads "
            f"get no time to move; add the new pool first, drain, and remove the old one in a later update ({SAFE_CHANGES_DOC})"
        )
    # The same name and type leaving and arriving means its URN changed (a new parent): Pulumi recreates it.
    arriving = {(d.type, d.name) for d in diffs if d.action == "add"}
    for d in diffs:
        if d.action == "delete" and (d.type, d.name) in arriving:
            found.append(
                f"{_short_type(d.type)} {d.name} is deleted and created again because its URN changed (another parent?); "
                "add an alias to keep it"
            )
    for change in outputs:
        if change.old == SECRET and change.new not in (SECRET, MISSING):
            found.append(f"output {change.path} was a secret and is not one now: a credential may end up in plain text")
    return found


# --- for people -------------------------------------------------------------------------------------------------------
_SYMBOL = {"add": "+ ", "change": "~ ", "replace": "+-", "delete": "- "}
_LABEL = {"add": "create", "change": "update", "replace": "REPLACE", "delete": "delete"}


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


def _change_line(change: ValueChange) -> str:
    old, new = change.shown()
    if isinstance(old, str) and isinstance(new, str) and old not in (SECRET, HIDDEN) and new not in (SECRET, HIDDEN):
        old, new = _elide_common(old, new)
    line = f"{change.path}: {_show(old)} -> {_show(new)}"
    replacing = [r for r in change.rules if r.effect == "replace"]
    if replacing:
        rule = replacing[0]
        how = (
            "Azure cannot change it in place; Pulumi would try an update that fails, so plan a new one"
            if rule.mechanism == "api" else "forces replacement"
        )
        line += f"   [{how}: {rule.why}; {rule.source}]"
    elif any(r.effect == "refused" for r in change.rules):
        line += "   [refused in place by Azure]"
    return line


def format_diff(result: DiffResult) -> str:
    """The diff for people: one block per resource (riskiest first), stack outputs, warnings and the summary line."""
    stacks = result.new_stack if result.old_stack == result.new_stack else f"{result.old_stack} -> {result.new_stack}"
    lines = [f"{result.project}/{stacks}: {len(result.resources)} resource(s) differ"]
    for d in result.resources:
        lines.append(f"{_SYMBOL[d.action]} {_short_type(d.type)} {d.name}  {_LABEL[d.action]}")
        for change in d.changes:
            lines.append(f"      {_change_line(change)}")
        for option in d.options:
            lines.append(f"      option {_change_line(option)}   (Pulumi state only: nothing is sent to Azure)")
        for rule in d.reasons:
            lines.append(f"      replaced because {rule.why}; {rule.source}")
        for warning in d.warnings:
            lines.append(f"      ! {warning}")
    if result.outputs:
        lines.append("outputs:")
        lines += [f"  ~ {_change_line(c)}" for c in result.outputs]
    if result.warnings:
        lines.append("warnings:")
        lines += [f"  ! {w}" for w in result.warnings]
    lines.append(result.summary())
    return "\n".join(lines) + "\n"
