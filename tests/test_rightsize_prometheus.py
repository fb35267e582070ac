"""`rightsize` against a real Prometheus: a week of dcgm-exporter rows backfilled with promtool (tests/rightsize_history.py
says what is in it), the server started once for the module, and every verdict, slice and dollar figure compared with
the answer worked out here by hand from the history, the price table's rows and the rules of docs/rightsizing.md."""

from __future__ import annotations

import json
import math
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from components.cli import main
from components.observability.usage_queries import workload_peak_mib, workload_peak_ratio, workload_slice_mib
from components.sizing.prices import load_prices
from tests.prometheus_server import PrometheusServer, backfill
from tests.rightsize_history import END, FIRST, NEW_MODEL_START, QUIET, SCRAPE, WEEK, history

STEP = 900  # the subquery step a 7-day window gets (672 steps)
LOOKBACK = 900  # the server's --query.lookback-delta
PRICE = load_prices(region="westeurope").prices  # the package's table, its westeurope row (2026-06-18)
NV6, NV12, NV18, NV36 = (PRICE[f"Standard_NV{n}ads_A10_v5"] for n in (6, 12, 18, 36))
NC24 = PRICE["Standard_NC24ads_A100_v4"]  # one A100 80GB: two 3g.40gb slices (MIG3g), three 2g.20gb (MIG2g)


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("prometheus")
    with PrometheusServer(backfill(history().samples(), folder), lookback=f"{LOOKBACK}s") as server:
        yield server


def rightsize(capsys: pytest.CaptureFixture[str], server: Any, *more: str) -> tuple[int, str, str]:
    code = main(["rightsize", "--prometheus", server.url, "--at", str(END), "--region", "westeurope", *more])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def report(prometheus: Any) -> dict[str, Any]:
    """The --json report of the whole week (both clusters), read once."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["rightsize", "--prometheus", prometheus.url, "--at", str(END), "--region", "westeurope", "--json"])
    document = json.loads(out.getvalue())
    assert code == document["exit"] == 3
    return document


def hours_seen(start: int, end: int = END) -> float:
    """Slice-hours by hand: the 15-minute steps of the window at which the series had a sample in the lookback."""
    samples = range(start, end + 1, SCRAPE)
    steps = [t for t in range(END, END - WEEK, -STEP)]
    return sum(STEP for t in steps if any(0 <= t - s <= LOOKBACK for s in samples)) / 3600


FULL = hours_seen(FIRST)
# (cluster, namespace, workload): slice held, devices at once, peak MiB, recommended, verdict, $/h now, $/h then
EXPECTED = {
    ("", "web", "embed"): ("4GiB", 1, 1200, "4GiB", "keep", NV6, NV6),  # 1.17 GiB of 3.6 usable
    ("", "ml", "chat"): ("8GiB", 2, 3000, "4GiB", "downsize", 2 * NV12, 2 * NV6),  # 2.93 GiB fits 4 GiB's 3.6
    ("", "ml", "asr"): ("12GiB", 1, 11500, "24GiB", "upsize", NV18, NV36),  # 11.23 GiB >= 10.8 usable of 12
    ("", "research", "finetune"): ("24GiB", 1, 5000, "8GiB", "downsize", NV36, NV12),  # 4.88 GiB fits 7.2
    ("", "serving", "vllm"): ("24GiB", 1, 22080, None, "preallocated", NV36, NV36),  # flat at 92 % from the start
    ("", "web", "idle-app"): ("8GiB", 1, 0, None, "idle", NV12, 0.0),
    ("", "batch", "new-model"): ("8GiB", 1, 2000, None, "insufficient-data", NV12, NV12),  # 5.25 h of samples
    ("", "shared", "team-gpu"): ("12GiB", 1, 6000, "8GiB", "downsize", NV18, NV12),  # the claim alpha and beta share
    ("", "legacy", "classic"): ("8GiB", 1, 7000, "8GiB", "keep", NV12, NV12),  # 6.84 GiB of 7.2 usable
    ("", "dev", "scratch"): ("4GiB", 1, 100, "4GiB", "keep", NV6, NV6),  # a bare pod: under its own name
    ("", None, "aks-a100-0/GPU-a100/1"): ("3g.40gb", 1, 10000, "2g.20gb", "downsize", NC24 / 2, NC24 / 3),  # 9.77 GiB
    ("", None, "aks-a100-0/GPU-a100/2"): ("3g.40gb", 1, 0, None, "idle", NC24 / 2, 0.0),
    (QUIET, "web", "steady"): ("4GiB", 1, 1000, "4GiB", "keep", NV6, NV6),
}
HOURS = {key: FULL for key in EXPECTED} | {("", "ml", "chat"): 2 * FULL,
                                          ("", "batch", "new-model"): hours_seen(NEW_MODEL_START)}


def by_key(document: dict[str, Any]) -> dict[tuple[str, str | None, str], dict[str, Any]]:
    return {(w.get("cluster", ""), w["namespace"], w["workload"]): w for w in document["workloads"]}


def test_every_workload_gets_its_slice_verdict_and_prices(report) -> None:
    found = by_key(report)
    assert set(found) == set(EXPECTED)
    for key, (held, devices, peak_mib, recommended, verdict, now, then) in EXPECTED.items():
        entry = found[key]
        assert (entry["slice"], entry["devices"], entry["recommended"], entry["verdict"]) == \
            (held, devices, recommended, verdict), key
        assert entry["peakGiB"] == round(peak_mib / 1024, 2), key
        assert entry["hourlyNow"] == pytest.approx(now, abs=0.005), key
        assert entry["hourlyRecommended"] == pytest.approx(then, abs=0.005), key
        assert entry["sliceHours"] == pytest.approx(HOURS[key], abs=0.01), key
        assert entry["windowCost"] == pytest.approx(now / devices * HOURS[key], abs=0.01), key


def test_who_holds_what_and_how(report) -> None:
    found = by_key(report)
    assert found[("", "shared", "team-gpu")]["users"] == ["shared/alpha", "shared/beta"]
    assert found[("", "shared", "team-gpu")]["kind"] == "shared-claim"
    assert found[("", "dev", "scratch")]["kind"] == "pod"
    assert found[("", "ml", "asr")]["kind"] == "statefulset" and found[("", "research", "finetune")]["kind"] == "job"
    mig = found[("", None, "aks-a100-0/GPU-a100/1")]
    assert (mig["kind"], mig["gpu"], mig["node"], mig["gpuInstance"]) == ("mig-slice", "A100 80GB", "aks-a100-0", "1")
    assert mig["utilisationPercent"] is None  # a MIG row's utilisation is its parent GPU's
    assert found[("", "ml", "chat")]["utilisationPercent"] == 40
    # the scheduler's claim for a pod that asked nvidia.com/gpu counts as the pod's workload's, like any claim
    assert found[("", "legacy", "classic")]["claimTemplate"] == "a10-vgpu-8gib"
    assert found[("", "ml", "chat")]["claimTemplate"] == "a10-vgpu-4gib"
    assert mig["claimTemplate"] == "mig-a100-80gb-2g20gb"
    assert found[("", "web", "idle-app")]["claimTemplate"] is None


def test_totals_namespaces_and_idle_capacity(report) -> None:
    now = sum(e[5] for e in EXPECTED.values())
    then = sum(e[6] for e in EXPECTED.values())
    totals = report["totals"]
    assert totals["hourlyNow"] == pytest.approx(now, abs=0.01)
    assert totals["hourlyRecommended"] == pytest.approx(then, abs=0.01)
    assert totals["monthlySaving"] == pytest.approx((now - then) * 730, abs=0.05)
    # published, never allocated: GPU-8f, an 8 GiB slice of a Standard_NV12ads_A10_v5 (the rows of GPU-8d before the
    # new model came are not idle capacity: a claim held it later in the window)
    assert report["idleCapacity"] == [{"gpuUuid": "GPU-8f", "hourly": NV12, "hours": pytest.approx(FULL, abs=0.01),
                                       "node": "aks-a10m-9", "slice": "8GiB"}]
    assert totals["idleCapacityHourly"] == pytest.approx(NV12)
    charge: dict[tuple[str, str | None], float] = {}
    for (cluster, namespace, _), entry in EXPECTED.items():
        key = (cluster, namespace)
        charge[key] = charge.get(key, 0.0) + entry[5] / entry[1] * HOURS[(cluster, namespace, _)]
    found = {(n.get("cluster", ""), n["namespace"]): n["cost"] for n in report["namespaces"]}
    assert found == pytest.approx(charge, abs=0.02)


def test_the_text_is_for_people_and_ends_with_the_claim_templates(prometheus, capsys) -> None:
    code, out, err = rightsize(capsys, prometheus)
    assert (code, err) == (3, "")
    lines = out.splitlines()
    assert any(line.split()[:7] == ["ml/chat", "8GiB", "2", "2.9", "40", "%", "4GiB"] for line in lines)
    assert "dev/scratch (pod)" in out and "shared/team-gpu (shared claim)" in out and "quiet:web/steady" in out
    assert "dcgm-exporter puts no pod on MIG rows" in out
    assert "memory per process inside a shared slice cannot be measured" in out
    assert "vLLM: --gpu-memory-utilization" in out
    end = lines.index("Claim template each workload should use:")
    assert lines[end + 1:] and all(": " in line for line in lines[end + 1:])
    assert "  ml/asr: a10-vgpu-24gib" in lines[end + 1:]
    assert "  web/idle-app: none (release the slice)" in lines[end + 1:]


def test_one_cluster_where_everything_keeps_exits_0(prometheus, capsys) -> None:
    code, out, err = rightsize(capsys, prometheus, "--cluster", QUIET, "--json")
    document = json.loads(out)
    assert (code, document["exit"], err) == (0, 0, "")
    assert [(w["cluster"], w["workload"], w["verdict"]) for w in document["workloads"]] == [(QUIET, "steady", "keep")]
    assert document["idleCapacity"] == []


def test_a_cluster_with_no_rows_is_told_which_metric_is_missing(prometheus, capsys) -> None:
    code, out, err = rightsize(capsys, prometheus, "--cluster", "elsewhere")
    assert (code, out) == (2, "")
    assert "no DCGM_FI_DEV_FB_USED series with job=\"gpu-metrics\" of cluster 'elsewhere' between" in err
    assert "gpuMetrics.enabled" in err


def test_a_window_before_the_history_has_no_exporter_rows(prometheus, capsys) -> None:
    code = main(["rightsize", "--prometheus", prometheus.url, "--at", str(END - 30 * 86400), "--window", "7d"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("no DCGM_FI_DEV_FB_USED series with job=\"gpu-metrics\" between 2025-09-02T09:00:00Z")


def test_workloads_out_feeds_size(prometheus, capsys, tmp_path: Path) -> None:
    target = tmp_path / "measured.yaml"
    code, _, err = rightsize(capsys, prometheus, "--workloads-out", str(target))
    assert (code, err) == (3, "")
    text = target.read_text()
    assert text.startswith("# Written by `python -m components rightsize`")
    assert "# idle (allocated, unused), left out: mig.aks-a100-0.a100.2, web.idle-app" in text
    assert main(["size", "--workloads", str(target), "--family", "a10", "--json"]) == 0
    planned = {w["name"]: w for w in json.loads(capsys.readouterr().out)["workloads"]}
    # peaks rounded up to a tenth of a GiB; a preallocating or new workload asks for its slice's usable memory
    asks = {"web.embed": (1.2, 1, 4), "ml.chat": (3.0, 2, 4), "ml.asr": (11.3, 1, 24), "research.finetune": (4.9, 1, 8),
            "serving.vllm": (21.6, 1, 24), "batch.new-model": (7.2, 1, 8), "shared.team-gpu": (5.9, 1, 8),
            "legacy.classic": (6.9, 1, 8), "dev.scratch": (0.1, 1, 4), "quiet.web.steady": (1.0, 1, 4)}
    for name, (gib, count, size_class) in asks.items():
        assert (planned[name]["memoryGiB"], planned[name]["count"], planned[name]["sizeClassGiB"]) == \
            (gib, count, size_class), name
    mig = planned["mig.aks-a100-0.a100.1"]  # 9.8 GiB: on A10s (--family a10), a 12 GiB slice's 10.8 holds it
    assert (mig["memoryGiB"], mig["count"], mig["sizeClassGiB"]) == (math.ceil(10000 / 1024 * 10) / 10, 1, 12)
    assert set(planned) == {*asks, "mig.aks-a100-0.a100.1"}


def _instant(server: Any, expr: str) -> dict[tuple[str, str], float]:
    data = urllib.parse.urlencode({"query": expr, "time": str(END)}).encode()
    with urllib.request.urlopen(f"{server.url}/api/v1/query", data=data, timeout=30) as answer:
        result = json.load(answer)["data"]["result"]
    return {(r["metric"].get("namespace", ""), r["metric"]["workload"]): float(r["value"][1]) for r in result}


def test_the_dashboard_row_reads_the_same_queries(prometheus) -> None:
    peak = _instant(prometheus, workload_peak_mib("7d"))
    size = _instant(prometheus, workload_slice_mib("7d"))
    ratio = _instant(prometheus, workload_peak_ratio("7d"))
    # per workload the AKS rule names (a bare pod has none; a MIG row no pod), the shared claim per user
    assert peak[("ml", "chat")] == 3000 and size[("ml", "chat")] == 7987
    assert ratio[("ml", "asr")] == pytest.approx(11500 / 12000)
    assert peak[("shared", "alpha")] == peak[("shared", "beta")] == 6000
    assert ("dev", "scratch") not in peak and ("gpu-metrics", "dcgm-exporter") not in peak
    assert ratio[("web", "steady")] == pytest.approx(1000 / 3840)
