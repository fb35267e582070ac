"""Loading a stack's settings: the four sections this package owns in the project's config namespace.

Other keys in that namespace may belong to the consumer's own program, which names them (`load_stack_config`'s
`others`); near-misses of the four (``gpuPool``, ``draDrivers``) are refused with "did you mean", and any other key is
warned about (`unknown_keys_warning`), since a typo must never pass without a word.

Sections set as secrets (``pulumi config set --secret``; `pulumi.runtime.is_config_secret`) stay secret: the
StackConfig names them (`StackConfig.secret_sections`) so that what is built from them is passed as a secret, and no
error message quotes one of their values.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi

from .errors import ConfigError, Problem
from .partial import partial_problems
from .stack import StackConfig
from .syntax import PROJECT
from .validation import validate

STACK_KEYS = tuple(f.alias or name for name, f in StackConfig.model_fields.items())
NEAR_MISS_CUTOFF = 0.75
SECRET_SHOWN = "[secret]"


def near_miss(key: str) -> str | None:
    """The section `key` is most likely a typo of, or None when it is some other (the consumer's) key."""
    close = difflib.get_close_matches(key, STACK_KEYS, n=1, cutoff=NEAR_MISS_CUTOFF)
    if not close and key.lower() in {k.lower() for k in STACK_KEYS}:
        close = [next(k for k in STACK_KEYS if k.lower() == key.lower())]
    return close[0] if close else None


@dataclass(frozen=True)
class NoSettings(Problem):
    """The stack sets none of the package's sections: one problem instead of one per required key, naming the
    namespace the package reads them from; `in_file` names the stack file too, where the caller knows it."""

    namespace: str = PROJECT
    elsewhere: tuple[str, ...] = ()  # the package's keys written under another namespace

    def in_file(self, file: str) -> Problem:
        """The same problem, said of the stack file `file`."""
        return Problem("", no_settings_message(self.namespace, file, self.elsewhere))


def no_settings_message(namespace: str, file: str = "", elsewhere: Collection[str] = ()) -> str:
    """What a stack without the package's settings is told: where they are read from, and what to write."""
    required = [f"{namespace}:{f.alias or key}" for key, f in StackConfig.model_fields.items() if f.is_required()]
    moved = (f"; {', '.join(sorted(elsewhere))} {'is' if len(elsewhere) == 1 else 'are'} under another namespace: "
             f"write {'it' if len(elsewhere) == 1 else 'them'} under '{namespace}:'") if elsewhere else ""
    return (f"{file or 'the stack file'}: sets none of this package's settings, which are read under the project's "
            f"name '{namespace}:' ({' and '.join(required)} at least; docs/configuration.md lists every key){moved}")


def stack_config_from_mapping(
    config: Mapping[str, Any], project: str = PROJECT, secret_keys: Collection[str] = ()
) -> StackConfig:
    """Builds the StackConfig from a flat Pulumi config map (``project:key`` -> value, values JSON or plain).

    `secret_keys` are the full keys that are secrets: their sections are marked secret, and problems never quote them.
    """
    data: dict[str, Any] = {}
    problems: list[Problem] = []
    for full_key, raw in config.items():
        namespace, _, key = str(full_key).partition(":")
        if namespace != project:
            continue  # provider settings (azure-native:location, …) are the providers' business
        if key in STACK_KEYS:
            data[key] = decoded(raw)
            continue
        close = near_miss(key)
        if close is None and difflib.get_close_matches(key, ["fleet"], n=1, cutoff=NEAR_MISS_CUTOFF):
            # A fleet stack's section misspelt: without it the stack reads as a platform's, and says so.
            problems.append(Problem(key, "unknown key (did you mean 'fleet'?); a fleet stack holds 'fleet' and no "
                                    "platform section (docs/fleet.md)"))
            continue
        if close:
            problems.append(Problem(key, f"unknown key (did you mean '{close}'?); allowed keys: {', '.join(STACK_KEYS)}"))
    if not data and not problems:  # not one mistake per required key: the stack holds no settings of ours at all
        elsewhere = tuple(str(k) for k in config if str(k).partition(":")[2] in STACK_KEYS)
        raise ConfigError([NoSettings("", no_settings_message(project, "", elsewhere), project, elsewhere)])
    secret = frozenset(key for key in STACK_KEYS if f"{project}:{key}" in secret_keys and key in data)
    try:
        stack = validate(StackConfig, data)
    except ConfigError as exc:
        # The whole stack did not validate, so its cross-section checks never ran: run them on the parts that did.
        problems += [p for p in dict.fromkeys(partial_problems(data, exc.problems)) if p not in problems]
        stack = None
    if problems:
        from .redaction import credential_texts, redact  # only once a problem is told

        raise ConfigError(redact(problems, [data[key] for key in sorted(secret)] + credential_texts(data))) from None
    return stack.with_secret_sections(secret)


def decoded(raw: Any) -> Any:
    """Pulumi hands object values over as JSON strings; plain strings stay as they are (also JSON that is not data:
    NaN, or nested too deeply to read)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return raw
    return raw


def decoded_section(raw: Any) -> dict[str, Any]:
    """A stack-config section as a mapping (Pulumi's JSON text decoded as `load_stack_config` decodes it), or {} when
    it is not one."""
    value = decoded(raw)
    return value if isinstance(value, dict) else {}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_stack_config(project: str | None = None, others: Collection[str] = ()) -> StackConfig:
    """Reads and validates this project's stack settings in a running Pulumi program; raises ConfigError on bad input.

    Reads through the SDK's public config functions: the four sections by key, the language host's config map
    (``PULUMI_CONFIG``) for near-misses of them, and `is_config_secret` for the sections set as secrets. `others`: the
    keys of the namespace the calling program reads itself; any other key is warned about (`unknown_keys_warning`).
    """
    namespace = project or pulumi.get_project()
    found, secret = running_config(namespace, STACK_KEYS)
    stack = stack_config_from_mapping(found, namespace, secret)
    warn_plain_credentials(found, namespace, secret)
    warning = unknown_keys_warning(found, namespace, STACK_KEYS, refused_in_platform, others)
    if warning:
        pulumi.log.warn(warning)
    return stack


def refused_in_platform(key: str) -> bool:
    """Whether a platform stack's loading refuses this unknown key (a near miss of a section, or of 'fleet')."""
    return near_miss(key) is not None or bool(difflib.get_close_matches(key, ["fleet"], n=1, cutoff=NEAR_MISS_CUTOFF))


def unknown_keys_warning(config: Mapping[str, Any], namespace: str, settings: Sequence[str],
                         refused: Callable[[str], bool], others: Collection[str] = ()) -> str | None:
    """What a stack is told about keys of its namespace that nothing reads: none of the package's `settings`, not
    `refused` (those are told as errors) and none of the `others` its program reads. Not an error, since a program of
    the consumer's may read its own keys there; but a misspelt or misplaced key that does nothing must not pass
    without a word. A key shaped like a credential is not shown."""
    from .credentials import key_looks_like

    keys = sorted(
        SECRET_SHOWN if key_looks_like(key) else key
        for full in config if (parts := str(full).partition(":"))[0] == namespace
        and (key := parts[2]) not in settings and key not in others and not refused(key)
    )
    if not keys:
        return None
    it = "it" if len(keys) == 1 else "them"
    return (f"{', '.join(f'{namespace}:{key}' for key in keys)}: {'is not a setting' if it == 'it' else 'are not settings'}"
            f" of this package (its keys here: {', '.join(settings)}; docs/configuration.md), so nothing here reads "
            f"{it}; remove {it}, or, where your own program reads {it}, pass {it} as `others` when it loads the "
            "settings")


def running_config(namespace: str, keys: Collection[str]) -> tuple[dict[str, Any], list[str]]:
    """The running program's config in `namespace` (the language host's map, and each of `keys` read through the SDK)
    and which of its full keys are secret: what a stack's and a fleet stack's loaders both read."""
    found = {full: value for full, value in (pulumi.runtime.get_config_env() or {}).items()
             if str(full).startswith(f"{namespace}:")}
    for key in keys:
        value = pulumi.runtime.get_config(f"{namespace}:{key}")
        if value is not None:
            found[f"{namespace}:{key}"] = value
    return found, [full for full in found if pulumi.runtime.is_config_secret(full)]


def warn_plain_credentials(config: Mapping[str, Any], namespace: str, secret: Collection[str]) -> None:
    """One warning per value of the stack's config that looks like a credential in plain text (never the value)."""
    from .credential_advice import credential_warning
    from .credentials import config_credentials

    stack = pulumi.get_stack()
    # Each once: a value under a key that looks like a credential is told about that key, as the key itself is.
    for message in dict.fromkeys(credential_warning(found, namespace, stack)
                                 for found in config_credentials(config, namespace, secret)):
        pulumi.log.warn(message)
