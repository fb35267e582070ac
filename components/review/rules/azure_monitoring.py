"""Which changes replace or are refused for the monitoring resources (managed Prometheus, Grafana, role assignment).

Same rule shape as the rest of the diff's table (replacement_rules.Rule). pulumi-azure-native forces a replacement for
a change to a URL path parameter (provider/pkg/gen/replacement.go and the resource's path: the name, the resource group,
a DCR association's resourceUri, a role assignment's scope); everything else is sent as an in-place PUT.
"""

from __future__ import annotations

from .model import CLUSTER, GROUP, Rule

WORKSPACE = "azure-native:monitor:AzureMonitorWorkspace"
DCE = "azure-native:monitor:DataCollectionEndpoint"
DCR = "azure-native:monitor:DataCollectionRule"
DCRA = "azure-native:monitor:DataCollectionRuleAssociation"
RULE_GROUP = "azure-native:alertsmanagement:PrometheusRuleGroup"
GRAFANA = "azure-native:dashboard:Grafana"
ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"

_FORCE_NEW = "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/gen/replacement.go"
_AMW_API = "https://learn.microsoft.com/rest/api/monitor/azure-monitor-workspaces/create"
_DCE_API = "https://learn.microsoft.com/rest/api/monitor/data-collection-endpoints/create"
_DCR_API = "https://learn.microsoft.com/rest/api/monitor/data-collection-rules/create"
_DCRA_API = "https://learn.microsoft.com/rest/api/monitor/data-collection-rule-associations/create"
_RULE_GROUP_API = "https://learn.microsoft.com/rest/api/prometheusrulegroups/prometheus-rule-groups/create-or-update"
_GRAFANA_API = "https://learn.microsoft.com/rest/api/managed-grafana/grafana/create"
_ROLE_API = "https://learn.microsoft.com/rest/api/authorization/role-assignments/create"
_ARM_DELETE_GROUP = "https://learn.microsoft.com/azure/azure-resource-manager/management/delete-resource-group"
_ROLE_UPDATE = "https://learn.microsoft.com/azure/role-based-access-control/troubleshooting"

_ARM_ID = "part of the ARM resource id (the URL): another value is another resource"
_MOVE = "an Azure resource cannot move to another region: Azure refuses the in-place update; create a new one beside it"

RULES: tuple[Rule, ...] = (
    *(Rule(type_, "resourceGroupName", "replace", "provider", _ARM_ID, source)
      for type_, source in ((WORKSPACE, _AMW_API), (DCE, _DCE_API), (DCR, _DCR_API), (RULE_GROUP, _RULE_GROUP_API),
                            (GRAFANA, _GRAFANA_API))),
    Rule(WORKSPACE, "azureMonitorWorkspaceName", "replace", "provider",
         f"{_ARM_ID}; the new workspace starts empty (the metrics so far stay in the old one)", _AMW_API),
    Rule(DCE, "dataCollectionEndpointName", "replace", "provider", _ARM_ID, _DCE_API),
    Rule(DCR, "dataCollectionRuleName", "replace", "provider", _ARM_ID, _DCR_API),
    Rule(DCRA, "associationName", "replace", "provider", _ARM_ID, _DCRA_API),
    Rule(DCRA, "resourceUri", "replace", "provider", f"{_ARM_ID} (the cluster the association belongs to)", _DCRA_API),
    Rule(RULE_GROUP, "ruleGroupName", "replace", "provider", _ARM_ID, _RULE_GROUP_API),
    Rule(GRAFANA, "workspaceName", "replace", "provider", f"{_ARM_ID}; its users, dashboards and settings stay in the old one",
         _GRAFANA_API),
    Rule(ROLE_ASSIGNMENT, "roleAssignmentName", "replace", "provider", _ARM_ID, _ROLE_API),
    Rule(ROLE_ASSIGNMENT, "scope", "replace", "provider", _ARM_ID, _ROLE_API),
    *(Rule(ROLE_ASSIGNMENT, path, "refused", "api",
           "Azure does not update a role assignment's principal or role (RoleAssignmentUpdateNotPermitted): delete it "
           "and create it again", _ROLE_UPDATE)
      for path in ("principalId", "roleDefinitionId")),
    *(Rule(type_, "location", "refused", "api", _MOVE, _FORCE_NEW) for type_ in (WORKSPACE, DCE, DCR, RULE_GROUP, GRAFANA)),
    Rule(DCR, "destinations", "note", "api",
         "changed in place: metrics go to the new workspace from now on; what was written stays in the old one", _DCR_API),
    Rule(DCRA, "dataCollectionRuleId", "note", "api",
         "changed in place: the cluster's metrics follow the new rule (and its workspace) from now on", _DCRA_API),
    # What the engine replaces with a dependency it replaces delete-first (a moved resource group or cluster): the
    # dependent's ARM id (its resource group, its cluster's id, the workspace it is scoped to) is not known any more.
    *(Rule(type_, None, "replace", "engine", "its resource group is replaced: deleting a group deletes what is in it",
           _ARM_DELETE_GROUP, after=GROUP) for type_ in (WORKSPACE, DCE, DCR, RULE_GROUP, GRAFANA)),
    Rule(DCRA, None, "replace", "engine", "its cluster is replaced: an association is an extension resource of the "
         "cluster and goes with it", _DCRA_API, after=CLUSTER),
    *(Rule(ROLE_ASSIGNMENT, None, "replace", "engine", f"its {what} is replaced: {why}", _ROLE_API, after=type_)
      for type_, what, why in ((WORKSPACE, "workspace", "the assignment is scoped to it"),
                               (GRAFANA, "Grafana", "the assignment is for its identity"),
                               (CLUSTER, "cluster", "the assignment (cluster.auth's grants) is scoped to it"))),
)
"""Managed Prometheus, Grafana and their role assignment: what each change does (one module of the diff's rule table)."""
