"""The `verify` command and the real Kubernetes-client adapter: against a small fake API server on 127.0.0.1 that
serves recorded API JSON (tests/verify_cluster.py), and without any cluster. Also: the offline commands never load
the Kubernetes client."""

from __future__ import annotations

import json
import os
import re
import shutil
import ssl
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

import pytest

import components
from components.cli import main
from components.cli.verify import add_verify_arguments
from components.verify import UnreachableError
from components.verify.kube import KubeconfigError, KubernetesClient
from tests.conftest import ROOT
from tests.forked_command import run_with_the_package_of
from tests.loopback import LoopbackServer
from tests.verify_cluster import Cluster, healthy, stack

TOKEN = "test-token-1234"


def _list(kind: str, items: list) -> dict:
    return {"apiVersion": "v1", "kind": f"{kind}List", "metadata": {"resourceVersion": "7"}, "items": items}


def routes(cluster: Cluster) -> dict[str, dict]:
    """Path -> JSON body, as a real API server answers these GETs."""
    found = {
        "/version": {"major": "1", "minor": "35", "gitVersion": cluster.version, "platform": "linux/amd64"},
        "/apis/resource.k8s.io": {"kind": "APIGroup", "apiVersion": "v1", "name": "resource.k8s.io", "versions": [
            {"groupVersion": f"resource.k8s.io/{v}", "version": v} for v in cluster.resource_versions]},
        "/api/v1/nodes": _list("Node", cluster.nodes),
        "/apis/resource.k8s.io/v1/resourceslices": _list("ResourceSlice", cluster.slices),
        "/apis/resource.k8s.io/v1/deviceclasses": _list("DeviceClass", cluster.device_classes),
    }
    for ns, items in cluster.templates.items():
        found[f"/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaimtemplates"] = _list("ResourceClaimTemplate", items)
    for ns, items in cluster.claims.items():
        found[f"/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims"] = _list("ResourceClaim", items)
    for ns, items in cluster.pods.items():
        found[f"/api/v1/namespaces/{ns}/pods"] = _list("Pod", items)
    for ns, items in cluster.daemon_sets.items():
        found[f"/apis/apps/v1/namespaces/{ns}/daemonsets"] = _list("DaemonSet", items)
    return found


class FakeApi(LoopbackServer):
    """A loopback HTTP server answering like kube-apiserver from recorded JSON; records what it was asked."""

    def __init__(self, cluster: Cluster, *, token: str = TOKEN, forbidden: tuple[str, ...] = (),
                 tls: tuple[Path, Path] | None = None):
        self.routes = routes(cluster)
        self.requests: list[tuple[str, str, str | None]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, body: object, content_type: str = "application/json") -> None:
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _status(self, code: int, reason: str, message: str) -> None:
                self._send(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                                  "reason": reason, "code": code})

            def _handle(self, method: str) -> None:
                url = urlparse(self.path)
                api.requests.append((method, self.path, self.headers.get("Authorization")))
                if self.headers.get("Authorization") != f"Bearer {token}":
                    return self._status(401, "Unauthorized", "Unauthorized")
                if any(url.path.endswith(f) for f in forbidden):
                    return self._status(403, "Forbidden", f'{url.path} is forbidden: User "ci" cannot list it')
                if method == "GET" and url.path.endswith("/log"):
                    return self._send(200, "GPU 0: NVIDIA A10-8Q (UUID: GPU-1)\n", "text/plain")
                if method == "GET" and "/proxy/" in url.path:
                    return self._send(200, '# HELP x\nDCGM_FI_DEV_FB_USED{pod="p",namespace="n"} 1\n', "text/plain")
                if method == "POST":
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length))
                    body["metadata"].setdefault("name", body["metadata"].get("generateName", "x-") + "abcde")
                    return self._send(201, body)
                if method == "DELETE":
                    return self._send(200, {"kind": "Status", "status": "Success"})
                # the client asks for /version/ and /apis/resource.k8s.io/; the API server takes either spelling
                body = api.routes.get(url.path.rstrip("/"))
                if body is None:
                    return self._status(404, "NotFound", f"the server could not find the requested resource ({url.path})")
                query = parse_qs(url.query)
                if "items" in body and query.get("limit") and len(body["items"]) > 1 and "continue" not in query:
                    # a paged list: the first item, then the rest after `continue`
                    return self._send(200, {**body, "items": body["items"][:1], "metadata": {"continue": "page2"}})
                if "items" in body and query.get("continue"):
                    return self._send(200, {**body, "items": body["items"][1:]})
                return self._send(200, body)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_DELETE(self):
                self._handle("DELETE")

        super().__init__(Handler)
        if tls:  # HTTPS with the given (certificate, key)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*map(str, tls))
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"


def kubeconfig(tmp_path: Path, server: str, token: str = TOKEN, insecure: bool = False) -> Path:
    path = tmp_path / "kubeconfig.yaml"
    cluster: dict[str, object] = {"server": server, **({"insecure-skip-tls-verify": True} if insecure else {})}
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "test",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "test", "context": {"cluster": "c", "user": "u"}}],
    }), encoding="utf-8")
    return path


def process_cli(*args: str) -> subprocess.CompletedProcess:
    """`python -m components` as a process of its own (no KUBECONFIG from the environment)."""
    full = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    return subprocess.run([sys.executable, "-m", "components", *args], cwd=ROOT, capture_output=True, text=True,
                          env=full, timeout=180)


@dataclass(frozen=True)
class Done:
    """A command's exit status and what it wrote, as `subprocess.run` reports them."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Done]:
    """The command in this process (`cli.main`, what `python -m components` runs in its child), with no KUBECONFIG
    unless `env` sets one. Starting the command as a process of its own (imports, the Kubernetes client, the CEL
    parser: about a second of CPU each time) is tested once, in the JSON test; the others check what the command
    decides and prints."""

    def run(*args: str, env: dict[str, str] | None = None) -> Done:
        monkeypatch.delenv("KUBECONFIG", raising=False)
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        capsys.readouterr()
        status = main(list(args))
        out, err = capsys.readouterr()
        return Done(status, out, err)

    return run


@pytest.fixture(scope="module")
def dev():
    return stack("dev")


def test_the_real_adapter_reads_a_healthy_cluster_through_the_kubeconfig(tmp_path, dev):
    with FakeApi(healthy(dev)) as api:
        doc = components.verify(dev, kubeconfig=str(kubeconfig(tmp_path, api.url)))
    assert [c for c in doc["checks"] if c["status"] in ("warn", "fail")] == []
    assert doc["summary"]["exit"] == 0 and doc["summary"]["server"] == api.url
    assert all(auth == f"Bearer {TOKEN}" for _, _, auth in api.requests)
    paths = [p for _, p, _ in api.requests]
    assert any(p.startswith("/api/v1/nodes?") and "continue=page2" in p for p in paths)  # followed the pages
    assert any(p.startswith("/apis/resource.k8s.io/v1/resourceslices") for p in paths)
    assert not [m for m, _, _ in api.requests if m != "GET"]  # read-only without --smoke


def test_the_cli_prints_json_and_exits_0_on_a_healthy_cluster(tmp_path, dev):
    with FakeApi(healthy(dev)) as api:  # the one run as a process of its own: `python -m components verify`
        result = process_cli("verify", "--stack", "dev", "--json", "--kubeconfig", str(kubeconfig(tmp_path, api.url)))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["summary"]["status"] == "ok" and {c["status"] for c in doc["checks"]} <= {"ok", "skip"}
    assert f"read {api.url} (Kubernetes v" in result.stderr  # progress on stderr


def test_the_cli_text_report_and_exit_4_when_broken(tmp_path, dev, cli):
    cluster = healthy(dev)
    cluster.slices = []
    with FakeApi(cluster) as api:
        result = cli("verify", "--stack", "dev", "--kubeconfig", str(kubeconfig(tmp_path, api.url)))
    assert result.returncode == 4, result.stderr
    assert "FAIL  slice" in result.stdout and "docs/troubleshooting.md#no-resourceslice" in result.stdout


def test_a_forbidden_read_is_a_failed_check(tmp_path, dev):
    with FakeApi(healthy(dev), forbidden=("/resourceslices",)) as api:
        doc = components.verify(dev, kubeconfig=str(kubeconfig(tmp_path, api.url)))
    access = [c for c in doc["checks"] if c["check"] == "access"]
    assert access and "403" in access[0]["message"] and doc["summary"]["exit"] == 4


def test_refused_credentials_are_one_line_exit_2(tmp_path, dev, cli):
    with FakeApi(healthy(dev), token="other") as api:
        with pytest.raises(UnreachableError, match="401"):
            components.verify(dev, kubeconfig=str(kubeconfig(tmp_path, api.url)))
        result = cli("verify", "--stack", "dev", "--kubeconfig", str(kubeconfig(tmp_path, api.url)))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") <= 2 and "Unauthorized" in result.stderr and "Traceback" not in result.stderr


def test_the_adapter_writes_reads_logs_and_proxies(tmp_path, dev):
    with FakeApi(healthy(dev)) as api:
        client = KubernetesClient.from_kubeconfig(str(kubeconfig(tmp_path, api.url)))
        created = client.create("Namespace", {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"generateName": "aks-dra-vgpu-verify-"}})
        assert created["metadata"]["name"] == "aks-dra-vgpu-verify-abcde"
        client.create("Pod", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c", "image": "i"}]}}, "ns1")
        client.delete_namespace("aks-dra-vgpu-verify-abcde")
        assert client.pod_log("ns1", "p").startswith("GPU 0: NVIDIA A10-8Q")
        assert 'pod="p"' in client.pod_proxy_get("gpu-metrics", "dcgm-1", 9400, "metrics")
        with pytest.raises(ValueError):
            client.create("Secret", {}, "ns1")
    methods = [(m, unquote(p.split("?")[0])) for m, p, _ in api.requests]  # the API server decodes the path
    assert ("POST", "/api/v1/namespaces") in methods and ("POST", "/api/v1/namespaces/ns1/pods") in methods
    assert ("DELETE", "/api/v1/namespaces/aks-dra-vgpu-verify-abcde") in methods
    assert ("GET", "/api/v1/namespaces/gpu-metrics/pods/dcgm-1:9400/proxy/metrics") in methods


def _free_port() -> int:
    import socket

    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_cluster_reachable_is_one_line_exit_2_without_traceback(tmp_path, cli):
    server = f"https://127.0.0.1:{_free_port()}"
    result = cli("verify", "--stack", "dev", "--kubeconfig", str(kubeconfig(tmp_path, server)), "--timeout", "20")
    assert result.returncode == 2, result
    assert result.stderr.splitlines() == [
        f"verify: cannot reach the API server at {server}: connection refused (nothing listens at that address and port)"]
    assert result.stdout == ""


def test_with_json_an_unreachable_server_is_a_json_document_exit_2(tmp_path, cli):
    server = f"https://127.0.0.1:{_free_port()}"
    result = cli("verify", "--stack", "dev", "--json", "--kubeconfig", str(kubeconfig(tmp_path, server)))
    assert result.returncode == 2, result
    doc = json.loads(result.stdout)
    assert doc["checks"] == [] and doc["summary"]["status"] == "error" and doc["summary"]["exit"] == 2
    (error,) = doc["summary"]["errors"]
    assert error.startswith(f"verify: cannot reach the API server at {server}: connection refused")
    assert result.stderr.splitlines() == [error]  # and the same one line for people


def test_with_json_bad_input_is_a_json_document_too(cli):
    result = cli("verify", "--stack", "dev", "--json", "--size", "8")
    assert result.returncode == 2
    assert json.loads(result.stdout)["summary"]["errors"] == ["verify: --size and --image go with --smoke"]


def test_a_plain_web_server_is_not_a_kubernetes_api_server(tmp_path, cli):
    from functools import partial
    from http.server import SimpleHTTPRequestHandler

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    site = tmp_path / "site"
    site.mkdir()
    with LoopbackServer(partial(Quiet, directory=str(site))) as server:
        url = server.url
        result = cli("verify", "--stack", "dev", "--kubeconfig", str(kubeconfig(tmp_path, url)))
    assert result.returncode == 2, result
    assert result.stderr.splitlines() == [f"verify: {url} is not a Kubernetes API server: GET /version answered 404 "
                                          "File not found"]


def test_speaking_tls_to_a_plain_http_server_says_so(tmp_path, dev):
    with FakeApi(healthy(dev)) as api:
        server = api.url.replace("http://", "https://")
        with pytest.raises(UnreachableError) as raised:
            components.verify(dev, kubeconfig=str(kubeconfig(tmp_path, server)), timeout=20)
    assert str(raised.value) == (f"cannot reach the API server at {server}: the TLS handshake failed "
                                 "(WRONG_VERSION_NUMBER: does it serve plain HTTP?)")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl), for an HTTPS fake API server."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a self-signed certificate for the HTTPS fake API server")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    return cert, key


def test_an_untrusted_certificate_is_one_line(tmp_path, dev, certificate, cli):
    with FakeApi(healthy(dev), tls=certificate) as api:
        result = cli("verify", "--stack", "dev", "--kubeconfig", str(kubeconfig(tmp_path, api.url)))
    assert result.returncode == 2, result
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"verify: cannot reach the API server at {api.url}: its TLS certificate is not trusted ("), line
    assert re.search("self.signed", line) and "HTTPSConnectionPool" not in line  # OpenSSL 1.1 writes "self signed"


def test_insecure_skip_tls_verify_is_said_once_and_never_warned_per_request(tmp_path, dev, certificate):
    with FakeApi(healthy(dev), tls=certificate) as api:
        result = process_cli(  # a process of its own: pytest's warning capture would hide a leak in-process
            "verify", "--stack", "dev", "--kubeconfig", str(kubeconfig(tmp_path, api.url, insecure=True)))
    assert result.returncode == 0, result.stderr
    assert "InsecureRequestWarning" not in result.stderr and "warnings.warn" not in result.stderr
    assert result.stderr.splitlines() == [
        f"TLS is not verified for {api.url}: its kubeconfig sets insecure-skip-tls-verify",
        f"read {api.url} (Kubernetes {healthy(dev).version})"]


def test_the_insecure_client_leaves_the_process_warning_filters_alone(tmp_path, dev, certificate):
    import warnings

    from urllib3.exceptions import InsecureRequestWarning

    with FakeApi(healthy(dev), tls=certificate) as api:
        client = KubernetesClient.from_kubeconfig(str(kubeconfig(tmp_path, api.url, insecure=True)))
        assert client.tls_verified is False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert client.version()["gitVersion"]
            warnings.warn("elsewhere", InsecureRequestWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["elsewhere"]


@pytest.mark.parametrize("env, words", [
    ({}, "pulumi stack output kubeconfig --show-secrets"),
    ({"KUBECONFIG": "/nonexistent/config"}, "KUBECONFIG=/nonexistent/config: no such file"),
])
def test_no_kubeconfig_says_how_to_get_one(env, words, cli):
    result = cli("verify", "--stack", "dev", env=env)
    assert result.returncode == 2 and words in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_kubeconfig_the_client_cannot_use_is_one_line(tmp_path):
    bad = tmp_path / "kc"
    bad.write_text("apiVersion: v1\nkind: Config\ncontexts: []\n", encoding="utf-8")
    with pytest.raises(KubeconfigError, match=str(bad)):
        KubernetesClient.from_kubeconfig(str(bad))


def test_help_documents_every_flag(capsys):
    import argparse

    parser = argparse.ArgumentParser()
    add_verify_arguments(parser)
    flags = [o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"]
    assert main(["verify", "--help"]) == 0
    shown = capsys.readouterr().out
    assert set(flags) == {"--stack", "--fleet", "--project-dir", "--kubeconfig", "--context", "--smoke", "--size", "--image",
                          "--wait", "--timeout", "--json"}
    assert all(flag in shown for flag in flags)
    for action in parser._actions:
        if action.option_strings != ["-h", "--help"]:
            assert action.help and len(action.help) > 20, action.option_strings
    words = " ".join(shown.split())
    assert "Exit 0 all ok, 3 nothing broken but something not there yet, 4 something broken, 2 bad input" in words


@pytest.mark.parametrize("argv, words", [
    (["verify", "--stack", "dev", "--size", "8"], "--size and --image go with --smoke"),
    (["verify", "--stack", "dev", "--smoke", "--size", "7"], "'7' is not a slice size; choose one of 4, 8, 12, 24"),
    (["verify", "--stack", "nosuch"], "no such stack file"),
    (["verify", "--stack", "dev", "--wait", "-1"], "give seconds from 0"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_offline_commands_never_import_the_kubernetes_client(fresh_process):
    # `fresh_process`: a fresh interpreter that imported components, then ran `plan --stack dev --json` (cli.main).
    # `import components` loads verify's front (the public function, its client seam and report), never the checks.
    front = {"components.verify", "components.verify.client", "components.verify.report"}
    assert {m for m in fresh_process["imported"] if m.startswith("components.verify")} == front, "import loads checks"
    assert fresh_process["status"] == 0
    loaded = [m for m in fresh_process["planned"] if (m == "kubernetes" or m.startswith(("kubernetes.", "celpy",
                                                                                           "components.verify.")))
              and m not in front]
    assert loaded == []


def test_the_public_verify_is_the_function_whatever_was_imported_first():
    # A module of the subpackage imported before the package used to leave `components.verify` the subpackage; the
    # name is now bound to the function once, and a plain function it stays.
    probe = (
        "import inspect, sys\n"
        "from components.verify.kube import KubernetesClient\n"
        "from components.verify import run, smoke\n"
        "import components\n"
        "assert inspect.isfunction(components.verify), components.verify\n"
        "assert type(sys.modules['components.verify']).__name__ == 'module'\n"
        "assert 'verify' in components.__all__ and components.verify is sys.modules['components.verify'].verify\n"
    )
    run_with_the_package_of(ROOT, probe)  # the package imported afresh, in a fork: the probe's asserts hold there
