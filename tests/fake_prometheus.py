"""A stand-in for a Prometheus query API on 127.0.0.1, for what a real one cannot be made to do on purpose: answer an
HTML page, a 404, a 401 echoing the token, nothing at all, too much, or rows an older exporter would write.

`answer(form, headers)` returns (status, content type, body, extra headers); `vectors(rows)` answers the package's
usage queries (components/observability/usage_queries.py) from rows given as labels and one value per query name,
shaped as Prometheus' `POST /api/v1/query` answers them. Every request's form and headers are recorded.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

from tests.loopback import LoopbackServer

Answer = tuple[int, str, bytes, dict[str, str]]
JSON = "application/json"


def query_name(expr: str) -> str:
    """Which of the usage queries an expression is (by what only it contains)."""
    for needle, name in (("kube_pod_owner", "owners"), ("quantile_over_time", "low"), ("min_over_time((time()", "first"),
                         ("max_over_time((time()", "last"), ("DCGM_FI_DEV_GPU_UTIL", "utilisation"),
                         ("DCGM_FI_DEV_FB_FREE", "framebuffer")):
        if needle in expr:
            return name
    return "peak"


def vectors(rows: list[tuple[dict[str, str], dict[str, float]]]) -> Callable[[dict[str, str], dict[str, str]], Answer]:
    """Answers each usage query with the rows that have a value for it."""
    def answer(form: dict[str, str], headers: dict[str, str]) -> Answer:
        name = query_name(form.get("query", ""))
        result = [{"metric": labels, "value": [float(form.get("time", "0")), str(values[name])]}
                  for labels, values in rows if name in values]
        body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode()
        return 200, JSON, body, {}
    return answer


def gzipped(answer: Callable[[dict[str, str], dict[str, str]], Answer]) -> Callable[..., Answer]:
    """The same answers, gzip-encoded as Prometheus sends them to a client that accepts it."""
    def wrapped(form: dict[str, str], headers: dict[str, str]) -> Answer:
        status, kind, body, extra = answer(form, headers)
        return status, kind, gzip.compress(body), {**extra, "Content-Encoding": "gzip"}
    return wrapped


class FakePrometheus(LoopbackServer):
    """`answer` served at /api/v1/query (anything else: 404); `delay` seconds of silence before each answer, and with
    `trickle` the body sent 64 bytes at a time, that many seconds apart."""

    def __init__(self, answer: Callable[[dict[str, str], dict[str, str]], Answer], delay: float = 0.0,
                 trickle: float = 0.0):
        self.requests: list[tuple[dict[str, str], dict[str, str]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                headers = {k: v for k, v in self.headers.items()}
                fake.requests.append((form, headers))
                if delay:
                    time.sleep(delay)
                if self.path != "/api/v1/query":
                    status, kind, body, extra = 404, "text/plain", b"404 page not found", {}
                else:
                    status, kind, body, extra = answer(form, headers)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    for key, value in extra.items():
                        self.send_header(key, value)
                    self.end_headers()
                    for start in range(0, len(body), 64 if trickle else len(body) or 1):
                        self.wfile.write(body[start:start + (64 if trickle else len(body))])
                        self.wfile.flush()
                        time.sleep(trickle)
                except OSError:  # the client gave up first (a --timeout test)
                    pass

        super().__init__(Handler)


def a10_row(uuid: str, total: float, used: float, claim: str = "", pod: str = "", namespace: str = "ml",
            node_label: str = "hostname") -> list[tuple[dict[str, str], dict[str, float]]]:
    """One A10 device's row (claimed or not) with its values for every usage query (a full week seen)."""
    labels = {"UUID": uuid, "modelName": "NVIDIA A10-8Q", node_label: "aks-a10-0", "node": "aks-a10-0"}
    if claim:
        labels.update(namespace=namespace, pod=pod, dra_claim_name=claim, dra_claim_namespace=namespace)
    end = 1_760_000_400
    values = {"peak": used, "low": used / 2, "first": end - 7 * 86400 + 900, "last": end, "utilisation": 10}
    framebuffer = {key: value for key, value in labels.items() if key in ("UUID", "modelName", node_label, "node")}
    return [(labels, values), (framebuffer, {"framebuffer": total})]
