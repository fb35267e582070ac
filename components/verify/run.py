"""One `verify` run: read the cluster, check it against the stack, repeat while something is not there yet (--wait),
and, with smoke, claim a slice of each size. Returns the report document."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypedDict

from ..config import StackConfig
from .checks_cluster import check_api, check_pools
from .checks_devices import check_device_class, check_slices, check_templates
from .checks_driver import check_driver, check_monitoring
from .checks_extended import check_device_plugin_nodes, check_extended_classes, check_extended_pods
from .checks_kubelets import check_kubelets, scheduler_memory
from .client import ClusterClient
from .expected import Expected, expected
from .report import Check, exit_status, report
from .snapshot import Snapshot, take

Progress = Callable[[str], None]
DEFAULT_TIMEOUT = 300.0
POLL_SECONDS = 10.0


class RunOptions(TypedDict, total=False):
    """How `verify` checks a cluster beyond where: the keyword arguments a caller that runs it for others (the fleet's
    members) passes through unchanged; each left out takes `verify`'s default."""

    smoke: bool
    sizes: list[int] | None
    image: str | None
    wait: float
    timeout: float


class Deadline:
    """The time left of a run bounded by --timeout."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.end = clock() + seconds

    def left(self) -> float:
        """Seconds left (never below 0)."""
        return max(0.0, self.end - self.clock())


def run_checks(snap: Snapshot, exp: Expected) -> list[Check]:
    """Every read-only check on one snapshot, in the order a person reads them."""
    checks = check_api(snap, exp) + check_pools(snap, exp)
    driver, plugin_state = check_driver(snap, exp)
    checks += driver + check_slices(snap, exp, plugin_state) + check_device_class(snap, exp) + check_templates(snap, exp)
    checks += check_monitoring(snap, exp)
    if "v1" in snap.resource_versions:
        checks += check_extended_classes(snap, exp.extended) + check_device_plugin_nodes(snap, exp.extended)
        checks += check_extended_pods(snap, exp.extended, exp.margin_percent) + check_kubelets(snap, exp)
    return checks


def verify(
    stack: StackConfig,
    client: ClusterClient | None = None,
    *,
    kubeconfig: str | None = None,
    context: str | None = None,
    smoke: bool = False,
    sizes: list[int] | None = None,
    image: str | None = None,
    wait: float = 0.0,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Checks a deployed stack's cluster and returns the report: ``{"checks": [...], "summary": {...}}``.

    `client` is any ClusterClient (default: the official Kubernetes client on `kubeconfig`, else $KUBECONFIG).
    `wait`: seconds to keep re-checking while something is not there yet. `smoke`: also run a short pod per claim
    template (or per size in `sizes`) and, without `sizes`, one per mapped extended resource name, in a scratch
    namespace that is deleted afterwards. Raises UnreachableError when
    the API server cannot be reached or refuses the credentials, KubeconfigError without a kubeconfig.
    """
    say = progress or (lambda _line: None)
    deadline = Deadline(timeout)
    if client is None:
        from .kube import KubernetesClient

        client = KubernetesClient.from_kubeconfig(kubeconfig, context, deadline=deadline)
        if not client.tls_verified:
            say(f"TLS is not verified for {client.server()}: its kubeconfig sets insecure-skip-tls-verify")
    exp = expected(stack)
    waited = 0.0
    while True:
        snap = take(client, exp)  # said once read: a server that cannot be reached is one line (the error), not two
        say(f"read {snap.server} (Kubernetes {snap.version.get('gitVersion') or '?'})")
        checks = run_checks(snap, exp)
        left = min(wait - waited, deadline.left() - POLL_SECONDS)
        if exit_status(checks) != 3 or left <= 0:
            break
        pause = min(POLL_SECONDS, left)
        say(f"not there yet ({sum(c.status == 'warn' for c in checks)} warning(s)); checking again in {pause:.0f} s")
        time.sleep(pause)
        waited += pause
    if "v1" in snap.resource_versions:
        checks += scheduler_memory(snap.device_classes, exp.extended, smoke=smoke and not sizes)
    if smoke:
        from .smoke import run_smoke

        checks += run_smoke(client, exp, snap, sizes=sizes, image=image, deadline=deadline, progress=say)
        if exp.extended and not sizes:
            from .smoke_extended import run_extended_smoke

            checks += run_extended_smoke(client, exp, snap, image=image, deadline=deadline, progress=say)
    version = str(snap.version.get("gitVersion") or "")
    return report(checks, server=snap.server, kubernetesVersion=version, cluster=stack.cluster.name)
