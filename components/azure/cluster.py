"""AksCluster: a resource group, an AKS cluster with one inline system pool, its kubeconfig and an explicit k8s provider."""

from __future__ import annotations

from datetime import date
from typing import Any

import pulumi
import pulumi_azure_native.containerservice as containerservice
import pulumi_azure_native.resources as resources
import pulumi_kubernetes as k8s

from ..config import AuthConfig, ClusterConfig
from ..config.args import component_args
from ..config.upgrades import AUTO_UPGRADE_SCHEDULE, NODE_OS_UPGRADE_SCHEDULE, MaintenanceWindowConfig, version_owner
from ..config.versions import support_warning
from ..outputs import output, register_declared
from .access import ClusterAdmins
from .agent_pool import system_pool_profile
from .cluster_identity import cluster_identifier
from .kubeconfig import decode_kubeconfig, to_kubelogin_kubeconfig


class AksClusterArgs(ClusterConfig):
    """The cluster's settings (see ClusterConfig): a class of its own, so a Python caller's mistakes are told as
    `invalid AksClusterArgs`, the name they wrote."""


def cluster_properties(config: ClusterConfig) -> dict[str, Any]:
    """The ManagedCluster's inputs (snake_case, as the SDK takes them) that follow from config alone."""
    props: dict[str, Any] = {
        "resource_name_": config.name,
        "location": config.location,
        "kubernetes_version": config.kubernetes_version,
        "dns_prefix": config.effective_dns_prefix,
        "sku": containerservice.ManagedClusterSKUArgs(name="Base", tier=config.sku_tier),
        "identity": _identity(config),
        "enable_rbac": True,
        "oidc_issuer_profile": containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=True),
        "security_profile": containerservice.ManagedClusterSecurityProfileArgs(
            workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(enabled=True),
        ),
        "network_profile": containerservice.ContainerServiceNetworkProfileArgs(
            network_plugin="azure",
            # Overlay: pods get addresses from pod_cidr, not from the nodes' subnet.
            network_plugin_mode="overlay",
            network_dataplane="cilium",
            network_policy="cilium",
            load_balancer_sku="standard",
            pod_cidr=config.network.pod_cidr,
            service_cidr=config.network.service_cidr,
            dns_service_ip=config.network.dns_service_ip,
        ),
        "agent_pool_profiles": [system_pool_profile(config)],
        "tags": config.tags or None,
        "node_resource_group": config.node_resource_group,
    }
    props.update(_auth_properties(config.auth))
    props.update(_operations_properties(config))
    return props


def _identity(config: ClusterConfig) -> containerservice.ManagedClusterIdentityArgs:
    """The control plane's identity: the user-assigned one the stack names, or one AKS creates (system-assigned)."""
    if config.identity_id is None:
        return containerservice.ManagedClusterIdentityArgs(type="SystemAssigned")
    # azure-native takes the identity IDs as a list (the API's map of ID -> {}).
    return containerservice.ManagedClusterIdentityArgs(type="UserAssigned", user_assigned_identities=[config.identity_id])


def _operations_properties(config: ClusterConfig) -> dict[str, Any]:
    """API server access, automatic upgrades and monitoring: each sent only when the stack sets it (AKS keeps its own
    defaults otherwise, and existing stacks see no new inputs)."""
    props: dict[str, Any] = {}
    api = config.api_server
    if api.private or api.authorized_ip_ranges is not None:
        props["api_server_access_profile"] = containerservice.ManagedClusterAPIServerAccessProfileArgs(
            authorized_ip_ranges=api.authorized_ip_ranges,
            enable_private_cluster=True if api.private else None,
        )
    upgrades = config.upgrades
    if upgrades.channel is not None or upgrades.node_os_channel is not None:
        props["auto_upgrade_profile"] = containerservice.ManagedClusterAutoUpgradeProfileArgs(
            upgrade_channel=upgrades.channel,
            node_os_upgrade_channel=upgrades.node_os_channel,
        )
    if config.monitoring.managed_prometheus is not None:
        props["azure_monitor_profile"] = containerservice.ManagedClusterAzureMonitorProfileArgs(
            metrics=containerservice.ManagedClusterAzureMonitorProfileMetricsArgs(
                enabled=config.monitoring.managed_prometheus
            ),
        )
    return props


def maintenance_window(window: MaintenanceWindowConfig) -> containerservice.MaintenanceWindowArgs:
    """A weekly maintenance window as AKS takes it (MaintenanceWindow with a WeeklySchedule, managedClusters.json)."""
    return containerservice.MaintenanceWindowArgs(
        # intervalWeeks is required by the API (1-4); every week is what a stack's single day means.
        schedule=containerservice.ScheduleArgs(
            weekly=containerservice.WeeklyScheduleArgs(day_of_week=window.day_of_week, interval_weeks=1)
        ),
        start_time=window.start_time,
        duration_hours=window.duration_hours,
        utc_offset=window.utc_offset,
    )


# Pulumi names of the maintenance configurations, by the AKS name each carries.
WINDOW_NAMES = {AUTO_UPGRADE_SCHEDULE: "upgrade-window", NODE_OS_UPGRADE_SCHEDULE: "node-os-window"}


def ignored_changes(config: ClusterConfig, fleet_member: bool = False) -> list[str]:
    """Inputs Pulumi must not diff: with a stable or rapid channel AKS moves the minor version itself, and a fleet
    member's version moves with the fleet's update runs (docs/fleet.md); sending the stack's (older) version again
    would ask AKS to downgrade. Their upgrades move the inline system pool with the control plane, so its
    orchestratorVersion is left alone too (the GPU pools' likewise: GpuNodePoolArgs.upgraded_with_cluster)."""
    if version_owner(config.upgrades.channel, fleet_member) is None:
        return []
    return ["kubernetesVersion", "agentPoolProfiles[0].orchestratorVersion"]


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


class ClusterOutputs:
    """The cluster's outputs, which a GpuPlatform gives back as its own too."""

    resource_group_name: pulumi.Output[str] = output("The resource group the cluster lives in.")
    cluster_name: pulumi.Output[str] = output("The ManagedCluster's name.")
    cluster_id: pulumi.Output[str] = output("The ManagedCluster's ARM id.")
    resource_uid: pulumi.Output[str] = output(
        "The ManagedCluster's resourceUID: changes only when the cluster is replaced (a new cluster of the same name)."
    )
    kubeconfig: pulumi.Output[str] = output(
        "A user kubeconfig as AKS hands it out; with Entra ID it logs in by device code, for people only.", secret=True
    )
    provider_kubeconfig: pulumi.Output[str] = output(
        "The kubeconfig the Kubernetes provider uses, for programs and CI: with Entra ID a non-interactive kubelogin "
        "login, never interactive.",
        secret=True,
    )


class AksClusterOutputs(ClusterOutputs):
    """What an AksCluster gives back, in Python and in every other language."""

    oidc_issuer_url: pulumi.Output[str] = output("The cluster's OIDC issuer (for workload identity federation).")


class AksCluster(AksClusterOutputs, pulumi.ComponentResource):
    """An AKS cluster for DRA (Kubernetes >= 1.34) with an explicit Kubernetes provider for everything that follows."""

    provider: k8s.Provider
    """The Kubernetes provider built from that kubeconfig; never the ambient KUBECONFIG."""
    maintenance_configurations: list[containerservice.MaintenanceConfiguration]
    """The planned-maintenance windows of the automatic upgrades (none without upgrades.maintenanceWindow)."""
    admins: ClusterAdmins
    """Entra ID: the role assignments that let the deploying identity and auth.adminPrincipals reach Kubernetes."""

    managed_cluster: containerservice.ManagedCluster
    """The ManagedCluster itself: what must wait for the cluster and nothing else (a fleet membership) depends on."""

    def __init__(self, name: str, args: AksClusterArgs, opts: pulumi.ResourceOptions | None = None, *,
                 fleet_member: bool = False):
        """`fleet_member`: the cluster joins a fleet, whose update runs then own its Kubernetes version."""
        args = component_args(AksClusterArgs, args)
        super().__init__("aks-dra-vgpu:index:AksCluster", name, None, opts)
        # A minor in preview, LTS-only, or near or past the end of its standard support (catalog.kubernetes_versions).
        support = support_warning(args.kubernetes_version, date.today())
        if support:
            pulumi.log.warn(f"{name}: kubernetesVersion '{args.kubernetes_version}': {support}", resource=self)
        # Whatever holds workloads and their state: protected per stack, optionally left in Azure when Pulumi deletes it.
        # An existing resource group (create: false) is never registered, so Pulumi can never delete it.
        keep = pulumi.ResourceOptions(parent=self, protect=args.protect, retain_on_delete=args.retain_on_delete)

        if args.resource_group.create:
            group = resources.ResourceGroup(
                f"{name}-rg",
                resource_group_name=args.resource_group.name,
                location=args.location,
                tags=args.tags or None,
                opts=keep,
            )
            # The name as sent (Azure keeps it verbatim), ready once the group exists: known in a preview too.
            self.resource_group_name = group.urn.apply(lambda _: args.resource_group.name)
        else:
            self.resource_group_name = pulumi.Output.from_input(args.resource_group.name)

        cluster = containerservice.ManagedCluster(
            f"{name}-aks",
            resource_group_name=self.resource_group_name,
            **cluster_properties(args),
            opts=pulumi.ResourceOptions.merge(
                keep, pulumi.ResourceOptions(ignore_changes=ignored_changes(args, fleet_member))
            ),
        )
        self.managed_cluster = cluster
        self.cluster_name = cluster.urn.apply(lambda _: args.name)
        # One window for every channel the stack turns on; AKS reads each by its reserved name.
        window = args.upgrades.maintenance_window
        # One after the other: each is a write on the cluster, and AKS refuses a cluster operation while another runs
        # (AKS troubleshooting, "Cluster pending operation (OperationNotAllowed) errors"); no source says a
        # maintenance configuration PUT is exempt, and the order costs seconds.
        self.maintenance_configurations = []
        for config_name in args.upgrades.scheduled_configurations if window else ():
            self.maintenance_configurations.append(
                containerservice.MaintenanceConfiguration(
                    f"{name}-{WINDOW_NAMES[config_name]}",
                    resource_group_name=self.resource_group_name,
                    resource_name_=self.cluster_name,
                    config_name=config_name,
                    maintenance_window=maintenance_window(window),
                    opts=pulumi.ResourceOptions(parent=self, depends_on=self.maintenance_configurations[-1:]),
                )
            )
        self.cluster_id = cluster.id
        self.resource_uid = cluster.resource_uid
        self.oidc_issuer_url = cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p else None)

        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=self.resource_group_name,
            resource_name=cluster.name,
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.kubeconfig = pulumi.Output.secret(credentials.kubeconfigs[0].value.apply(decode_kubeconfig))
        # An Entra ID cluster's kubeconfig logs in by device code, which hangs CI; apply keeps the result secret. The
        # IDs kubelogin signs in with may be other resources' outputs: converted once they are known.
        auth = args.auth
        # Entra ID: Azure RBAC authorises every Kubernetes call, so the identity running Pulumi (and any principal the
        # stack names) gets a role on the cluster first, and the provider's kubeconfig comes once AKS honours it.
        self.admins = ClusterAdmins(name, auth, cluster, parent=self)
        if auth.nobody_admitted:  # `plan` says the same (policies/access.py); this reaches `pulumi preview` too
            pulumi.log.warn(
                f"{name}: Entra ID with Azure RBAC, but cluster.auth grants no one access (grantDeployer false, no "
                "adminGroupObjectIds, no adminPrincipals): the Kubernetes provider's calls are refused (403) unless "
                "access is granted outside this stack",
                resource=self,
            )
        converted = pulumi.Output.all(self.kubeconfig, auth.tenant_id, auth.client_id).apply(
            lambda v: to_kubelogin_kubeconfig(v[0], auth.model_copy(update={"tenant_id": v[1], "client_id": v[2]}))
        )
        self.provider_kubeconfig = self.admins.after_propagation(converted)

        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.provider_kubeconfig,
            # Replace the provider (and so its resources) only when the cluster is replaced, not when credentials rotate
            # or the cluster is updated in place (see cluster_identifier).
            cluster_identifier=cluster_identifier(args),
            delete_unreachable=False,
            # Said outright: in a first preview the kubeconfig is unknown and carries no dependency on the cluster (or
            # on the role assignments that authorise the provider's calls on an Entra ID cluster).
            opts=pulumi.ResourceOptions(parent=self, depends_on=[cluster, *self.admins.all]),
        )

        register_declared(self)
