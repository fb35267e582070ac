"""`rightsize`: what each workload used of its GPU slices over a window, read from a Prometheus query API, the slice it
needs, and what both cost (components/rightsize/, docs/rightsizing.md).

Exit status: 0 every workload keeps its slice (or has too little data to say), 3 something should change (a slice to
downsize, upsize or release, a preallocating engine, idle capacity), 2 bad input or an endpoint that cannot be read
(one line on stderr; with --json a document on stdout too). Every input is checked before anything is sent; every
wait after that is bounded by --timeout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .durations import seconds
from .output import EXIT_BAD_INPUT, BadInputError, printable, write

DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0


def add_rightsize_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `python -m components rightsize` (argparse only: nothing else is imported before the CLI checks
    the installed dependencies)."""
    parser.add_argument("--prometheus", required=True, metavar="URL",
                        help="a Prometheus query API's base URL: http://HOST:9090, or an Azure Monitor workspace's "
                        "query endpoint (`pulumi stack output prometheusQueryEndpoint`; a Microsoft Entra token from "
                        "azure-identity, the identity needing Monitoring Data Reader on the workspace). A bearer token "
                        "in PROMETHEUS_TOKEN is sent to any host")
    parser.add_argument("--window", default="7d", help="how far back to read: a whole number and m, h, d or w, from 1h "
                        "to 32d (default: 7d)")
    prices = parser.add_mutually_exclusive_group()
    prices.add_argument("--region", help="price slices at this Azure region (the package's price table)")
    prices.add_argument("--stack", help="use this stack's region, its GPU pools' VM sizes and its "
                        "samples.memoryMarginPercent and deviceClassName")
    parser.add_argument("--project-dir", default=".", help="the Pulumi project's folder, for --stack (default: current "
                        "folder)")
    parser.add_argument("--cluster", help="only this cluster's series: a workspace several clusters write to labels each "
                        "series `cluster` with the AKS cluster's name (or the agent's cluster_alias)")
    parser.add_argument("--entra", action="store_true", help="get a Microsoft Entra token for the endpoint even though "
                        "its host is not *.prometheus.monitor.azure.com (a private endpoint's name, a proxy)")
    parser.add_argument("--workloads-out", metavar="FILE", help="also write the measured needs as a `size --workloads` "
                        "file (written whole or not at all), for `size --stack STACK --workloads FILE`")
    parser.add_argument("--timeout", type=seconds(MAX_TIMEOUT), default=DEFAULT_TIMEOUT,
                        help=f"seconds for everything online, token and queries (default: {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--at", help=argparse.SUPPRESS)  # the window's end (tests: data backfilled in the past)


def cmd_rightsize(args: argparse.Namespace) -> int:
    """`rightsize`; with --json, bad input is a JSON document too (and its line on stderr)."""
    try:
        return _run(args)
    except BadInputError as exc:
        if args.json:
            problems = [{"kind": "bad-input", "message": printable(line)} for line in exc.lines]
            write(sys.stdout, json.dumps({"exit": EXIT_BAD_INPUT, "problems": problems}, indent=2, sort_keys=True)
                  + "\n")
        raise


@dataclass
class Inputs:
    """Every flag checked, the stack read and the prices found: what the command needs before it sends anything."""

    window: Any  # rightsize.window.Window
    endpoint: Any  # rightsize.endpoint.Endpoint
    out: Path | None
    cluster: str | None
    stack: Any  # config.StackConfig, or None
    prices: Any  # sizing.prices.PriceTable
    price_note: str | None
    margin: int
    device_class: str
    node_label: str  # the exporter image's node label: the stack's, else the default image's


def _inputs(args: argparse.Namespace) -> Inputs:
    """The command line checked, the stack and prices read, before anything is sent: every problem at once."""
    from ..config import ConfigError, SamplesConfig
    from ..config.monitoring import GpuMetricsConfig
    from ..rightsize.endpoint import cluster_name, endpoint
    from ..rightsize.window import parse_time, parse_window
    from ..rightsize.workloads_file import check_writable

    problems: list[str] = []
    found: dict[str, Any] = {"end": time.time()}
    for key, check in (("end", lambda: parse_time(args.at) if args.at else found["end"]),
                       ("window", lambda: parse_window(args.window, found["end"])),
                       ("endpoint", lambda: endpoint(args.prometheus, args.entra)),
                       ("out", lambda: check_writable(args.workloads_out) if args.workloads_out else None),
                       ("cluster", lambda: cluster_name(args.cluster) if args.cluster else None)):
        try:
            found[key] = check()
        except ValueError as exc:
            problems.append(str(exc))
    try:
        stack, prices, note = _prices(args)
    except ConfigError as exc:
        from .running import in_stack_file

        problems += in_stack_file(exc.problems, args.project_dir, args.stack)
    if problems:
        raise BadInputError(problems)
    samples = stack.samples if stack else SamplesConfig()
    metrics = stack.cluster.monitoring.gpu_metrics if stack else GpuMetricsConfig()
    return Inputs(found["window"], found["endpoint"], found["out"], found["cluster"], stack, prices, note,
                  samples.memory_margin_percent, samples.device_class_name, metrics.node_label)


def _prices(args: argparse.Namespace) -> tuple[Any, Any, str | None]:
    """The stack (or None), the price table at its region or --region, and a note when the table fell back."""
    from ..config import ConfigError, Problem
    from ..sizing.prices import price_book, prices_for
    from ..sizing.stack_file import read_stack_file

    if args.stack:
        stack, _ = read_stack_file(args.project_dir, args.stack)
        table, note = prices_for(stack.cluster.location)
        return stack, table, note
    if args.region:
        book = price_book()
        if book.row(args.region) is None:
            raise ConfigError([Problem("", f"--region {args.region!r}: the price table has no row for it; choose one "
                                       f"of {', '.join(sorted(book.regions))}")])
        return None, prices_for(args.region)[0], None
    table, _ = prices_for(None)
    return None, table, (f"Prices: {table.region}, the price table's default region; give --region or --stack for "
                         "yours.")


def _measure(args: argparse.Namespace, found: Inputs, deadline: float) -> Any:
    """The queries' answers as Measurements; a BadInputError for an endpoint that cannot be read or lacks what the
    report needs."""
    from ..observability.usage_queries import owners, usage_queries
    from ..rightsize.endpoint import token_for
    from ..rightsize.prometheus import PrometheusError, PrometheusReader
    from ..rightsize.usage import claimed_namespaces, measurements, missing
    from ..rightsize.window import iso

    place, window = found.endpoint, found.window
    try:
        token = token_for(place, args.timeout)  # the first wait of the command's time: all of it is left
    except ValueError as exc:
        raise BadInputError([str(exc)]) from None
    reader = PrometheusReader(place, token, deadline, args.timeout)
    cluster = f"of cluster {found.cluster!r} " if found.cluster else ""
    where = f"{cluster}between {iso(window.start)} and {iso(window.end)} at {place.url}"
    try:
        asked = usage_queries(window.promql, window.step, found.cluster, found.node_label)
        answers = reader.query_all([(q.name, q.expr) for q in asked], window.end)
        problem = missing(measurements(answers), where)  # no exporter rows, no slice sizes, no DRA labels
        if problem:
            raise BadInputError([problem])
        spaces = claimed_namespaces(measurements(answers))
        if spaces:  # the owners of the pods that held a claim, by their namespaces
            query = owners(window.promql, spaces, found.cluster)
            answers[query.name] = reader.query(query.name, query.expr, window.end)
    except PrometheusError as exc:
        raise BadInputError([str(exc)]) from None
    return measurements(answers)


def _run(args: argparse.Namespace) -> int:
    from ..rightsize.cost import cost, idle_lines, namespaces
    from ..rightsize.report import Report, notes, to_json, to_text
    from ..rightsize.units import units
    from ..rightsize.verdicts import assess
    from ..rightsize.window import iso
    from ..rightsize.workloads_file import WorkloadsFileError, workloads_text, write_atomically

    found = _inputs(args)
    measured = _measure(args, found, time.monotonic() + args.timeout)
    window, margin, prices = found.window, found.margin, found.prices
    pools = found.stack.gpu_pools if found.stack else []
    held, idle = units(measured)
    costed = [cost(assess(unit, measured, margin, window.step_s), prices, pools) for unit in held]
    report = Report(found.endpoint.url, window, prices, margin, found.device_class, costed,
                    idle_lines(idle, measured, prices, pools, margin, window.step_s), namespaces(costed),
                    notes(held, found.price_note))
    if found.out is not None:
        header = (f"Written by `python -m components rightsize` from {found.endpoint.url}: GPU memory measured over "
                  f"{window.text} to {iso(window.end)}.\nUse: python -m components size --workloads {found.out} "
                  "[--stack STACK]")
        try:
            write_atomically(found.out, workloads_text(costed, margin, header))
        except WorkloadsFileError as exc:
            raise BadInputError([str(exc)]) from None
    write(sys.stdout, to_json(report) if args.json else to_text(report))
    return report.exit
