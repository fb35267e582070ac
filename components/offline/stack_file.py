"""A stack file read as the Pulumi CLI reads it, in one pass: the file, then its config sections decoded (namespaced
keys, secure values never decrypted), each value's problem collected; validation into this package's settings comes
after (`stack_settings`), and a reader of several stacks reads each such file once (`project_stacks`).

The stack file (``<stackConfigDir>/Pulumi.<stack>.yaml``) is read within the bounds of `safe_yaml` and as pulumi/pulumi
reads it (`sdk/go/common/workspace/loaders.go`, `project.go`; `sdk/go/common/resource/config`: `key.go`, `object.go`),
with Pulumi.yaml's config declarations applied (`validation.go`).
"""

from __future__ import annotations

import copy
import difflib
import importlib.util
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import safe_yaml
from .plan import SECRET
from .project import Project, StackFileError, full_key, located_stack_file

# The keys of a stack file (pulumi/pulumi `sdk/go/common/workspace/project.go`, ProjectStack).
STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
NAMESPACE_CUTOFF = 0.8
# A line that names its file first already: a stack file (this one or another: a member's fleet stack), or Pulumi.yaml.
NAMES_A_FILE = re.compile(r"(?:[^\s:]*/)?Pulumi(?:\.[^\s:/]+)?\.ya?ml[:]")


@dataclass(frozen=True)
class StackFile:
    """A stack file as read: its config map (namespaced keys), the keys that are secrets, and the problems found in it,
    each as (the config key path it covers, '' for none; the one-line problem). A value with a problem is left out of
    `config`, so the program still runs on the rest and one run reports every mistake."""

    config: dict[str, Any]
    secrets: list[str]
    problems: list[tuple[str, str]] = field(default_factory=list)
    # The values as written, secure values still encrypted ({secure: ...}): what a suggestion to paste back may quote.
    written: dict[str, Any] = field(default_factory=dict)
    file: str = ""  # the file as messages name it (`Project.shown_stack_file`)

    def lines(self) -> list[str]:
        """The problems' lines, each once, each naming the file (`in_file`)."""
        return list(dict.fromkeys(in_file(self.file, line) for _, line in self.problems))

    def covers(self, path: str) -> bool:
        """Whether a problem of the file is already at `path` or above it (a model's problem there says no more)."""
        return any(key and (path == key or path.startswith((f"{key}.", f"{key}["))) for key, _ in self.problems)


def in_file(file: str, line: str) -> str:
    """A problem's line naming its stack file first, the one way every message names it (``stacks/Pulumi.dev.yaml:``,
    with ``:line:column`` where known); a line about Pulumi.yaml, or already naming the file, is left as it is."""
    if not file or NAMES_A_FILE.match(line):
        return line
    return f"{file}: {line}"


def read_stack_config(project: Project, stack: str) -> tuple[dict[str, Any], list[str]]:
    """The stack file's config map with keys namespaced as the CLI does, and the keys that are secrets; StackFileError
    listing every problem of the file (`read_stack_file` gives them without raising)."""
    found = read_stack_file(project, stack)
    if found.problems:
        raise StackFileError(*found.lines())
    return found.config, found.secrets


def read_stack_file(project: Project, stack: str) -> StackFile:
    """The stack file read as the CLI reads it, with every problem of its values collected (StackFileError only when
    the file as a whole cannot be used).

    A value encrypted with the stack's secrets provider (``{secure: v1:...}``, at the top or anywhere inside) is never
    decrypted offline: it becomes ``[secret]``, and its whole key is a secret, as Pulumi marks a key whose value contains
    a secure string (`object.go`, Secure).
    """
    stack, path, shown = located_stack_file(project, stack)
    doc, problems = _read_document(path, shown, project.name)
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise StackFileError(f"{shown}: expected a 'config:' mapping of keys to values (see Pulumi.dev.yaml)")
    problems += [("", _unknown_key(shown, key)) for key in doc if key not in STACK_FILE_KEYS]
    if doc.get("environment"):
        problems.append(("", f"{shown}: environment: imports Pulumi ESC environments, whose values the offline "
                         "engine cannot read; plan a stack file without them"))
    section = doc.get("config")
    if not isinstance(section, (dict, type(None))):
        raise StackFileError(*[line for _, line in problems],
                             f"{shown}: expected a 'config:' mapping of keys to values (see Pulumi.dev.yaml)")
    config: dict[str, Any] = {}
    written: dict[str, str] = {}
    as_written: dict[str, Any] = {}
    secrets: set[str] = set()
    for key, value in (section or {}).items():
        try:
            full = full_key(project.name, key, shown)
        except StackFileError as exc:
            problems += [("", line) for line in exc.lines]
            continue
        if full in written:
            problems.append((shown_key(project.name, full), f"{shown_key(project.name, full)}: written twice in "
                             f"{shown}, as '{written[full]}' and '{key}'; keep one"))
            continue
        written[full] = key
        as_written[full] = copy.deepcopy(value)
        value, secret = _without_ciphertext(value)
        config[full] = value
        if secret:
            secrets.add(full)
    problems += _namespace_typos(project.name, config)
    for full in list(config):
        for where, problem in list(safe_yaml.foreign_values(config[full], expects=expects(project, full))):
            problems.append((key_path(project.name, full, where), problem_text(project.name, full, where, problem)))
            config[full] = _without(config[full], where)
    problems += _apply_project_config(project, stack, config, secrets)
    return StackFile(config, sorted(secrets), problems, as_written, shown)


def _read_document(path: Path, shown: str, project: str) -> tuple[Any, list[tuple[str, str]]]:
    """The stack file's one document without the values that cannot be read, and (key path, line) for each of those
    (`_yaml_problem`). StackFileError when the file as a whole cannot be read."""
    try:
        doc, problems = safe_yaml.read_collecting(path, shown)
    except safe_yaml.YamlInputError as exc:
        raise StackFileError(_yaml_problem(exc, project)[1]) from None
    return doc, [_yaml_problem(exc, project) for exc in problems]


def _yaml_problem(exc: safe_yaml.YamlInputError, project: str) -> tuple[str, str]:
    """A problem of the file's YAML as (the config key path it is at, as the model names it: ``cluster.protect``, ''
    outside ``config:``; its one line). Inside ``config:`` the line names the key path first (`problem_text`), then the
    file and line; elsewhere, words that might show a credential are said as `config.credential_advice` says them."""
    path = exc.path
    full = None
    if len(path) >= 2 and path[0] == "config" and isinstance(path[1], str):
        try:
            full = full_key(project, path[1], exc.where)
        except StackFileError:
            full = None
    if full is None:
        from ..config.credential_advice import hidden_problem  # the settings' package, only once a problem is told

        hidden = hidden_problem(path)
        return "", f"{exc.where}: {hidden}" if hidden else str(exc)
    return key_path(project, full, path[2:]), f"{exc.where}: {problem_text(project, full, path[2:], exc.problem)}"


def problem_text(project: str, full: str, where: tuple[str | int, ...], problem: str) -> str:
    """``key.path: problem`` for a value of the config key `full`; where its words might show a credential (a key that
    looks like one on the path, a value under a key naming one) what `config.credential_advice` says instead."""
    from ..config.credential_advice import hidden_problem

    namespace, _, key = full.partition(":")
    hidden = hidden_problem((key, *where), "" if namespace == project else namespace)
    return hidden or f"{key_path(project, full, where)}: {problem}"


def shown_key(project: str, full: str) -> str:
    """A full config key as messages show it: without the namespace when it is the project's own."""
    return full.partition(":")[2] if full.startswith(f"{project}:") else full


def key_path(project: str, full: str, where: tuple[str | int, ...]) -> str:
    """The key path as errors show it: ``draDriver.extraValues.x`` for the project's keys, ``ns:key.x`` for others; a
    key that looks like a credential as ``[secret]``."""
    from ..config.credentials import SECRET_SHOWN, key_looks_like

    text = shown_key(project, full)
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else f".{SECRET_SHOWN if key_looks_like(part) else part}"
    return text


def _without(value: Any, where: tuple[str | int, ...]) -> Any:
    """The value without what is at `where` (a mapping's key left out, a list's item null; the whole value: None)."""
    if not where:
        return None
    parent = value
    for part in where[:-1]:
        parent = parent[part]
    if isinstance(parent, dict):
        parent.pop(where[-1], None)
    else:
        parent[where[-1]] = None
    return value


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


def _installed(module: str) -> bool:
    """Whether a module of that name can be imported; a dotted name whose parent is no package (`pulumi_aks.dra_vgpu`,
    from the namespace `aks.dra-vgpu`) is none, not a ModuleNotFoundError."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _namespace_typos(project: str, config: dict[str, Any]) -> list[tuple[str, str]]:
    """A namespace that is almost the project's name is a typo, unless a Pulumi package of that name is installed
    (Python SDKs are ``pulumi_<name>``): Pulumi would pass its keys to no one."""
    problems = []
    for full in config:
        namespace = full.partition(":")[0]
        if namespace == project or namespace == "pulumi":
            continue
        alike = (namespace.casefold() == project.casefold()
                 or difflib.SequenceMatcher(None, namespace, project).ratio() >= NAMESPACE_CUTOFF)
        if alike and not _installed(f"pulumi_{namespace.replace('-', '_')}"):
            # The key the writer meant is then missing from the project's: this problem says so already.
            problems.append((full.partition(":")[2], f"{full}: unknown namespace '{namespace}' (did you mean "
                             f"'{project}'?); this project's keys are {project}:<key>, and no installed package is "
                             f"named '{namespace}'"))
    return problems


def _apply_project_config(
    project: Project, stack: str, config: dict[str, Any], secrets: set[str]
) -> list[tuple[str, str]]:
    """Pulumi.yaml's config applied as the CLI applies it (`sdk/go/common/workspace/validation.go`, mergeConfig): a
    value or default fills a key the stack does not set; a key of the project's namespace with neither is required;
    a key declared secret must be encrypted in the stack."""
    problems, missing = [], []
    for full, declaration in project.config:
        if full in config:
            if declaration.get("secret") is True and full not in secrets:
                problems.append(("", f"{shown_key(project.name, full)}: declared secret in Pulumi.yaml, so stack "
                                 f"'{stack}' must set it with `pulumi config set --secret`"))
            continue
        if "value" in declaration or "default" in declaration:
            value = declaration.get("value", declaration.get("default"))
            for where, problem in list(safe_yaml.foreign_values(value)):
                problems.append((key_path(project.name, full, where),
                                 f"Pulumi.yaml: config {problem_text(project.name, full, where, problem)}"))
                value = _without(value, where)
            config[full] = value
        elif full.startswith(f"{project.name}:"):
            missing.append(shown_key(project.name, full))
    if missing:
        line = (f"stack '{stack}' is missing configuration {', '.join(sorted(missing))} (declared in Pulumi.yaml "
                "without a default)")
        problems += [(key, line) for key in sorted(missing)]
    return problems


def expects(project: Project, full: str) -> Callable[[tuple[str | int, ...]], str | None] | None:
    """What each key path inside the package's section `full` takes (its config model says), for messages about a
    value of the wrong shape; None for other keys, and for a program that does not read the package's settings."""
    from ..config import STACK_KEYS, StackConfig
    from ..config.model_paths import expected_shape

    namespace, _, key = full.partition(":")
    if namespace != project.name or key not in STACK_KEYS or not project.reads_our_settings:
        return None
    return lambda where: expected_shape(StackConfig, (key, *where))
