"""What a reviewer of prod sees of access: the cluster's Entra ID settings, SKU tier and identity in the plan tree,
and each role assignment's role (by name and ID), principal type and scope in the tree and in the diff, before and
after the first `up`."""

from __future__ import annotations

import copy

import pytest

from components.catalog.roles import AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_READER, role_label
from components.offline import capture
from components.platform import GpuPlatform
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from components.review.tree import render_tree
from tests.test_production_stack import prod_config

ROLE = "azure-native:authorization:RoleAssignment"
ADMIN = f"Azure Kubernetes Service RBAC Cluster Admin ({AKS_RBAC_CLUSTER_ADMIN})"


@pytest.fixture(scope="module")
def plans():
    """prod before its first `up` (a first preview) and after it (an update run)."""
    return {preview: capture(lambda: GpuPlatform("gpu", prod_config()), stack="prod", preview=preview)
            for preview in (True, False)}


def block(tree: str, head: str) -> list[str]:
    """The rows under one resource of the tree."""
    lines = tree.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(head))
    depth = len(lines[start]) - len(lines[start].lstrip())
    rows = []
    for line in lines[start + 1:]:
        if line.lstrip().startswith("- ") and len(line) - len(line.lstrip()) <= depth + 2:
            break
        rows.append(line.strip())
    return rows


@pytest.mark.parametrize("preview", [True, False])
def test_the_tree_shows_the_clusters_entra_id_tier_and_identity(plans, preview):
    rows = block(render_tree(plans[preview]), "- ManagedCluster gpu-cluster-aks")
    assert "aadProfile.enableAzureRBAC: true" in rows
    assert 'aadProfile.adminGroupObjectIDs: ["00000000-0000-0000-0000-00000000a0a0"]' in rows
    assert "sku.tier: Standard" in rows and "identity.type: UserAssigned" in rows


@pytest.mark.parametrize("preview", [True, False])
def test_the_tree_shows_each_role_assignment_by_role_principal_type_and_scope(plans, preview):
    tree = render_tree(plans[preview])
    rows = block(tree, "- RoleAssignment gpu-cluster-deployer-admin")
    assert rows[:2] == [f"role: {ADMIN}", "principalType: ServicePrincipal"]
    assert rows[2].startswith("principalId: ") and rows[3].startswith("scope: ")
    if not preview:
        assert rows[3].endswith("/managedClusters/aks-dra-prod")
    reader = block(tree, "- RoleAssignment gpu-prometheus-grafana-reader")
    assert reader[0] == "role: Monitoring Data Reader (b0d8363b-8ddd-447d-831f-62ca05bff136)"


def test_the_role_is_known_before_the_first_up_and_does_not_change_after_it(plans):
    before, after = (plans[p].one(ROLE, "gpu-cluster-deployer-admin").inputs for p in (True, False))
    assert before["roleDefinitionId"] == after["roleDefinitionId"]
    assert before["roleDefinitionId"].endswith(f"/providers/Microsoft.Authorization/roleDefinitions/{AKS_RBAC_CLUSTER_ADMIN}")
    result = diff_plans(plans[True].to_dict(), plans[False].to_dict())
    (grant,) = [d for d in result.resources if d.name == "gpu-cluster-deployer-admin"]
    assert "roleDefinitionId" not in {c.path for c in grant.changes}  # no role change to alarm anyone
    assert grant.grants == f"grants {ADMIN} to a ServicePrincipal 00000000-0000-0000-0000-0000000000d0"
    assert grant.to_dict()["grants"] == grant.grants


def test_the_diff_says_which_role_a_new_grant_gives(plans):
    empty = {"project": "aks-dra-vgpu", "stack": "prod", "resources": [], "outputs": {}}
    text = format_diff(diff_plans(empty, plans[True].to_dict()))
    assert (f"+  RoleAssignment gpu-cluster-deployer-admin  create\n      grants {ADMIN} to a ServicePrincipal\n"
            in text)
    assert "grants Monitoring Data Reader (b0d8363b-8ddd-447d-831f-62ca05bff136) to a ServicePrincipal" in text


def test_the_diff_names_the_role_before_when_it_changes(plans):
    old = plans[False].to_dict()
    new = copy.deepcopy(old)
    grant = next(r for r in new["resources"] if r["name"] == "gpu-cluster-deployer-admin")
    grant["inputs"]["roleDefinitionId"] = grant["inputs"]["roleDefinitionId"].replace(AKS_RBAC_CLUSTER_ADMIN, AKS_RBAC_READER)
    (changed,) = [d for d in diff_plans(old, new).resources if d.name == "gpu-cluster-deployer-admin"]
    assert changed.grants.startswith(f"grants Azure Kubernetes Service RBAC Reader ({AKS_RBAC_READER}) to a ")
    assert changed.grants.endswith(f"(before: {ADMIN})")


@pytest.mark.parametrize(("value", "label"), [
    (f"/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/{AKS_RBAC_CLUSTER_ADMIN}", ADMIN),
    (f"/providers/Microsoft.Authorization/roleDefinitions/{AKS_RBAC_CLUSTER_ADMIN.upper()}",
     f"Azure Kubernetes Service RBAC Cluster Admin ({AKS_RBAC_CLUSTER_ADMIN.upper()})"),  # ARM's tenant form
    ("/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
     "acdd72a7-3385-48ef-bd42-f606fba81ae7"),  # a role the package does not grant: its ID
    ("[unknown]", None),
])
def test_a_role_reads_by_name_and_id_in_any_form(value, label):
    assert role_label(value) == label
