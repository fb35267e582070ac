"""The one seam between `rightsize` and a Prometheus: instant queries over plain HTTP(S) (urllib), a bearer token when
there is one, every wait bounded by the command's deadline and every answer by a size cap.

The API is Prometheus' own (prometheus/prometheus web/api/v1/api.go; docs/querying/api.md): `POST /api/v1/query` with
`query`, `time` and `timeout` form fields; `{"status": "success", "data": {"resultType": "vector", "result": [...]}}`,
or `{"status": "error", "errorType", "error"}` with 400, 422 or 503. Azure Monitor managed Prometheus answers the same
path at the workspace's query endpoint (MicrosoftDocs azure-monitor-docs prometheus-api-promql.md, "Instant queries").
What is not a Prometheus is told apart: an HTML page (a sign-in page, a proxy), a 404 (not the API's base URL), a 401
or 403 (the token or the role), silence (`--timeout`), a refused connection. An answer over `max_bytes`, compressed
or not, is cut off and said so, never held whole. Every message passes `online.masking.mask` with the token.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..online.masking import mask
from .endpoint import Endpoint

AT_ONCE = 2
"""Queries in flight together: one PromQL evaluation keeps about one core busy; on a 2-core Prometheus two at a time
answered the usage queries of 1,000 devices in about 60 % of the time of one at a time, three no faster
(benchmarks/rightsize_bench.py, docs/rightsizing.md)."""
MAX_BYTES = 64 * 1024 * 1024
"""The most of one answer read (after decompression): about 150,000 series of these queries."""
CHUNK = 64 * 1024


class PrometheusError(Exception):
    """The query API could not be read: one line saying why and what to do (never the token)."""


class PrometheusReader:
    """Instant queries against one endpoint, within a deadline on `clock`; counts the bytes received."""

    def __init__(self, place: Endpoint, token: str | None, deadline: float, timeout: float,
                 clock: Callable[[], float] = time.monotonic, max_bytes: int | None = None):
        self.place = place
        self.token = token
        self.deadline = deadline
        self.timeout = timeout  # the command's --timeout, as messages name it
        self.clock = clock
        self.max_bytes = MAX_BYTES if max_bytes is None else max_bytes
        self.wire_bytes = 0  # as sent (gzip where the server compressed)
        self.json_bytes = 0  # decompressed
        self._counting = threading.Lock()  # queries run side by side (`query_all`)

    def query_all(self, queries: Sequence[tuple[str, str]], at: float) -> dict[str, list[dict[str, Any]]]:
        """Each (name, expr) asked at `at`, `AT_ONCE` at a time; the first refusal in the order given is raised."""
        with ThreadPoolExecutor(AT_ONCE, thread_name_prefix="prometheus") as pool:
            asked = [(name, pool.submit(self.query, name, expr, at)) for name, expr in queries]
            try:
                return {name: future.result() for name, future in asked}
            except PrometheusError:
                pool.shutdown(wait=False, cancel_futures=True)  # what has not started never will
                raise

    def _fail(self, text: str) -> PrometheusError:
        return PrometheusError(mask(text, [self.token] if self.token else []))

    def query(self, name: str, expr: str, at: float) -> list[dict[str, Any]]:
        """The vector an instant query at `at` answers: a list of `{"metric": {...}, "value": [t, "v"]}`."""
        left = self.deadline - self.clock()
        if left <= 0:
            raise self._fail(self._silent(name))
        form = {"query": expr, "time": f"{at:.3f}", "timeout": f"{max(1.0, left):.0f}s"}
        headers = {"Accept": "application/json", "Accept-Encoding": "gzip",
                   "Content-Type": "application/x-www-form-urlencoded", "User-Agent": "aks-dra-vgpu-rightsize"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(f"{self.place.url}/api/v1/query", method="POST", headers=headers,
                                         data=urllib.parse.urlencode(form).encode())
        # A socket timeout bounds each wait, not their sum: an answer that trickles in a byte at a time would outlast
        # it. So the request runs in a thread the command waits for no longer than what is left of its time.
        found: dict[str, Any] = {}
        worker = threading.Thread(target=self._fetch, args=(request, left, name, found), name="prometheus",
                                  daemon=True)
        worker.start()
        worker.join(left)
        if worker.is_alive():
            raise self._fail(self._silent(name))
        if "error" in found:
            raise found["error"]
        return self._vector(found["body"], found["kind"], name)

    def _fetch(self, request: urllib.request.Request, left: float, name: str, found: dict[str, Any]) -> None:
        """The answer's body and content type into `found`, or the PrometheusError saying why not."""
        try:
            with urllib.request.urlopen(request, timeout=left) as response:
                found["body"] = self._read(response, name)
                found["kind"] = response.headers.get("Content-Type", "")
        except PrometheusError as exc:
            found["error"] = exc
        except urllib.error.HTTPError as exc:
            found["error"] = self._fail(self._refusal(exc, name))
        except TimeoutError:  # socket.timeout is TimeoutError from Python 3.10
            found["error"] = self._fail(self._silent(name))
        except urllib.error.URLError as exc:
            found["error"] = self._fail(self._silent(name) if isinstance(exc.reason, TimeoutError) else
                                        f"cannot reach {self.place.url} ({exc.reason}): check --prometheus")
        except (OSError, ValueError) as exc:  # a connection reset, a malformed answer's framing
            found["error"] = self._fail(f"cannot read {self.place.url} ({exc}): check --prometheus")

    def _silent(self, name: str) -> str:
        return (f"no answer from {self.place.url} to the {name} query within --timeout {self.timeout:g} s: is it "
                "reachable from here, and is it a Prometheus? (give more seconds with --timeout)")

    def _read(self, response: Any, name: str) -> bytes:
        """The body, decompressed, stopping as soon as it passes the cap (a small gzip may inflate to gigabytes)."""
        gzipped = response.headers.get("Content-Encoding", "").lower() == "gzip"
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
        parts: list[bytes] = []
        size = 0

        def keep(data: bytes) -> None:
            nonlocal size
            size += len(data)
            parts.append(data)
            if size > self.max_bytes:
                raise self._too_large(name)

        while chunk := response.read1(CHUNK):
            if self.clock() > self.deadline:  # each read waits at most what was left; a trickle must not go on
                raise self._fail(self._silent(name))
            with self._counting:
                self.wire_bytes += len(chunk)
            keep(inflate.decompress(chunk, self.max_bytes + 1 - size) if inflate else chunk)
        if inflate:
            keep(inflate.flush())
        with self._counting:
            self.json_bytes += size
        return b"".join(parts)

    def _too_large(self, name: str) -> PrometheusError:
        return self._fail(f"the {name} query's answer from {self.place.url} passed {self.max_bytes:,} bytes and was "
                          "cut off, not held: too many series for one answer; give a shorter --window, or ask the "
                          "Prometheus of fewer clusters")

    def _refusal(self, exc: urllib.error.HTTPError, name: str) -> str:
        status = exc.code
        try:
            raw = exc.read(CHUNK)
        except OSError:
            raw = b""
        if status in (401, 403):
            return self.place.refused(status)
        if status == 404:
            return (f"{self.place.url}/api/v1/query answered 404: not a Prometheus query API; give the API's base URL "
                    "(http://HOST:9090, or the Azure Monitor workspace's query endpoint, `pulumi stack output "
                    "prometheusQueryEndpoint`)")
        if _looks_html(raw, exc.headers.get("Content-Type", "") if exc.headers else ""):
            return f"{self.place.url} answered {status} with an HTML page, not Prometheus' JSON: check --prometheus"
        kind, error = _prometheus_error(raw)
        if kind == "timeout" or "timed out" in error:
            return (f"{self.place.url} gave up on the {name} query ({error}): give more seconds with --timeout, or "
                    "a shorter --window")
        if error:
            return f"{self.place.url} refused the {name} query ({status}): {error}"
        return f"{self.place.url} answered {status} to the {name} query: {' '.join(raw[:200].decode('utf-8', 'replace').split())}"

    def _vector(self, body: bytes, kind: str, name: str) -> list[dict[str, Any]]:
        if _looks_html(body, kind):
            raise self._fail(f"{self.place.url} answered an HTML page (a sign-in page or a proxy's?), not Prometheus' "
                             "JSON: give the query API's base URL with --prometheus")
        try:
            doc = json.loads(body)
        except ValueError:
            raise self._fail(f"{self.place.url} answered the {name} query with something that is not JSON: is it a "
                             "Prometheus query API?") from None
        if not isinstance(doc, dict) or doc.get("status") != "success":
            error = doc.get("error") if isinstance(doc, dict) else None
            raise self._fail(f"{self.place.url} did not answer the {name} query as Prometheus does"
                             + (f": {error}" if error else " (no status: success)"))
        data = doc.get("data")
        if not isinstance(data, dict) or data.get("resultType") != "vector" or not isinstance(data.get("result"), list):
            raise self._fail(f"{self.place.url} answered the {name} query without a vector result")
        return [item for item in data["result"] if isinstance(item, dict)]


def _looks_html(body: bytes, content_type: str) -> bool:
    return "html" in content_type.lower() or body.lstrip()[:1] == b"<"


def _prometheus_error(raw: bytes) -> tuple[str, str]:
    """Prometheus' own `errorType` and `error` of a refusal (`{"status": "error", ...}`), or empty texts."""
    try:
        doc = json.loads(raw)
    except ValueError:
        return "", ""
    if isinstance(doc, dict) and doc.get("status") == "error":
        error = " ".join(str(doc.get("error") or doc.get("errorType") or "").split())[:300]
        return str(doc.get("errorType") or ""), error
    return "", ""
