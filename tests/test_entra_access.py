"""Entra ID clusters that deploy unattended: the deploying identity's Cluster Admin grant, the principals a stack names,
the provider waiting for them, and the warning when a stack leaves no one able to reach the cluster."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from components.azure.access import propagation_delay
from components.azure.cluster import AksCluster
from components.catalog.roles import AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_READER
from components.config import ClusterConfig, ConfigError, validate
from components.offline import UNKNOWN, capture
from components.offline.mocks import CLIENT_CONFIG
from components.policies import check_plan, plan_findings
from components.policies.access import check_entra_id_access

CLUSTER = "azure-native:containerservice:ManagedCluster"
ROLE = "azure-native:authorization:RoleAssignment"
PROVIDER = "pulumi:providers:kubernetes"
GROUP = "0b5c2d4e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
SP = "3c1a2f7e-5b0d-4a51-9a57-0e6f1d2c4b88"
PERSON = "9d3e6c1b-2f4a-4e8d-b1c7-5a6f0e2d3c19"
CLUSTER_ADMIN_ID = f"/subscriptions/{CLIENT_CONFIG['subscriptionId']}/providers/Microsoft.Authorization/roleDefinitions/" \
    f"{AKS_RBAC_CLUSTER_ADMIN}"


def cluster_data(**auth) -> dict:
    return {"name": "aks-e", "location": "westeurope", "resourceGroup": {"name": "rg-e"}, "auth": auth}


def run(preview: bool, **auth):
    config = ClusterConfig.model_validate(cluster_data(**auth))
    return capture(lambda: AksCluster("c", config), preview=preview)


def test_the_deploying_identity_gets_cluster_admin_on_the_cluster_by_default(preview):
    plan = run(preview, mode="entraId")
    (grant,) = plan.all(ROLE)
    cluster = plan.one(CLUSTER)
    assert grant.name == "c-deployer-admin" and grant.parent == plan.one("aks-dra-vgpu:index:AksCluster").urn
    if preview:  # who runs Pulumi is the provider's to say (its credentials): offline, nothing is made up
        assert grant.inputs["principalId"] == UNKNOWN
    else:
        assert grant.inputs["principalId"] == CLIENT_CONFIG["objectId"]  # azure-native's client config
    # The role is a constant and its subscription is asked without waiting for the cluster: known before the first up.
    assert grant.inputs["roleDefinitionId"] == CLUSTER_ADMIN_ID
    assert grant.inputs["principalType"] == "User"  # azurecli: a person's `az login`
    assert cluster.urn in grant.dependencies  # scoped to the cluster's ID
    if not preview:
        assert grant.inputs["scope"].endswith("/providers/Microsoft.ContainerService/managedClusters/aks-e")
    # No roleAssignmentName: azure-native names it with a GUID once; principal and role cannot change in place.
    assert "roleAssignmentName" not in grant.inputs
    assert grant.options["replaceOnChanges"] == ["principalId", "principalType", "roleDefinitionId"]
    assert grant.options["deleteBeforeReplace"] is True
    # The Kubernetes provider (and so every Kubernetes object) waits for the grant.
    assert grant.urn in plan.one(PROVIDER).dependencies


@pytest.mark.parametrize(("auth", "kind"), [
    ({"loginMode": "spn"}, "ServicePrincipal"),
    ({"loginMode": "workloadidentity"}, "ServicePrincipal"),
    ({"loginMode": "azurecli", "deployerPrincipalType": "ServicePrincipal"}, "ServicePrincipal"),  # azure/login in CI
])
def test_the_deployer_grant_is_typed_as_arm_checks_it(auth, kind):
    (grant,) = run(True, mode="entraId", **auth).all(ROLE)
    assert grant.inputs["principalType"] == kind


def test_a_stack_can_name_its_own_principals_instead(preview):
    plan = run(preview, mode="entraId", grantDeployer=False, adminPrincipals=[
        {"objectId": SP, "principalType": "ServicePrincipal"}, {"objectId": GROUP, "principalType": "Group"},
    ])
    grants = plan.all(ROLE)
    assert {(g.name, g.inputs["principalId"], g.inputs["principalType"]) for g in grants} == {
        (f"c-admin-{SP}", SP, "ServicePrincipal"), (f"c-admin-{GROUP}", GROUP, "Group"),
    }
    assert all(g.inputs["roleDefinitionId"] == CLUSTER_ADMIN_ID for g in grants)
    assert CLIENT_CONFIG["objectId"] not in {g.inputs["principalId"] for g in grants}
    assert {g.urn for g in grants} <= set(plan.one(PROVIDER).dependencies)


def test_local_accounts_grant_nothing(preview):
    plan = run(preview)
    assert plan.all(ROLE) == []
    assert plan.one(CLUSTER).urn in plan.one(PROVIDER).dependencies
    assert not [d for d in plan.one(PROVIDER).dependencies if ROLE in d]


@pytest.mark.parametrize(("auth", "path", "text"), [
    ({"mode": "entraId", "adminPrincipals": [{"objectId": "ops", "principalType": "Group"}]},
     "cluster.auth.adminPrincipals[0].objectId", "'ops' is not an object ID"),
    ({"mode": "entraId", "adminPrincipals": [{"objectId": SP, "principalType": "MSI"}]},
     "cluster.auth.adminPrincipals[0].principalType", "'User', 'Group' or 'ServicePrincipal'"),
    ({"mode": "entraId", "adminPrincipals": [{"objectId": SP}]},
     "cluster.auth.adminPrincipals[0].principalType", "required"),
    ({"mode": "entraId", "adminPrincipals": [{"objectId": SP, "principalType": "User"},
                                             {"objectId": SP.upper(), "principalType": "User"}]},
     "cluster.auth.adminPrincipals[1].objectId", "listed twice (also adminPrincipals[0])"),
    ({"mode": "entraId", "grantDeployer": False, "deployerPrincipalType": "User"},
     "cluster.auth.deployerPrincipalType", "needs grantDeployer: true"),
    ({"adminPrincipals": [{"objectId": SP, "principalType": "User"}]},
     "cluster.auth.adminPrincipals", "needs mode 'entraId'"),
    ({"mode": "entraId", "deployerPrincipalType": "Group"},
     "cluster.auth.deployerPrincipalType", "'User' or 'ServicePrincipal'"),
])
def test_bad_access_settings_name_their_key(auth, path, text):
    with pytest.raises(ConfigError) as err:
        validate(ClusterConfig, cluster_data(**auth), "cluster")
    (problem,) = err.value.problems
    assert problem.path == path and text in problem.message, problem


# --- the warning -----------------------------------------------------------------------------------------------------------
def test_plan_warns_when_no_one_can_reach_an_entra_id_cluster():
    plan = run(True, mode="entraId", grantDeployer=False)
    (warning,) = [w for w in plan_findings(plan)[1] if "Entra ID" in w]
    assert "aks-e leaves no one able to reach its Kubernetes API" in warning
    assert "cluster.auth.grantDeployer" in warning and "adminGroupObjectIds" in warning
    assert any(v.policy == "entra-id-access" and not v.mandatory for v in check_plan(plan))


@pytest.mark.parametrize("auth", [
    {"mode": "entraId"},
    {"mode": "entraId", "grantDeployer": False, "adminGroupObjectIds": [GROUP]},
    {"mode": "entraId", "grantDeployer": False, "adminPrincipals": [{"objectId": PERSON, "principalType": "User"}]},
    {},
])
def test_no_warning_when_someone_is_admitted(auth):
    plan = run(True, **auth)
    assert [w for w in plan_findings(plan)[1] if "Entra ID" in w] == []


def test_the_warning_reads_the_plan_not_the_config():
    cluster = ("urn:c", CLUSTER, {"resourceName": "aks-x", "aadProfile": {"enableAzureRBAC": True}}, [])
    reader = ("urn:r", ROLE, {"roleDefinitionId": f"/x/roleDefinitions/{AKS_RBAC_READER}", "scope": "[unknown]"},
              ["urn:c"])
    admin_elsewhere = ("urn:a", ROLE, {"roleDefinitionId": f"/x/roleDefinitions/{AKS_RBAC_CLUSTER_ADMIN}",
                                       "scope": "/subscriptions/s/resourceGroups/g/providers/Microsoft.ContainerService/"
                                                "managedClusters/other"}, [])
    # Before anything exists: Grafana's reader (unknown role, scoped to the workspace) grants nothing here.
    unknown_elsewhere = ("urn:u", ROLE, {"roleDefinitionId": "[unknown]", "scope": "[unknown]"}, ["urn:workspace"])
    assert len(check_entra_id_access([cluster, reader, admin_elsewhere, unknown_elsewhere])) == 1
    admin_here = ("urn:h", ROLE, {"roleDefinitionId": f"/x/roleDefinitions/{AKS_RBAC_CLUSTER_ADMIN.upper()}",
                                  "scope": "/subscriptions/s/resourceGroups/g/providers/Microsoft.ContainerService/"
                                           "managedClusters/AKS-X"}, [])
    assert check_entra_id_access([cluster, admin_here]) == []
    unknown_on_cluster = ("urn:k", ROLE, {"roleDefinitionId": "[unknown]", "scope": "[unknown]"}, ["urn:c"])
    assert check_entra_id_access([cluster, unknown_on_cluster]) == []


def test_the_warning_reads_a_plan_document_too():
    document = run(True, mode="entraId", grantDeployer=False).to_dict()
    assert [w for w in plan_findings(document)[1] if "Entra ID" in w]
    assert not [w for w in plan_findings(run(True, mode="entraId").to_dict())[1] if "Entra ID" in w]


# --- propagation -------------------------------------------------------------------------------------------------------------
NOW = datetime(2026, 12, 4, 17, 0, tzinfo=timezone.utc)


def stamp(ago: timedelta) -> str:
    return (NOW - ago).strftime("%Y-%m-%dT%H:%M:%S.1234567Z")  # ARM writes seven fractional digits


def test_only_a_new_assignment_is_waited_for_and_only_what_is_left_of_five_minutes():
    assert propagation_delay([stamp(timedelta(seconds=60))], NOW) == pytest.approx(240, abs=1)
    assert propagation_delay([stamp(timedelta(days=3)), stamp(timedelta(minutes=4))], NOW) == pytest.approx(60, abs=1)
    assert propagation_delay([stamp(timedelta(minutes=6))], NOW) == 0
    assert propagation_delay([None, "not a time"], NOW) == 0  # unknown: nothing to wait for
    assert propagation_delay([stamp(-timedelta(hours=1))], NOW) == 300  # a clock ahead never makes it longer
