"""AksCluster: a resource group, an AKS cluster with one inline system pool, its kubeconfig and an explicit k8s provider."""

from __future__ import annotations

import base64
from typing import Any

import pulumi
import pulumi_azure_native.containerservice as containerservice
import pulumi_azure_native.resources as resources
import pulumi_kubernetes as k8s

from .config import AuthConfig, ClusterConfig

AksClusterArgs = ClusterConfig
"""The cluster's settings (see ClusterConfig)."""


def cluster_properties(config: ClusterConfig) -> dict[str, Any]:
    """The ManagedCluster's inputs (snake_case, as the SDK takes them) that follow from config alone."""
    pool = config.system_pool
    props: dict[str, Any] = {
        "resource_name_": config.name,
        "location": config.location,
        "kubernetes_version": config.kubernetes_version,
        "dns_prefix": config.dns_prefix or config.name,
        "sku": containerservice.ManagedClusterSKUArgs(name="Base", tier=config.sku_tier),
        "identity": containerservice.ManagedClusterIdentityArgs(type="SystemAssigned"),
        "enable_rbac": True,
        "oidc_issuer_profile": containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=True),
        "security_profile": containerservice.ManagedClusterSecurityProfileArgs(
            workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(enabled=True),
        ),
        "network_profile": containerservice.ContainerServiceNetworkProfileArgs(
            network_plugin="azure",
            network_plugin_mode="overlay",
            network_dataplane="cilium",
            network_policy="cilium",
            load_balancer_sku="standard",
        ),
        # The only inline pool; GPU pools are separate AgentPool resources (editing inline pools updates the cluster).
        "agent_pool_profiles": [
            containerservice.ManagedClusterAgentPoolProfileArgs(
                name=pool.name,
                mode="System",
                os_type="Linux",
                vm_size=pool.vm_size,
                count=pool.count,
                availability_zones=pool.zones or None,
                max_pods=pool.max_pods,
                os_disk_size_gb=pool.os_disk_size_gb,
                type="VirtualMachineScaleSets",
                node_taints=["CriticalAddonsOnly=true:NoSchedule"] if pool.critical_addons_only else None,
            )
        ],
        "tags": config.tags or None,
    }
    props.update(_auth_properties(config.auth))
    return props


def _auth_properties(auth: AuthConfig) -> dict[str, Any]:
    if auth.mode == "localAccounts":
        return {"disable_local_accounts": False}
    return {
        "disable_local_accounts": True,
        "aad_profile": containerservice.ManagedClusterAADProfileArgs(
            managed=True,
            enable_azure_rbac=True,
            admin_group_object_ids=auth.admin_group_object_ids or None,
        ),
    }


def decode_kubeconfig(value: str) -> str:
    """The credential API returns each kubeconfig base64-encoded."""
    return base64.b64decode(value).decode("utf-8")


class AksCluster(pulumi.ComponentResource):
    """An AKS cluster for DRA (Kubernetes >= 1.34) with an explicit Kubernetes provider for everything that follows."""

    resource_group_name: pulumi.Output[str]
    """The resource group the cluster lives in."""
    cluster_name: pulumi.Output[str]
    """The ManagedCluster's name."""
    cluster_id: pulumi.Output[str]
    """The ManagedCluster's ARM id."""
    oidc_issuer_url: pulumi.Output[str]
    """The cluster's OIDC issuer (for workload identity federation)."""
    kubeconfig: pulumi.Output[str]
    """A user kubeconfig for the cluster (secret)."""
    provider: k8s.Provider
    """The Kubernetes provider built from that kubeconfig; never the ambient KUBECONFIG."""

    def __init__(self, name: str, args: AksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("aks-dra-vgpu:index:AksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        keep = pulumi.ResourceOptions(parent=self, protect=args.protect)

        if args.resource_group.create:
            group = resources.ResourceGroup(
                f"{name}-rg",
                resource_group_name=args.resource_group.name,
                location=args.location,
                tags=args.tags or None,
                opts=keep,
            )
            self.resource_group_name = group.name
        else:
            self.resource_group_name = pulumi.Output.from_input(args.resource_group.name)

        cluster = containerservice.ManagedCluster(
            f"{name}-aks",
            resource_group_name=self.resource_group_name,
            **cluster_properties(args),
            opts=keep,
        )
        self.cluster_name = cluster.name
        self.cluster_id = cluster.id
        self.oidc_issuer_url = cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p else None)

        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=self.resource_group_name,
            resource_name=cluster.name,
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.kubeconfig = pulumi.Output.secret(credentials.kubeconfigs[0].value.apply(decode_kubeconfig))

        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            # Replace the provider (and so its resources) only when the cluster is replaced, not when credentials rotate.
            cluster_identifier=cluster.id,
            delete_unreachable=False,
            opts=child,
        )

        self.register_outputs(
            {
                "resourceGroupName": self.resource_group_name,
                "clusterName": self.cluster_name,
                "clusterId": self.cluster_id,
                "oidcIssuerUrl": self.oidc_issuer_url,
                "kubeconfig": self.kubeconfig,
            }
        )
