"""What a YAML file may hold that Pulumi config cannot carry as written, and how a value is shown in a message.

Split from `safe_yaml` (which reads the file): these look at plain data already read, and name each problem by its key
path. Also the plain scalars whose YAML 1.1 reading differs from Pulumi's (go-yaml v3, gopkg.in/yaml.v3 `resolve.go`):
a stack file is often copied from, or next to, YAML that is read as 1.1 (Helm values files through sigs.k8s.io/yaml and
go-yaml v2, PyYAML, Ansible), where ``no`` is false, ``on`` is true, ``1:30`` is 90 and ``0755`` is octal; Pulumi reads
the first three as text. Such a value unquoted is ambiguous, so it is refused with the key that holds it.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

# Pulumi passes numbers as 64-bit floats (google.protobuf.Value): a larger integer arrives changed.
MAX_EXACT_INT = 2**53

# YAML 1.1's booleans (yaml.org/type/bool.html) that yaml.v3 resolves as text (its resolve table has only
# true/True/TRUE and false/False/FALSE), and its base-60 numbers (yaml.org/type/int.html, yaml.org/type/float.html),
# which yaml.v3 "purposefully" does not support (resolve.go).
YAML11_BOOL = re.compile(r"y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF")
YAML11_BASE60 = re.compile(r"[-+]?(?:[1-9][0-9_]*(?::[0-5]?[0-9])+|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)")


def yaml11_ambiguity(text: str) -> str | None:
    """Why an unquoted plain scalar reads differently in YAML 1.1 and in Pulumi (None when it does not)."""
    if YAML11_BOOL.fullmatch(text):
        meaning = "true" if text[0] in "yYoO" and text not in ("off", "Off", "OFF") else "false"
        return (f"unquoted {text} is the boolean {meaning} in YAML 1.1 but the text '{text}' for Pulumi (YAML 1.2); "
                f"write {meaning} for a boolean or quote it ('{text}') for text")
    if YAML11_BASE60.fullmatch(text):
        return (f"unquoted {text} is a base-60 number in YAML 1.1 but the text '{text}' for Pulumi (YAML 1.2); quote it "
                f"('{text}') for text or write the number")
    return None


def octal_ambiguity(text: str) -> str | None:
    """Why an integer written with a leading zero is ambiguous: YAML 1.2 reads 0755 as 755, Pulumi (yaml.v3 reads
    YAML 1.1's octal "for compatibility", resolve.go) as 493."""
    body = text.replace("_", "").lstrip("+-")
    if len(body) > 1 and body[0] == "0" and body.isdigit():
        return (f"unquoted {text} is octal for Pulumi (yaml.v3) but decimal in YAML 1.2; write 0o{body[1:].lstrip('0') or 0} "
                f"for octal, {int(body)} for decimal, or quote it ('{text}') for text")
    return None


def kind(value: Any) -> str:
    """'a boolean', 'a number', 'null', 'a date' or 'a <type>' for a message."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a date"
    return f"a {type(value).__name__}"


def shown(value: Any) -> str:
    """A value as a message quotes it: YAML's spelling for null and booleans, at most 60 characters."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    text = repr(value) if not isinstance(value, (datetime.date, datetime.datetime)) else value.isoformat()
    return text if len(text) <= 60 else text[:57] + "..."


def dotted(path: tuple[str | int, ...]) -> str:
    """A key path as messages write it: ``a.b[2].c``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


SET = "a !!set (YAML's set: a mapping whose keys have no values, as {a, b}), which config cannot carry"


def foreign_values(
    value: Any, path: tuple[str | int, ...] = (), expects: Callable[[tuple[str | int, ...]], str | None] | None = None,
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path, problem) for every value Pulumi config cannot carry as written: dates, binary, sets, pairs, numbers
    that are not finite or too large to stay exact, keys that are not text. `expects` says what a key path takes
    ('a list', 'a mapping with the keys ...'), where the caller knows, so a !!set is told what to write there."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(path, value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key in sorted(node, key=str, reverse=True):
                if not isinstance(key, str):
                    yield where, f"key {shown(key)} is {kind(key)}, not text; quote it"
                else:
                    stack.append(((*where, key), node[key]))
        elif isinstance(node, list):
            stack.extend(((*where, i), item) for i, item in reversed(list(enumerate(node))))
        elif isinstance(node, (datetime.date, datetime.datetime)):
            yield where, f"YAML reads {node.isoformat()} as a date, which Pulumi would pass in another form; quote it"
        elif isinstance(node, bytes):
            yield where, "a !!binary value; config holds text, numbers, booleans, lists and maps (write base64 as text)"
        elif isinstance(node, (set, frozenset)):
            wanted = expects(where) if expects else None
            yield where, f"{SET}; {f'it takes {wanted}' if wanted else 'write a list ([a, b]) or a mapping with values (a: 1)'}"
        elif isinstance(node, tuple):
            yield where, "!!omap or !!pairs; write a mapping"
        elif isinstance(node, float) and not math.isfinite(node):
            yield where, f"{node} is not a finite number; JSON and Helm values cannot hold it"
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_EXACT_INT:
            yield where, (f"{node} is too large to pass exactly (Pulumi sends numbers as 64-bit floats, exact up to "
                          "2^53); quote it to pass text")
        elif not isinstance(node, (str, int, float, bool, type(None))):
            yield where, f"a value of type {type(node).__name__} cannot be config"
