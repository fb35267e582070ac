"""Equality of JSON values as a diff needs it: a value is always the same as itself.

Python's ``==`` says ``nan != nan`` (IEEE 754), so a plan holding NaN would differ from itself, and ``True == 1``, so a
change from the number 1 to the boolean true would not show, though Pulumi sends the two differently (google.protobuf
Value: bool_value and number_value). Numbers compare by value (1 and 1.0 are one JSON number).
"""

from __future__ import annotations

import math
from typing import Any


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value: NaN is NaN, a boolean is never a number, containers by content."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def json_safe(value: Any) -> Any:
    """`value` with every NaN and infinity as the text JSON parsers take (``"NaN"``, ``"Infinity"``, ``"-Infinity"``):
    a diff of plans that hold them must still print as strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
