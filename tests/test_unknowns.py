"""Unknowns stay visible: an input built from what Azure computes only on create is `[unknown]` in a first preview, with
its dependency, for every resource (a managed identity's principal, a Grafana's endpoint); after create it has a value.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from typing import Any

import pulumi

from components.cli import main
from components.offline import capture
from components.offline.mocks import computed_on_create
from components.offline.plan import UNKNOWN, UNKNOWN_VALUE
from tests.conftest import ROOT

GRAFANA = "azure-native:dashboard:Grafana"
ROLE = "azure-native:authorization:RoleAssignment"


def _role_and_grafana(plan: Any) -> tuple[Any, Any]:
    return plan.one(ROLE, "gpu-prometheus-grafana-reader"), plan.one(GRAFANA)


def test_prod_grafana_reader_waits_for_the_grafanas_identity(shipped_plan):
    plan = shipped_plan("prod", preview=True)
    role, grafana = _role_and_grafana(plan)
    assert role.inputs["principalId"] == UNKNOWN
    assert grafana.urn in role.dependencies
    assert plan.outputs["grafanaEndpoint"] == UNKNOWN and plan.outputs["monitorWorkspaceId"] == UNKNOWN
    assert plan.outputs["prometheusQueryEndpoint"] == UNKNOWN  # Azure sets the workspace's `metrics` on create


def test_after_create_the_principal_and_endpoint_have_values(shipped_plan):
    plan = shipped_plan("prod", preview=False)
    role, grafana = _role_and_grafana(plan)
    assert re.fullmatch(r"[0-9a-f-]{36}", role.inputs["principalId"])
    assert grafana.urn in role.dependencies
    assert plan.outputs["grafanaEndpoint"].startswith("https://")
    assert plan.outputs["monitorWorkspaceId"].startswith("/subscriptions/")
    # what `rightsize --prometheus` reads: the workspace's query endpoint, a host under prometheus.monitor.azure.com
    assert re.fullmatch(r"https://[a-z0-9-]+\.westeurope\.prometheus\.monitor\.azure\.com",
                        plan.outputs["prometheusQueryEndpoint"])


def test_the_graph_has_the_edge():
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--format", "mermaid"]) == 0
    assert "gpu_prometheus_grafana --> gpu_prometheus_grafana_reader" in buffer.getvalue()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--json"]) == 0
    role = next(r for r in json.loads(buffer.getvalue())["resources"] if r["type"] == ROLE)
    assert role["inputs"]["principalId"] == UNKNOWN


def _any_program() -> dict[str, Any]:
    """A program of someone else's: identities of two kinds, each read by another resource."""
    from pulumi_azure_native import authorization, containerservice, resources

    found: dict[str, Any] = {}
    group = resources.ResourceGroup("rg", resource_group_name="rg-x", location="westeurope")
    user_id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-x"
    system = containerservice.ManagedCluster(
        "system", resource_group_name=group.name, resource_name_="aks-a", dns_prefix="a",
        identity=containerservice.ManagedClusterIdentityArgs(type="SystemAssigned"),
    )
    user = containerservice.ManagedCluster(
        "user", resource_group_name=group.name, resource_name_="aks-b", dns_prefix="b",
        identity=containerservice.ManagedClusterIdentityArgs(type="UserAssigned", user_assigned_identities=[user_id]),
    )
    for name, principal in (
        ("from-system", system.identity.apply(lambda i: i.principal_id if i else None)),
        ("from-user", user.identity.apply(
            lambda i: i.user_assigned_identities[user_id].principal_id if i and i.user_assigned_identities else None)),
    ):
        authorization.RoleAssignment(name, principal_id=principal, principal_type="ServicePrincipal",
                                     role_definition_id="/r", scope="/s")
    found["urns"] = (system.urn, user.urn)
    pulumi.export("principal", system.identity.apply(lambda i: i.principal_id if i else None))
    return found


def test_every_resources_identity_is_unknown_in_a_first_preview_and_known_after(preview):
    plan = capture(_any_program, preview=preview)
    system = plan.one("azure-native:containerservice:ManagedCluster", "system")
    user = plan.one("azure-native:containerservice:ManagedCluster", "user")
    for role_name, cluster in (("from-system", system), ("from-user", user)):
        role = plan.one(ROLE, role_name)
        assert cluster.urn in role.dependencies, role_name
        if preview:
            assert role.inputs["principalId"] == UNKNOWN, role_name
        else:
            assert re.fullmatch(r"[0-9a-f-]{36}", role.inputs["principalId"]), role_name


def test_only_what_azure_computes_is_marked():
    sent = {"identity": {"type": "UserAssigned", "userAssignedIdentities": {"/id": {}}}, "location": "westeurope",
            "properties": {"zoneRedundancy": "Disabled"}}
    answer = computed_on_create(GRAFANA, json.loads(json.dumps(sent)), lambda _: UNKNOWN_VALUE)
    assert answer["identity"]["userAssignedIdentities"]["/id"] == {"principalId": UNKNOWN_VALUE, "clientId": UNKNOWN_VALUE}
    assert "principalId" not in answer["identity"]  # no system-assigned identity: nothing of its own to compute
    assert answer["properties"] == {"zoneRedundancy": "Disabled", "endpoint": UNKNOWN_VALUE,
                                    "grafanaVersion": UNKNOWN_VALUE, "provisioningState": UNKNOWN_VALUE}
    assert answer["location"] == "westeurope"
    # A Kubernetes object: no Azure identity, but its uid (and a name only when the program left it to Pulumi).
    named = computed_on_create("kubernetes:core/v1:Namespace", {"identity": {"type": "SystemAssigned"},
                                                                "metadata": {"name": "team-a"}}, lambda _: UNKNOWN_VALUE)
    assert named == {"identity": {"type": "SystemAssigned"}, "metadata": {"name": "team-a", "uid": UNKNOWN_VALUE}}
    assert computed_on_create("kubernetes:helm.sh/v3:Release", {"name": "dcgm"}, lambda _: UNKNOWN_VALUE) == {"name": "dcgm"}
    assert computed_on_create("pulumi:providers:kubernetes", {"kubeconfig": "x"}, lambda _: UNKNOWN_VALUE) == {"kubeconfig": "x"}
    assert computed_on_create(GRAFANA, {"location": "x"}, lambda _: UNKNOWN_VALUE) == {"location": "x"}


def _claims_in_an_auto_named_namespace() -> None:
    """The README's consumer: claim templates in a namespace whose name Pulumi picks (no metadata.name)."""
    import pulumi_kubernetes as k8s

    from components import DraClaimTemplates
    from components.kubernetes.claim_templates import DraClaimTemplatesArgs

    provider = k8s.Provider("k8s", kubeconfig="apiVersion: v1\nkind: Config\n")
    namespace = k8s.core.v1.Namespace("team-a", opts=pulumi.ResourceOptions(provider=provider))
    DraClaimTemplates("team-a-gpus", DraClaimTemplatesArgs(namespace=namespace.metadata.name, sizes=[8]),
                      opts=pulumi.ResourceOptions(providers={"kubernetes": provider}))


def test_an_auto_named_namespace_is_unknown_in_a_first_preview_and_named_after(preview):
    plan = capture(_claims_in_an_auto_named_namespace, preview=preview)
    namespace = plan.one("kubernetes:core/v1:Namespace")
    template = plan.one("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert namespace.urn in template.dependencies
    written = template.inputs["metadata"]["namespace"]
    if preview:
        assert written == UNKNOWN
    else:
        assert re.fullmatch(r"team-a-[0-9a-f]{8}", written)
