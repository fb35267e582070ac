"""Pulumi projects and stacks on disk: ``Pulumi.yaml``, the stack files, and running a project's program offline."""

from __future__ import annotations

import os
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .capture import capture
from .plan import SECRET, Plan


@dataclass(frozen=True)
class Project:
    """A Pulumi project on disk: its name, folder, program and where its stack files live."""

    name: str
    directory: Path
    main: Path
    stack_config_dir: Path

    def stack_file(self, stack: str) -> Path:
        """The stack's settings file, ``Pulumi.<stack>.yaml``."""
        return self.stack_config_dir / f"Pulumi.{stack}.yaml"

    def stacks(self) -> list[str]:
        """The stacks that have a settings file."""
        return sorted(p.name[len("Pulumi."):-len(".yaml")] for p in self.stack_config_dir.glob("Pulumi.*.yaml"))


class StackFileError(ValueError):
    """A project or stack file that cannot be read (missing, or not YAML); the message names file and line."""


def load_project(directory: str | os.PathLike[str]) -> Project:
    """Reads ``Pulumi.yaml``: project name, `main`, `stackConfigDir`."""
    directory = Path(directory).resolve()
    doc = _read_yaml(directory / "Pulumi.yaml")
    if not isinstance(doc, dict) or "name" not in doc:
        raise StackFileError(f"{directory / 'Pulumi.yaml'}: not a Pulumi project file (no 'name')")
    main = directory / str(doc.get("main", "."))
    if main.is_dir():
        main = main / "__main__.py"
    return Project(str(doc["name"]), directory, main, directory / str(doc.get("stackConfigDir", ".")))


def read_stack_config(project: Project, stack: str) -> tuple[dict[str, Any], list[str]]:
    """The stack file's config map with keys namespaced as the CLI does, and the keys that are secrets."""
    path = project.stack_file(stack)
    if not path.exists():
        known = ", ".join(project.stacks()) or "none"
        raise StackFileError(f"{path.name}: no such stack file in {path.parent}; stacks: {known}")
    doc = _read_yaml(path) or {}
    section = doc.get("config") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or not isinstance(section, (dict, type(None))):
        raise StackFileError(f"{path.name}: expected a 'config:' mapping of keys to values (see Pulumi.dev.yaml)")
    config: dict[str, Any] = {}
    secrets: list[str] = []
    for key, value in (section or {}).items():
        full = key if ":" in key else f"{project.name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            # Encrypted with the stack's secrets provider: the offline plan never decrypts; the value stays a secret.
            config[full], secrets = SECRET, [*secrets, full]
        else:
            config[full] = value
    return config, secrets


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML where a key written twice is an error (plain YAML keeps the last one: a silently lost setting)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key '{key}' is written twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _read_yaml(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.load(f, Loader=_UniqueKeyLoader)  # a SafeLoader subclass: no arbitrary objects
    except FileNotFoundError:
        raise StackFileError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise StackFileError(f"{path.name}{where}: not valid YAML: {problem}") from None


def run_project(project: Project, stack: str, *, preview: bool = True) -> Plan:
    """Runs the project's program with the stack's config under the offline engine."""
    config, secrets = read_stack_config(project, stack)

    def program() -> None:
        with _ProjectOnPath(project.directory):
            runpy.run_path(str(project.main), run_name="__main__")

    return capture(program, project=project.name, stack=stack, config=config, preview=preview, secret_keys=secrets)


class _ProjectOnPath:
    """Makes the project's folder importable while its program runs, as the language host does."""

    def __init__(self, directory: Path):
        self.directory = str(directory)

    def __enter__(self) -> None:
        sys.path.insert(0, self.directory)

    def __exit__(self, *exc: object) -> None:
        sys.path.remove(self.directory)

