"""Pulumi projects on disk: ``Pulumi.yaml`` (name, runtime, program, stack folder, config declarations), stack names,
where each stack's file is (or why it cannot be opened), and whether the program reads this package's settings: what
is known of the files before any stack file is read (`stack_file`).

Files are read as the Pulumi CLI reads them (pulumi/pulumi `sdk/go/common/workspace`: `loaders.go`, `paths.go`,
`project.go`; `sdk/go/common/resource/config`: `key.go`, `object.go`) and within the bounds of `safe_yaml`. Where the
CLI would silently pick one of two readings (a key written with and without the project's namespace) or ignore a
mistake (a misspelt namespace), the offline engine refuses with one line naming the key.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import safe_yaml

# pulumi/pulumi `sdk/go/common/tokens/stack_name.go` (ParseStackName) and `tokens/project.go` (ValidateProjectName,
# with IsName from `tokens/names.go`): ASCII letters, digits, '_', '.', '-', at most 100 characters.
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}", re.ASCII)
PROJECT_NAME = re.compile(r"(?=.{1,100}\Z)[A-Za-z_.][A-Za-z0-9_.-]*", re.ASCII)
# The keys of a project config declaration (`sdk/go/common/workspace/project.json`, configTypeDeclaration).
DECLARATION_KEYS = frozenset({"type", "items", "description", "secret", "default", "value"})


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

    def shown_stack_file(self, stack: str) -> str:
        """The stack's settings file as messages name it: relative to the project's folder (``stacks/Pulumi.dev.yaml``)."""
        path = self.stack_file(stack)
        return path.relative_to(self.directory).as_posix() if path.is_relative_to(self.directory) else str(path)

    @functools.cached_property
    def reads_our_settings(self) -> bool:
        """Whether the project's config sections are this package's settings: the package's own project, or a program
        that loads them with `load_stack_config` (another program's `cluster` key may mean something else). Read from
        the program once."""
        from ..config import PROJECT

        if self.name == PROJECT:
            return True
        try:
            return "load_stack_config" in self.main.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False

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


def located_stack_file(project: Project, stack: str) -> tuple[str, Path, str]:
    """The stack's own name (`stack_name`), its settings file and that file as messages name it; StackFileError when
    the name is not one Pulumi accepts or the file cannot be opened (none there, or a symbolic link that leads
    nowhere)."""
    stack = stack_name(stack, project.name)
    path = project.stack_file(stack)
    shown = project.shown_stack_file(stack)
    if not path.exists():
        raise StackFileError(_missing(project, path, shown))
    return stack, path, shown


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
    doc = read_yaml(path, name)
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
        full = full_key(project, key, file)
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


def full_key(project: str, key: Any, where: str) -> str:
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


def read_yaml(path: Path, shown: str) -> Any:
    """The project file's one document; StackFileError (one line) when it cannot be read (a value whose words might
    show a credential said as `config.credential_advice` says it)."""
    try:
        return safe_yaml.read(path, shown)
    except safe_yaml.YamlInputError as exc:
        from ..config.credential_advice import hidden_problem  # the settings' package, only once a problem is told

        hidden = hidden_problem(exc.path)
        raise StackFileError(f"{exc.where}: {hidden}" if hidden else str(exc)) from None
