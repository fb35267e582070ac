"""`python -m components size`: workloads from the command line or a file -> the sizing plan, as text, JSON or Markdown.

Exit status: 0 everything fits, 3 something does not (a workload no slice holds, a size the stack lacks, a pool too
small), 2 bad input (one line per problem on stderr, nothing on stdout).

Workloads are asked for by the memory they need (`--workload NAME=GiB[xCOUNT]`, `memoryGiB:`), by a nominal slice
(`--slice NAME=GiB[xCOUNT]`, `slice:`) or by an extended resource name as a pod writes it
(`--workload NAME=[GiB@]RESOURCE[xCOUNT]`, `resource:`, `sizing.extended`); spot pools serve only the workloads that
opt in (`--spot NAME`, `spot: true`). A resource name that names nothing is bad input.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from typing import Any

from ..config import ConfigError, Problem, SamplesConfig
from .extended import ExtendedAsk, UnknownNameError, extended_name, is_extended, parse_extended, resolve
from .model import MAX_COUNT, MAX_GIB, SLICE_SIZES, WORKLOAD_DIGITS, WORKLOAD_LIMITS, Finding
from .planner import Workload, plan_sizing
from .report import to_json, to_markdown, to_text
from .stack_file import read_stack_file
from .workloads_file import SLICES_TEXT, read_workloads, read_yaml_file

EXIT_FITS, EXIT_DOES_NOT_FIT = 0, 3
_WORKLOAD = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]*)=(?P<gib>[0-9]+(\.[0-9]+)?)(?:GiB|Gi)?(?:x(?P<count>[0-9]+))?",
                       re.ASCII | re.IGNORECASE)
WORKLOAD_SYNTAX = ("NAME=GiB[xCOUNT], e.g. 'embed=3x4' (3 GiB of GPU memory, 4 replicas) or 'llm=20'; or an extended "
                   "resource, NAME=[GiB@]RESOURCE[xCOUNT], e.g. 'llm=20GiB@nvidia.com/gpu'")
_SLICE = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]*)=(?P<gb>[0-9]+)(?:GiB|Gi|GB|G)?(?:x(?P<count>[0-9]+))?",
                    re.ASCII | re.IGNORECASE)
SLICE_SYNTAX = f"NAME=GiB[xCOUNT] with GiB one of {SLICES_TEXT}, e.g. 'chat=8x6'"


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


def collect_workloads(args: argparse.Namespace) -> tuple[list[Workload], list[ExtendedAsk]]:
    """Every workload the command line names (files first, then each --workload), names unique: those asked for by
    memory or slice, and those asked for by extended resource name (resolved against the stack later)."""
    problems: list[Problem] = []
    workloads: list[Workload] = []
    asks: list[ExtendedAsk] = []
    for path in args.workloads or []:
        try:
            found, named = read_workloads(path)
        except ConfigError as exc:
            problems += exc.problems
            continue
        workloads += found
        asks += named
    extended = [t for t in args.workload or [] if is_extended(t)]  # NAME=[GiB@]RESOURCE: `sizing.extended`
    plain = [t for t in args.workload or [] if t not in extended]
    for texts, parse in ((plain, parse_workload), (getattr(args, "slice", None), parse_slice)):
        for text in texts or []:
            try:
                workloads.append(parse(text))
            except ValueError as exc:
                problems.append(Problem("", str(exc)))
    for text in extended:
        try:
            asks.append(parse_extended(text))
        except ValueError as exc:
            problems.append(Problem("", str(exc)))
    names = ([w.name for w in workloads] + [a.name for a in asks if a.key is not None]
             + [extended_name(t) for t in extended])
    spot = getattr(args, "spot", None) or []
    for name in spot:
        if name not in names and names:
            problems.append(Problem("", f"--spot '{name}': no workload is named '{name}'; name one of {', '.join(names)}"))
    workloads = [replace(w, spot=True) if w.name in spot else w for w in workloads]
    asks = [replace(a, spot=True) if a.name in spot else a for a in asks]
    problems += [Problem("", f"workload '{n}' is named twice; give each workload its own name")
                 for n in sorted({n for n in names if names.count(n) > 1})]
    if not workloads and not asks and not problems and not extended:
        problems.append(Problem("", f"no workloads: give --workload {WORKLOAD_SYNTAX.split(',')[0]}, --slice "
                                    "NAME=GiB[xCOUNT] or --workloads FILE"))
    if problems:
        raise ConfigError(problems)
    return workloads, asks


def run(args: argparse.Namespace, quota_of: Any = None) -> int:
    """The `size` command; ConfigError on bad input (the CLI prints its problems and exits 2). `quota_of` (a
    `regions.QuotaOf`, the CLI's with --subscription) ranks the regions by quota too."""
    from .prices import MISSING_DOC, price_book, prices_for
    from .regions import compare_regions, parse_regions

    problems: list[Problem] = []
    results: dict[str, Any] = {"stack": (None, None), "workloads": ([], [])}
    for key, load in (("workloads", lambda: collect_workloads(args)),
                      ("stack", lambda: read_stack_file(args.project_dir, args.stack) if args.stack else (None, None))):
        try:
            results[key] = load()
        except ConfigError as exc:
            problems += exc.problems
    stack, written = results["stack"]
    plain, asks = results["workloads"]
    # what each name gives on the stack (sizing.extended); a name that names nothing is bad input, as a typo is
    margin = (stack.samples if stack else SamplesConfig()).memory_margin_percent
    resolved = []
    for ask in asks if not (args.stack and stack is None) else []:  # a stack that did not load has said why
        try:
            resolved.append(resolve(ask, stack, margin))
        except UnknownNameError as exc:
            where = f"{ask.key}.resource" if ask.key else f"--workload {ask.name}"
            problems.append(Problem("", f"{where}: {exc}"))
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
    workloads = [*plain, *(w for w, _, _ in resolved if w is not None)]
    plan = plan_sizing(workloads, prices, stack, written_pools=written, price_findings=notice,
                       sharing=sharing == "memory", family=getattr(args, "family", None), compare_families=True)
    plan.findings += [f for _, found, _ in resolved for f in found]
    plan.notes += [note for _, _, note in resolved if note]
    if book is not None:  # the same pools at each region's prices (sizing.regions)
        plan.regions = compare_regions(plan.pools, book, wanted, quota_of)
    fmt = "json" if args.json else (args.format or "text")
    sys.stdout.write({"json": to_json, "markdown": to_markdown, "text": to_text}[fmt](plan))
    return EXIT_FITS if plan.fits else EXIT_DOES_NOT_FIT
