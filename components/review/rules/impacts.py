"""What replacing (or deleting) a resource of one type costs the people using the platform."""

from __future__ import annotations

from dataclasses import dataclass

from .azure_monitoring import GRAFANA, WORKSPACE
from .model import CLAIM, CLAIM_TEMPLATE, CLUSTER, GROUP, K8S_PROVIDER, NAMESPACE, POOL, RELEASE


@dataclass(frozen=True)
class Impact:
    """What replacing (or deleting) a resource of one type costs the people using the platform.

    ``replaced`` is the cost of a delete-first replacement; ``replaced_create_first`` the cost when the new one is
    created first, where that differs. Which one the diff prints comes from its one replacement decision
    (``review.replacement``), never from here."""

    replaced: str
    deleted: str | None = None
    safe_path: bool = False  # point the reader at docs/safe-changes.md
    replaced_create_first: str | None = None

    def on_replace(self, delete_first: bool) -> str:
        """The cost of a replacement executed in this order."""
        return self.replaced if delete_first or self.replaced_create_first is None else self.replaced_create_first


IMPACTS: dict[str, Impact] = {
    POOL: Impact(
        replaced="DOWNTIME for the GPU workloads on this pool: the old pool, with every node and every pod on it, goes "
        "away before the new nodes exist; GPU claims wait until new nodes join and the DRA driver publishes their "
        "devices again",
        replaced_create_first="the new pool's nodes join before the old pool is deleted; GPU pods on the old pool are "
        "evicted when it goes and their claims are allocated again on the new nodes",
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
    # The NVIDIA DRA driver's release (another chart's: OTHER_RELEASE). This package's driver Release carries
    # deleteBeforeReplace (components/kubernetes/dra_driver.py); a Release without it is replaced create-first.
    RELEASE: Impact(
        replaced="the NVIDIA DRA driver is uninstalled, then installed anew: until its kubelet plugin publishes the "
        "devices again no new GPU claim can be allocated (pods that already run keep their devices)",
        deleted="the NVIDIA DRA driver is uninstalled: no GPU claim can be allocated any more",
        replaced_create_first="the NVIDIA DRA driver is installed anew, then the old release uninstalled: for a while "
        "two drivers run side by side over the same cluster-scoped objects (DeviceClasses, RBAC)",
    ),
    WORKSPACE: Impact(
        replaced="DATA LOSS: the new Azure Monitor workspace starts empty; the metrics retained in the old one are "
        "deleted with it",
        deleted="DATA LOSS: the Azure Monitor workspace is deleted with every metric it retains (the GPU and cluster "
        "history the dashboards and alerts read); export what you need first",
        safe_path=True,
    ),
    GRAFANA: Impact(
        replaced="DATA LOSS: the new Managed Grafana starts empty; the dashboards, folders, users and settings made in "
        "the old one are deleted with it",
        deleted="DATA LOSS: Managed Grafana is deleted with every dashboard, folder, user and setting made in it; "
        "export them first",
        safe_path=True,
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
    replaced="the Helm release is uninstalled, then installed anew: what it runs is gone in between",
    replaced_create_first="the Helm release is installed anew, then the old one uninstalled",
    deleted="the Helm release is uninstalled with everything it installed",
)
"""A Helm release of another chart than the DRA driver's (dcgm-exporter): what replacing or deleting it costs."""
