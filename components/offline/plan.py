"""The plan document: every resource a program registered, as plain data, and how to read it.

Values the engine cannot know are ``[unknown]``; secrets are ``[secret]`` (never their value).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

SECRET = "[secret]"
UNKNOWN = "[unknown]"

# Pulumi's wire sentinels (the resource monitor protocol; pulumi/pulumi sdk/python/lib/pulumi/runtime/rpc.py).
SIG_KEY = "4dabf18193072939515e22adb298388d"
SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
SIG_RESOURCE = "5cf8f73096256a8f31e491e813e4eb8e"
SIG_OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


@dataclass
class Registration:
    """One resource as the engine was asked to register it."""

    urn: str
    type: str
    name: str
    custom: bool
    parent: str | None
    provider: str | None
    dependencies: list[str]
    inputs: dict[str, Any]
    options: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The plan document's shape of one resource."""
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "custom": self.custom,
            "parent": self.parent,
            "provider": self.provider,
            "dependencies": self.dependencies,
            "inputs": self.inputs,
            "options": self.options,
        }


@dataclass
class Invoke:
    """One provider function call (e.g. listManagedClusterUserCredentials)."""

    token: str
    args: dict[str, Any]


@dataclass
class Plan:
    """Everything a program declared: resources sorted by urn, the stack outputs, the invokes."""

    project: str
    stack: str
    resources: list[Registration]
    outputs: dict[str, Any] = field(default_factory=dict)
    invokes: list[Invoke] = field(default_factory=list)
    # What the program logged as warnings (`pulumi.log.warn`), each once, sorted: what the real engine prints.
    warnings: list[str] = field(default_factory=list)
    # urn -> the program's stack when it declared the resource ((file URI, line), innermost first); not in the document.
    stack_frames: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)

    def all(self, type_: str) -> list[Registration]:
        """Every registration of a type token."""
        return [r for r in self.resources if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> Registration:
        """The single registration of a type (and name); fails loudly when there are none or several."""
        found = [r for r in self.all(type_) if name is None or r.name == name]
        if len(found) != 1:
            raise LookupError(f"expected one {type_}{f' named {name}' if name else ''}, found {len(found)}")
        return found[0]

    def by_urn(self, urn: str) -> Registration:
        """The registration with this urn."""
        for r in self.resources:
            if r.urn == urn:
                return r
        raise LookupError(urn)

    def to_dict(self) -> dict[str, Any]:
        """The plan document (see README: `plan --json`)."""
        return {
            "project": self.project,
            "stack": self.stack,
            "resources": [r.to_dict() for r in self.resources],
            "outputs": self.outputs,
            # Only when there are some: a plan without warnings keeps the document it always had.
            **({"warnings": self.warnings} if self.warnings else {}),
        }

    def to_json(self) -> str:
        """Deterministic JSON: keys sorted, resources sorted by urn."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"



def plain(value: Any) -> Any:
    """Turns a decoded protobuf Struct value into plain JSON data with secrets and unknowns marked."""
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == SIG_SECRET:
            return SECRET
        if sig == SIG_RESOURCE:
            return value.get("urn", UNKNOWN)
        if sig == SIG_OUTPUT:
            if value.get("secret"):
                return SECRET
            return plain(value["value"]) if "value" in value else UNKNOWN
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if value == UNKNOWN_VALUE:
        return UNKNOWN
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def walk(plan: Plan) -> Iterator[tuple[int, Registration]]:
    """Resources in tree order (children under their parents), with their depth."""
    children: dict[str | None, list[Registration]] = {}
    for r in plan.resources:
        children.setdefault(r.parent, []).append(r)

    def visit(parent: str | None, depth: int) -> Iterator[tuple[int, Registration]]:
        for r in children.get(parent, []):
            yield depth, r
            yield from visit(r.urn, depth + 1)

    yield from visit(None, 0)
