"""camelCase key -> snake_case attribute over every config model (they share one naming rule), so error messages can
speak Python to Python callers. Imports nothing.

Read when a message is written, not when a model class is defined: a model whose annotations name a class defined
later is not complete when pydantic 2.5 (the declared floor) calls ``__pydantic_init_subclass__``, and its fields are
filled in only when it is rebuilt.
"""

from __future__ import annotations

from typing import Any

_MODELS: list[Any] = []


def remember(model: Any) -> None:
    """Registers a model class (called once per model class, when pydantic has created it)."""
    _MODELS.append(model)


def aliases() -> dict[str, str]:
    """Every model field's alias (as a stack file writes it) -> its Python name; the first model to define one wins."""
    names: dict[str, str] = {}
    for model in _MODELS:
        for name, field in model.model_fields.items():
            if field.alias and field.alias != name:
                names.setdefault(field.alias, name)
    return names
