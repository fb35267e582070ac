"""Comparing two documents' values leaf by leaf, and whether a changed path triggers a rule's path pattern (pure)."""

from __future__ import annotations

from typing import Any

from ..config.syntax import MISSING
from .equal import same
from .replacement_rules import is_prefix, parse_path
from .rules.model import PathPart

__all__ = ["parse_all", "resolve_pattern", "triggers", "value_changes"]


def value_changes(old: Any, new: Any, path: tuple[PathPart, ...] = ()) -> list[tuple[tuple[PathPart, ...], Any, Any]]:
    """Leaf-level differences between two JSON values: maps key by key, lists item by item (extra items as added/removed);
    leaves compare with `equal.same` (NaN is the same as NaN, true is not 1)."""
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


def triggers(pattern: tuple[PathPart, ...], path: tuple[PathPart, ...], old: Any, new: Any) -> bool:
    """Whether a change at `path` (old -> new) changes what `pattern` names."""
    if is_prefix(pattern, path):
        return True
    if len(path) >= len(pattern) or not is_prefix(pattern[: len(path)], path):
        return False
    # The change sits above the rule's path (a whole object or list item appeared, went or changed type).
    if (old is MISSING or new is MISSING) and path and isinstance(path[-1], int):
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
