"""From pydantic's ValidationError to `Problem`s: each named by the key path the user wrote (stack file or Python API),
with the allowed values or range, each once.
"""

from __future__ import annotations

import difflib
import json
import re
import types
import typing
from typing import Annotated, Any, Union

from pydantic import BaseModel, ValidationError

from .aliases import ALIASES
from .errors import ConfigError, KeyedProblemsError, KeyStyle, Problem


def _format_loc(loc: tuple[Any, ...], prefix: str) -> str:
    """``('gpuPools', 0, 'vmSize')`` -> ``gpuPools[0].vmSize`` (after `prefix`)."""
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


def _key(name: str, field: Any, keys: KeyStyle) -> str:
    """A field's key as the user writes it: its alias in a stack file, its attribute name in Python."""
    return name if keys == "python" else (field.alias or name)


def _keys_of(model: type[BaseModel], keys: KeyStyle) -> list[str]:
    return [_key(n, f, keys) for n, f in model.model_fields.items()]


_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _split_path(path: str) -> tuple[Any, ...]:
    """``auth.adminGroupObjectIds`` / ``gpuPools[0].name`` as a location tuple."""
    return tuple(int(index) if index else key for key, index in _PATH_PART.findall(path))


def _is_union(annotation: Any) -> bool:
    """A union of several types (not just X | None): pydantic tags each member's error with the member's name."""
    if typing.get_origin(annotation) not in (Union, types.UnionType):
        return False
    return len([a for a in typing.get_args(annotation) if a is not type(None)]) > 1


def _user_loc(model: type[BaseModel], loc: tuple[Any, ...], keys: KeyStyle) -> tuple[tuple[Any, ...], bool]:
    """The location as the user names it, and whether pydantic tagged it with a union member (``cluster_name.str``).

    Only keys of the models are renamed: below a map (labels, tags, featureGates, extraValues) keys are the user's.
    """
    out: list[Any] = []
    current: Any = model
    tagged = False
    for part in loc:
        if current is None:
            out.append(part)
            continue
        current = _peel(current)
        if _is_union(current) and isinstance(part, str):
            tagged, current = True, None  # a member's name, not a key the user wrote
            continue
        if isinstance(part, int):
            current = typing.get_args(current)[0] if typing.get_origin(current) is list else None
            out.append(part)
            continue
        if _is_model(current):
            found = next(((n, f) for n, f in current.model_fields.items() if part in (n, f.alias)), None)
            if found is not None:
                out.append(_key(*found, keys))
                current = found[1].annotation
                continue
        out.append(part)
        current = None
    return tuple(out), tagged


def _peel(annotation: Any) -> Any:
    """The annotation without Annotated[...] and without None in X | None."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (Union, types.UnionType) and type(None) in typing.get_args(annotation):
            rest = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(rest) != 1:
                return Union[tuple(rest)]  # noqa: UP007 (built at run time)
            annotation = rest[0]
        else:
            return annotation


def _python_words(text: str) -> str:
    """A message's mentions of other keys (``maxCount``, ``draDriver.featureGates``) in Python's names; quoted text is
    the user's value and stays as written."""
    names = ALIASES
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


def _problem(err: dict[str, Any], model: type[BaseModel], prefix: str, keys: KeyStyle) -> Problem:
    loc, tagged = _user_loc(model, tuple(err["loc"]), keys)
    path = _format_loc(loc, prefix)
    kind = err["type"]
    given = json.dumps(err.get("input"), default=str)
    python = keys == "python"
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
        message = f"must be {shape} (got {given})"
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


def validate(model: type[BaseModel], data: Any, prefix: str = "", keys: KeyStyle = "config") -> Any:
    """Validates plain data (camelCase keys) into `model`; raises ConfigError listing every problem with its path, also
    what the model-level rules find on the parts that validated (`salvaged_problems`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = problems_of(exc, model, prefix, keys)
        problems += [p for p in salvaged_problems(model, data, prefix, keys) if p not in problems]
        raise ConfigError(problems) from None


MAX_SALVAGED = 1000  # models salvaged in one validation: a file of thousands of bad pools is told its first mistakes


def salvaged_problems(model: type[BaseModel], data: Any, prefix: str = "", keys: KeyStyle = "config") -> list[Problem]:
    """What the model-level rules (a model's own checks across its keys: Ephemeral with Deallocate, Grafana without
    Prometheus) find once the keys that failed are set aside, in `model` and in every section below it: pydantic runs
    a model's own checks only when all its keys validated, so one typo beside a rule's keys would hide the rule's
    problem until the next run. A key set aside takes its default; a model missing a required key is not checked."""
    found: dict[Problem, None] = {}
    budget = [MAX_SALVAGED]
    _salvage(model, data, prefix, keys, found, budget)
    return list(found)


def _salvage(model: type[BaseModel], data: Any, prefix: str, keys: KeyStyle, found: dict[Problem, None],
             budget: list[int]) -> None:
    if budget[0] <= 0 or not isinstance(data, dict):
        return
    budget[0] -= 1
    try:
        model.model_validate(data)
        return
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    bad = {err["loc"][0] for err in errors if err["loc"] and isinstance(err["loc"][0], str)}
    fields = {key: (name, f) for name, f in model.model_fields.items() for key in {name, f.alias or name}}
    for key in bad:
        if key not in fields:
            continue
        name, field = fields[key]
        here = f"{prefix}.{_key(name, field, keys)}" if prefix else _key(name, field, keys)
        inner = _peel(field.annotation)
        value = data.get(key)
        if _is_model(inner):
            _salvage(inner, value, here, keys, found, budget)
        elif typing.get_origin(inner) is list and _is_model(_peel(typing.get_args(inner)[0])) and isinstance(value, list):
            for index, item in enumerate(value):
                _salvage(_peel(typing.get_args(inner)[0]), item, f"{here}[{index}]", keys, found, budget)
    rest = {k: v for k, v in data.items() if k not in bad}
    if not bad or any(f.is_required() and not ({n, f.alias} & set(rest)) for n, f in model.model_fields.items()):
        return
    try:
        model.model_validate(rest)
    except ValidationError as exc:
        for problem in problems_of(exc, model, prefix, keys):
            found.setdefault(problem, None)


def salvage(model: type[BaseModel], data: Any, tries: int = 20) -> tuple[Any, list[str]]:
    """The model built from `data` with each key that failed left out (so it takes its default), and the key paths
    left out (camelCase, as `_format_loc` writes them); (None, ...) when a required key failed or it never validates."""
    import copy

    current = copy.deepcopy(data)
    removed: list[str] = []
    for _ in range(tries):
        try:
            return model.model_validate(current), removed
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        progress = False
        for err in errors:
            loc = list(err["loc"])
            while loc and not isinstance(loc[-1], str):
                loc.pop()  # a list's item: leave out the list
            if not loc or err["type"] == "missing":
                return None, removed
            parent = current
            for part in loc[:-1]:
                parent = parent.get(part) if isinstance(parent, dict) else None
            if isinstance(parent, dict) and loc[-1] in parent:
                del parent[loc[-1]]
                removed.append(_format_loc(tuple(loc), ""))
                progress = True
        if not progress:
            return None, removed
    return None, removed


def python_args_error(model: type[BaseModel], exc: ValidationError, data: Any = None) -> ConfigError:
    """The error a Python caller gets for bad arguments: one line per problem, named as the arguments are (with what
    the model-level rules find on the arguments that validated, when `data` gives them)."""
    problems = problems_of(exc, model, keys="python")
    problems += [p for p in salvaged_problems(model, data, keys="python") if p not in problems]
    return ConfigError(problems, title=f"invalid {model.__name__}")

