"""Entra ID access: the cluster's Azure RBAC settings, and a provider kubeconfig that never logs in by device code."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml

from components.azure.cluster import AksCluster
from components.azure.kubeconfig import AKS_AAD_SERVER_ID, to_kubelogin_kubeconfig
from components.config import AuthConfig, ClusterConfig, ConfigError, validate
from components.offline import SECRET, capture
from components.offline.mocks import entra_id_user_kubeconfig

CLUSTER = "azure-native:containerservice:ManagedCluster"
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
AKS_PUBLIC_CLIENT = "80faf920-1908-4b52-b5ef-a8e7bedfc67a"
SP_CLIENT = "3c1a2f7e-5b0d-4a51-9a57-0e6f1d2c4b88"
OTHER_TENANT = "9d3e6c1b-2f4a-4e8d-b1c7-5a6f0e2d3c19"
GROUP = "0b5c2d4e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"


def aks_kubeconfig() -> str:
    """AKS's Entra ID user kubeconfig (device code), plus a second, unrelated cluster/context/user to leave alone."""
    doc = yaml.safe_load(entra_id_user_kubeconfig("aks-prod", "rg-prod", TENANT))
    doc["clusters"].append({"name": "kind", "cluster": {"server": "https://127.0.0.1:6443"}})
    doc["contexts"].append({"name": "kind", "context": {"cluster": "kind", "user": "kind-admin"}})
    doc["users"].append({"name": "kind-admin", "user": {"token": "local-token"}})
    return yaml.safe_dump(doc, sort_keys=False)


def entra(**auth) -> AuthConfig:
    return AuthConfig.model_validate({"mode": "entraId", **auth})


def exec_of(text: str, user: str = "clusterUser_rg-prod_aks-prod") -> dict:
    (entry,) = [u for u in yaml.safe_load(text)["users"] if u["name"] == user]
    return entry["user"]["exec"]


# Expected argument lists follow kubelogin's own converter (pkg/internal/converter: "convert from devicecode to …").
CASES = {
    "azurecli": ({}, ["--login", "azurecli", "--server-id", AKS_AAD_SERVER_ID]),
    "azurecli, pinned tenant": (
        {"tenantId": OTHER_TENANT},
        ["--login", "azurecli", "--server-id", AKS_AAD_SERVER_ID, "--tenant-id", OTHER_TENANT],
    ),
    "workloadidentity, all from the environment": ({}, ["--login", "workloadidentity", "--server-id", AKS_AAD_SERVER_ID]),
    "workloadidentity, ids set": (
        {"clientId": SP_CLIENT, "tenantId": OTHER_TENANT},
        ["--login", "workloadidentity", "--server-id", AKS_AAD_SERVER_ID, "--client-id", SP_CLIENT, "--tenant-id", OTHER_TENANT],
    ),
    # kubelogin keeps the kubeconfig's ids for spn; AZURE_CLIENT_ID / AAD_SERVICE_PRINCIPAL_CLIENT_ID override at run time.
    "spn, ids from the kubeconfig": (
        {},
        ["--login", "spn", "--server-id", AKS_AAD_SERVER_ID, "--client-id", AKS_PUBLIC_CLIENT, "--tenant-id", TENANT,
         "--environment", "AzurePublicCloud"],
    ),
    "spn, ids and cloud set": (
        {"clientId": SP_CLIENT, "tenantId": OTHER_TENANT, "environment": "AzureUSGovernmentCloud"},
        ["--login", "spn", "--server-id", AKS_AAD_SERVER_ID, "--client-id", SP_CLIENT, "--tenant-id", OTHER_TENANT,
         "--environment", "AzureUSGovernmentCloud"],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_conversion_per_login_mode(case):
    auth_fields, expected = CASES[case]
    mode = expected[1]
    before = aks_kubeconfig()
    after = to_kubelogin_kubeconfig(before, entra(loginMode=mode, **auth_fields))

    assert "devicecode" in before and "devicecode" not in after
    converted = exec_of(after)
    assert converted["command"] == "kubelogin"
    assert converted["apiVersion"] == "client.authentication.k8s.io/v1beta1"
    assert converted["args"] == ["get-token", *expected]
    assert "--client-secret" not in after  # secrets come from the environment, never the kubeconfig


def test_conversion_leaves_clusters_contexts_and_other_users_alone():
    before = yaml.safe_load(aks_kubeconfig())
    after = yaml.safe_load(to_kubelogin_kubeconfig(aks_kubeconfig(), entra(loginMode="azurecli")))
    for key in ("apiVersion", "kind", "clusters", "contexts", "current-context", "preferences"):
        assert after[key] == before[key], key
    assert [u["name"] for u in after["users"]] == [u["name"] for u in before["users"]]
    assert after["users"][1] == before["users"][1]  # the token user is not kubelogin's business
    assert exec_of(yaml.safe_dump(after))["installHint"] == exec_of(yaml.safe_dump(before))["installHint"]


def test_local_accounts_and_non_kubelogin_kubeconfigs_pass_through_unchanged():
    text = aks_kubeconfig()
    assert to_kubelogin_kubeconfig(text, AuthConfig()) == text
    token_only = yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "users": [{"name": "u", "user": {"token": "t"}}]})
    assert yaml.safe_load(to_kubelogin_kubeconfig(token_only, entra())) == yaml.safe_load(token_only)


def test_spn_without_any_client_id_says_what_to_set():
    doc = yaml.safe_load(aks_kubeconfig())
    args = doc["users"][0]["user"]["exec"]["args"]
    del args[args.index("--client-id"):args.index("--client-id") + 2]
    with pytest.raises(ValueError, match=r"cluster\.auth\.clientId"):
        to_kubelogin_kubeconfig(yaml.safe_dump(doc), entra(loginMode="spn"))


# --- config ------------------------------------------------------------------------------------------------------------
def cluster_data(**auth) -> dict:
    return {"name": "aks-e", "location": "westeurope", "resourceGroup": {"name": "rg-e"}, "auth": auth}


@pytest.mark.parametrize(
    ("auth", "path", "text"),
    [
        ({"mode": "entraId", "loginMode": "devicecode"}, "cluster.auth.loginMode", "would hang in CI"),
        ({"mode": "entraId", "tenantId": "contoso"}, "cluster.auth.tenantId", "not a GUID"),
        ({"mode": "entraId", "adminGroupObjectIds": ["admins"]}, "cluster.auth.adminGroupObjectIds", "not an object ID"),
        ({"clientId": SP_CLIENT}, "cluster.auth.clientId", "needs mode 'entraId'"),
    ],
)
def test_bad_auth_settings_name_their_key(auth, path, text):
    with pytest.raises(ConfigError) as err:
        validate(ClusterConfig, cluster_data(**auth), "cluster")
    (problem,) = err.value.problems
    assert problem.path == path and text in problem.message


# --- the component under mocks -------------------------------------------------------------------------------------------
def run_cluster(monkeypatch: pytest.MonkeyPatch, preview: bool, **auth):
    config = ClusterConfig.model_validate(cluster_data(**auth))
    handed: list[pulumi.Output] = []
    original = k8s.Provider.__init__

    def spy(self, resource_name, *args, **kwargs):
        handed.append(kwargs["kubeconfig"])  # what the provider is really given
        original(self, resource_name, *args, **kwargs)

    monkeypatch.setattr(k8s.Provider, "__init__", spy)

    def program():
        cluster = AksCluster("c", config)
        pulumi.export("kubeconfig", cluster.kubeconfig)
        # Test-only: reveal both kubeconfigs to inspect what the mock handed out and what the provider got.
        pulumi.export("raw", pulumi.Output.unsecret(cluster.kubeconfig))
        pulumi.export("providerKubeconfig", pulumi.Output.unsecret(handed[0]))

    return capture(program, preview=preview)


def test_entra_id_cluster_uses_azure_rbac_and_a_non_interactive_provider(monkeypatch, preview):
    plan = run_cluster(monkeypatch, preview, mode="entraId", adminGroupObjectIds=[GROUP], loginMode="spn", clientId=SP_CLIENT)
    inputs = plan.one(CLUSTER).inputs
    assert inputs["disableLocalAccounts"] is True
    assert inputs["aadProfile"] == {"managed": True, "enableAzureRBAC": True, "adminGroupObjectIDs": [GROUP]}
    assert inputs["enableRBAC"] is True

    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == SECRET
    assert plan.outputs["kubeconfig"] == SECRET
    if preview:  # a first preview: the cluster and so its credentials do not exist yet
        assert plan.outputs["raw"] == plan.outputs["providerKubeconfig"] == "[unknown]"
        return
    # The mock hands out AKS's device-code kubeconfig; the provider gets the spn login instead.
    assert "devicecode" in plan.outputs["raw"]
    converted = plan.outputs["providerKubeconfig"]
    assert "devicecode" not in converted
    args = exec_of(converted, "clusterUser_rg-e_aks-e")["args"]
    assert args[:3] == ["get-token", "--login", "spn"] and args[args.index("--client-id") + 1] == SP_CLIENT


def test_local_accounts_stay_the_simple_default(monkeypatch, preview):
    plan = run_cluster(monkeypatch, preview)
    inputs = plan.one(CLUSTER).inputs
    assert inputs["disableLocalAccounts"] is False
    assert "aadProfile" not in inputs
    assert plan.one("pulumi:providers:kubernetes").inputs["kubeconfig"] == SECRET
    assert plan.outputs["providerKubeconfig"] == plan.outputs["raw"]
    assert "kubelogin" not in plan.outputs["raw"]
