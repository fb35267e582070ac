"""A stack file read as the Pulumi CLI reads it, in one pass: the file, then its config sections decoded (namespaced
keys, secure values never decrypted), each value's problem collected; validation into this package's settings comes
after (`stack_settings`), and a fleet reads several such files (`fleet_stacks`).

The stack file (``<stackConfigDir>/Pulumi.<stack>.yaml``) is read within the bounds of `safe_yaml` and as pulumi/pulumi
reads it (`sdk/go/common/workspace/loaders.go`, `project.go`; `sdk/go/common/resource/config`: `key.go`, `object.go`),
with Pulumi.yaml's config declarations applied (`validation.go`).
"""

from __future__ import annotations

import copy
import difflib
import errno
import importlib.util
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import safe_yaml
from .plan import SECRET
from .project import (
    Project,
    StackFileError,
    full_key,
    key_path,
    problem_text,
    read_yaml_collecting,
    shown_key,
    stack_name,
)

# The keys of a stack file (pulumi/pulumi `sdk/go/common/workspace/project.go`, ProjectStack).
STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
NAMESPACE_CUTOFF = 0.8
POOL_PATH = re.compile(r"gpuPools\[(\d+)\]")
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


def pool_named(path: str, config: dict[str, Any], project: str) -> str:
    """A key path with the GPU pool it is in named beside its index (``gpuPools[2] (h100mig).gpuInstanceProfile``),
    when the pool has a readable name: a message says which pool, not only where it sits in the list."""
    match = POOL_PATH.match(path)
    if match is None:
        return path
    pools = config.get(f"{project}:gpuPools")
    if isinstance(pools, str):
        try:
            pools = json.loads(pools)
        except ValueError:
            return path
    index = int(match.group(1))
    pool = pools[index] if isinstance(pools, list) and index < len(pools) else None
    name = pool.get("name") if isinstance(pool, dict) else None
    if not isinstance(name, str) or not name.isprintable() or len(name) > 40:
        return path
    return f"{match.group(0)} ({name}){path[match.end():]}"


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
    stack = stack_name(stack, project.name)
    path = project.stack_file(stack)
    shown = project.shown_stack_file(stack)
    if not path.exists():
        raise StackFileError(_missing(project, path, shown))
    doc, problems = read_yaml_collecting(path, shown, project.name)
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


def _missing(project: Project, path: Path, shown: str) -> str:
    """Why a stack file named in the project cannot be opened: none there, or a symbolic link that leads nowhere."""
    known = ", ".join(project.stacks()) or "none"
    if path.is_symlink():
        try:
            os.stat(path)
        except OSError as exc:
            why = "a symbolic link loop" if exc.errno == errno.ELOOP else "a symbolic link to a missing file"
            return f"{shown}: is {why} ({os.readlink(path)}); point it at a stack file or remove it"
    return f"{shown}: no such stack file in {path.parent}; stacks: {known}"


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
        if alike and importlib.util.find_spec(f"pulumi_{namespace.replace('-', '_')}") is None:
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
    if namespace != project.name or key not in STACK_KEYS or not reads_our_settings(project):
        return None
    return lambda where: expected_shape(StackConfig, (key, *where))


def reads_our_settings(project: Project) -> bool:
    """Whether the project's config sections are this package's settings: the package's own project, or a program
    that loads them with `load_stack_config` (another program's `cluster` key may mean something else)."""
    from ..config import PROJECT

    if project.name == PROJECT:
        return True
    try:
        return "load_stack_config" in project.main.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
