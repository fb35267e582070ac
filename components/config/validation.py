"""Validating plain data or Python arguments into a model: every problem at once, pydantic's and the model-level
rules' on what validated, as one ConfigError."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import ConfigError, KeyStyle
from .problems import problems_of
from .salvage import salvaged_problems


def validate(model: type[BaseModel], data: Any, prefix: str = "", keys: KeyStyle = "config") -> Any:
    """Validates plain data (camelCase keys) into `model`; raises ConfigError listing every problem with its path, also
    what the model-level rules find on the parts that validated (`salvaged_problems`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = problems_of(exc, model, prefix, keys)
        problems += [p for p in salvaged_problems(model, data, prefix, keys) if p not in problems]
        raise ConfigError(problems) from None


def validated_or_none(model: type[BaseModel], data: Any) -> Any:
    """`data` validated into `model`, or None when it does not validate (a part checked on its own, its problems
    reported elsewhere)."""
    try:
        return model.model_validate(data)
    except (ValidationError, ValueError, TypeError):
        return None


def python_args_error(model: type[BaseModel], exc: ValidationError, data: Any = None) -> ConfigError:
    """The error a Python caller gets for bad arguments: one line per problem, named as the arguments are (with what
    the model-level rules find on the arguments that validated, when `data` gives them)."""
    problems = problems_of(exc, model, keys="python")
    problems += [p for p in salvaged_problems(model, data, keys="python") if p not in problems]
    return ConfigError(problems, title=f"invalid {model.__name__}")
