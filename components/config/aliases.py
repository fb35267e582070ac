"""camelCase key -> snake_case attribute over every config model (they share one naming rule), filled as each model
class is defined, so error messages can speak Python to Python callers. Imports nothing.
"""

from __future__ import annotations

from typing import Any

ALIASES: dict[str, str] = {}
"""Every model field's alias (as a stack file writes it) -> its Python name; the first model to define one wins."""


def remember(model: Any) -> None:
    """Records a model class's field aliases (called once per model class, when pydantic has built it)."""
    for name, field in model.model_fields.items():
        if field.alias and field.alias != name:
            ALIASES.setdefault(field.alias, name)
