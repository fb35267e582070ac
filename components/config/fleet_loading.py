"""Loading a fleet stack's settings: the `fleet` section of the project's config namespace, and nothing of a platform.

A fleet stack declares the Fleet and its policy; its clusters are member stacks of their own (docs/fleet.md), so a
platform section (``cluster``, ``gpuPools``, ...) in a fleet stack is refused, as is a near-miss of ``fleet``.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

import pulumi

from .errors import ConfigError, Problem
from .fleet import FLEET_KEY, FleetConfig, raw_duplicate_problems
from .loading import (
    NEAR_MISS_CUTOFF,
    PROJECT,
    STACK_KEYS,
    decoded,
    running_config,
    unknown_keys_warning,
    warn_plain_credentials,
)
from .validation import validate


def fleet_config_from_mapping(
    config: Mapping[str, Any], project: str = PROJECT, secret_keys: Collection[str] = ()
) -> FleetConfig:
    """Builds the FleetConfig from a flat Pulumi config map; ConfigError lists every problem at once."""
    problems: list[Problem] = []
    raw: Any = None
    for full_key, value in config.items():
        namespace, _, key = str(full_key).partition(":")
        if namespace != project:
            continue
        if key == FLEET_KEY:
            raw = decoded(value)
        elif key in STACK_KEYS:
            problems.append(Problem(key, f"a fleet stack (it has the '{FLEET_KEY}' section) declares no platform; move "
                                    f"'{key}' to a member stack, which joins the fleet with fleetMembership"))
        elif difflib.get_close_matches(key, [FLEET_KEY], n=1, cutoff=NEAR_MISS_CUTOFF) or key.lower() == FLEET_KEY:
            problems.append(Problem(key, f"unknown key (did you mean '{FLEET_KEY}'?); a fleet stack holds '{FLEET_KEY}'"))
    fleet = None
    try:
        fleet = validate(FleetConfig, raw, FLEET_KEY)
    except ConfigError as exc:
        problems += exc.problems
        strategy = raw.get("updateStrategy") if isinstance(raw, Mapping) else None
        problems += [p for key, message in raw_duplicate_problems(strategy)
                     if (p := Problem(f"{FLEET_KEY}.updateStrategy.{key}", message)) not in problems]
    if problems:
        from .redaction import credential_texts, redact  # only once a problem is told

        secret = f"{project}:{FLEET_KEY}" in secret_keys
        raise ConfigError(redact(problems, ([raw] if secret else []) + credential_texts({FLEET_KEY: raw}))) from None
    return fleet


def load_fleet_config(project: str | None = None, others: Collection[str] = ()) -> FleetConfig:
    """Reads and validates a fleet stack's settings in a running Pulumi program; raises ConfigError on bad input.
    `others`: the keys of the namespace the calling program reads itself; any other key is warned about."""
    namespace = project or pulumi.get_project()
    found, secret = running_config(namespace, (FLEET_KEY,))
    fleet = fleet_config_from_mapping(found, namespace, secret)
    warn_plain_credentials(found, namespace, secret)
    warning = unknown_keys_warning(found, namespace, (FLEET_KEY,), _refused, others)
    if warning:
        pulumi.log.warn(warning)
    return fleet


def _refused(key: str) -> bool:
    """Whether a fleet stack's loading refuses this key (a platform's section, or a near miss of 'fleet')."""
    return key in STACK_KEYS or bool(difflib.get_close_matches(key, [FLEET_KEY], n=1, cutoff=NEAR_MISS_CUTOFF)) \
        or key.lower() == FLEET_KEY
