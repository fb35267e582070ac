"""What replacing (or deleting) a resource of one type costs the people using the platform."""

from __future__ import annotations

from dataclasses import dataclass

from .model import CLAIM, CLAIM_TEMPLATE, CLUSTER, GROUP, K8S_PROVIDER, NAMESPACE, POOL, RELEASE


@dataclass(frozen=True)
class Impact:
    """What replacing (or deleting) a resource of one type costs the people using the platform."""

    replaced: str
    deleted: str | None = None
    safe_path: bool = False  # point the reader at docs/safe-changes.md


IMPACTS: dict[str, Impact] = {
    POOL: Impact(
        replaced="DOWNTIME for the GPU workloads on this pool: pulumi-azure-native replaces delete-first (the new pool "
        "has the same name), so every node and every pod on it goes away before the new nodes exist; GPU claims wait "
        "until new nodes join and the DRA driver publishes their devices again",
        deleted="every pod on this pool loses its node and its GPU: drain it first",
        safe_path=True,
    ),
    CLUSTER: Impact(
        replaced="the whole cluster is deleted and created again: every node, workload, claim and Kubernetes object in "
        "it is lost (the DRA driver and samples are reinstalled, your own workloads are not)",
        deleted="the cluster and everything running in it are deleted",
        safe_path=True,
    ),
    GROUP: Impact(
        replaced="the resource group and everything in it are deleted and created again",
        deleted="the resource group and everything in it are deleted",
        safe_path=True,
    ),
    K8S_PROVIDER: Impact(replaced="every Kubernetes object this provider manages is replaced with it"),
    # The NVIDIA DRA driver's release (another chart's: OTHER_RELEASE). pulumi-kubernetes replaces a Release create
    # first (helm_release.go: no DeleteBeforeReplace), so the new release is installed before the old one goes.
    RELEASE: Impact(
        replaced="the NVIDIA DRA driver is installed anew, then the old release uninstalled: while its kubelet plugin "
        "restarts no new GPU claim can be allocated (pods that already run keep their devices)",
        deleted="the NVIDIA DRA driver is uninstalled: no GPU claim can be allocated any more",
    ),
    NAMESPACE: Impact(
        replaced="deleting a namespace deletes every object in it (claims, claim templates, jobs)",
        deleted="deleting a namespace deletes every object in it (claims, claim templates, jobs)",
    ),
    CLAIM: Impact(
        replaced="pods sharing this claim lose it and must be recreated to use the new one",
        deleted="pods sharing this claim lose it",
    ),
    CLAIM_TEMPLATE: Impact(
        replaced="running pods keep the claims made from the old template; new pods get claims from the new one",
        deleted="new pods that name this template cannot start",
    ),
}

OTHER_RELEASE = Impact(
    replaced="the Helm release is installed anew, then the old one uninstalled (create first: helm_release.go)",
    deleted="the Helm release is uninstalled with everything it installed",
)
"""A Helm release of another chart than the DRA driver's (dcgm-exporter): what replacing or deleting it costs."""
