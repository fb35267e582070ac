"""Pulumi projects and stacks on disk: ``Pulumi.yaml``, the stack files, and running a project's program offline.

Files are read as the Pulumi CLI reads them (pulumi/pulumi `sdk/go/common/workspace`: `loaders.go`, `paths.go`,
`project.go`; `sdk/go/common/resource/config`: `key.go`, `object.go`) and within the bounds of `safe_yaml`. Where the
CLI would silently pick one of two readings (a key written with and without the project's namespace) or ignore a
mistake (a misspelt namespace), the offline engine refuses with one line naming the key.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import os
import re
import runpy
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import safe_yaml
from .capture import capture
from .plan import SECRET, Plan
from .running import isolated_program

# pulumi/pulumi `sdk/go/common/tokens/stack_name.go` (ParseStackName) and `tokens/project.go` (ValidateProjectName,
# with IsName from `tokens/names.go`): ASCII letters, digits, '_', '.', '-', at most 100 characters.
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}", re.ASCII)
PROJECT_NAME = re.compile(r"(?=.{1,100}\Z)[A-Za-z_.][A-Za-z0-9_.-]*", re.ASCII)
# The keys of a stack file (pulumi/pulumi `sdk/go/common/workspace/project.go`, ProjectStack).
STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
# The keys of a project config declaration (`sdk/go/common/workspace/project.json`, configTypeDeclaration).
DECLARATION_KEYS = frozenset({"type", "items", "description", "secret", "default", "value"})
NAMESPACE_CUTOFF = 0.8
DEFAULT_TIMEOUT = 120.0


@dataclass(frozen=True)
class Project:
    """A Pulumi project on disk: its name, folder, program and where its stack files live."""

    name: str
    directory: Path
    main: Path
    stack_config_dir: Path
    config: tuple[tuple[str, dict[str, Any]], ...] = ()  # Pulumi.yaml's `config:` declarations, by full key
    extension: str = ".yaml"

    def stack_file(self, stack: str) -> Path:
        """The stack's settings file, ``Pulumi.<stack>.yaml``."""
        return self.stack_config_dir / f"Pulumi.{stack}{self.extension}"

    def stacks(self) -> list[str]:
        """The stacks that have a settings file."""
        suffix = self.extension
        found = (p.name[len("Pulumi."):-len(suffix)] for p in self.stack_config_dir.glob(f"Pulumi.*{suffix}"))
        return sorted(name for name in found if STACK_NAME.fullmatch(name))


class StackFileError(ValueError):
    """A project or stack file that cannot be used; each line is one problem naming its file and line, or key."""

    def __init__(self, *lines: str):
        self.lines = list(lines)
        super().__init__("\n".join(lines))


def stack_name(text: str, project: str | None = None) -> str:
    """The stack's own name in ``name``, ``project/name`` or ``organization/project/name`` (as `--stack` takes them);
    StackFileError when it is not a name Pulumi accepts, so no path, URN or message ever carries it unchecked."""
    parts = text.split("/")
    shown = json.dumps(text, ensure_ascii=True)
    rule = "use 1-100 letters, digits, '-', '_' or '.', optionally as organization/project/name"
    if len(parts) > 3 or not all(STACK_NAME.fullmatch(p) for p in parts):
        raise StackFileError(f"--stack {shown[:120]}: not a stack name; {rule}")
    if len(parts) > 1 and project is not None and parts[-2] != project:
        raise StackFileError(f"--stack {shown}: names project '{parts[-2]}', but this project is '{project}'")
    return parts[-1]


def _find_project_file(directory: Path) -> Path:
    if not directory.exists():
        raise StackFileError(f"--project-dir {directory}: no such folder")
    if not directory.is_dir():
        raise StackFileError(f"--project-dir {directory}: not a folder")
    # pulumi/pulumi `sdk/go/common/workspace/paths.go` (findProjectInDir) with `encoding.Exts`: .json, .yaml, .yml.
    for extension in (".yaml", ".yml"):
        if (directory / f"Pulumi{extension}").exists():
            return directory / f"Pulumi{extension}"
    if (directory / "Pulumi.json").exists():
        raise StackFileError(f"{directory / 'Pulumi.json'}: JSON project files are not read offline; use Pulumi.yaml")
    raise StackFileError(f"{directory}: no Pulumi.yaml (not a Pulumi project folder)")


def load_project(directory: str | os.PathLike[str]) -> Project:
    """Reads ``Pulumi.yaml``: project name, runtime (Python), `main`, `stackConfigDir` and project-level config."""
    if str(directory) == "":
        raise StackFileError("--project-dir: empty path; name the project's folder (default: the current folder)")
    directory = Path(directory).resolve()
    path = _find_project_file(directory)
    name = path.name
    doc = _read(path, name)
    if not isinstance(doc, dict):
        raise StackFileError(f"{name}: not a Pulumi project file (expected a mapping with 'name' and 'runtime')")
    problems = []
    project = doc.get("name")
    if not isinstance(project, str) or not PROJECT_NAME.fullmatch(project):
        problems.append(f"{name}: name {json.dumps(project, default=str)[:80]} is not a project name; use 1-100 letters, "
                        "digits, '-', '_' or '.', starting with a letter, '_' or '.'")
    runtime = doc.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        given = "no runtime" if runtime is None else f"runtime {json.dumps(runtime_name, default=str)[:60]}"
        problems.append(f"{name}: {given}; the offline engine runs Python programs only (runtime: python)")
    main, config_dir = doc.get("main"), doc.get("stackConfigDir")
    config = doc.get("config")
    if isinstance(config, str):  # the old spelling of stackConfigDir (project.go, RewriteConfigPathIntoStackConfigDir)
        if config_dir is not None:
            problems.append(f"{name}: config and stackConfigDir both name the stack folder; use only stackConfigDir")
        config_dir, config = config, None
    for key, value in (("main", main), ("stackConfigDir", config_dir)):
        if value is not None and (not isinstance(value, str) or value == "" or "\0" in value):
            problems.append(f"{name}: {key} must be a relative path (text)")
    if not isinstance(config, (dict, type(None))):
        problems.append(f"{name}: config must be a mapping of keys to declarations or values")
    if problems:
        raise StackFileError(*problems)
    program = directory / (main or ".")
    if program.is_dir():
        program = program / "__main__.py"
    if not program.is_file():
        raise StackFileError(f"{name}: no program at {main or '.'} (main names the program file, or a folder with "
                             "__main__.py)")
    declarations = tuple(_declarations(project, config or {}, name))
    return Project(project, directory, program, directory / (config_dir or "."), declarations, path.suffix)


def _declarations(project: str, config: dict[str, Any], file: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Pulumi.yaml's config entries as declarations by full key (shorthand values as `project.go` rewrites them)."""
    for key, value in config.items():
        full = _full_key(project, key, file)
        own = full.startswith(f"{project}:")
        if isinstance(value, dict):
            unknown = sorted(set(value) - DECLARATION_KEYS)
            if unknown:
                raise StackFileError(f"{file}: config {key}: unknown attribute {unknown[0]!r}; allowed: "
                                     f"{', '.join(sorted(DECLARATION_KEYS))}")
            if "default" in value and "value" in value:
                raise StackFileError(f"{file}: config {key}: has both 'default' and 'value'; keep one")
            if not own and ("default" in value or "type" in value):
                raise StackFileError(f"{file}: config {key}: not in the project's namespace, so it takes a 'value', "
                                     "not a type or default")
            yield full, value
        else:
            yield full, {"default" if own else "value": value}


def _full_key(project: str, key: Any, where: str) -> str:
    """A config key with its namespace, as `config.ParseKey` reads it (``ns:name``, old ``ns:config:name``), or with
    the project's namespace when it has none (`loaders.go`, stackConfigNamespacedWithProject)."""
    if not isinstance(key, str):
        raise StackFileError(f"{where}: config key {json.dumps(key, default=str)[:60]} is not text; quote it")
    parts = key.split(":")
    if len(parts) == 1:
        parts = [project, key]
    elif len(parts) == 3 and parts[1] == "config":
        parts = [parts[0], parts[2]]
    if len(parts) != 2 or not all(parts):
        raise StackFileError(f"{where}: {json.dumps(key)[:80]} is not a config key; write <namespace>:<name>")
    return ":".join(parts)


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
    doc = _read(path, path.name)
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
            full = _full_key(project.name, key, path.name)
        except StackFileError as exc:
            problems += exc.lines
            continue
        if full in written:
            problems.append(f"{_shown_key(project.name, full)}: written twice in {path.name}, as '{written[full]}' and "
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
            problems.append(f"{_key_path(project.name, full, where)}: {problem}")
    problems += _apply_project_config(project, stack, config, secrets)
    if problems:
        raise StackFileError(*problems)
    return config, sorted(secrets)


def _read(path: Path, shown: str) -> Any:
    try:
        return safe_yaml.read(path, shown)
    except safe_yaml.YamlInputError as exc:
        raise StackFileError(str(exc)) from None


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


def _shown_key(project: str, full: str) -> str:
    return full.partition(":")[2] if full.startswith(f"{project}:") else full


def _key_path(project: str, full: str, where: tuple[str | int, ...]) -> str:
    """The key path as errors show it: ``draDriver.extraValues.x`` for the project's keys, ``ns:key.x`` for others."""
    text = _shown_key(project, full)
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _apply_project_config(project: Project, stack: str, config: dict[str, Any], secrets: set[str]) -> list[str]:
    """Pulumi.yaml's config applied as the CLI applies it (`sdk/go/common/workspace/validation.go`, mergeConfig): a
    value or default fills a key the stack does not set; a key of the project's namespace with neither is required;
    a key declared secret must be encrypted in the stack."""
    problems, missing = [], []
    for full, declaration in project.config:
        if full in config:
            if declaration.get("secret") is True and full not in secrets:
                problems.append(f"{_shown_key(project.name, full)}: declared secret in Pulumi.yaml, so stack '{stack}' "
                                "must set it with `pulumi config set --secret`")
            continue
        if "value" in declaration or "default" in declaration:
            value = declaration.get("value", declaration.get("default"))
            for where, problem in safe_yaml.foreign_values(value):
                problems.append(f"Pulumi.yaml: config {_key_path(project.name, full, where)}: {problem}")
            config[full] = value
        elif full.startswith(f"{project.name}:"):
            missing.append(_shown_key(project.name, full))
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
