"""Configuration errors: every problem with the key path the user wrote, reported at once.

A model-level check raises `KeyedProblemsError` with (key path, message) pairs; the formatter reads those pairs from the
exception object, never from message text, so a value the user wrote cannot pose as a problem at another key.
"""

from __future__ import annotations

import difflib
import json
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Union

import pulumi
from pydantic import BaseModel, ValidationError


class KeyedProblemsError(ValueError):
    """Problems that a model-level check found at keys below its model: (camelCase key path, message) pairs."""

    def __init__(self, *problems: tuple[str, str]):
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{key}: {message}" for key, message in self.problems))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: where (the path the user wrote) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigError(ValueError):
    """Every problem found in a configuration, reported at once."""

    def __init__(self, problems: list[Problem], source: str = ""):
        self.problems = problems
        self.source = source
        super().__init__("\n".join(str(p) for p in problems))

    def to_pulumi(self) -> pulumi.InputPropertiesError:
        """The same problems as Pulumi's structured input error."""
        return pulumi.InputPropertiesError(
            "invalid configuration", [{"property_path": p.path, "reason": p.message} for p in self.problems]
        )


def _format_loc(loc: tuple[Any, ...], prefix: str) -> str:
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class a location inside `model` points at (to list allowed keys of an unknown key's parent)."""
    current: Any = model
    for part in loc:
        while True:  # peel list[...], X | None, Annotated[...]
            origin = typing.get_origin(current)
            if origin in (list, dict) and isinstance(part, (int, str)) and not _is_model(current):
                break
            if origin in (Union, types.UnionType, Annotated):
                args = [a for a in typing.get_args(current) if a is not type(None)]
                current = args[0]
                continue
            break
        if typing.get_origin(current) is list and isinstance(part, int):
            current = typing.get_args(current)[0]
            continue
        if not _is_model(current):
            return None
        field = next(
            (f for name, f in current.model_fields.items() if part in (name, f.alias)),
            None,
        )
        if field is None:
            return None
        current = field.annotation
    while typing.get_origin(current) in (Union, types.UnionType):
        current = next(a for a in typing.get_args(current) if a is not type(None))
    return current if _is_model(current) else None


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _problems(err: dict[str, Any], model: type[BaseModel], prefix: str) -> list[Problem]:
    """Turns one pydantic error into problems; a model-level check may report several keys at once (KeyedProblemsError)."""
    raised = (err.get("ctx") or {}).get("error")
    if err["type"] == "value_error" and isinstance(raised, KeyedProblemsError):
        base = _format_loc(tuple(err["loc"]), prefix)
        return [Problem(f"{base}.{key}" if base else key, text) for key, text in raised.problems]
    return [_problem(err, model, prefix)]


def _problem(err: dict[str, Any], model: type[BaseModel], prefix: str) -> Problem:
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        allowed = sorted(f.alias or n for n, f in parent.model_fields.items()) if parent else []
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return Problem(_format_loc(loc, prefix), f"unknown key{hint}; allowed keys: {', '.join(allowed)}")
    if kind == "missing":
        return Problem(_format_loc(loc, prefix), "required key is missing")
    message = err["msg"].removeprefix("Value error, ")
    given = json.dumps(err.get("input"), default=str)
    field = _field_at(model, loc)
    # pydantic's wording names Python types and one bound at a time; say what the stack file may hold instead.
    if kind in ("literal_error", "enum"):
        message = f"{given} is not allowed; {message[0].lower()}{message[1:]}{_why(field)}"
    elif kind in _NUMBER_ERRORS and field is not None and _range(field):
        message = f"must be a whole number {_range(field)} (got {given})"
    elif kind in ("bool_parsing", "bool_type"):
        message = f"must be true or false (got {given})"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        section = _model_at(model, loc)
        shape = (
            f"a mapping with the keys {', '.join(f.alias or n for n, f in section.model_fields.items())}"
            if section else "a mapping of keys to values"
        )
        message = f"must be {shape} (got {given})"
    elif kind == "list_type":
        message = f"must be a list (got {given}){_why(field)}"
    elif kind == "too_short":
        least = err.get("ctx", {}).get("min_length", 1)
        message = f"needs at least {least} item{'' if least == 1 else 's'} (got {given}){_why(field)}"
    elif kind == "string_type":
        message = f"must be text; quote it in YAML (got {given})"
    elif kind not in ("value_error", "assertion_error") and "input" in err:
        message = f"{message} (got {given})"
    return Problem(_format_loc(loc, prefix), message)


_NUMBER_ERRORS = frozenset(
    {"greater_than_equal", "greater_than", "less_than_equal", "less_than", "int_parsing", "int_type", "int_from_float"}
)


def _field_at(model: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """The pydantic FieldInfo a location names (None for list items, map entries and unknown keys)."""
    if not loc or isinstance(loc[-1], int):
        return None
    parent = _model_at(model, loc[:-1])
    if parent is None:
        return None
    return next((f for n, f in parent.model_fields.items() if loc[-1] in (n, f.alias)), None)


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


def validate(model: type[BaseModel], data: Any, prefix: str = "") -> Any:
    """Validates plain data (camelCase keys) into `model`; raises ConfigError listing every problem with its path."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [p for e in exc.errors(include_url=False) for p in _problems(e, model, prefix)]
        raise ConfigError(problems) from None

