"""What a problem's message never shows: the values of a section set as a secret, and every text that looks like a
credential (`credentials.never_shown`), masked by value wherever a message quotes them, as plan and diff never show a
credential."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .credentials import SECRET_SHOWN, key_looks_like, never_shown
from .errors import Problem

MIN_BARE = 4  # a secret text this long is hidden wherever it appears; a shorter one only where a message quotes it


def _leaves(value: Any) -> Iterator[Any]:
    """Every text and every number inside a value (booleans and null carry no secret worth hiding); the placeholder
    of a value the offline engine never decrypted is hidden already."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
        elif (isinstance(node, str) and node and node != SECRET_SHOWN) or (
            isinstance(node, (int, float)) and not isinstance(node, bool)
        ):
            yield node


def _patterns(leaf: Any) -> list[str]:
    """Where a message shows this value: quoted as a message quotes a value ('v', "v", JSON-escaped), after 'got ' for
    a number, and anywhere for a text long enough not to be a word of the message itself (a bound, a unit, a zone)."""
    if not isinstance(leaf, str):
        number = re.escape(json.dumps(leaf))
        return [rf"(?<=got ){number}(?![0-9.])", rf"(?<=[\[,:] ){number}(?![0-9.])", rf"(?<=[\[]){number}(?![0-9.])"]
    forms = {leaf, json.dumps(leaf)[1:-1], repr(leaf)[1:-1]}
    found = [rf"(?<=')({re.escape(f)})(?=')" for f in forms] + [rf'(?<=")({re.escape(f)})(?=")' for f in forms]
    if len(leaf) >= MIN_BARE:
        found += [rf"(?<![A-Za-z0-9_]){re.escape(f)}(?![A-Za-z0-9_])" for f in forms]
    return found


def redact(problems: list[Problem], secrets: list[Any]) -> list[Problem]:
    """The problems with each value of `secrets` shown as ``[secret]`` where a message quotes it, and a long text
    wherever it appears: masked by value, never by neighbourhood (a bound or a short word of the message that happens
    to equal some value of a secret section stays as it is)."""
    # A list, not a dict: 1 and 1.0 are one key of a dict, and a message writes them differently.
    found = [(leaf, _patterns(leaf)) for value in secrets for leaf in _leaves(value)]
    patterns = {p for _, forms in found for p in forms}
    if not patterns:
        return problems
    # Longest first, so a value is hidden whole rather than around a shorter one inside it.
    pattern = re.compile("|".join(sorted(patterns, key=len, reverse=True)))
    # A path holds keys, never values: of these, only a key that looks like a credential is hidden there.
    keys = {p for leaf, forms in found if key_looks_like(leaf) for p in forms}
    in_path = re.compile("|".join(sorted(keys, key=len, reverse=True))) if keys else None
    return [Problem(in_path.sub(SECRET_SHOWN, p.path) if in_path else p.path, pattern.sub(SECRET_SHOWN, p.message))
            for p in problems]


def credential_texts(data: Mapping[str, Any]) -> list[Any]:
    """Every plain value of the sections that looks like a credential, every key that does, and everything under a
    key that names one: a problem never quotes them (a connection string pasted under cluster.name is refused without
    being shown, a numeric password's type error says '[secret]'), as plan and diff never show a credential."""
    return never_shown(dict(data))
