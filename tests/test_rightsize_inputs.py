"""`rightsize`'s bad input and unreadable endpoints: one line each naming the flag or the fix, exit 2, never a
traceback; every flag checked before anything is sent, every wait bounded by --timeout, every answer by a size cap,
and a --workloads-out file written whole or not at all."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from components.cli import main
from components.rightsize import prometheus as reader_module
from tests.fake_prometheus import JSON, FakePrometheus, a10_row, gzipped, vectors
from tests.loopback import LoopbackServer

END = "1760000400"


def run(capsys: pytest.CaptureFixture[str], url: str, *more: str) -> tuple[int, str, str]:
    code = main(["rightsize", "--prometheus", url, "--at", END, "--region", "westeurope", *more])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def healthy():
    """A Prometheus whose rows are fine: one claimed 8 GiB slice using 3 GiB."""
    with FakePrometheus(vectors(a10_row("GPU-1", 7987, 3000, claim="c", pod="chat-1"))) as server:
        yield server


@pytest.mark.parametrize("window, says", [
    ("banana", "--window 'banana': expected a whole number and a unit, m, h, d or w (e.g. 7d, 36h, 2w)"),
    ("-1d", "--window '-1d': expected a whole number and a unit"),
    ("0", "--window '0': expected a whole number and a unit"),
    ("0d", "--window '0d': at least 1h"),
    ("30m", "--window '30m': at least 1h"),
    ("400d", "--window '400d': at most 32d (Azure Monitor's query API answers at most 32 days, range selectors "
             "included)"),
])
def test_a_bad_window_is_one_line_before_anything_is_sent(window, says, healthy, capsys) -> None:
    code, out, err = run(capsys, healthy.url, f"--window={window}")
    assert (code, out, healthy.requests) == (2, "", [])
    assert err.startswith(says) and err.count("\n") == 1


@pytest.mark.parametrize("url, says", [
    ("ftp://prometheus:9090", "--prometheus 'ftp://prometheus:9090': expected http(s)://HOST[:PORT][/PATH]"),
    ("prometheus:9090", "expected http(s)://HOST[:PORT][/PATH]"),
    ("http://admin:secret@prometheus:9090", "--prometheus: no credentials in the URL (they would be printed and "
                                             "logged); put a token in PROMETHEUS_TOKEN"),
    ("http://prometheus:9090/api/v1/query?query=up", "the API's base URL only, without ?query or #fragment"),
    ("http://ws-a1b2.eastus.prometheus.monitor.azure.com", "Azure Monitor's query endpoint is served over https"),
    ("http://[::1", "not a URL"),
])
def test_a_bad_url_is_one_line(url, says, capsys) -> None:
    code, out, err = run(capsys, url)
    assert (code, out) == (2, "")
    assert says in err and "secret" not in err


def test_every_bad_flag_is_told_at_once(healthy, capsys, tmp_path) -> None:
    code, out, err = run(capsys, healthy.url, "--window", "2y", "--cluster", "a b",
                         "--workloads-out", str(tmp_path / "missing" / "w.yaml"))
    assert (code, out, healthy.requests) == (2, "", [])
    assert err.splitlines() == [
        "--window '2y': expected a whole number and a unit, m, h, d or w (e.g. 7d, 36h, 2w)",
        f"--workloads-out {tmp_path / 'missing' / 'w.yaml'}: the folder {tmp_path / 'missing'} does not exist",
        "--cluster 'a b': a cluster's name is letters, digits, '-' and '_' (at most 63)",
    ]


def test_a_region_the_price_table_lacks_is_named(healthy, capsys) -> None:
    code = main(["rightsize", "--prometheus", healthy.url, "--region", "marsnorth"])
    err = capsys.readouterr().err
    assert code == 2 and healthy.requests == []
    assert err.startswith("--region 'marsnorth': the price table has no row for it; choose one of ")
    assert "westeurope" in err


def test_a_folder_for_the_workloads_file_is_refused(healthy, capsys, tmp_path) -> None:
    code, _, err = run(capsys, healthy.url, "--workloads-out", str(tmp_path))
    assert code == 2 and healthy.requests == []
    assert err.startswith(f"--workloads-out {tmp_path}: is a folder; name a file")


def test_an_unreachable_endpoint_says_so(capsys) -> None:
    with LoopbackServer(object) as closed:  # a port that was free a moment ago: nothing listens there
        url = closed.url
    started = time.monotonic()
    code, out, err = run(capsys, url, "--timeout", "5")
    assert (code, out) == (2, "") and time.monotonic() - started < 5
    assert err.startswith(f"cannot reach {url} (") and err.rstrip().endswith("check --prometheus")


def test_a_silent_endpoint_is_bounded_by_the_timeout(capsys) -> None:
    with FakePrometheus(vectors([]), delay=3) as silent:
        started = time.monotonic()
        code, out, err = run(capsys, silent.url, "--timeout", "0.5")
        took = time.monotonic() - started
    assert (code, out) == (2, "") and took < 2.5
    assert err == (f"no answer from {silent.url} to the peak query within --timeout 0.5 s: is it reachable from here, "
                   "and is it a Prometheus? (give more seconds with --timeout)\n")


def test_an_answer_that_trickles_in_is_bounded_by_the_timeout_too(capsys) -> None:
    rows = [row for i in range(20) for row in a10_row(f"GPU-{i}", 7987, 3000, claim=f"c{i}", pod=f"p{i}")]
    with FakePrometheus(vectors(rows), trickle=0.1) as slow:  # every read answers within the socket's wait
        started = time.monotonic()
        code, out, err = run(capsys, slow.url, "--timeout", "0.8")
        took = time.monotonic() - started
    assert (code, out) == (2, "") and took < 2.5
    assert err.startswith(f"no answer from {slow.url} to the peak query within --timeout 0.8 s")


@pytest.mark.parametrize("status, kind, body, says", [
    (200, "text/html", b"<!DOCTYPE html><html>Sign in</html>", "answered an HTML page (a sign-in page or a proxy's?), "
                                                               "not Prometheus' JSON"),
    (200, "text/plain", b"<html>grafana</html>", "answered an HTML page"),
    (502, "text/html", b"<html>Bad gateway</html>", "answered 502 with an HTML page, not Prometheus' JSON"),
    (200, JSON, b"{\"status\": \"error\", \"error\": \"boom\"}", "did not answer the peak query as Prometheus does: boom"),
    (200, JSON, b"[1, 2]", "did not answer the peak query as Prometheus does (no status: success)"),
    (200, JSON, b"not json", "answered the peak query with something that is not JSON"),
    (422, JSON, b"{\"status\": \"error\", \"errorType\": \"bad_data\", \"error\": \"parse error at char 7\"}",
     "refused the peak query (422): parse error at char 7"),
    (503, JSON, b"{\"status\": \"error\", \"errorType\": \"timeout\", \"error\": \"query timed out in expression evaluation\"}",
     "gave up on the peak query (query timed out in expression evaluation): give more seconds with --timeout, or a "
     "shorter --window"),
])
def test_what_is_not_a_prometheus_answer_is_told_apart(status, kind, body, says, capsys) -> None:
    with FakePrometheus(lambda form, headers: (status, kind, body, {})) as server:
        code, out, err = run(capsys, server.url)
    assert (code, out) == (2, "")
    assert says in err and err.count("\n") == 1


def test_a_404_is_not_the_query_api(capsys) -> None:
    with FakePrometheus(vectors([])) as server:
        code, _, err = run(capsys, server.url + "/grafana")
    assert code == 2
    assert err.startswith(f"{server.url}/grafana/api/v1/query answered 404: not a Prometheus query API; give the "
                          "API's base URL")


@pytest.mark.parametrize("status", [401, 403])
def test_a_refusal_without_a_token_says_how_to_give_one(status, capsys, monkeypatch) -> None:
    monkeypatch.delenv("PROMETHEUS_TOKEN", raising=False)
    with FakePrometheus(lambda form, headers: (status, JSON, b"{}", {})) as server:
        code, _, err = run(capsys, server.url)
    assert code == 2
    assert f"answered {status}" in err and "put it in PROMETHEUS_TOKEN, or pass --entra for an Azure Monitor " \
        "workspace ('Monitoring Data Reader' on it)" in err


@pytest.mark.parametrize("encode", [lambda a: a, gzipped], ids=["plain", "gzip"])
def test_an_answer_past_the_cap_is_cut_off_and_said(encode, capsys, monkeypatch) -> None:
    monkeypatch.setattr(reader_module, "MAX_BYTES", 4096)
    rows = [row for i in range(60) for row in a10_row(f"GPU-{i}", 7987, 3000, claim=f"c{i}", pod=f"p{i}")]
    with FakePrometheus(encode(vectors(rows))) as server:
        code, out, err = run(capsys, server.url)
    assert (code, out) == (2, "")
    assert err.startswith(f"the peak query's answer from {server.url} passed 4,096 bytes and was cut off, not held: "
                          "too many series for one answer")


def test_without_fb_free_no_slice_can_be_sized(capsys) -> None:
    rows = [a10_row("GPU-1", 7987, 3000, claim="c", pod="p")[0]]  # FB_USED only
    with FakePrometheus(vectors(rows)) as server:
        code, _, err = run(capsys, server.url)
    assert code == 2
    assert err.startswith("no DCGM_FI_DEV_FB_FREE series with job=\"gpu-metrics\" between")
    assert "keep DCGM_FI_DEV_FB_FREE in the exporter's counter list" in err


def test_rows_of_an_older_exporter_name_the_image_that_attributes_them(capsys) -> None:
    rows = [*a10_row("GPU-1", 7987, 3000, node_label="Hostname"), *a10_row("GPU-2", 7987, 0, node_label="Hostname")]
    with FakePrometheus(vectors(rows)) as server:
        code, _, err = run(capsys, server.url)
    assert code == 2
    assert "carries the DRA labels (dra_claim_name) though 1 device row(s) show framebuffer in use: attribution to " \
        "ResourceClaims is off (an exporter older than 4.4.0, the first with it, or kubernetesDRA off)" in err
    assert "run dcgm-exporter 4.6.0-4.8.3-distroless (gpuMetrics.imageTag, the package's default) with " \
        "kubernetesDRA.enabled" in err


def test_memory_in_use_without_claims_is_attribution_off(capsys) -> None:
    with FakePrometheus(vectors(a10_row("GPU-1", 7987, 3000))) as server:
        code, _, err = run(capsys, server.url)
    assert code == 2 and "though 1 device row(s) show framebuffer in use: attribution to ResourceClaims is off" in err


def test_a_cluster_of_idle_devices_is_idle_capacity_not_an_error(capsys) -> None:
    with FakePrometheus(vectors(a10_row("GPU-1", 7987, 0))) as server:
        code, out, err = run(capsys, server.url, "--json")
    document = json.loads(out)
    assert (code, err, document["workloads"]) == (3, "", [])
    assert [d["gpuUuid"] for d in document["idleCapacity"]] == ["GPU-1"]


def test_bad_input_with_json_is_a_document_too(capsys) -> None:
    code, out, err = run(capsys, "http://127.0.0.1:9", "--window", "banana", "--json")
    assert code == 2 and json.loads(out) == {"exit": 2, "problems": [{"kind": "bad-input", "message": err.strip()}]}


def test_a_workloads_file_that_cannot_be_written_is_left_as_it_was(healthy, capsys, tmp_path, monkeypatch) -> None:
    target = tmp_path / "measured.yaml"
    target.write_text("workloads: [{name: before, memoryGiB: 1}]\n")

    def refuse(source: str, destination: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    code, out, err = run(capsys, healthy.url, "--workloads-out", str(target))
    assert (code, out) == (2, "")
    assert err == f"--workloads-out {target}: not written (No space left on device); the file is as it was\n"
    assert target.read_text() == "workloads: [{name: before, memoryGiB: 1}]\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["measured.yaml"]  # no temporary file left behind


def test_a_workloads_file_is_replaced_whole(healthy, capsys, tmp_path: Path) -> None:
    target = tmp_path / "measured.yaml"
    target.write_text("old\n")
    code, _, _ = run(capsys, healthy.url, "--workloads-out", str(target))
    assert code == 3  # 3 GiB on an 8 GiB slice: downsize
    assert target.read_text().splitlines()[-3:] == ['  - name: "ml.chat-1"  # downsize, held 8GiB, peak 2.9 GiB',
                                                    "    memoryGiB: 3", "    count: 1"]
