"""The model-level rules on what validated: a model's own checks run once the keys that failed are set aside, so one
typo beside a rule's keys does not hide the rule's problem until the next run.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import KeyStyle, Problem
from .model_paths import _format_loc, _is_model, _key, _peel
from .problems import problems_of

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
    aside = [f"{prefix}.{_key(*fields[k], keys)}" if prefix else _key(*fields[k], keys) for k in bad if k in fields]
    try:
        model.model_validate(rest)
    except ValidationError as exc:
        for problem in problems_of(exc, model, prefix, keys):
            if not _reads_aside(problem, aside):
                found.setdefault(problem, None)


def _reads_aside(problem: Problem, aside: list[str]) -> bool:
    """Whether a rule's problem is about a key set aside (at it, below it, or naming it): that key was refused and is
    told once; its default stood in for it here, so the rule judged what the user did not write."""
    return any(problem.path == key or problem.path.startswith((f"{key}.", f"{key}[")) or key in problem.message
               for key in aside)


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
