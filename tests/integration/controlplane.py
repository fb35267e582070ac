"""A real Kubernetes control plane on loopback for the integration tests, in controller-runtime's envtest layout.

`KUBEBUILDER_ASSETS` names a folder holding `etcd` and `kube-apiserver` (and, for scheduling and claim allocation,
`kube-scheduler` and `kube-controller-manager`), as `setup-envtest use 1.36.x -p path` prints it
(sigs.k8s.io/controller-runtime/tools/setup-envtest). The flags follow envtest's
(controller-runtime pkg/internal/testing/controlplane/apiserver.go and etcd.go, defaultArgs): etcd on a random loopback
client and peer port with --unsafe-no-fsync; the API server with --etcd-servers, --cert-dir (it makes its own
self-signed serving certificate there), --secure-port/--bind-address on loopback, --service-cluster-ip-range,
--allow-privileged, the ServiceAccount admission plugin off (no token controller runs), --service-account-issuer /
-key-file / -signing-key-file; plus a static token (--token-auth-file) whose user is in system:masters, so RBAC
authorizes it as cluster admin, and --enable-priority-and-fairness=false (no APF bookkeeping in a test). DRA
(resource.k8s.io/v1) is GA and on by default from 1.34: nothing to enable; --runtime-config says so explicitly.
The argument builders are pure functions (tested without the binaries); `ControlPlane` starts the processes with
bounded waits and always stops them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ASSETS_ENV = "KUBEBUILDER_ASSETS"
CORE = ("etcd", "kube-apiserver")
SCHEDULING = ("kube-scheduler", "kube-controller-manager")
HOW_TO_GET = (f"set {ASSETS_ENV} to a folder holding kube-apiserver and etcd (and kube-scheduler and "
              "kube-controller-manager for the scheduling tests), as controller-runtime's envtest uses it: "
              f"`export {ASSETS_ENV}=$(setup-envtest use 1.36.x -p path)` "
              "(go install sigs.k8s.io/controller-runtime/tools/setup-envtest@release-0.23)")
TOKEN = "integration-admin-token"
SERVICE_CIDR = "10.0.0.0/24"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0


def assets(env: dict[str, str] | None = None) -> tuple[Path | None, str]:
    """The assets folder, or None and why not (a skip reason that says how to get them)."""
    folder = (env if env is not None else os.environ).get(ASSETS_ENV)
    if not folder:
        return None, f"{ASSETS_ENV} is not set; {HOW_TO_GET}"
    missing = [b for b in CORE if not os.access(Path(folder) / b, os.X_OK)]
    if missing:
        return None, f"{ASSETS_ENV}={folder} has no {', '.join(missing)}; {HOW_TO_GET}"
    return Path(folder), ""


def can_schedule(folder: Path) -> bool:
    """Whether the folder also holds the scheduler and the controller-manager."""
    return all(os.access(folder / b, os.X_OK) for b in SCHEDULING)


def free_port() -> int:
    """A free loopback port (bound and released: the usual, slightly racy, way envtest's addr.Suggest does it too)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def etcd_args(data_dir: Path, client_port: int, peer_port: int) -> list[str]:
    """etcd's flags (envtest etcd.go defaultArgs)."""
    client = f"http://127.0.0.1:{client_port}"
    return [f"--data-dir={data_dir}", f"--listen-client-urls={client}", f"--advertise-client-urls={client}",
            f"--listen-peer-urls=http://127.0.0.1:{peer_port}", "--unsafe-no-fsync=true"]


def apiserver_args(cert_dir: Path, etcd_url: str, port: int, sa_key: Path, sa_pub: Path, token_file: Path) -> list[str]:
    """kube-apiserver's flags (envtest apiserver.go defaultArgs, with a token user instead of client certificates)."""
    return [
        f"--etcd-servers={etcd_url}",
        f"--cert-dir={cert_dir}",
        f"--secure-port={port}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        "--allow-privileged=true",
        "--disable-admission-plugins=ServiceAccount",
        "--authorization-mode=RBAC",
        f"--token-auth-file={token_file}",
        f"--service-account-issuer=https://127.0.0.1:{port}/",
        f"--service-account-key-file={sa_pub}",
        f"--service-account-signing-key-file={sa_key}",
        "--enable-priority-and-fairness=false",
        "--runtime-config=resource.k8s.io/v1=true",
    ]


def component_args(kubeconfig: Path, port: int) -> list[str]:
    """What kube-scheduler and kube-controller-manager share: the admin kubeconfig for everything, no leader election."""
    return [f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}", f"--secure-port={port}", "--bind-address=127.0.0.1",
            "--leader-elect=false"]


def controller_manager_args(kubeconfig: Path, port: int) -> list[str]:
    """Only the controllers the tests need: DaemonSets place pods per node, the resourceclaim controller makes a pod's
    claims from its templates (cmd/kube-controller-manager/names: daemonset-controller, resourceclaim-controller). No
    node lifecycle controller: nodes without a kubelet would be tainted unreachable."""
    return [*component_args(kubeconfig, port), "--controllers=daemonset-controller,resourceclaim-controller",
            f"--service-cluster-ip-range={SERVICE_CIDR}"]


# Taints a node carries until the node-lifecycle controller sees its kubelet: TaintNodesByCondition adds not-ready on
# create (plugin/pkg/admission/nodetaint), and only that controller lifts it, whatever status is written. The harness
# runs no such controller (no kubelet to watch), so it lifts them itself once it has written a Ready status.
LIFECYCLE_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def without_lifecycle_taints(node: dict) -> list[dict] | None:
    """The node's taints less the lifecycle ones, for a patch of `spec.taints` (None: no taint left, drop the list)."""
    kept = [t for t in (node.get("spec") or {}).get("taints") or [] if t.get("key") not in LIFECYCLE_TAINTS]
    return kept or None


def kubeconfig_text(port: int, token: str = TOKEN) -> str:
    """An admin kubeconfig for the loopback API server (its certificate is self-signed: not verified)."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "envtest",
        "clusters": [{"name": "envtest", "cluster": {"server": f"https://127.0.0.1:{port}", "insecure-skip-tls-verify": True}}],
        "users": [{"name": "admin", "user": {"token": token}}],
        "contexts": [{"name": "envtest", "context": {"cluster": "envtest", "user": "admin"}}],
    })


@dataclass
class ControlPlane:
    """etcd + kube-apiserver (+ scheduler and controller-manager) in a temporary folder; a context manager."""

    folder: Path
    scheduling: bool = False

    def __post_init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="aks-dra-envtest-"))
        self.processes: list[tuple[str, subprocess.Popen, Path]] = []
        self.port = 0
        self.kubeconfig = self.dir / "kubeconfig"

    def __enter__(self) -> ControlPlane:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        log = self.dir / f"{name}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen([str(self.folder / name), *args], stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append((name, process, log))
        return process

    def _wait(self, name: str, url: str, token: str | None = None) -> None:
        context = ssl._create_unverified_context()  # the API server's own self-signed certificate, on loopback
        deadline = time.monotonic() + START_TIMEOUT
        process, log = next((p, log) for n, p, log in self.processes if n == name)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited ({process.returncode}): {log.read_text(errors='replace')[-2000:]}")
            request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
            try:
                with urllib.request.urlopen(request, timeout=2, context=context) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{name} not ready after {START_TIMEOUT:g} s: {log.read_text(errors='replace')[-2000:]}")

    def start(self) -> None:
        """Starts everything, waiting (bounded) until each answers."""
        client_port, peer_port, self.port = free_port(), free_port(), free_port()
        self._spawn("etcd", etcd_args(self.dir / "etcd", client_port, peer_port))
        self._wait("etcd", f"http://127.0.0.1:{client_port}/health")
        certs = self.dir / "certs"
        certs.mkdir()
        sa_key, sa_pub = certs / "sa.key", certs / "sa.pub"
        if not shutil.which("openssl"):
            raise RuntimeError("openssl is needed to make the service-account key")
        subprocess.run(["openssl", "genrsa", "-out", str(sa_key), "2048"], check=True, capture_output=True)
        subprocess.run(["openssl", "rsa", "-in", str(sa_key), "-pubout", "-out", str(sa_pub)], check=True,
                       capture_output=True)
        tokens = certs / "tokens.csv"
        tokens.write_text(f'{TOKEN},admin,admin-uid,"system:masters"\n', encoding="utf-8")
        self._spawn("kube-apiserver", apiserver_args(certs, f"http://127.0.0.1:{client_port}", self.port, sa_key, sa_pub,
                                                     tokens))
        self._wait("kube-apiserver", f"https://127.0.0.1:{self.port}/readyz", TOKEN)
        self.kubeconfig.write_text(kubeconfig_text(self.port), encoding="utf-8")
        if self.scheduling:
            self._spawn("kube-scheduler", component_args(self.kubeconfig, free_port()))
            self._spawn("kube-controller-manager", controller_manager_args(self.kubeconfig, free_port()))

    def stop(self) -> None:
        """Stops every process (TERM, then KILL after a bounded wait) and removes the folder."""
        for _, process, _ in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(STOP_TIMEOUT)
        self.processes.clear()
        shutil.rmtree(self.dir, ignore_errors=True)
