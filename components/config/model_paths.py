"""Where a pydantic error points, as the user names it: location tuples to key paths (``gpuPools[0].vmSize``), the
model and field a location points at, keys in a stack file's or in Python's spelling."""

from __future__ import annotations

import re
import types
import typing
from typing import Annotated, Any, Union

from pydantic import BaseModel

from .errors import KeyStyle


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


def _field_at(model: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """The pydantic FieldInfo a location names (None for list items, map entries and unknown keys)."""
    if not loc or isinstance(loc[-1], int):
        return None
    parent = _model_at(model, loc[:-1])
    if parent is None:
        return None
    return next((f for n, f in parent.model_fields.items() if loc[-1] in (n, f.alias)), None)


def expected_shape(model: type[BaseModel], loc: tuple[Any, ...]) -> str | None:
    """What a key of `model` expects, in a stack file's words ('a mapping with the keys ...', 'a mapping of keys to
    values', 'a list'), for a message about a value of the wrong shape; None where it says nothing more (free values)."""
    if not loc:
        return None
    field = _field_at(model, loc if isinstance(loc[-1], str) else loc[:-1])
    if field is None:
        return None
    annotation = _peel(field.annotation)
    if not isinstance(loc[-1], str):  # an item of a list
        if typing.get_origin(annotation) is not list:
            return None
        annotation = _peel(typing.get_args(annotation)[0])
    origin = typing.get_origin(annotation)
    if _is_model(annotation):
        return f"a mapping with the keys {', '.join(_keys_of(annotation, 'config'))}"
    if origin is dict or annotation is dict:
        return "a mapping of keys to values"
    if origin is list or annotation is list:
        return "a list"
    return None
