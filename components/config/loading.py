"""Loading a stack's settings: the four sections this package owns in the project's config namespace.

Other keys in that namespace belong to the consumer's own program and are left alone, except near-misses of the
four (``gpuPool``, ``draDrivers``): those are refused with "did you mean", since a typo must never be ignored.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

import pulumi

from .errors import ConfigError, Problem, validate
from .stack import StackConfig

PROJECT = "aks-dra-vgpu"
STACK_KEYS = tuple(f.alias or name for name, f in StackConfig.model_fields.items())
NEAR_MISS_CUTOFF = 0.75


def near_miss(key: str) -> str | None:
    """The section `key` is most likely a typo of, or None when it is some other (the consumer's) key."""
    close = difflib.get_close_matches(key, STACK_KEYS, n=1, cutoff=NEAR_MISS_CUTOFF)
    if not close and key.lower() in {k.lower() for k in STACK_KEYS}:
        close = [next(k for k in STACK_KEYS if k.lower() == key.lower())]
    return close[0] if close else None


def stack_config_from_mapping(config: Mapping[str, Any], project: str = PROJECT) -> StackConfig:
    """Builds the StackConfig from a flat Pulumi config map (``project:key`` -> value, values JSON or plain)."""
    data: dict[str, Any] = {}
    problems: list[Problem] = []
    for full_key, raw in config.items():
        namespace, _, key = full_key.partition(":")
        if namespace != project:
            continue  # provider settings (azure-native:location, …) are the providers' business
        if key in STACK_KEYS:
            data[key] = _decode(raw)
            continue
        close = near_miss(key)
        if close:
            problems.append(Problem(key, f"unknown key (did you mean '{close}'?); allowed keys: {', '.join(STACK_KEYS)}"))
    try:
        stack = validate(StackConfig, data)
    except ConfigError as exc:
        raise ConfigError(problems + exc.problems) from None
    if problems:
        raise ConfigError(problems)
    return stack


def _decode(raw: Any) -> Any:
    """Pulumi hands object values over as JSON strings; plain strings stay as they are."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def load_stack_config(project: str | None = None) -> StackConfig:
    """Reads and validates this project's stack settings in a running Pulumi program; raises ConfigError on bad input.

    Reads through the SDK's public config functions: the four sections by key, and the language host's config map
    (``PULUMI_CONFIG``) for near-misses of them.
    """
    namespace = project or pulumi.get_project()
    found: dict[str, Any] = {}
    for full_key, value in (pulumi.runtime.get_config_env() or {}).items():
        if full_key.startswith(f"{namespace}:"):
            found[full_key] = value
    for key in STACK_KEYS:
        value = pulumi.runtime.get_config(f"{namespace}:{key}")
        if value is not None:
            found[f"{namespace}:{key}"] = value
    return stack_config_from_mapping(found, namespace)
