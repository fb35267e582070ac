"""What a credential written in plain text is told, and what an error says in place of a value it must not show: the
key path, what it looks like, and the `pulumi config set --secret` command that fixes it, quoted for a POSIX shell.

Never the value: `config.credentials` decides what looks like a credential and what an error must never quote.
"""

from __future__ import annotations

import shlex

from .credentials import SECRET_SHOWN, Credential, hides, key_looks_like, shown_path
from .syntax import property_path


def config_path(parts: tuple[str | int, ...]) -> str:
    """A path as `pulumi config set --path` parses it: a key that is not a plain name in brackets and quotes, a quote
    inside it escaped (pulumi/pulumi `sdk/go/common/resource/properties_path.go`, ParsePropertyPath)."""
    return property_path(parts)


def shell_quoted(text: str) -> str:
    """`text` as one word of a POSIX shell, always in single quotes: a quote inside it closes them, is written as
    ``"'"`` and opens them again (what `shlex.quote` does to a text that needs quoting)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def secret_command(parts: tuple[str | int, ...], project: str = "", stack: str = "", then: str = "") -> str:
    """The command that sets the value at `parts` (and `then`, a placeholder to fill in) as a secret. Without
    `project` the key has no namespace, which the CLI reads as the project's own, with --path too (pulumi/pulumi
    `pkg/cmd/pulumi/config/config.go`, ParseConfigKey: the segment before the first '.' or '[' without a ':' gets the
    project's name)."""
    on = f" --stack {shlex.quote(stack)}" if stack else ""  # quoted only where a shell needs it
    path = config_path(parts) + then
    key = f"{project}:{path}" if project else path
    return f"pulumi config set{on} --secret --path {shell_quoted(key)} <value>"


def _key_in(parts: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    """The path up to the first key that looks like a credential, and what it looks like; None when there is none."""
    for i, part in enumerate(parts):
        what = key_looks_like(part)
        if what:
            return parts[:i], what
    return None


def _key_advice(holder: tuple[str | int, ...], project: str, stack: str) -> str:
    return ("a key is never encrypted (Pulumi encrypts values only, as secure: ...), so it shows in the plan, the state "
            "and every diff; remove it, and keep the credential as a secret value under a plain name: "
            + secret_command(holder, project, stack, then=".<name>" if holder else "<name>"))


def credential_warning(found: Credential, project: str, stack: str = "") -> str:
    """What a plain credential is told: where, what it looks like, and the command that makes it a secret; a credential
    written as a key (or under one) is told that Pulumi never encrypts a key."""
    parts = found.parts if found.key else (found.parts or (found.path,))
    inside = _key_in(parts)
    if found.key or inside:
        holder, what = (parts, found.looks_like) if inside is None else inside
        where = shown_path(holder) or "the config"
        return f"{where}: holds a key that looks like {what} (not shown), written in plain text: " + _key_advice(
            holder, project, stack)
    return (f"{found.path}: looks like {found.looks_like}, written in plain text: it shows in the plan, the state and "
            f"every diff; make it a secret: {secret_command(parts, project, stack)} (the stack file then holds it as "
            "secure: ...)")


def secret_advice(parts: tuple[str | int, ...], project: str = "") -> str:
    """How to write what is at `parts` without it showing: as a secret value, or, past a key that looks like a
    credential, without that key."""
    inside = _key_in(parts)
    if inside is not None:
        return _key_advice(inside[0], project, "")
    return f"make it a secret, which Pulumi keeps as text: {secret_command(parts, project)}"


def hidden_problem(parts: tuple[str | int, ...], project: str = "") -> str | None:
    """What a problem at the key path `parts` says instead of its own words when they might show a credential (a key
    that looks like one on the path, or a value under a key naming one), else None: where, and how to set it right."""
    if not hides(parts):
        return None
    inside = _key_in(parts)
    what = (f"a key here looks like {inside[1]} (not shown)" if inside else
            "cannot be read as written; what it holds is not shown, as its key names a credential")
    return f"{shown_path(parts)}: {what}; {secret_advice(parts, project)}"


__all__ = ["SECRET_SHOWN", "config_path", "credential_warning", "hidden_problem", "secret_advice", "secret_command",
           "shell_quoted"]
