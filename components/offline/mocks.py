"""Stand-ins for what Azure, AKS and the Kubernetes API would answer, for the offline engine.

A first preview (``preview=True``) answers only what a real first `pulumi preview` knows: a resource's outputs are the
inputs the program sent, its ID and every provider-computed value unknown, and an invoke that needs a resource that
does not exist yet is unknown too. An update run (``preview=False``, for tests of what follows creation) answers with
plausible values: ARM-style IDs, names echoed back, a placeholder kubeconfig that points nowhere.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

import yaml

from .plan import SIG_KEY, SIG_SECRET, UNKNOWN_VALUE

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
# Who runs Pulumi offline, in an update run: azure-native's client config (authorization.get_client_config).
CLIENT_CONFIG = {
    "clientId": "00000000-0000-0000-0000-0000000000c1",
    "objectId": "00000000-0000-0000-0000-0000000000d0",
    "subscriptionId": SUBSCRIPTION,
    "tenantId": SUBSCRIPTION,
}

# ARM resource-id templates for the azure-native types this package declares.
_ARM_IDS = {
    "azure-native:resources:ResourceGroup": "/subscriptions/{sub}/resourceGroups/{resourceGroupName}",
    "azure-native:containerservice:ManagedCluster": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/"
        "managedClusters/{resourceName}"
    ),
    "azure-native:containerservice:AgentPool": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/"
        "managedClusters/{resourceName}/agentPools/{agentPoolName}"
    ),
    "azure-native:monitor:AzureMonitorWorkspace": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.Monitor/accounts/"
        "{azureMonitorWorkspaceName}"
    ),
    "azure-native:monitor:DataCollectionEndpoint": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.Insights/"
        "dataCollectionEndpoints/{dataCollectionEndpointName}"
    ),
    "azure-native:monitor:DataCollectionRule": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.Insights/"
        "dataCollectionRules/{dataCollectionRuleName}"
    ),
    "azure-native:containerservice:Fleet": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/{fleetName}"
    ),
    "azure-native:containerservice:FleetUpdateStrategy": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/"
        "{fleetName}/updateStrategies/{updateStrategyName}"
    ),
    "azure-native:containerservice:AutoUpgradeProfile": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/"
        "{fleetName}/autoUpgradeProfiles/{autoUpgradeProfileName}"
    ),
    "azure-native:containerservice:FleetMember": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/"
        "{fleetName}/members/{fleetMemberName}"
    ),
    "azure-native:dashboard:Grafana": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.Dashboard/grafana/{workspaceName}"
    ),
}

PLACEHOLDER_SERVER = "https://offline-plan.invalid:443"


def placeholder_kubeconfig(cluster: str) -> str:
    """A syntactically valid kubeconfig that points nowhere (the offline plan never talks to a cluster)."""
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": cluster, "cluster": {"server": PLACEHOLDER_SERVER}}],
            "users": [{"name": f"clusterUser_{cluster}", "user": {"token": "offline-placeholder"}}],
            "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": f"clusterUser_{cluster}"}}],
            "current-context": cluster,
        },
        sort_keys=False,
    )


def entra_id_user_kubeconfig(cluster: str, resource_group: str, tenant_id: str) -> str:
    """The shape of AKS's user kubeconfig for an Entra ID cluster: kubelogin by device code (what the provider must
    never use), so the offline plan exercises the conversion to a non-interactive login."""
    user = f"clusterUser_{resource_group}_{cluster}"
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": cluster, "cluster": {"server": PLACEHOLDER_SERVER}}],
            "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": user}}],
            "current-context": cluster,
            "preferences": {},
            "users": [{"name": user, "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "args": [
                    "get-token",
                    "--environment", "AzurePublicCloud",
                    "--server-id", "6dae42f8-4368-4678-94ff-3960e28e3630",  # AKS's Entra ID server application
                    "--client-id", "80faf920-1908-4b52-b5ef-a8e7bedfc67a",  # AKS's public client application
                    "--tenant-id", tenant_id,
                    "--login", "devicecode",
                ],
                "command": "kubelogin",
                "env": None,
                "installHint": "\nkubelogin is not installed which is required to connect to AAD enabled cluster.\n\n"
                "To learn more, please go to https://aka.ms/aks/kubelogin\n",
                "provideClusterInfo": False,
            }}}],
        },
        sort_keys=False,
    )



# What Azure fills in only when it creates a resource, *inside* an object the program also sends (a value absent at the
# top level is unknown in a preview anyway: the SDK resolves a missing output as unknown; a missing field of an echoed
# object would read as None instead, and an input built from it would vanish from the plan with its dependency).
# Every ARM resource with a managed identity: ``identity.principalId``/``tenantId`` for a system-assigned one,
# ``principalId``/``clientId`` of each user-assigned one (ARM's ManagedServiceIdentity, common-types
# managedidentity.json: readOnly). Per type, the readOnly fields of the objects this package sends
# (Azure/azure-rest-api-specs: dashboard ``ManagedGrafanaProperties.endpoint``, ``grafanaVersion``,
# ``provisioningState``; containerservice ``ManagedClusterOIDCIssuerProfile.issuerURL``).
_COMPUTED_ON_CREATE: dict[str, tuple[tuple[str, ...], ...]] = {
    "azure-native:containerservice:ManagedCluster": (("oidcIssuerProfile", "issuerURL"),),
    "azure-native:dashboard:Grafana": (("properties", "endpoint"), ("properties", "grafanaVersion"),
                                       ("properties", "provisioningState")),
}


def _identity_computed(identity: Any, fill: Any) -> Any:
    """A managed identity as Azure returns it: principal and tenant of a system-assigned one, principal and client of
    each user-assigned one, from `fill(field)` (the unknown marker in a preview, a plausible value after create)."""
    if not isinstance(identity, dict):
        return identity
    kind = str(identity.get("type", ""))
    answer = dict(identity)
    if "SystemAssigned" in kind:
        answer.update(principalId=fill("principalId"), tenantId=fill("tenantId"))
    users = identity.get("userAssignedIdentities")
    if isinstance(users, dict):
        answer["userAssignedIdentities"] = {
            key: {**(value if isinstance(value, dict) else {}), "principalId": fill(f"{key}/principalId"),
                  "clientId": fill(f"{key}/clientId")}
            for key, value in users.items()
        }
    return answer


HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


def _kubernetes_computed(type_: str, outputs: dict[str, Any], fill: Any) -> dict[str, Any]:
    """A Kubernetes object's metadata as the API server completes it: its `uid`, and its name when the program left it
    to Pulumi (pulumi-kubernetes auto-names `<resource name>-<random suffix>`; a Helm Release its `name` likewise), a
    value the offline engine cannot know before the provider picks it."""
    if type_ == HELM_RELEASE:
        if not outputs.get("name"):
            outputs["name"] = fill("name")
        return outputs
    metadata = dict(outputs["metadata"]) if isinstance(outputs.get("metadata"), dict) else {}
    if not metadata.get("name"):
        metadata["name"] = fill("metadata/name")
    metadata.setdefault("uid", fill("metadata/uid"))
    outputs["metadata"] = metadata
    return outputs


def computed_on_create(type_: str, outputs: dict[str, Any], fill: Any) -> dict[str, Any]:
    """`outputs` with what the cloud computes on create filled by `fill(path)`: unknown in a first preview, for every
    azure-native resource (identities), the types whose sent objects Azure completes (`_COMPUTED_ON_CREATE`) and every
    Kubernetes object (its uid, an auto-name)."""
    if type_.startswith("kubernetes:"):
        return _kubernetes_computed(type_, outputs, fill)
    if not type_.startswith("azure-native:"):
        return outputs
    if "identity" in outputs:
        outputs["identity"] = _identity_computed(outputs["identity"], fill)
    for *parents, field in _COMPUTED_ON_CREATE.get(type_, ()):
        holder = outputs
        for key in parents:
            if not isinstance(holder.get(key), dict):
                break  # the program did not send that object: its absence is unknown already
            holder[key] = dict(holder[key])
            holder = holder[key]
        else:
            if field not in holder:  # a value the stand-in already made after create stays
                holder[field] = fill("/".join([*parents, field]))
    return outputs


def _as_azure_returns(type_: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """Outputs in the shape Azure answers where it differs from the inputs: a ManagedCluster's user-assigned identities
    go in as a list of IDs (azure-native's input type) and come back as a map of ID -> identity (its output type)."""
    identity = outputs.get("identity")
    # A secret input comes back a secret output of the same shape (the engine keeps the mark): look inside it.
    secret = isinstance(identity, dict) and identity.get(SIG_KEY) == SIG_SECRET
    plain = identity.get("value") if secret else identity
    if type_ == "azure-native:containerservice:ManagedCluster" and isinstance(plain, dict):
        ids = plain.get("userAssignedIdentities")
        if isinstance(ids, list):
            plain = {**plain, "userAssignedIdentities": {str(i): {} for i in ids}}
            outputs["identity"] = {SIG_KEY: SIG_SECRET, "value": plain} if secret else plain
    return outputs


class OfflineProviders:
    """What the providers answer for each registration and invoke; nothing touches a cloud."""

    def __init__(self, preview: bool, stack_outputs: dict[str, dict[str, Any]] | None = None) -> None:
        self.preview = preview
        # Other stacks' outputs by fully qualified name (organization/project/stack), read from their stack files
        # (offline.fleet_stacks): what a StackReference to them answers, without Pulumi Cloud.
        self.stack_outputs = dict(stack_outputs or {})
        # Entra ID clusters seen so far (name -> tenant): their credentials come in AKS's kubelogin shape.
        self.entra_id_clusters: dict[str, str] = {}

    def new_resource(self, type_: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The (ID, outputs) of a resource being created; in a preview, ('', the inputs): the rest is unknown."""
        if type_ == "azure-native:containerservice:ManagedCluster" and isinstance(inputs.get("aadProfile"), dict):
            tenant = inputs["aadProfile"].get("tenantID") or SUBSCRIPTION
            self.entra_id_clusters[str(inputs.get("resourceName", name))] = str(tenant)
        if self.preview:
            return "", computed_on_create(type_, _as_azure_returns(type_, dict(inputs)), lambda _: UNKNOWN_VALUE)
        resource_id, outputs = self._created(type_, name, inputs)

        def after_create(path: str) -> str:  # stable per resource and field, like an ID Azure assigned once
            stable = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{type_}::{name}#{path}"))
            if path.endswith("endpoint"):
                return f"https://{name}.offline.grafana.azure.com"
            if path in ("name", "metadata/name"):
                return f"{name}-{stable[:8]}"  # the shape of Pulumi's auto-names
            return stable

        return resource_id, computed_on_create(type_, _as_azure_returns(type_, outputs), after_create)

    def _created(self, type_: str, name: str, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        template = _ARM_IDS.get(type_)
        if template:
            try:
                resource_id = template.format(sub=SUBSCRIPTION, **inputs)
            except (KeyError, IndexError, ValueError):
                resource_id = f"/subscriptions/{SUBSCRIPTION}/offline/{name}"
            short = resource_id.rsplit("/", 1)[-1]
            outputs = {**inputs, "name": short, "azureApiVersion": "offline"}
            if type_ == "azure-native:monitor:AzureMonitorWorkspace":  # read-only `metrics`, set by Azure on create
                region = inputs.get("location", "offline")
                outputs["metrics"] = {"prometheusQueryEndpoint": f"https://{short}-offline.{region}.prometheus.monitor."
                                      "azure.com", "internalId": f"mac_{uuid.uuid5(uuid.NAMESPACE_URL, resource_id)}"}
            if type_ == "azure-native:containerservice:ManagedCluster":
                outputs["fqdn"] = f"{inputs.get('dnsPrefix', short)}.hcp.{inputs.get('location', 'offline')}.azmk8s.io"
                # Stable per cluster id here; in Azure a new one for every cluster created, even under the same name.
                outputs["resourceUID"] = str(uuid.uuid5(uuid.NAMESPACE_URL, resource_id))
                issuer = inputs.get("oidcIssuerProfile")
                outputs["oidcIssuerProfile"] = {
                    **(issuer if isinstance(issuer, dict) else {}),
                    "issuerURL": f"https://{inputs.get('location', 'offline')}.oic.prod-aks.azure.com/offline/",
                }
            return resource_id, outputs
        if type_.startswith("kubernetes:") and type_ != "kubernetes:helm.sh/v3:Release":
            meta = inputs.get("metadata") if isinstance(inputs.get("metadata"), dict) else {}
            object_name = meta.get("name") or name
            namespace = meta.get("namespace")
            return (f"{namespace}/{object_name}" if namespace else str(object_name)), dict(inputs)
        return f"{name}-id", dict(inputs)

    def read_stack_reference(self, name: str, properties: dict[str, Any]) -> dict[str, Any]:
        """A StackReference's state: the named stack's outputs when the engine knows that stack (none are secret)."""
        if name not in self.stack_outputs:
            return properties
        return {**properties, "name": name, "outputs": dict(self.stack_outputs[name]), "secretOutputNames": []}

    def call(self, token: str, args: dict[str, Any]) -> dict[str, Any]:
        """An invoke's result: the client config (who runs Pulumi), credentials of a cluster (unknown in a first preview:
        the cluster does not exist yet)."""
        if token == "azure-native:authorization:getClientConfig":
            # Placeholders for an update run; the package asks only once its cluster exists, so a first preview gets
            # an unknown answer from the SDK before it reaches here (no principal or tenant is made up).
            return dict(CLIENT_CONFIG)
        if token.startswith("azure-native:containerservice:listManagedCluster") and "Credentials" in token:
            if self.preview:
                return {"kubeconfigs": UNKNOWN_VALUE}
            cluster = str(args.get("resourceName", "cluster"))
            if cluster in self.entra_id_clusters:
                group = str(args.get("resourceGroupName", "group"))
                text = entra_id_user_kubeconfig(cluster, group, self.entra_id_clusters[cluster])
            else:
                text = placeholder_kubeconfig(cluster)
            value = base64.b64encode(text.encode()).decode()
            return {"kubeconfigs": [{"name": "clusterUser", "value": value}]}
        return {}
