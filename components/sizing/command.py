"""`python -m components size`: workloads from the command line or a file -> the sizing plan, as text, JSON or Markdown.

Exit status: 0 everything fits, 3 something does not (a workload no slice holds, a size the stack lacks, a pool too
small), 2 bad input (one line per problem on stderr, nothing on stdout).

Workloads are asked for by the memory they need (`--workload NAME=GiB[xCOUNT]`, `memoryGiB:`) or by a nominal slice
(`--slice NAME=GiB[xCOUNT]`, `slice:`); spot pools serve only the workloads that opt in (`--spot NAME`, `spot: true`).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..config import (
    ConfigError,
    KeyedProblemsError,
    Model,
    Problem,
    SamplesConfig,
    validate,
)
from ..config.base import unset
from .extended import extended_name, is_extended, parse_extended, resolve
from .model import MAX_COUNT, MAX_GIB, SLICE_SIZES, WORKLOAD_DIGITS, WORKLOAD_LIMITS, Finding
from .planner import Workload, plan_sizing
from .report import to_json, to_markdown, to_text
from .stack_file import read_stack_file

EXIT_FITS, EXIT_DOES_NOT_FIT = 0, 3
_WORKLOAD = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]*)=(?P<gib>[0-9]+(\.[0-9]+)?)(?:GiB|Gi)?(?:x(?P<count>[0-9]+))?",
                       re.ASCII | re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9_.]{0,62}", re.ASCII)
WORKLOAD_SYNTAX = ("NAME=GiB[xCOUNT], e.g. 'embed=3x4' (3 GiB of GPU memory, 4 replicas) or 'llm=20'; or an extended "
                   "resource, NAME=[GiB@]RESOURCE[xCOUNT], e.g. 'llm=20GiB@nvidia.com/gpu'")
_SLICE = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]*)=(?P<gb>[0-9]+)(?:GiB|Gi|GB|G)?(?:x(?P<count>[0-9]+))?",
                    re.ASCII | re.IGNORECASE)
SLICES_TEXT = f"{', '.join(map(str, SLICE_SIZES))} (24: a whole A10; 48: two whole A10s on one node)"
SLICE_SYNTAX = f"NAME=GiB[xCOUNT] with GiB one of {SLICES_TEXT}, e.g. 'chat=8x6'"


class WorkloadSpec(Model):
    """One workload of a `--workloads` file."""

    name: str = Field(description="A name to report it by (letters, digits, '-', '_', '.').")
    memory_gib: float | None = Field(None, gt=0, le=MAX_GIB, alias="memoryGiB",
                                     description="GPU memory per device the workload needs, in GiB (or `slice`).")
    slice: Literal[4, 8, 12, 24, 48] | None = Field(
        None, description="The nominal slice to run on, in GiB (or `memoryGiB`): 4, 8, 12, 24 (a whole A10), or 48 "
        "(two whole A10s on one node).")
    count: int = Field(1, ge=1, le=MAX_COUNT, description="Replicas that run at the same time.")
    devices: Literal[1, 2] | None = unset("Devices per replica: 2 means two 24 GiB devices on one "
                                          "node (default 1; 2 with slice: 48).")
    spot: bool = Field(False, description="May run on spot pools (evictable); without it a spot pool never serves it.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.fullmatch(v):
            raise ValueError(f"'{v}' is not a workload name; use letters, digits, '-', '_' or '.' (at most 63)")
        return v

    @model_validator(mode="after")
    def _memory_or_slice(self) -> WorkloadSpec:
        if (self.memory_gib is None) == (self.slice is None):
            raise KeyedProblemsError(("memoryGiB", "give memoryGiB (GiB the workload needs) or slice (one of "
                                      f"{SLICES_TEXT}), one of the two"))
        if self.slice is not None and self.slice < 24 and self.devices == 2:
            raise KeyedProblemsError(("devices", f"two devices on one node are 24 GiB each, not {self.slice}; write "
                                      "slice: 48 (or devices: 1)"))
        if self.slice == 48 and self.devices == 1:
            raise KeyedProblemsError(("devices", "slice: 48 is two devices on one node; leave devices out (or 2)"))
        return self

    def workload(self) -> Workload:
        """The planner's Workload."""
        if self.slice is not None:
            devices = 2 if self.slice == 48 or self.devices == 2 else 1
            gib = min(self.slice, 24)
            return Workload(self.name, float(gib), self.count, devices, gib, self.spot)
        assert self.memory_gib is not None
        return Workload(self.name, self.memory_gib, self.count, self.devices or 1, None, self.spot)


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


def _matched(pattern: re.Pattern[str], text: str, flag: str, syntax: str, limits: str, digits: dict[str, int]) -> re.Match[str]:
    """The flag's value parsed, or ValueError saying the syntax (or, for a number of too many digits, the limits)."""
    m = pattern.fullmatch(text.strip())
    if not m:
        parts = [part.strip() for part in text.split(",")]
        if len(parts) > 1 and all(pattern.fullmatch(part) for part in parts):  # a list where one value goes
            repeated = " ".join(f"{flag} {part}" for part in parts)
            raise ValueError(f"{flag} '{text}': one workload per {flag}; repeat the flag: {repeated}")
        raise ValueError(f"{flag} '{text}': expected {syntax} (one per flag; repeat {flag} for several)")
    if any(len(m[group] or "") > most for group, most in digits.items()):
        raise ValueError(f"{flag} '{text[:60]}': too many digits; {limits}")
    return m


def _count(m: re.Match[str], text: str, flag: str, too_few: str = "COUNT must be at least 1") -> int:
    """The replicas a flag asks for: 1 to MAX_COUNT (the same limit as a --workloads file's)."""
    count = int(m["count"] or 1)
    if count < 1:
        raise ValueError(f"{flag} '{text}': {too_few}")
    if count > MAX_COUNT:
        raise ValueError(f"{flag} '{text}': COUNT is at most {MAX_COUNT}")
    return count


def parse_workload(text: str) -> Workload:
    """`NAME=GiB[xCOUNT]` -> Workload; ValueError saying the syntax."""
    m = _matched(_WORKLOAD, text, "--workload", WORKLOAD_SYNTAX, WORKLOAD_LIMITS, WORKLOAD_DIGITS)
    too_few = "GiB must be more than 0 and COUNT at least 1"
    gib, count = float(m["gib"]), _count(m, text, "--workload", too_few)
    if gib <= 0:
        raise ValueError(f"--workload '{text}': {too_few}")
    if gib > MAX_GIB:  # the same limit as a --workloads file's (WorkloadSpec)
        raise ValueError(f"--workload '{text}': GiB is at most {MAX_GIB}")
    return Workload(m["name"], gib, count)


def parse_slice(text: str) -> Workload:
    """`NAME=GiB[xCOUNT]` (GiB a nominal slice) -> Workload asking for that slice; ValueError saying the syntax."""
    limits = f"GiB is one of {SLICES_TEXT} and COUNT at most {MAX_COUNT}"
    m = _matched(_SLICE, text, "--slice", SLICE_SYNTAX, limits, {"count": 6, "gb": 4})
    gb, count = int(m["gb"]), _count(m, text, "--slice")
    if gb not in SLICE_SIZES:
        raise ValueError(f"--slice '{text}': {gb} GiB is not an A10 slice; GiB is one of {SLICES_TEXT}")
    size = min(gb, 24)
    return Workload(m["name"], float(size), count, 2 if gb == 48 else 1, size)


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
    return [w.workload() for w in found.workloads]


def collect_workloads(args: argparse.Namespace) -> list[Workload]:
    """Every workload the command line names (files first, then each --workload), names unique."""
    problems: list[Problem] = []
    workloads: list[Workload] = []
    for path in args.workloads or []:
        try:
            workloads += read_workloads(path)
        except ConfigError as exc:
            problems += exc.problems
    extended = [t for t in args.workload or [] if is_extended(t)]  # NAME=[GiB@]RESOURCE: `sizing.extended`
    plain = [t for t in args.workload or [] if t not in extended]
    for texts, parse in ((plain, parse_workload), (getattr(args, "slice", None), parse_slice)):
        for text in texts or []:
            try:
                workloads.append(parse(text))
            except ValueError as exc:
                problems.append(Problem("", str(exc)))
    names = [w.name for w in workloads] + [extended_name(t) for t in extended]
    spot = getattr(args, "spot", None) or []
    for name in spot:
        if name not in names and names:
            problems.append(Problem("", f"--spot '{name}': no workload is named '{name}'; name one of {', '.join(names)}"))
    workloads = [replace(w, spot=True) if w.name in spot else w for w in workloads]
    problems += [Problem("", f"workload '{n}' is named twice; give each workload its own name")
                 for n in sorted({n for n in names if names.count(n) > 1})]
    if not workloads and not problems and not extended:
        problems.append(Problem("", f"no workloads: give --workload {WORKLOAD_SYNTAX.split(',')[0]}, --slice "
                                    "NAME=GiB[xCOUNT] or --workloads FILE"))
    if problems:
        raise ConfigError(problems)
    return workloads


def run(args: argparse.Namespace, quota_of: Any = None) -> int:
    """The `size` command; ConfigError on bad input (the CLI prints its problems and exits 2). `quota_of` (a
    `regions.QuotaOf`, the CLI's with --subscription) ranks the regions by quota too."""
    from .prices import MISSING_DOC, price_book, prices_for
    from .regions import compare_regions, parse_regions

    problems: list[Problem] = []
    results: dict[str, Any] = {"stack": (None, None)}
    for key, load in (("workloads", lambda: collect_workloads(args)),
                      ("stack", lambda: read_stack_file(args.project_dir, args.stack) if args.stack else (None, None))):
        try:
            results[key] = load()
        except ConfigError as exc:
            problems += exc.problems
    stack, written = results["stack"]
    asks = []
    for text in [t for t in args.workload or [] if is_extended(t)]:
        try:
            asks.append(parse_extended(text))
        except ValueError as exc:
            problems.append(Problem("", str(exc)))
    wanted: list[str] | None = None
    book = None
    try:  # the stack's location picks the row of the package's table; a file of one region is used as it is
        region = stack.cluster.location if stack else None
        doc = read_yaml_file(args.prices) if args.prices else MISSING_DOC  # read within the engine's bounds
        prices, fallback = prices_for(region, args.prices, doc)
        if getattr(args, "regions", None):
            wanted = parse_regions(args.regions)
            book = price_book(args.prices, doc)
    except ConfigError as exc:
        problems += exc.problems
    if problems:
        raise ConfigError(problems)
    notice = [Finding("warning", "price-region", fallback, "prices")] if fallback else []
    sharing = args.sharing or ("memory" if stack and any(p.sharing == "memory" for p in stack.gpu_pools) else "none")
    # beside the one-slice-per-replica answer, and compared with it: the packing onto shared slices (sizing.packing)
    margin = (stack.samples if stack else SamplesConfig()).memory_margin_percent
    spot = set(getattr(args, "spot", None) or [])
    resolved = [(replace(w, spot=True) if w is not None and w.name in spot else w, found, note)
                for w, found, note in (resolve(ask, stack, margin) for ask in asks)]
    workloads = [*results.get("workloads", []), *(w for w, _, _ in resolved if w is not None)]
    plan = plan_sizing(workloads, prices, stack, written_pools=written, price_findings=notice,
                       sharing=sharing == "memory", family=getattr(args, "family", None), compare_families=True)
    plan.findings += [f for _, found, _ in resolved for f in found]
    plan.notes += [note for _, _, note in resolved if note]
    if book is not None:  # the same pools at each region's prices (sizing.regions)
        plan.regions = compare_regions(plan.pools, book, wanted, quota_of)
    fmt = "json" if args.json else (args.format or "text")
    sys.stdout.write({"json": to_json, "markdown": to_markdown, "text": to_text}[fmt](plan))
    return EXIT_FITS if plan.fits else EXIT_DOES_NOT_FIT
