"""ManagedPrometheus: what AKS's metrics agent writes to, created the way AKS's own onboarding creates it.

`azureMonitorProfile.metrics.enabled` alone starts the agent with nowhere to send to. The Azure CLI
(azure-cli src/azure-cli/azure/cli/command_modules/acs/azuremonitormetrics/: dc/dce_api.py, dc/dcr_api.py,
dc/dcra_api.py, recordingrules/create.py, amg/link.py) and the ARM template AKS publishes
(Azure/prometheus-collector AddonArmTemplate/FullAzureMonitorMetricsProfile.json) add: an Azure Monitor workspace, a
data collection endpoint and rule (stream Microsoft-PrometheusMetrics) in the workspace's region, the rule's
association with the cluster, and the recording rule groups. Names and bodies below follow that template. A private
cluster whose workspace is in another region also gets a DCE in its own region and that DCE's association
(AddonTerraformTemplate/main.tf, dce_mismatch).

Resource tokens and default API versions (pulumi-azure-native 3.29.0, the same from 3.11.0):
azure-native:monitor:AzureMonitorWorkspace 2023-04-03; monitor:DataCollectionEndpoint, DataCollectionRule,
DataCollectionRuleAssociation 2022-06-01; alertsmanagement:PrometheusRuleGroup 2023-03-01; dashboard:Grafana
2024-10-01; authorization:RoleAssignment 2022-04-01.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..catalog.roles import MONITORING_DATA_READER, role_definition_id
from ..config.monitoring import MonitoringConfig
from ..config.monitoring_rules import grafana_name, workspace_name
from .rules import RuleGroup, azure_rules

PROMETHEUS_STREAM = "Microsoft-PrometheusMetrics"
DESTINATION = "MonitoringAccount1"


def onboarding_name(location: str, cluster: str, limit: int, prefix: str = "MSProm") -> str:
    """'MSProm-<region>-<cluster>' cut to `limit` (44 for a DCE, 64 for the DCR), as dc/defaults.py names them; a DCE
    keeps only letters, digits and '-'. The private-link DCE is 'MSProm-PL-…' (AddonTerraformTemplate/main.tf)."""
    name = f"{prefix}-{location}-{cluster}"[:limit]
    return "".join(ch for ch in name if ch.isalnum() or ch == "-").rstrip("-") if limit == 44 else name


# A DCE's association with a resource has this one name: Azure Monitor docs, Container insights for AKS, "Private link"
# ("The DCR association name must be configurationAccessEndpoint"); terraform-provider-azurerm's
# monitor_data_collection_rule_association defaults `name` to it, which the Terraform template relies on.
DCE_ASSOCIATION = "configurationAccessEndpoint"


def needs_private_link_endpoint(private_cluster: bool, cluster_location: str, workspace_location: str) -> bool:
    """A private cluster whose workspace (so its DCE and DCR) is in another region needs a second DCE in the cluster's
    region, associated with the cluster (Azure/prometheus-collector AddonTerraformTemplate/main.tf: dce_mismatch,
    dcra_mismatch, `dce_region_mismatch && is_private_cluster`)."""
    return private_cluster and cluster_location != workspace_location


# The derived names live with the rule that checks them (config/monitoring_rules.py).


def rule_group_name(group: str, cluster: str) -> str:
    """'<group>-<cluster>' as recordingrules/create.py names them (rule group names take up to 260 characters)."""
    return f"{group}-{cluster}"[:260]


class ManagedPrometheus(pulumi.ComponentResource):
    """The Azure Monitor workspace (or an existing one), DCE, DCR, its association with the cluster, the recording and
    alert rule groups, and optionally a Managed Grafana that reads the workspace."""

    workspace_id: pulumi.Output[str]
    """The Azure Monitor workspace's ARM ID."""
    query_endpoint: pulumi.Output[str] | None
    """The workspace's Prometheus query endpoint (`rightsize --prometheus`), when the package creates the workspace."""
    data_collection_rule_id: pulumi.Output[str]
    """The data collection rule's ARM ID."""
    grafana_endpoint: pulumi.Output[str] | None
    """The Managed Grafana's URL, when one is created."""

    def __init__(
        self,
        name: str,
        *,
        config: MonitoringConfig,
        cluster_name: str,
        cluster_id: pulumi.Input[str],
        resource_group_name: pulumi.Input[str],
        location: str,
        rule_groups: list[RuleGroup],
        tags: dict[str, str] | None = None,
        private_cluster: bool = False,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("aks-dra-vgpu:index:ManagedPrometheus", name, None, opts)
        # Loaded only when managed Prometheus is on: a stack without it never imports these SDK modules.
        from pulumi_azure_native import alertsmanagement, monitor

        child = pulumi.ResourceOptions(parent=self)
        tags = tags or None
        if config.workspace_id is None:
            workspace = monitor.AzureMonitorWorkspace(
                f"{name}-workspace",
                resource_group_name=resource_group_name,
                azure_monitor_workspace_name=workspace_name(cluster_name),
                location=location,
                tags=tags,
                opts=child,
            )
            self.workspace_id = workspace.id
            # metrics.prometheusQueryEndpoint: read-only, set by Azure on create (pulumi-azure-native monitor
            # AzureMonitorWorkspaceResponseMetrics; azure-rest-api-specs monitor AzureMonitorWorkspace `metrics`).
            self.query_endpoint = workspace.metrics.apply(lambda m: m.prometheus_query_endpoint if m else "")
            region = location
        else:
            self.workspace_id = pulumi.Output.from_input(config.workspace_id)
            self.query_endpoint = None  # someone else's workspace: its Overview page (or `az monitor account show`)
            region = config.workspace_location or location
        # The endpoint and the rule as AKS's onboarding makes them: in the workspace's region, for Linux nodes.
        onboarded = {"resource_group_name": resource_group_name, "location": region, "kind": "Linux", "tags": tags,
                     "opts": child}
        dce = monitor.DataCollectionEndpoint(
            f"{name}-dce", data_collection_endpoint_name=onboarding_name(region, cluster_name, 44), **onboarded
        )
        dcr = monitor.DataCollectionRule(
            f"{name}-dcr",
            data_collection_rule_name=onboarding_name(region, cluster_name, 64),
            description="DCR for Azure Monitor Metrics Profile (Managed Prometheus)",
            data_collection_endpoint_id=dce.id,
            data_sources=monitor.DataCollectionRuleDataSourcesArgs(
                prometheus_forwarder=[monitor.PrometheusForwarderDataSourceArgs(
                    name="PrometheusDataSource", streams=[PROMETHEUS_STREAM], label_include_filter={},
                )],
            ),
            destinations=monitor.DataCollectionRuleDestinationsArgs(
                monitoring_accounts=[monitor.MonitoringAccountDestinationArgs(
                    account_resource_id=self.workspace_id, name=DESTINATION,
                )],
            ),
            # KnownDataFlowStreams has no Prometheus member: the stream is passed as text.
            data_flows=[monitor.DataFlowArgs(destinations=[DESTINATION], streams=[PROMETHEUS_STREAM])],
            **onboarded,
        )
        self.data_collection_rule_id = dcr.id
        monitor.DataCollectionRuleAssociation(
            f"{name}-dcra",
            resource_uri=cluster_id,
            association_name=f"MSProm-{location}-{cluster_name}",
            data_collection_rule_id=dcr.id,
            description="Association of data collection rule. Deleting this association will break the data "
            "collection for this AKS Cluster.",
            opts=child,
        )
        if needs_private_link_endpoint(private_cluster, location, region):
            # The agent of a private cluster reaches its configuration through a DCE in the cluster's own region.
            local_dce = monitor.DataCollectionEndpoint(
                f"{name}-dce-private-link",
                data_collection_endpoint_name=onboarding_name(location, cluster_name, 44, prefix="MSProm-PL"),
                **{**onboarded, "location": location},
            )
            monitor.DataCollectionRuleAssociation(
                f"{name}-dcea-private-link",
                resource_uri=cluster_id,
                association_name=DCE_ASSOCIATION,
                data_collection_endpoint_id=local_dce.id,
                description="Association of data collection endpoint for private link clusters. Deleting this "
                "association will break the data collection for this AKS Cluster.",
                opts=child,
            )
        for group in rule_groups:
            alertsmanagement.PrometheusRuleGroup(
                f"{name}-{group.name.lower()}",
                resource_group_name=resource_group_name,
                rule_group_name=rule_group_name(group.name, cluster_name),
                location=region,
                description=group.description,
                cluster_name=cluster_name,
                scopes=[self.workspace_id, cluster_id],
                interval=f"PT{group.interval_minutes}M",
                enabled=True,
                rules=[alertsmanagement.PrometheusRuleArgs(**rule) for rule in azure_rules(group, config.alerts.severity)],
                tags=tags,
                opts=child,
            )
        self.grafana_endpoint = None
        if config.grafana.enabled:
            self.grafana_endpoint = self._grafana(name, config, cluster_name, resource_group_name, location, tags)
        outputs: dict[str, Any] = {"workspaceId": self.workspace_id, "dataCollectionRuleId": self.data_collection_rule_id}
        if self.query_endpoint is not None:
            outputs["queryEndpoint"] = self.query_endpoint
        if self.grafana_endpoint is not None:
            outputs["grafanaEndpoint"] = self.grafana_endpoint
        self.register_outputs(outputs)

    def _grafana(
        self, name: str, config: MonitoringConfig, cluster_name: str, resource_group_name: pulumi.Input[str],
        location: str, tags: dict[str, str] | None,
    ) -> pulumi.Output[str]:
        """The Managed Grafana linked to the workspace, and its identity's Monitoring Data Reader role on it."""
        from pulumi_azure_native import authorization, dashboard

        child = pulumi.ResourceOptions(parent=self)
        grafana_workspace = grafana_name(config, cluster_name)
        grafana = dashboard.Grafana(
            f"{name}-grafana",
            resource_group_name=resource_group_name,
            workspace_name=grafana_workspace,
            location=location,
            sku=dashboard.ResourceSkuArgs(name=config.grafana.sku),
            identity=dashboard.ManagedServiceIdentityArgs(type="SystemAssigned"),
            properties=dashboard.ManagedGrafanaPropertiesArgs(
                grafana_integrations=dashboard.GrafanaIntegrationsArgs(
                    azure_monitor_workspace_integrations=[dashboard.AzureMonitorWorkspaceIntegrationArgs(
                        azure_monitor_workspace_resource_id=self.workspace_id,
                    )],
                ),
            ),
            tags=tags,
            opts=child,
        )
        # The workspace's subscription is the provider's (it creates the workspace there), which the client config
        # answers in a first preview already (components/azure/access.py): the role shows before anything exists.
        subscription = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self)).subscription_id
        authorization.RoleAssignment(
            f"{name}-grafana-reader",
            # No roleAssignmentName: pulumi-azure-native names it with a random UUID once and keeps it in the state
            # (AutoNameUuid, provider/pkg/provider/provider.go), so the plan invents no GUID.
            principal_id=grafana.identity.apply(lambda i: i.principal_id if i else ""),
            principal_type="ServicePrincipal",
            role_definition_id=subscription.apply(lambda sub: role_definition_id(sub, MONITORING_DATA_READER)),
            scope=self.workspace_id,
            opts=child,
        )
        return grafana.properties.apply(lambda p: p.endpoint if p else "")
