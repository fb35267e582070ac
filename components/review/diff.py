"""Compare two plan documents (``plan --json``) the way an update preview would: what `pulumi up` creates, updates,
replaces (delete-first or create-first), deletes, and which updates the service will refuse.

The old plan stands for what is deployed, the new one for the program. Pure functions over plain data:
``diff_plans(old, new)`` decides, ``diff_text.format_diff(result)`` writes it for people, ``DiffResult.to_dict()`` for
machines. What a change does is not decided here but looked up in one table (``replacement_rules.RULES``), each rule
with its source; version upgrades are checked by ``config.versions``.

Resources are matched by URN without its ``urn:pulumi:<stack>::<project>::`` prefix (so a plan of a copy of a stack
compares with the stack), or through an alias the new resource carries. Inputs compare leaf by leaf; paths the new
plan's ``ignoreChanges`` names never diff (an autoscaled pool's ``count``). Secrets compare as their marker, and a value
whose counterpart is secret is never shown.
"""

from __future__ import annotations

from typing import Any

from ..config.syntax import MISSING
from ..offline.urns import local_urn, provider_urn
from .diff_model import DiffResult, Operation, ResourceDiff, ValueChange, masked_path
from .diff_values import parse_all, presence, triggers, value_changes
from .diff_warnings import blocked_reasons, plan_warnings, resource_warnings
from .equal import same
from .extended_names import extended_name_warnings
from .grants import grant_text, granted_role
from .replacement import Replacement, decide
from .replacement_rules import (
    PROVIDER_CHANGED,
    canonical_type,
    cascade_rules,
    format_path,
    input_rules,
    is_prefix,
    replace_on_changes_rule,
)
from .rules.model import Refuser, Rule
from .upgrade_rules import chart_rules, owned_version_warnings, upgrade_rule, version_rules

OPTION_KEYS = ("protect", "retainOnDelete", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace", "aliases")


def _normal_option(value: Any) -> Any:
    """Unset, false and empty are the same option value; lists compare as sets."""
    if value in (None, False, []):
        return None
    return sorted(value) if isinstance(value, list) else value


def _input_diff(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[ValueChange], list[ValueChange]]:
    """Input and option changes of one resource, each input change with the rules it triggers."""
    type_ = new["type"]
    new_options = new.get("options") or {}
    ignore = parse_all(list(new_options.get("ignoreChanges") or []))
    rules = input_rules(type_)
    rules += [(p, replace_on_changes_rule(format_path(p))) for p in parse_all(list(new_options.get("replaceOnChanges") or []))]
    changes = []
    old_inputs, new_inputs = old.get("inputs") or {}, new.get("inputs") or {}
    for path, before, after in value_changes(old_inputs, new_inputs):
        if any(is_prefix(p, path) for p in ignore):
            continue
        matched = [
            rule for pattern, rule in rules
            if (pattern == ("*",) or triggers(pattern, path, before, after))
            and (rule.when is None or rule.when == presence(pattern, old_inputs, new_inputs))
        ]
        matched += upgrade_rule(type_, format_path(path), before, after)
        changes.append(ValueChange(format_path(masked_path(path)), before, after, tuple(matched)))
    old_options = old.get("options") or {}
    options = [
        ValueChange(key, old_options.get(key, MISSING), new_options.get(key, MISSING))
        for key in OPTION_KEYS
        if not same(_normal_option(old_options.get(key)), _normal_option(new_options.get(key)))
    ]
    return changes, options


# --- matching resources ------------------------------------------------------------------------------------------------
def _index(plan: dict[str, Any], side: str, tokens: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Resources by local URN, each typed by the token its rules speak about (an API-versioned token's resource: the
    token as written is kept in `tokens`); raises ValueError naming the first resource a plan document cannot hold."""
    index = {}
    for number, res in enumerate(plan.get("resources") or []):
        if not isinstance(res, dict) or not all(isinstance(res.get(k), str) for k in ("urn", "type", "name")):
            raise ValueError(f"{side} plan: resources[{number}] needs text values for urn, type and name")
        key = local_urn(res["urn"])
        tokens.setdefault(key, res["type"])
        index[key] = {**res, "type": canonical_type(res["type"])}
    return index


def moved(old_index: dict[str, Any], new_index: dict[str, Any]) -> dict[str, str]:
    """New key -> old key for resources that moved (renamed, reparented) with an alias naming their old URN."""
    found: dict[str, str] = {}
    for key, res in new_index.items():
        if key in old_index:
            continue
        aliases = (res.get("options") or {}).get("aliases") or []
        for alias in aliases if isinstance(aliases, list) else []:
            old_key = local_urn(alias) if isinstance(alias, str) else None
            if old_key in old_index and old_key not in new_index and old_key not in found.values():
                found[key] = old_key
                break
    return found


# --- deciding ----------------------------------------------------------------------------------------------------------
def _refuser(type_: str, refused: list[Rule], charts: list[Rule]) -> Refuser:
    """Who refuses: a chart downgrade only this package (neither Helm nor the API server refuses one: upstream says
    downgrades are not supported, docs/upgrade.md), otherwise the service behind the resource."""
    if refused and all(rule in charts for rule in refused):
        return "this package"
    return "the Kubernetes API server" if type_.startswith("kubernetes:") else "Azure"


def diff_plans(old: dict[str, Any], new: dict[str, Any]) -> DiffResult:
    """What changes between two plan documents, resource by resource, with replacements and refusals called out.

    Raises ValueError when a document's resources lack a urn, type or name.
    """
    new_tokens: dict[str, str] = {}
    old_tokens: dict[str, str] = {}
    old_index, new_index = _index(old, "old", old_tokens), _index(new, "new", new_tokens)
    renamed = moved(old_index, new_index)
    pairs = {key: key for key in set(old_index) & set(new_index)} | renamed  # new key -> old key
    inputs = {key: _input_diff(old_index[pairs[key]], new_index[key]) for key in pairs}
    replaced: dict[str, list[Rule]] = {}  # new key -> replacement reasons beyond its own input changes
    by_provider: set[str] = set()
    for key, (changes, _) in inputs.items():
        if any("replace" in c.effects for c in changes):
            replaced[key] = []
            if any(r.effect == "replace" and r.mechanism == "provider" for c in changes for r in c.rules):
                by_provider.add(key)
        if _provider_key(old_index[pairs[key]]) != _provider_key(new_index[key]) and not _moved_provider(
            old_index[pairs[key]], new_index[key], renamed
        ):
            replaced.setdefault(key, []).append(PROVIDER_CHANGED)
    _cascade(pairs, old_index, new_index, replaced)

    diffs: list[ResourceDiff] = []
    for key in sorted(pairs):
        old_res, new_res = old_index[pairs[key]], new_index[key]
        changes, options = inputs[key]
        reasons = list(replaced.get(key, ()))
        reasons += version_rules(new_res, new_index, old_index) if changes else []
        charts = chart_rules(old_res, new_res)
        reasons += charts
        refused = [r for c in changes for r in c.rules if r.effect == "refused"] + [r for r in reasons if r.effect == "refused"]
        if key in replaced:
            operation: Operation = "replace"
        elif refused:
            operation = "refused"
        elif changes or options or key in renamed:
            operation = "update"
        else:
            continue
        own = any("replace" in c.effects for c in changes) or any(r.after is None for r in replaced.get(key, ()))
        protected = operation == "replace" and _replace_protected(old_res, new_res, own)
        if protected:
            operation = "refused"
        # The one decision every line about this replacement is written from (header, note, advice).
        replacement: Replacement | None = (
            decide(old_res, new_res, key in by_provider, replaced.get(key, [])) if operation == "replace" else None
        )
        diffs.append(ResourceDiff(
            key, new_res["urn"], new_tokens[key], new_res["name"], operation, tuple(changes), tuple(options),
            tuple(dict.fromkeys(r for r in reasons if r.effect in ("replace", "refused"))),
            tuple([*resource_warnings(operation, old_res, new_res, changes, protected, replacement),
                   *(f"chart: {r.why}" for r in charts if r.effect == "note")]),
            replacement,
            ("Pulumi" if protected else _refuser(new_res["type"], refused, charts)) if operation == "refused" else None,
            pairs[key] if key in renamed else None,
            _grants(old_res, new_res),
        ))
    for key in sorted(set(new_index) - set(pairs)):
        res = new_index[key]
        diffs.append(ResourceDiff(key, res["urn"], new_tokens[key], res["name"], "create",
                                  grants=grant_text(res["type"], res.get("inputs"))))
    for key in sorted(set(old_index) - set(pairs.values())):
        res = old_index[key]
        protected = bool((res.get("options") or {}).get("protect"))
        diffs.append(ResourceDiff(
            key, res["urn"], old_tokens[key], res["name"], "refused" if protected else "delete",
            warnings=tuple(resource_warnings("delete", res, None, [], protected)),
            refused_by="Pulumi" if protected else None, grants=grant_text(res["type"], res.get("inputs")),
        ))
    order = {"refused": 0, "replace": 1, "delete": 2, "update": 3, "create": 4}
    diffs.sort(key=lambda d: (order[d.operation], d.key))
    outputs = tuple(
        ValueChange(format_path(masked_path(path)), before, after)
        for path, before, after in value_changes(old.get("outputs") or {}, new.get("outputs") or {})
    )
    return DiffResult(
        project=str(new.get("project") or old.get("project") or ""),
        old_stack=str(old.get("stack") or ""),
        new_stack=str(new.get("stack") or ""),
        resources=tuple(diffs),
        outputs=outputs,
        warnings=tuple([*plan_warnings(diffs, outputs), *owned_version_warnings(old_index, new_index), *extended_name_warnings(
            old_index, new_index, {d.key: (d.operation, bool(d.delete_before_replace)) for d in diffs})]),
        blocked=tuple(blocked_reasons(diffs, new_index)),
    )


def _grants(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """What a changed role assignment grants now, and the role it granted before where that differs."""
    now = grant_text(new["type"], new.get("inputs"))
    role, before = granted_role(new["type"], new.get("inputs")), granted_role(old["type"], old.get("inputs"))
    return f"{now} (before: {before})" if now and before and before != role else now


def _replace_protected(old: dict[str, Any], new: dict[str, Any], own_change: bool) -> bool:
    """Whether Pulumi refuses to replace: for the resource's own change only when the old *and* the new state are
    protected ("we do allow unprotecting and replacing to happen in a single update"), for a dependent replaced with a
    dependency when its old state is (pulumi/pulumi pkg/resource/deploy/step_generator.go, continueStepsFromDiff and
    calculateDependentReplacements)."""
    was = bool((old.get("options") or {}).get("protect"))
    return was and (bool((new.get("options") or {}).get("protect")) or not own_change)


def _provider_key(res: dict[str, Any]) -> str | None:
    urn = provider_urn(res.get("provider"))
    return local_urn(urn) if urn else None


def _moved_provider(old: dict[str, Any], new: dict[str, Any], renamed: dict[str, str]) -> bool:
    """Whether the resource's provider is the same provider under a new URN (moved with an alias)."""
    return renamed.get(_provider_key(new) or "") == _provider_key(old)


def _cascade(
    pairs: dict[str, str], old_index: dict[str, Any], new_index: dict[str, Any], replaced: dict[str, list[Rule]]
) -> None:
    """Adds every resource whose provider, or a dependency replaced delete-first that the rules name, is replaced."""
    grew = True
    while grew:
        grew = False
        for key in sorted(pairs):
            if key in replaced:
                continue
            res = new_index[key]
            upstream = {local_urn(u) for u in res.get("dependencies") or []}
            provider = _provider_key(res)
            if provider:
                upstream.add(provider)
            for dep in sorted(upstream & set(replaced)):
                dep_type = (new_index.get(dep) or old_index.get(pairs.get(dep, dep)) or {}).get("type", "")
                found = cascade_rules(res["type"], dep_type)
                if found:
                    replaced[key] = found
                    grew = True
                    break
