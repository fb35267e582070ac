"""From pydantic's ValidationError to `Problem`s: each named by the key path the user wrote (stack file or Python API),
with the allowed values or range, each once.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from .aliases import aliases
from .credential_advice import secret_advice
from .credentials import SECRET_SHOWN, hides, key_looks_like
from .errors import KeyedProblemsError, KeyStyle, Problem
from .model_paths import _field_at, _format_loc, _keys_of, _model_at, _split_path, _user_loc


def _python_words(text: str) -> str:
    """A message's mentions of other keys (``maxCount``, ``draDriver.featureGates``) in Python's names; quoted text is
    the user's value and stays as written."""
    names = aliases()
    parts = re.split(r"""('[^']*'|"[^"]*")""", text)
    return "".join(
        part if part[:1] in ("'", '"') else re.sub(r"\b[a-z]+[A-Z][A-Za-z]*\b", lambda m: names.get(m[0], m[0]), part)
        for part in parts
    )


def problems_of(exc: ValidationError, model: type[BaseModel], prefix: str = "", keys: KeyStyle = "config") -> list[Problem]:
    """Every problem in a pydantic ValidationError, named as the user wrote it, each once (pydantic reports a value
    refused by a union once per member: a string, or an Output)."""
    problems: dict[Problem, None] = {}  # insertion-ordered and each once, in linear time (a file may hold thousands)
    for err in exc.errors(include_url=False):
        for problem in _problems(err, model, prefix, keys):
            if keys == "python":
                problem = Problem(problem.path, _python_words(problem.message))
            problems.setdefault(problem, None)
    return list(problems)


def _problems(err: dict[str, Any], model: type[BaseModel], prefix: str, keys: KeyStyle) -> list[Problem]:
    """Turns one pydantic error into problems; a model-level check may report several keys at once (KeyedProblemsError)."""
    raised = (err.get("ctx") or {}).get("error")
    if err["type"] == "value_error" and isinstance(raised, KeyedProblemsError):
        base = tuple(err["loc"])
        return [
            Problem(_format_loc(_user_loc(model, base + _split_path(key), keys)[0], prefix), text)
            for key, text in raised.problems
        ]
    return [_problem(err, model, prefix, keys)]


def _prefix_parts(prefix: str) -> tuple[str | int, ...]:
    """``gpuPools[0]`` -> ``('gpuPools', 0)``: a prefix as `_format_loc` writes it, back in parts."""
    return tuple(int(p[1:-1]) if p.startswith("[") else p for p in re.findall(r"\[\d+\]|[^.\[\]]+", prefix))


def _problem(err: dict[str, Any], model: type[BaseModel], prefix: str, keys: KeyStyle) -> Problem:
    loc, tagged = _user_loc(model, tuple(err["loc"]), keys)
    # A value under a key naming a credential, or past a key that looks like one, is never quoted, nor is that key.
    hidden = hides(loc)
    path = _format_loc(tuple(SECRET_SHOWN if key_looks_like(p) else p for p in loc), prefix)
    kind = err["type"]
    given = SECRET_SHOWN if hidden else json.dumps(err.get("input"), default=str)
    python = keys == "python"
    if hidden and not python and (tagged or kind == "string_type"):
        # Quoting it would keep the credential in plain text: a secret is what Pulumi passes as text.
        return Problem(path, f"must be text (got {given}); {secret_advice((*_prefix_parts(prefix), *loc))}")
    if tagged:
        # A value that may also come from another resource (StrInput): one problem, not one per accepted type.
        wanted = "a str or a pulumi.Output" if python else "text; quote it in YAML"
        return Problem(path, f"must be {wanted} (got {given})")
    if kind == "extra_forbidden":
        parent = _model_at(model, tuple(err["loc"])[:-1])
        allowed = sorted(_keys_of(parent, keys)) if parent else []
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        noun = "argument" if python else "key"
        return Problem(path, f"unknown {noun}{hint}; allowed {noun}s: {', '.join(allowed)}")
    if kind == "missing":
        return Problem(path, "required argument is missing" if python else "required key is missing")
    message = err["msg"].removeprefix("Value error, ")
    field = _field_at(model, tuple(err["loc"]))
    # pydantic's wording names Python types and one bound at a time; say what the user may write instead.
    if kind in ("literal_error", "enum"):
        message = f"{given} is not allowed; {message[0].lower()}{message[1:]}{_why(field)}"
    elif kind in _NUMBER_ERRORS and field is not None and _range(field):
        message = f"must be a whole number {_range(field)} (got {given})"
    elif kind in ("bool_parsing", "bool_type"):
        message = f"must be {'True or False' if python else 'true or false'} (got {given})"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        section = _model_at(model, tuple(err["loc"]))
        shape = f"a mapping with the keys {', '.join(_keys_of(section, keys))}" if section else "a mapping of keys to values"
        if python and section is not None:
            shape = f"a {section.__name__} or {shape}"
        message = f"must be {shape} (got {given}){_switch_hint(err.get('input'), section, field, loc, keys)}"
    elif kind == "list_type":
        message = f"must be a list (got {given}){_why(field)}"
    elif kind == "too_short":
        least = err.get("ctx", {}).get("min_length", 1)
        message = f"needs at least {least} item{'' if least == 1 else 's'} (got {given}){_why(field)}"
    elif kind == "too_long" and isinstance(err.get("input"), (list, tuple)):
        most = err.get("ctx", {}).get("max_length")
        message = f"holds {len(err['input'])} items; at most {most} are allowed{_why(field)}"
    elif kind == "string_type":
        message = f"must be a str (got {given})" if python else f"must be text; quote it in YAML (got {given})"
    elif kind not in ("value_error", "assertion_error") and "input" in err:
        message = f"{message} (got {given})"
    return Problem(path, message)


def _switch_hint(given: Any, section: type[BaseModel] | None, field: Any, loc: tuple[Any, ...], keys: KeyStyle) -> str:
    """For a section written as a switch (``spot: true``): what turns it on or off. An optional section (default null)
    is on as an empty mapping, with its defaults, and off when left out; a section that is always there is switched
    by its own `enabled` key."""
    if not isinstance(given, bool) or section is None or not loc or any(
            f.is_required() for f in section.model_fields.values()):
        return ""
    name, python = str(loc[-1]), keys == "python"
    if field is not None and field.default is None and field.default_factory is None:
        if given:
            return f"; to turn it on with its defaults, write {f'{name}={section.__name__}()' if python else f'{name}: {{}}'}"
        return f"; to leave it off, leave {name} out"
    if "enabled" in section.model_fields:
        switch = (f"{name}={section.__name__}(enabled={given})" if python
                  else f"{name}: {{enabled: {str(given).lower()}}}")
        return f"; to turn it {'on' if given else 'off'}, write {switch}"
    return f"; for its defaults, leave {name} out" if given else ""


_NUMBER_ERRORS = frozenset(
    {"greater_than_equal", "greater_than", "less_than_equal", "less_than", "int_parsing", "int_type", "int_from_float"}
)


def _range(field: Any) -> str:
    """The bounds a numeric field declares, as people say them ('from 1 to 1000'), or ''."""
    low = high = None
    for bound in field.metadata:
        low = getattr(bound, "ge", low)
        high = getattr(bound, "le", high)
    if low is not None and high is not None:
        return f"from {low} to {high}"
    if low is not None:
        return f"of at least {low}"
    return f"of at most {high}" if high is not None else ""


def _why(field: Any) -> str:
    """The field's description as a hint, so a refused value comes with what the key is for."""
    return f"; {field.description.rstrip('.')}" if field is not None and field.description else ""
