"""A real Prometheus for the tests: history backfilled with `promtool tsdb create-blocks-from openmetrics`, then the
server started on loopback over those blocks.

The binaries come from PATH (Debian's `prometheus` package ships both; `PROMETHEUS` and `PROMTOOL` name others);
without them the tests skip, or fail where AKS_DRA_REQUIRE_PROMETHEUS=1 (CI: .ci/run installs the package).

promtool 2.42 writes one block per two hours of data and reads its whole input once per block, so a week in one file
reads it 84 times; one file per block instead pays a promtool start (the Go runtime, a fresh head, its memory zeroed)
84 times. The history is cut into one file per half day (six blocks: each file read six times, 15 starts), each
converted on its own, several at once (fsync, not parsing, is what they wait on), with Go's garbage collector off: a
run lives a fraction of a second, and collecting cost most of its CPU (the week: 1.8 s of CPU instead of 5.8 s).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REQUIRE_ENV = "AKS_DRA_REQUIRE_PROMETHEUS"
BLOCK = 7200  # promtool's block range, seconds
BLOCKS_PER_FILE = 6  # a half day of history per promtool run


def binary(name: str) -> str:
    """The binary's path (`$NAME` upper-cased, else PATH); skips, or fails where it is required, without it."""
    found = os.environ.get(name.upper()) or shutil.which(name)
    if found and Path(found).exists():
        return found
    reason = f"{name} is not on PATH (Debian: apt-get install prometheus, which ships prometheus and promtool)"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires the real Prometheus tests to run")
    pytest.skip(reason)


def _labels(labels: dict[str, str]) -> str:
    def quoted(value: str) -> str:
        return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    return ",".join(f'{k}="{quoted(v)}"' for k, v in sorted(labels.items()))


Sample = tuple[str, dict[str, str], int, float]  # metric, labels, POSIX seconds, value


def backfill(samples: Iterable[Sample], folder: Path, workers: int = 4) -> Path:
    """Writes the samples as TSDB blocks into `folder/tsdb` (one OpenMetrics file and one promtool run per
    BLOCKS_PER_FILE blocks; promtool still writes one block per two hours)."""
    parts_of: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for metric, labels, at, value in samples:
        parts_of[at // (BLOCK * BLOCKS_PER_FILE)][metric].append(f"{metric}{{{_labels(labels)}}} {value:g} {at}")
    parts, tsdb = folder / "openmetrics", folder / "tsdb"
    parts.mkdir(parents=True)
    tsdb.mkdir()
    files = []
    for part, families in sorted(parts_of.items()):
        path = parts / f"{part}.om"
        with path.open("w", encoding="utf-8") as out:
            for metric, lines in families.items():
                out.write(f"# TYPE {metric} gauge\n")
                out.write("\n".join(lines) + "\n")
            out.write("# EOF\n")
        files.append(path)
    promtool = binary("promtool")
    env = {**os.environ, "GOGC": "off"}

    def convert(path: Path) -> None:
        done = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", str(path), str(tsdb)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, f"promtool refused {path.name}: {done.stderr[-500:]}"

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(convert, files))
    return tsdb


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrometheusServer:
    """`prometheus` serving `tsdb` on 127.0.0.1; `url` names it. No scrape targets: the history is all it has."""

    def __init__(self, tsdb: Path, lookback: str = "15m"):
        self.tsdb = tsdb
        self.lookback = lookback
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PrometheusServer:
        config = self.tsdb.parent / "prometheus.yml"
        config.write_text("global: {}\n", encoding="utf-8")
        self.log = (self.tsdb.parent / "prometheus.log").open("wb")
        self.process = subprocess.Popen(
            [binary("prometheus"), f"--config.file={config}", f"--storage.tsdb.path={self.tsdb}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=10y",
             f"--query.lookback-delta={self.lookback}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        self.__exit__()
        log = (self.tsdb.parent / "prometheus.log").read_text(errors="replace")[-1000:]
        raise AssertionError(f"prometheus did not become ready: {log}")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
