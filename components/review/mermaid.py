"""The plan as a Mermaid flowchart: components as subgraphs, resources as nodes, dependencies and provider links as edges.

Arrows run from a resource to the resources that wait for it (creation order); dotted arrows run from a provider to
the resources created through it; a plain line joins a custom resource to a resource it is the parent of. The output
is deterministic (tree order, then edges sorted), so it can live in a README and be checked against a fresh plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from ..offline.plan import Plan, Registration
from ..offline.urns import provider_urn

HEADER = "flowchart TD"

# Words the flowchart grammar reads as keywords wherever an id may stand.
RESERVED_IDS = frozenset(
    {"end", "subgraph", "graph", "flowchart", "style", "classdef", "class", "click", "linkstyle", "default", "direction",
     "call", "href", "callback"}
)
_SAFE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

# Edge kinds and their Mermaid link syntax.
DEPENDS = "-->"
PROVIDER = "-.->"
PARENT = "---"

# Characters that end or confuse a quoted label, as Mermaid entity codes (numeric: they work in every renderer).
_ENTITIES = {"#": "#35;", '"': "#34;", "<": "#60;", ">": "#62;", "`": "#96;", "&": "#38;"}


class Edge(NamedTuple):
    """One link of the graph, between two Mermaid ids (a tuple: edges sort by source, target, then link)."""

    source: str
    target: str
    link: str

    def __str__(self) -> str:
        return f"{self.source} {self.link} {self.target}"


def short_type(type_: str) -> str:
    """The last part of a type token (``ManagedCluster``); a provider reads ``kubernetes provider``."""
    if type_.startswith("pulumi:providers:"):
        return f"{type_.rsplit(':', 1)[-1]} provider"
    return type_.rsplit(":", 1)[-1]


def escape_label(text: str) -> str:
    """A label safe inside Mermaid's double quotes: one line, special characters as entity codes."""
    flat = " ".join(text.split())
    return "".join(_ENTITIES.get(ch, ch) for ch in flat)


def sanitize_id(text: str) -> str:
    """A Mermaid-safe identifier: letters, digits and '_', starting with a letter, never a keyword."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not _SAFE_ID.match(ident) or ident.lower() in RESERVED_IDS:
        ident = f"r_{ident}"
    return ident


def assign_ids(resources: Iterable[Registration]) -> dict[str, str]:
    """A unique Mermaid id per urn: the sanitized name, qualified by type (then numbered) only where names collide."""
    resources = sorted(resources, key=lambda r: r.urn)
    by_base: dict[str, list[Registration]] = {}
    for r in resources:
        by_base.setdefault(sanitize_id(r.name), []).append(r)
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for base, group in by_base.items():
        if len(group) == 1:
            ids[group[0].urn] = base
            taken.add(base)
    for group in by_base.values():
        if len(group) == 1:
            continue
        for r in group:
            candidate = sanitize_id(f"{short_type(r.type)}_{r.name}")
            ident, n = candidate, 1
            while ident in taken:
                n += 1
                ident = f"{candidate}_{n}"
            ids[r.urn] = ident
            taken.add(ident)
    return ids


def _enclosing(r: Registration, index: dict[str, Registration]) -> set[str]:
    """The components (subgraphs) a resource sits in: Mermaid cannot link a subgraph with its own content."""
    found: set[str] = set()
    parent = r.parent
    while parent and parent in index and parent not in found:
        if not index[parent].custom:
            found.add(parent)
        parent = index[parent].parent
    return found


def edges(plan: Plan, ids: dict[str, str]) -> list[Edge]:
    """Dependency, provider and parent links, sorted; none to a resource's own enclosing component, none to itself."""
    index = {r.urn: r for r in plan.resources}
    urns = set(index)
    found: set[Edge] = set()

    def add(source: str, target: Registration, link: str) -> None:
        if source == target.urn or source in _enclosing(target, index) or target.urn in _enclosing(index[source], index):
            return
        found.add(Edge(ids[source], ids[target.urn], link))

    for r in plan.resources:
        for dep in r.dependencies:
            if dep in urns:
                add(dep, r, DEPENDS)
        if r.provider:
            provider = provider_urn(r.provider) if provider_urn(r.provider) in urns else None
            if provider:
                add(provider, r, PROVIDER)
        if r.parent in index and index[r.parent].custom:
            add(r.parent, r, PARENT)
    return sorted(found)


def to_mermaid(plan: Plan) -> str:
    """The plan's resource graph as a Mermaid flowchart (deterministic text, ending in a newline)."""
    index = {r.urn: r for r in plan.resources}
    ids = assign_ids(plan.resources)
    children: dict[str | None, list[Registration]] = {}
    for r in plan.resources:
        # A custom resource's children sit beside it (joined by a parent line); components enclose theirs.
        holder = r.parent if r.parent in index else None
        while holder is not None and index[holder].custom:
            holder = index[holder].parent if index[holder].parent in index else None
        children.setdefault(holder, []).append(r)
    for group in children.values():
        group.sort(key=lambda r: r.urn)

    lines = [HEADER]

    def label(r: Registration) -> str:
        return escape_label(f"{short_type(r.type)} {r.name}")

    def emit(holder: str | None, depth: int) -> None:
        pad = "    " * depth
        for r in children.get(holder, []):
            if r.custom:
                lines.append(f'{pad}{ids[r.urn]}["{label(r)}"]')
            else:
                lines.append(f'{pad}subgraph {ids[r.urn]}["{label(r)}"]')
                emit(r.urn, depth + 1)
                lines.append(f"{pad}end")

    emit(None, 1)
    lines.extend(f"    {edge}" for edge in edges(plan, ids))
    return "\n".join(lines) + "\n"
