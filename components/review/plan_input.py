"""Plan documents someone hands us (``diff OLD NEW``): read within bounds and checked for the shape `plan --json` writes.

The diff trusts what it is given (a resource has a urn, its options are a mapping); a document from elsewhere may be
truncated, hand-edited, another tool's JSON, huge or deeply nested. Each problem is one line naming the file and the
JSON path (``old.json: resources[3].options: must be a mapping``), at most `MAX_PROBLEMS` of them.
"""

from __future__ import annotations

import json
from typing import Any

from ..offline.files import FileTooLargeError, NotRegularFileError, read_regular

MAX_BYTES = 64 << 20
MAX_DEPTH = 200
MAX_PROBLEMS = 20
# The shape of one resource in `plan --json` (Registration.to_dict): key -> (allowed types, described).
RESOURCE_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "urn": ((str,), "text"),
    "type": ((str,), "text"),
    "name": ((str,), "text"),
    "custom": ((bool,), "true or false"),
    "parent": ((str, type(None)), "text or null"),
    "provider": ((str, type(None)), "text or null"),
    "dependencies": ((list,), "a list of URNs"),
    "inputs": ((dict,), "a mapping"),
    "options": ((dict,), "a mapping"),
}
OPTION_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "protect": ((bool,), "true or false"),
    "retainOnDelete": ((bool,), "true or false"),
    "deleteBeforeReplace": ((bool,), "true or false"),
    "ignoreChanges": ((list,), "a list of property paths"),
    "replaceOnChanges": ((list,), "a list of property paths"),
}
HINT = "make plans with `plan --json`"


class PlanDocumentError(ValueError):
    """A file that is not a plan document; each line is one problem."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


def _read_bytes(path: str) -> bytes:
    try:
        return read_regular(path, MAX_BYTES)
    except NotRegularFileError as exc:
        if str(exc) == "folder":
            raise PlanDocumentError([f"{path}: is a folder, not a plan document; {HINT}"]) from None
        raise PlanDocumentError([f"{path}: not a regular file (a pipe, socket or device); save the plan to a file"]) from None
    except FileTooLargeError as exc:
        size = f"{exc.size} bytes is too large" if exc.size >= 0 else "too large"
        raise PlanDocumentError([f"{path}: {size} for a plan (at most {MAX_BYTES >> 20} MiB)"]) from None
    except FileNotFoundError:
        raise PlanDocumentError([f"{path}: no such file"]) from None
    except PermissionError:
        raise PlanDocumentError([f"{path}: not readable (permission denied)"]) from None
    except OSError as exc:
        raise PlanDocumentError([f"{path}: cannot be read ({exc.strerror or exc})"]) from None


def read_plan(path: str) -> dict[str, Any]:
    """The plan document in `path`, checked; PlanDocumentError (one line per problem) otherwise."""
    if path == "":
        raise PlanDocumentError([f"empty file name; {HINT}"])
    data = _read_bytes(path)
    try:
        text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        raise PlanDocumentError([f"{path}: not UTF-8 text ({bad}); {HINT}"]) from None
    try:
        # NaN and Infinity are read as Python writes them (json.dumps): not JSON, but a file must still equal itself.
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanDocumentError([f"{path}:{exc.lineno}:{exc.colno}: not a plan document: {exc.msg}"]) from None
    except RecursionError:
        raise PlanDocumentError([f"{path}: not a plan document: nested too deeply"]) from None
    except ValueError as exc:  # an integer of thousands of digits
        why = "a number thousands of digits long" if "integer string conversion" in str(exc) else str(exc)
        raise PlanDocumentError([f"{path}: not a plan document: {' '.join(why.split())[:200]}"]) from None
    problems = check_plan_document(doc)
    if problems:
        shown = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            shown.append(f"... and {len(problems) - MAX_PROBLEMS} more problems")
        raise PlanDocumentError([f"{path}: {p}" for p in shown])
    return doc


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return False


def _check_keys(value: dict[str, Any], shape: dict[str, tuple[tuple[type, ...], str]], where: str) -> list[str]:
    problems = []
    for key, (types, described) in shape.items():
        if key in value and not isinstance(value[key], types):
            problems.append(f"{where}.{key}: must be {described}; {HINT}")
    return problems


def check_plan_document(doc: Any) -> list[str]:
    """What keeps `doc` from being a plan document like `plan --json` writes (empty when nothing does)."""
    if isinstance(doc, dict) and "resources" not in doc and isinstance(doc.get("problems"), list) and "exit" in doc:
        # What `plan --json` prints for input it refused: no plan to compare with.
        first = doc["problems"][0] if doc["problems"] else {}
        said = f": {str(first.get('message'))[:200]}" if isinstance(first, dict) and first.get("message") else ""
        return [f"not a plan document: the plan that wrote it failed (exit {doc['exit']}){said}; fix the stack and "
                "plan it again"]
    if not isinstance(doc, dict) or not isinstance(doc.get("resources"), list):
        return [f"not a plan document (no 'resources' list); {HINT}"]
    if _too_deep(doc):
        return [f"not a plan document: nested deeper than {MAX_DEPTH} levels"]
    problems = []
    for key in ("project", "stack"):
        if key in doc and not isinstance(doc[key], str):
            problems.append(f"{key}: must be text; {HINT}")
    if not isinstance(doc.get("outputs", {}), dict):
        problems.append(f"outputs: must be a mapping; {HINT}")
    seen: dict[str, int] = {}
    for number, res in enumerate(doc["resources"]):
        where = f"resources[{number}]"
        if not isinstance(res, dict):
            problems.append(f"{where}: must be a mapping (a resource); {HINT}")
            continue
        if not all(isinstance(res.get(k), str) for k in ("urn", "type", "name")):
            problems.append(f"{where} needs text values for urn, type and name; {HINT}")
        problems += [p for p in _check_keys(res, RESOURCE_KEYS, where) if p.split(":")[0] not in
                     (f"{where}.urn", f"{where}.type", f"{where}.name")]
        deps = res.get("dependencies")
        if isinstance(deps, list) and not all(isinstance(d, str) for d in deps):
            problems.append(f"{where}.dependencies: must be a list of URNs (text); {HINT}")
        options = res.get("options")
        if isinstance(options, dict):
            problems += _check_keys(options, OPTION_KEYS, f"{where}.options")
            for key in ("ignoreChanges", "replaceOnChanges"):
                paths = options.get(key)
                if isinstance(paths, list) and not all(isinstance(p, str) for p in paths):
                    problems.append(f"{where}.options.{key}: must be a list of property paths (text); {HINT}")
        urn = res.get("urn")
        if isinstance(urn, str):
            if not urn.startswith("urn:pulumi:") or urn.count("::") < 3:
                problems.append(f"{where}.urn: {json.dumps(urn)[:80]} is not a Pulumi URN (urn:pulumi:stack::project::"
                                f"type::name); {HINT}")
            elif urn in seen:
                problems.append(f"{where}.urn: the same URN as resources[{seen[urn]}]; {HINT}")
            seen.setdefault(urn, number)
    return problems

