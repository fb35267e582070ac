"""The diff document: what happens to each resource (its operation and why) and to the stack outputs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from ..config.credentials import CREDENTIAL_SHOWN as CREDENTIAL
from ..config.credentials import key_looks_like, names_credential, without_credentials
from ..config.syntax import MISSING
from ..offline.plan import SECRET
from .replacement import Replacement
from .rules.model import Item, Refuser, Rule

Operation = Literal["create", "update", "replace", "refused", "delete"]
OPERATIONS: tuple[Operation, ...] = ("create", "update", "replace", "refused", "delete")
HIDDEN = "(not shown: the other side is secret)"
# Exit status of `diff`: no change, changes, a change that would fail or must not be applied.
EXIT_NO_CHANGE, EXIT_CHANGES, EXIT_REFUSED = 0, 3, 4


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
        key = re.split(r"[.\[]", self.path.rstrip("]"))[-1].strip('"')
        return without_credentials(old, key, CREDENTIAL), without_credentials(new, key, CREDENTIAL)

    def to_dict(self) -> dict[str, Any]:
        """JSON shape: absent sides are left out."""
        old, new = self.shown()
        doc: dict[str, Any] = {"path": self.path}
        if old is not MISSING:
            doc["old"] = old
        if new is not MISSING:
            doc["new"] = new
        if self.rules:
            doc["rules"] = [rule_dict(r) for r in self.rules]
        return doc


@dataclass(frozen=True)
class ResourceDiff:
    """What happens to one resource, why, and what it costs."""

    key: str
    urn: str
    type: str
    name: str
    operation: Operation
    changes: tuple[ValueChange, ...] = ()
    options: tuple[ValueChange, ...] = ()
    reasons: tuple[Rule, ...] = ()  # what replaces or refuses it beyond its own input changes
    warnings: tuple[str, ...] = ()
    replacement: Replacement | None = None  # for a replacement: delete first or create first, why, the source
    refused_by: Refuser | None = None
    moved_from: str | None = None  # the old URN, for a resource matched through an alias
    grants: str | None = None  # a role assignment: the role it grants, to what kind of principal (review.grants)

    @property
    def delete_before_replace(self) -> bool | None:
        """For a replacement: whether the old one goes before the new one exists (None for other operations)."""
        return self.replacement.delete_first if self.replacement else None

    @property
    def action(self) -> str:
        """The operation (kept under its old name for readers of version 0.1 documents)."""
        return self.operation

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of one resource's diff."""
        doc: dict[str, Any] = {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "operation": self.operation,
            "action": self.operation,
            "changes": [c.to_dict() for c in self.changes],
            "options": [c.to_dict() for c in self.options],
            "reasons": [rule_dict(r) for r in self.reasons],
            "warnings": list(self.warnings),
        }
        if self.replacement:
            doc["deleteBeforeReplace"] = self.replacement.delete_first
            doc["replacement"] = self.replacement.to_dict()
        if self.refused_by:
            doc["refusedBy"] = self.refused_by
        if self.moved_from:
            doc["movedFrom"] = self.moved_from
        if self.grants:
            doc["grants"] = self.grants
        return doc


@dataclass(frozen=True)
class DiffResult:
    """Everything that differs between two plans, in a deterministic order (riskiest first)."""

    project: str
    old_stack: str
    new_stack: str
    resources: tuple[ResourceDiff, ...] = ()
    outputs: tuple[ValueChange, ...] = ()
    warnings: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()  # why this update must not be applied, beyond refused resources

    @property
    def counts(self) -> dict[str, int]:
        """Resources per operation."""
        return {op: sum(1 for r in self.resources if r.operation == op) for op in OPERATIONS}

    @property
    def has_changes(self) -> bool:
        """Whether `pulumi up` would do anything (a resource or a stack output differs)."""
        return bool(self.resources or self.outputs)

    @property
    def fails(self) -> bool:
        """Whether `pulumi up` would fail, or must not be run as it stands."""
        return bool(self.blocked) or any(r.operation == "refused" for r in self.resources)

    @property
    def exit_status(self) -> int:
        """0 no change, 3 changes, 4 a change that would fail or must not be applied."""
        if self.fails:
            return EXIT_REFUSED
        return EXIT_CHANGES if self.has_changes else EXIT_NO_CHANGE

    def summary(self) -> str:
        """``N to create, N to update, N to replace, N refused, N to delete``."""
        c = self.counts
        return (
            f"{c['create']} to create, {c['update']} to update, {c['replace']} to replace, {c['refused']} refused, "
            f"{c['delete']} to delete"
        )

    def to_dict(self) -> dict[str, Any]:
        """The diff document (``diff --json``)."""
        return {
            "project": self.project,
            "stacks": {"old": self.old_stack, "new": self.new_stack},
            "summary": self.counts,
            "hasChanges": self.has_changes,
            "fails": self.fails,
            "exitStatus": self.exit_status,
            "resources": [r.to_dict() for r in self.resources],
            "outputs": [c.to_dict() for c in self.outputs],
            "warnings": list(self.warnings),
            "blocked": list(self.blocked),
        }


def rule_dict(rule: Rule) -> dict[str, str]:
    """A rule as the JSON document shows it."""
    return {"effect": rule.effect, "mechanism": rule.mechanism, "why": rule.why, "source": rule.source}


def masked_path(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """A changed value's path as a diff may print it: a key that looks like a credential, and a list entry named by
    one (or by a value under a key naming one), as ``[secret]``."""
    shown: list[Any] = []
    for i, part in enumerate(path):
        secret = isinstance(part, str) and (key_looks_like(part) or (
            isinstance(part, Item) and any(names_credential(p) for p in path[:i])))
        shown.append((Item(SECRET, part.indices) if isinstance(part, Item) else SECRET) if secret else part)
    return tuple(shown)
