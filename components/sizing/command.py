"""`python -m components size`: workloads from the command line or a file -> the sizing plan, as text, JSON or Markdown.

Exit status: 0 everything fits, 3 something does not (a workload no slice holds, a size the stack lacks, a pool too
small), 2 bad input (one line per problem on stderr, nothing on stdout).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..config import ConfigError, KeyedProblemsError, Model, Problem, StackConfig, stack_config_from_mapping, validate
from .planner import Workload, plan_sizing
from .report import to_json, to_markdown, to_text

EXIT_FITS, EXIT_DOES_NOT_FIT = 0, 3
_WORKLOAD = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]*)=(?P<gib>[0-9]+(\.[0-9]+)?)(?:GiB|Gi)?(?:x(?P<count>[0-9]+))?",
                       re.ASCII | re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9_.]{0,62}", re.ASCII)
MAX_GIB, MAX_COUNT = 1024, 10000
WORKLOAD_SYNTAX = "NAME=GiB[xCOUNT], e.g. 'embed=3x4' (3 GiB of GPU memory, 4 replicas) or 'llm=20'"


class WorkloadSpec(Model):
    """One workload of a `--workloads` file."""

    name: str = Field(description="A name to report it by (letters, digits, '-', '_', '.').")
    memory_gib: float = Field(gt=0, le=MAX_GIB, alias="memoryGiB", description="GPU memory per device, in GiB.")
    count: int = Field(1, ge=1, le=MAX_COUNT, description="Replicas that run at the same time.")
    devices: Literal[1, 2] = Field(1, description="Devices per replica: 2 means two 24 GB devices on one node.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.fullmatch(v):
            raise ValueError(f"'{v}' is not a workload name; use letters, digits, '-', '_' or '.' (at most 63)")
        return v


class WorkloadSet(Model):
    """A `--workloads` file: `workloads:` and the list (a bare list works too)."""

    workloads: list[WorkloadSpec] = Field(min_length=1, description="The workloads to size.")

    @model_validator(mode="after")
    def _unique(self) -> WorkloadSet:
        seen: dict[str, int] = {}
        for index, w in enumerate(self.workloads):
            if w.name in seen:
                raise KeyedProblemsError((f"workloads[{index}].name", f"'{w.name}' is also workloads[{seen[w.name]}]'s "
                                          "name; give each workload its own"))
            seen[w.name] = index
        return self


def parse_workload(text: str) -> Workload:
    """`NAME=GiB[xCOUNT]` -> Workload; ValueError saying the syntax."""
    m = _WORKLOAD.fullmatch(text.strip())
    if not m:
        raise ValueError(f"--workload '{text}': expected {WORKLOAD_SYNTAX}")
    if len(m["count"] or "") > 6 or len(m["gib"]) > 12:
        raise ValueError(f"--workload '{text[:60]}': too many digits; GiB is at most 1024 and COUNT at most 10000")
    gib, count = float(m["gib"]), int(m["count"] or 1)
    if gib <= 0 or count < 1:
        raise ValueError(f"--workload '{text}': GiB must be more than 0 and COUNT at least 1")
    # The same limits as a --workloads file's (WorkloadSpec).
    if gib > MAX_GIB or count > MAX_COUNT:
        raise ValueError(f"--workload '{text}': GiB is at most {MAX_GIB} and COUNT at most {MAX_COUNT}")
    return Workload(m["name"], gib, count)


def read_yaml_file(path: str) -> Any:
    """A YAML file named on the command line, read within the offline engine's bounds and as Pulumi reads YAML (a FIFO,
    a device, a folder, a huge or non-UTF-8 file, an alias bomb: one line, never a hang or a traceback)."""
    from ..offline.safe_yaml import YamlInputError, read

    try:
        return read(Path(path), path)
    except YamlInputError as exc:
        raise ConfigError([Problem("", str(exc))]) from None


def read_workloads(path: str) -> list[Workload]:
    """The workloads of a YAML file; ConfigError naming the file and each bad key."""
    doc = read_yaml_file(path)
    if isinstance(doc, list):
        doc = {"workloads": doc}
    try:
        found = validate(WorkloadSet, doc)
    except ConfigError as exc:
        raise ConfigError([Problem(f"{path}: {p.path}" if p.path else path, p.message) for p in exc.problems]) from None
    return [Workload(w.name, w.memory_gib, w.count, w.devices) for w in found.workloads]


def _prices(path: str | None) -> Any:
    from ..catalog.prices import load_prices

    return load_prices(path, read_yaml_file(path)) if path else load_prices()


def collect_workloads(args: argparse.Namespace) -> list[Workload]:
    """Every workload the command line names (files first, then each --workload), names unique."""
    problems: list[Problem] = []
    workloads: list[Workload] = []
    for path in args.workloads or []:
        try:
            workloads += read_workloads(path)
        except ConfigError as exc:
            problems += exc.problems
    for text in args.workload or []:
        try:
            workloads.append(parse_workload(text))
        except ValueError as exc:
            problems.append(Problem("", str(exc)))
    names = [w.name for w in workloads]
    problems += [Problem("", f"workload '{n}' is named twice; give each workload its own name")
                 for n in sorted({n for n in names if names.count(n) > 1})]
    if not workloads and not problems:
        problems.append(Problem("", f"no workloads: give --workload {WORKLOAD_SYNTAX.split(',')[0]} or --workloads FILE"))
    if problems:
        raise ConfigError(problems)
    return workloads


def read_stack(project_dir: str, stack: str) -> StackConfig:
    """The stack's validated settings, read from its stack file (the program is not run)."""
    from ..offline import StackFileError, load_project, read_stack_config

    try:
        project = load_project(project_dir)
        config, _secrets = read_stack_config(project, stack)
    except StackFileError as exc:
        raise ConfigError([Problem("", line) for line in exc.lines]) from None
    return stack_config_from_mapping(config, project.name)


def run(args: argparse.Namespace) -> int:
    """The `size` command; ConfigError on bad input (the CLI prints its problems and exits 2)."""
    problems: list[Problem] = []
    results: dict[str, Any] = {}
    for key, load in (("workloads", lambda: collect_workloads(args)), ("prices", lambda: _prices(args.prices)),
                      ("stack", lambda: read_stack(args.project_dir, args.stack) if args.stack else None)):
        try:
            results[key] = load()
        except ConfigError as exc:
            problems += exc.problems
    if problems:
        raise ConfigError(problems)
    plan = plan_sizing(results["workloads"], results["prices"], results["stack"])
    fmt = "json" if args.json else (args.format or "text")
    sys.stdout.write({"json": to_json, "markdown": to_markdown, "text": to_text}[fmt](plan))
    return EXIT_FITS if plan.fits else EXIT_DOES_NOT_FIT
