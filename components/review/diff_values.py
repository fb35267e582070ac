"""Comparing two documents' values leaf by leaf, and whether a changed path triggers a rule's path pattern (pure)."""

from __future__ import annotations

import json
from typing import Any

from ..config.syntax import MISSING
from .equal import same
from .replacement_rules import is_prefix, parse_path
from .rules.model import Item, PathPart, Presence

__all__ = ["IDENTITY_KEYS", "Item", "parse_all", "presence", "resolve_pattern", "triggers", "value_changes"]


# What identifies an entry of a list of objects, tried in order; the first whose keys every entry on both sides has
# (at least one of them), with no two entries of a side alike, wins: a pool or container by its name, a toleration or
# taint by its key and effect, a Prometheus rule by the alert or series it records.
IDENTITY_KEYS: tuple[tuple[str, ...], ...] = (("name",), ("key", "effect"), ("alert", "record"))
_SCALARS = (str, int, float, bool)


def _label(fields: tuple[tuple[str, Any], ...]) -> Item:
    return Item(",".join(f"{key}={json.dumps(value, sort_keys=True)}" for key, value in fields))


def _identities(items: list[Any]) -> tuple[tuple[str, ...], list[Item]] | None:
    """What identifies the list's entries and each entry's identity, or None when they have none (then they compare
    by index)."""
    if items and all(isinstance(item, _SCALARS) for item in items):
        keys: tuple[str, ...] = ("item",)
        labels = [_label((("item", item),)) for item in items]
    elif items and all(isinstance(item, dict) for item in items):
        found = next((k for k in IDENTITY_KEYS if all(any(key in item for key in k) for item in items)), None)
        if found is None:
            return None
        keys = found
        labels = [_label(tuple((key, item[key]) for key in keys if key in item)) for item in items]
    else:
        return None
    return (keys, labels) if len(set(labels)) == len(labels) else None


def _list_changes(old: list[Any], new: list[Any], path: tuple[PathPart, ...]) -> list[tuple[tuple[PathPart, ...], Any, Any]]:
    """Two lists compared entry by entry: by identity when both sides have one of the same kind (one added toleration
    is one change, not a rewrite of every later entry), otherwise by index."""
    old_ids, new_ids = _identities(old), _identities(new)
    if old_ids is None or new_ids is None or old_ids[0] != new_ids[0]:
        found = []
        for index in range(max(len(old), len(new))):
            found += value_changes(
                old[index] if index < len(old) else MISSING, new[index] if index < len(new) else MISSING, (*path, index)
            )
        return found
    old_labels, new_labels = old_ids[1], new_ids[1]
    before, after = dict(zip(old_labels, old, strict=True)), dict(zip(new_labels, new, strict=True))
    where = {label: {i} for i, label in enumerate(old_labels)}
    for i, label in enumerate(new_labels):
        where.setdefault(label, set()).add(i)
    found = []
    for label in [*old_labels, *(label for label in new_labels if label not in before)]:
        entry = Item(label, frozenset(where[label]))
        found += value_changes(before.get(label, MISSING), after.get(label, MISSING), (*path, entry))
    if [label for label in old_labels if label in after] != [label for label in new_labels if label in before]:
        found.append((path, old, new))  # the same entries in another order: the list itself changes
    return found


def value_changes(old: Any, new: Any, path: tuple[PathPart, ...] = ()) -> list[tuple[tuple[PathPart, ...], Any, Any]]:
    """Leaf-level differences between two JSON values: maps key by key, lists entry by entry (by identity where the
    entries have one: `IDENTITY_KEYS`, or the value of a scalar; otherwise by index), an added or removed entry as one
    change; leaves compare with `equal.same` (NaN is the same as NaN, true is not 1)."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new)):
            found += value_changes(old.get(key, MISSING), new.get(key, MISSING), (*path, key))
        return found
    if isinstance(old, list) and isinstance(new, list):
        return _list_changes(old, new, path)
    return [] if same(old, new) else [(path, old, new)]


def resolve_pattern(value: Any, parts: tuple[PathPart, ...]) -> Any:
    """The value(s) under a path pattern inside `value` ("*" collects every item); MISSING where there is none."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if head == "*":
        items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        return tuple(resolve_pattern(v, rest) for v in items)
    if isinstance(value, dict) and isinstance(head, str):
        return resolve_pattern(value.get(head, MISSING), rest)
    if isinstance(value, list) and isinstance(head, int) and head < len(value):
        return resolve_pattern(value[head], rest)
    return MISSING


def presence(pattern: tuple[PathPart, ...], old: Any, new: Any) -> Presence:
    """Whether the value a rule's path names in two input documents is added, removed or changed: a rule may hold for
    one of these only (a hub added to a hubless fleet is not a hub changed)."""
    if resolve_pattern(old, pattern) is MISSING:
        return "added"
    return "removed" if resolve_pattern(new, pattern) is MISSING else "changed"


def triggers(pattern: tuple[PathPart, ...], path: tuple[PathPart, ...], old: Any, new: Any) -> bool:
    """Whether a change at `path` (old -> new) changes what `pattern` names."""
    if is_prefix(pattern, path):
        return True
    if len(path) >= len(pattern) or not is_prefix(pattern[: len(path)], path):
        return False
    # The change sits above the rule's path (a whole object or list item appeared, went or changed type).
    if (old is MISSING or new is MISSING) and path and isinstance(path[-1], (int, Item)):
        return False  # adding or removing a list item does not change an existing item's property
    rest = pattern[len(path):]
    return not same(resolve_pattern(old, rest), resolve_pattern(new, rest))


def parse_all(paths: list[str]) -> list[tuple[PathPart, ...]]:
    parsed = []
    for text in paths:
        try:
            parsed.append(parse_path(text))
        except ValueError:
            continue  # a path Pulumi would reject as well; nothing to ignore or replace by it
    return parsed
