"""A stack of a Pulumi project: its settings file read as the Pulumi CLI reads it, and the project's program run with it.

The stack file (``<stackConfigDir>/Pulumi.<stack>.yaml``) is read within the bounds of `safe_yaml` and as pulumi/pulumi
reads it (`sdk/go/common/workspace/loaders.go`, `project.go`; `sdk/go/common/resource/config`: `key.go`, `object.go`),
with Pulumi.yaml's config declarations applied (`validation.go`). Only the file counts: ``PULUMI_CONFIG`` and the other
config variables of the caller's environment are hidden from the program (`running`), so the plan is the file's.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import runpy
import sys
from pathlib import Path
from typing import Any

from . import safe_yaml
from .capture import capture
from .plan import SECRET, Plan
from .project import Project, StackFileError, full_key, key_path, read_yaml, shown_key, stack_name
from .running import isolated_program

# The keys of a stack file (pulumi/pulumi `sdk/go/common/workspace/project.go`, ProjectStack).
STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
NAMESPACE_CUTOFF = 0.8
DEFAULT_TIMEOUT = 120.0


def read_stack_config(project: Project, stack: str) -> tuple[dict[str, Any], list[str]]:
    """The stack file's config map with keys namespaced as the CLI does, and the keys that are secrets.

    A value encrypted with the stack's secrets provider (``{secure: v1:...}``, at the top or anywhere inside) is never
    decrypted offline: it becomes ``[secret]``, and its whole key is a secret, as Pulumi marks a key whose value contains
    a secure string (`object.go`, Secure).
    """
    stack = stack_name(stack, project.name)
    path = project.stack_file(stack)
    if not path.exists():
        known = ", ".join(project.stacks()) or "none"
        raise StackFileError(f"{path.name}: no such stack file in {path.parent}; stacks: {known}")
    doc = read_yaml(path, path.name, project.name)
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise StackFileError(f"{path.name}: expected a 'config:' mapping of keys to values (see Pulumi.dev.yaml)")
    problems = [_unknown_key(path.name, key) for key in doc if key not in STACK_FILE_KEYS]
    if doc.get("environment"):
        problems.append(f"{path.name}: environment: imports Pulumi ESC environments, whose values the offline engine "
                        "cannot read; plan a stack file without them")
    section = doc.get("config")
    if not isinstance(section, (dict, type(None))):
        problems.append(f"{path.name}: expected a 'config:' mapping of keys to values (see Pulumi.dev.yaml)")
    if problems:
        raise StackFileError(*problems)
    config: dict[str, Any] = {}
    written: dict[str, str] = {}
    secrets: set[str] = set()
    for key, value in (section or {}).items():
        try:
            full = full_key(project.name, key, path.name)
        except StackFileError as exc:
            problems += exc.lines
            continue
        if full in written:
            problems.append(f"{shown_key(project.name, full)}: written twice in {path.name}, as '{written[full]}' and "
                            f"'{key}'; keep one")
            continue
        written[full] = key
        value, secret = _without_ciphertext(value)
        config[full] = value
        if secret:
            secrets.add(full)
    problems += _namespace_typos(project.name, config)
    for full, value in config.items():
        for where, problem in safe_yaml.foreign_values(value):
            problems.append(f"{key_path(project.name, full, where)}: {problem}")
    problems += _apply_project_config(project, stack, config, secrets)
    if problems:
        raise StackFileError(*problems)
    return config, sorted(secrets)


def _unknown_key(file: str, key: Any) -> str:
    close = difflib.get_close_matches(str(key), STACK_FILE_KEYS, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{file}: unknown key {json.dumps(key, default=str)[:60]}{hint}; a stack file holds {', '.join(STACK_FILE_KEYS)}"


def _without_ciphertext(value: Any) -> tuple[Any, bool]:
    """The value with every secure string replaced by ``[secret]``, and whether there was one (`object.go`,
    isSecureValue: a mapping whose only key is ``secure``, holding text)."""
    if isinstance(value, dict):
        if set(value) == {"secure"} and isinstance(value["secure"], str):
            return SECRET, True
        items = {k: _without_ciphertext(v) for k, v in value.items()}
        return {k: v for k, (v, _) in items.items()}, any(s for _, s in items.values())
    if isinstance(value, list):
        items = [_without_ciphertext(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def _namespace_typos(project: str, config: dict[str, Any]) -> list[str]:
    """A namespace that is almost the project's name is a typo, unless a Pulumi package of that name is installed
    (Python SDKs are ``pulumi_<name>``): Pulumi would pass its keys to no one."""
    problems = []
    for full in config:
        namespace = full.partition(":")[0]
        if namespace == project or namespace == "pulumi":
            continue
        alike = (namespace.casefold() == project.casefold()
                 or difflib.SequenceMatcher(None, namespace, project).ratio() >= NAMESPACE_CUTOFF)
        if alike and importlib.util.find_spec(f"pulumi_{namespace.replace('-', '_')}") is None:
            problems.append(f"{full}: unknown namespace '{namespace}' (did you mean '{project}'?); this project's keys "
                            f"are {project}:<key>, and no installed package is named '{namespace}'")
    return problems


def _apply_project_config(project: Project, stack: str, config: dict[str, Any], secrets: set[str]) -> list[str]:
    """Pulumi.yaml's config applied as the CLI applies it (`sdk/go/common/workspace/validation.go`, mergeConfig): a
    value or default fills a key the stack does not set; a key of the project's namespace with neither is required;
    a key declared secret must be encrypted in the stack."""
    problems, missing = [], []
    for full, declaration in project.config:
        if full in config:
            if declaration.get("secret") is True and full not in secrets:
                problems.append(f"{shown_key(project.name, full)}: declared secret in Pulumi.yaml, so stack '{stack}' "
                                "must set it with `pulumi config set --secret`")
            continue
        if "value" in declaration or "default" in declaration:
            value = declaration.get("value", declaration.get("default"))
            for where, problem in safe_yaml.foreign_values(value):
                problems.append(f"Pulumi.yaml: config {key_path(project.name, full, where)}: {problem}")
            config[full] = value
        elif full.startswith(f"{project.name}:"):
            missing.append(shown_key(project.name, full))
    if missing:
        problems.append(f"stack '{stack}' is missing configuration {', '.join(sorted(missing))} (declared in Pulumi.yaml "
                        "without a default)")
    return problems


def run_project(project: Project, stack: str, *, preview: bool = True, timeout: float | None = DEFAULT_TIMEOUT) -> Plan:
    """Runs the project's program with the stack's config under the offline engine.

    The program runs as the language host runs it, apart from the caller: its stdout goes to stderr (a ``print`` never
    mixes into a plan document), its stdin is empty, ambient ``PULUMI_*`` variables are hidden. A program that stops
    early (``sys.exit``), fails, or runs past `timeout` seconds raises `running.ProgramError` (one line).
    """
    config, secrets = read_stack_config(project, stack)
    stack = stack_name(stack, project.name)

    def program() -> None:
        with _ProjectOnPath(project.directory):
            runpy.run_path(str(project.main), run_name="__main__")

    with isolated_program(project.main, timeout):
        return capture(program, project=project.name, stack=stack, config=config, preview=preview,
                       secret_keys=secrets, timeout=timeout)


class _ProjectOnPath:
    """Makes the project's folder importable while its program runs, as the language host does."""

    def __init__(self, directory: Path):
        self.directory = str(directory)

    def __enter__(self) -> None:
        sys.path.insert(0, self.directory)

    def __exit__(self, *exc: object) -> None:
        if self.directory in sys.path:
            sys.path.remove(self.directory)
