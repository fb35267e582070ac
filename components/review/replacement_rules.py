"""Which changes replace a resource, which the service refuses in place, and what a replacement costs: the rules
(``components.review.rules``, one module per provider, each rule sourced) and the few functions that match them.

The diff (``components.review.diff``) asks this module two questions about every changed input path: does a rule
match it, and what does the rule do. Rules are data; the functions below only parse and match property paths.

Effects (checked against pulumi-azure-native 3.22.0 to 3.29, pulumi-kubernetes v4.34 and the Pulumi engine v3.2xx):
- ``replace``: Pulumi deletes the resource and creates it again. ``mechanism="provider"``: the provider's Diff asks for
  it (pulumi-azure-native: URL path parameters and its curated force-new list; pulumi-kubernetes: its force-new
  list); ``mechanism="engine"``: the engine does (the resource's replaceOnChanges option, a new provider, or a
  dependency replaced delete-first whose change the dependent's Diff turns into a replacement).
- ``refused``: Pulumi attempts an in-place update and the service refuses it (Azure, or the Kubernetes API server):
  ``pulumi up`` fails and nothing is replaced; the change needs a procedure (docs/safe-changes.md).
- ``rebuild``: changed in place by re-creating nodes one after the other (a rolling upgrade or reimage).
- ``note``: changed in place, with a consequence worth a line in the review.
"""

from __future__ import annotations

import fnmatch
import re

from ..config.syntax import property_path
from .rules import IN_PLACE, RULES
from .rules.engine import PROVIDER_CHANGED, replace_on_changes_rule
from .rules.impacts import IMPACTS, Impact
from .rules.model import Item, PathPart, Rule

__all__ = [
    "IMPACTS", "IN_PLACE", "PROVIDER_CHANGED", "RULES", "Impact", "canonical_type", "cascade_rules", "format_path",
    "input_rules", "is_prefix",
    "parse_path", "replace_on_changes_rule", "rules_table", "tree_settings", "type_matches",
]


# --- property paths ---------------------------------------------------------------------------------------------------
_SEGMENT = re.compile(r'\.?([^.\[\]]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]', re.ASCII)  # ASCII digits only


def parse_path(text: str) -> tuple[PathPart, ...]:
    """Parses Pulumi's property-path syntax (``a.b[0]``, ``a["x.y"]``, ``a[*].b``) into parts; raises ValueError."""
    parts: list[PathPart] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"'{text}' is not a property path (at character {pos + 1})")
        key, index, quoted = m.groups()
        if key is not None:
            parts.append(key)
        elif index is not None:
            parts.append("*" if index == "*" else int(index))
        else:
            parts.append(quoted.replace('\\"', '"'))
        pos = m.end()
    return tuple(parts)




def format_path(parts: tuple[PathPart, ...]) -> str:
    """The inverse of parse_path: ``networkProfile.podCidr``, ``nodeTaints[1]``, ``nodeLabels["nvidia.com/gpu.present"]``
    (an Item, a list entry named by its identity, and the wildcard in brackets)."""
    return property_path(parts, lambda part: isinstance(part, (int, Item)) or part == "*")


def is_prefix(pattern: tuple[PathPart, ...], path: tuple[PathPart, ...]) -> bool:
    """Whether `pattern` names `path` or one of its ancestors ("*" stands for any list index or key)."""
    if len(pattern) > len(path):
        return False
    return all(p == "*" or p == q or _same_entry(p, q) for p, q in zip(pattern, path[: len(pattern)], strict=True))


def _same_entry(pattern: PathPart, part: PathPart) -> bool:
    """A list index in a pattern names an entry the diff matched by identity when it sat there on either side."""
    return isinstance(pattern, int) and isinstance(part, Item) and pattern in part.indices


# pulumi-azure-native publishes each resource once per API version besides the default module
# (`azure-native:containerservice/v20250801:AgentPool`); its force-new table is keyed by module and resource name and
# "API Versions are currently ignored" (provider/pkg/gen/replacement.go, forceNewMap), and a URL path parameter is one
# in every version. So a versioned token follows the rules of its resource.
_VERSIONED = re.compile(r"^(azure-native:[^:/]+)/v\d{8}(?:preview)?(:[^:]+)$", re.ASCII)


def canonical_type(type_: str) -> str:
    """The token the rules speak about: an API-versioned azure-native token without its version module."""
    m = _VERSIONED.match(type_)
    return m.group(1) + m.group(2) if m else type_


def type_matches(pattern: str, type_: str) -> bool:
    """Whether a rule's type (a token or a glob) covers a type token."""
    return pattern == type_ or fnmatch.fnmatchcase(type_, pattern)


def input_rules(type_: str) -> list[tuple[tuple[PathPart, ...], Rule]]:
    """The rules about this type's inputs, each with its parsed path."""
    return [(parse_path(r.path), r) for r in RULES if r.path is not None and r.after is None and type_matches(r.type, type_)]


def cascade_rules(type_: str, dependency_type: str) -> list[Rule]:
    """The rules that replace a resource of `type_` when a resource it depends on, of `dependency_type`, is replaced."""
    return [
        r for r in RULES
        if r.after is not None and type_matches(r.type, type_) and type_matches(r.after, dependency_type)
    ]


def tree_settings(type_: str) -> tuple[str, ...]:
    """The input paths the plan tree shows for a type, in their rows' order, from the rules and in-place entries."""
    rows = sorted(
        ((entry.shown, entry.shows or entry.path) for entry in (*RULES, *IN_PLACE)
         if entry.shown is not None and entry.path is not None and entry.type == type_),
        key=lambda row: row[0],
    )
    paths = (path for _, shows in rows for path in ((shows,) if isinstance(shows, str) else shows))
    return tuple(dict.fromkeys(paths))


# --- the table for people (docs/safe-changes.md) -------------------------------------------------------------------
_EFFECT_TEXT = {
    "replace": "replaced",
    "refused": "attempted in place and refused: `pulumi up` fails (exit 4 in `diff`)",
    "rebuild": "in place, node by node",
    "note": "in place",
}

_WHEN_TEXT = {"added": "set where it was unset", "removed": "removed", "changed": "changed while set"}


def rules_table() -> str:
    """Every rule as a Markdown table row: resource type, path (or what it follows), effect, why, source."""
    rows = ["| resource | change | effect | why | source |", "|---|---|---|---|---|"]
    for rule in RULES:
        change = f"`{rule.path}`" if rule.path else f"a replaced `{rule.after}` it depends on"
        change += f" ({_WHEN_TEXT[rule.when]})" if rule.when else ""
        effect = _EFFECT_TEXT[rule.effect] + (" (by the engine)" if rule.mechanism == "engine" else "")
        why = rule.why.replace("|", "\\|")
        rows.append(f"| `{rule.type}` | {change} | {effect} | {why} | <{rule.source}> |")
    return "\n".join(rows) + "\n"
