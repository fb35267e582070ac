"""How long `rightsize` takes and how much it receives as workloads and the window grow. Prints figures; asserts nothing.

Against a real Prometheus (Debian's `prometheus` 2.42 and `promtool` on PATH, as the tests use): for each number of
workloads (one pod on one 8 GiB A10 slice each, rows as dcgm-exporter 4.6.0-4.8.3 writes them under DRA, and AKS's
pod-to-workload rule), `--days` of history at one sample every `--scrape` seconds is backfilled with promtool, one
two-hour block at a time (generated, converted, deleted: the text never sits whole on disk), and the server is left to
compact those blocks as a running one has. Then, for each window, the usage queries are run `--runs` times (the median
is printed) and the whole command once: wall time, bytes on the wire (gzip) and decoded. The aims (issue 43): linear in
series, flat in window length, and 1,000 device series over 7 days answered in under 10 s on 2 cores.

Usage (from the repository root): ``python benchmarks/rightsize_bench.py [--workloads 100,1000] [--windows 7d,30d]
[--days 30] [--scrape 300] [--runs 3] [--keep FOLDER]``. With --keep, a history already there is reused.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from components.cli import main as cli  # noqa: E402
from components.observability.usage_queries import owners, usage_queries  # noqa: E402
from components.rightsize.endpoint import endpoint  # noqa: E402
from components.rightsize.prometheus import PrometheusReader  # noqa: E402
from components.rightsize.usage import claimed_namespaces, measurements  # noqa: E402
from components.rightsize.window import parse_window  # noqa: E402
from tests.prometheus_server import BLOCK, PrometheusServer, binary  # noqa: E402

END = 1_760_000_400  # as the tests' history: a multiple of every subquery step used here


def rows(workloads: int) -> list[tuple[str, str, float]]:
    """Each series: its metric, its labels as OpenMetrics writes them, and its constant part of the value."""
    found = []
    for i in range(workloads):
        node, ns, pod = f"aks-a10m-{i}", f"team-{i % 20}", f"app-{i}-7f9c-x"
        device = (f'UUID="GPU-{i:05d}",device="nvidia0",gpu="0",hostname="{node}",instance="10.0.{i // 250}.{i % 250}:'
                  f'9400",job="gpu-metrics",modelName="NVIDIA A10-8Q",node="{node}",pci_bus_id="00000001:00:00.0"')
        user = (f'container="main",dra_claim_name="{pod}-gpu-abc12",dra_claim_namespace="{ns}",dra_device_name="gpu-0",'
                f'dra_driver_name="gpu.nvidia.com",dra_pool_name="{node}",namespace="{ns}",pod="{pod}"')
        labels = f"{device},{user}"
        found += [("DCGM_FI_DEV_FB_USED", labels, 1000 + i % 5000), ("DCGM_FI_DEV_FB_FREE", labels, 6987 - i % 5000),
                  ("DCGM_FI_DEV_GPU_UTIL", labels, i % 100),
                  ("namespace_workload_pod:kube_pod_owner:relabel",
                   f'namespace="{ns}",pod="{pod}",workload="app-{i}",workload_type="deployment"', 1)]
    return found


def backfill(workloads: int, days: int, scrape: int, folder: Path) -> Path:
    """The history as TSDB blocks in `folder/tsdb`, one promtool run per two-hour block, four at a time."""
    tsdb, parts = folder / "tsdb", folder / "openmetrics"
    tsdb.mkdir(parents=True)
    parts.mkdir()
    series = rows(workloads)
    promtool = binary("promtool")
    start = END - days * 86400 + scrape

    def block(index: int) -> None:
        first, last = max(start, index * BLOCK), min(END, (index + 1) * BLOCK - 1)
        times = range(first + (-first) % scrape, last + 1, scrape)
        path = parts / f"{index}.om"
        with path.open("w", encoding="utf-8") as out:
            for metric in dict.fromkeys(m for m, _, _ in series):
                out.write(f"# TYPE {metric} gauge\n")
                for name, labels, base in series:
                    if name == metric:
                        # a daily peak: noon is busier
                        out.writelines(f"{metric}{{{labels}}} {base + (300 if (t // 3600) % 24 == 12 else 0)} {t}\n"
                                       if metric == "DCGM_FI_DEV_FB_USED" else f"{metric}{{{labels}}} {base} {t}\n"
                                       for t in times)
            out.write("# EOF\n")
        subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", str(path), str(tsdb)], check=True,
                       capture_output=True)
        path.unlink()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(block, range(start // BLOCK, END // BLOCK + 1)))
    return tsdb


def settle(tsdb: Path, most: float = 900.0) -> tuple[int, int, float]:
    """Waits for Prometheus to compact the two-hour blocks it was handed (it plans that a minute after it starts, as a
    long-running server has long done): block folders before and after, and the seconds waited."""
    def blocks() -> list[Path]:
        return [p for p in tsdb.iterdir() if p.is_dir() and len(p.name) == 26]

    before, started, seen = len(blocks()), time.monotonic(), []
    while time.monotonic() - started < most:
        time.sleep(5)
        busy = any(".tmp" in p.name for p in tsdb.iterdir())
        seen.append(len(blocks()))
        if not busy and time.monotonic() - started > 70 and len(seen) > 2 and seen[-1] == seen[-2] == seen[-3]:
            break
    return before, len(blocks()), time.monotonic() - started


def measure(url: str, window: str, runs: int) -> tuple[float, int, int, int]:
    """Median seconds of the usage queries as the command asks them (`query_all`, then the owners), the bytes on the
    wire and decoded of one run, and the rows answered."""
    found = parse_window(window, END)
    times, last = [], None
    for _ in range(runs):
        reader = PrometheusReader(endpoint(url), None, time.monotonic() + 600, 600)
        started = time.perf_counter()
        answers = reader.query_all([(q.name, q.expr) for q in usage_queries(found.promql, found.step)], END)
        spaces = claimed_namespaces(measurements(answers))
        answers["owners"] = reader.query("owners", owners(found.promql, spaces).expr, END)
        answered = sum(len(found_rows) for found_rows in answers.values())
        times.append(time.perf_counter() - started)
        last = (reader.wire_bytes, reader.json_bytes, answered)
    assert last is not None
    return statistics.median(times), *last


def command(url: str, window: str) -> tuple[float, int]:
    """Seconds of the whole `rightsize --json` (queries, verdicts, report) and its exit status."""
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli(["rightsize", "--prometheus", url, "--at", str(END), "--window", window, "--region", "westeurope",
                    "--json", "--timeout", "600"])
    return time.perf_counter() - started, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="100,1000", help="comma-separated numbers of workloads (default 100,1000)")
    parser.add_argument("--windows", default="7d,30d", help="comma-separated windows (default 7d,30d)")
    parser.add_argument("--days", type=int, default=30, help="days of history (default 30)")
    parser.add_argument("--scrape", type=int, default=300, help="seconds between samples (default 300)")
    parser.add_argument("--runs", type=int, default=3, help="runs of the queries per case (default 3)")
    parser.add_argument("--keep", type=Path, help="keep the histories here (and reuse one already there)")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}; history: {args.days} days, a sample every {args.scrape} s per series")
    print(f"{'workloads':>9} {'window':>6} {'rows':>6} {'queries s':>9} {'wire KiB':>9} {'JSON KiB':>9} "
          f"{'command s':>9}  backfill")
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        for workloads in (int(n) for n in args.workloads.split(",")):
            folder = base / f"{workloads}-{args.days}d-{args.scrape}s"
            started = time.perf_counter()
            tsdb = folder / "tsdb" if (folder / "tsdb").is_dir() else backfill(workloads, args.days, args.scrape, folder)
            took = time.perf_counter() - started
            with PrometheusServer(tsdb, lookback="5m") as server:
                before, after, waited = settle(tsdb)
                print(f"{workloads:>9} workloads: {before} blocks compacted by Prometheus into {after} in {waited:.0f} s")
                for window in args.windows.split(","):
                    seconds, wire, decoded, answered = measure(server.url, window, args.runs)
                    whole, code = command(server.url, window)
                    print(f"{workloads:>9} {window:>6} {answered:>6} {seconds:>9.2f} {wire / 1024:>9.1f} "
                          f"{decoded / 1024:>9.1f} {whole:>9.2f}  {took:.0f} s{' (kept)' if took < 1 else ''}"
                          f"{'' if code in (0, 3) else f'  exit {code}'}")


if __name__ == "__main__":
    main()
