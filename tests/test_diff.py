"""`diff`: added / changed / replaced / deleted resources between two plans, replacements and their cost called out.

Hand-made plans pin each rule of the decision; real plans (the prod stack and edited copies, planned through the CLI)
prove the whole path: a new VM size replaces a GPU pool with a downtime warning, new autoscaling bounds do not.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cli import main
from components.config.syntax import MISSING
from components.offline.plan import SECRET
from components.offline.urns import local_urn
from components.review.diff import diff_plans, value_changes
from components.review.diff_text import format_diff
from components.review.diff_warnings import successor_name
from components.review.replacement_rules import RULES, format_path, parse_path
from components.review.rules.model import (
    CLAIM,
    CLAIM_TEMPLATE,
    CLUSTER,
    DEVICE_CLASS,
    GROUP,
    JOB,
    K8S_PROVIDER,
    POOL,
    RELEASE,
    SAFE_CHANGES_DOC,
)
from tests.conftest import ROOT

NO_CHANGES = "0 to create, 0 to update, 0 to replace, 0 refused, 0 to delete"


def counts(create: int = 0, update: int = 0, replace: int = 0, refused: int = 0, delete: int = 0) -> dict[str, int]:
    return {"create": create, "update": update, "replace": replace, "refused": refused, "delete": delete}


# --- hand-made plans ----------------------------------------------------------------------------------------------------
def res(
    type_: str,
    name: str,
    inputs: dict[str, Any] | None = None,
    *,
    provider: str | None = None,
    deps: tuple[str, ...] = (),
    stack: str = "s",
    parent_type: str = "aks-dra-vgpu:index:Thing",
    **options: Any,
) -> dict[str, Any]:
    """One resource as a plan document holds it."""
    return {
        "urn": urn(type_, name, stack, parent_type),
        "type": type_,
        "name": name,
        "custom": True,
        "parent": None,
        "provider": provider,
        "dependencies": [urn(t, n, stack) for t, n in (d.split("::") for d in deps)],
        "inputs": inputs or {},
        "options": {"protect": False, "ignoreChanges": [], "replaceOnChanges": [], "deleteBeforeReplace": False,
                    "retainOnDelete": False, **options},
    }


def urn(type_: str, name: str, stack: str = "s", parent_type: str = "aks-dra-vgpu:index:Thing") -> str:
    """A URN the way the engine writes it."""
    return f"urn:pulumi:{stack}::aks-dra-vgpu::{parent_type}${type_}::{name}"


def plan(*resources: dict[str, Any], outputs: dict[str, Any] | None = None, stack: str = "s") -> dict[str, Any]:
    """A plan document."""
    return {"project": "aks-dra-vgpu", "stack": stack, "resources": list(resources), "outputs": outputs or {}}


def pool(**inputs: Any) -> dict[str, Any]:
    """A GPU pool's AgentPool with autoscaling, as GpuNodePool declares it."""
    base = {"agentPoolName": "a10s", "vmSize": "Standard_NV6ads_A10_v5", "count": 1, "enableAutoScaling": True,
            "minCount": 1, "maxCount": 3, "maxPods": 110, "nodeTaints": ["sku=gpu:NoSchedule"],
            "resourceName": "aks", "resourceGroupName": "rg"}
    return {**base, **inputs}


def one(result, name: str):
    (found,) = [r for r in result.resources if r.name == name]
    return found


def test_identical_plans_change_nothing():
    doc = plan(res(POOL, "p", pool()), outputs={"kubeconfig": SECRET})
    result = diff_plans(doc, json.loads(json.dumps(doc)))
    assert not result.has_changes
    assert result.resources == () and result.outputs == ()
    assert format_diff(result).endswith(NO_CHANGES + "\n")


def test_added_changed_and_deleted_resources_are_counted_with_their_paths():
    old = plan(res(POOL, "keep", pool()), res(POOL, "gone", pool(agentPoolName="gone")))
    new = plan(res(POOL, "keep", pool(maxCount=5)), res(POOL, "new", pool(agentPoolName="new")))
    result = diff_plans(old, new)
    assert result.counts == counts(create=1, update=1, delete=1)
    assert result.summary() == "1 to create, 1 to update, 0 to replace, 0 refused, 1 to delete"
    changed = one(result, "keep").to_dict()
    assert changed["operation"] == "update"
    assert changed["changes"] == [{"path": "maxCount", "old": 3, "new": 5}]
    assert one(result, "new").operation == "create" and one(result, "gone").operation == "delete"
    assert result.exit_status == 3


def test_a_new_vm_size_replaces_the_pool_with_a_downtime_warning_and_the_safe_path():
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(vmSize="Standard_NV12ads_A10_v5"))))
    replaced = one(result, "p")
    assert replaced.operation == "replace" and replaced.delete_before_replace is True
    (change,) = replaced.changes
    assert change.path == "vmSize" and "replace" in change.effects
    assert all(r.source.startswith("https://") for r in change.rules)
    text = format_diff(result)
    assert "+- AgentPool p  REPLACE (delete first)" in text
    assert "DOWNTIME" in text and SAFE_CHANGES_DOC in text and "'a10s2'" in text
    assert text.endswith("0 to create, 0 to update, 1 to replace, 0 refused, 0 to delete\n")
    assert replaced.to_dict()["deleteBeforeReplace"] is True and result.exit_status == 3


@pytest.mark.parametrize("path, value", [("agentPoolName", "a10t"), ("resourceName", "aks2"), ("gpuInstanceProfile", "MIG1g")])
def test_what_pulumi_azure_native_forces_new_replaces_the_pool_delete_first(path, value):
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(**{path: value}))))
    assert one(result, "p").operation == "replace" and one(result, "p").delete_before_replace is True
    assert "DOWNTIME" in format_diff(result)


@pytest.mark.parametrize("path, value", [
    ("maxPods", 50), ("availabilityZones", ["1"]), ("osType", "Windows"), ("gpuProfile", {"driver": "None"}),
    ("osDiskSizeGB", 256), ("vnetSubnetID", "/subnets/x"),
])
def test_pool_settings_azure_refuses_in_place_are_refused_not_replaced(path, value):
    # Not in pulumi-azure-native's force-new list: Pulumi attempts an update and AKS refuses it (Azure/AKS #1790).
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(**{path: value}))))
    refused = one(result, "p")
    assert refused.operation == "refused" and refused.refused_by == "Azure"
    text = format_diff(result)
    assert "REFUSED by Azure" in text and "DOWNTIME" not in text and "'a10s2'" in text
    assert result.exit_status == 4 and result.to_dict()["resources"][0]["refusedBy"] == "Azure"


def test_os_sku_rebuilds_every_node_in_place():
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(osSKU="AzureLinux"))))
    assert one(result, "p").operation == "update"
    assert any("every node is rebuilt" in w for w in one(result, "p").warnings)


@pytest.mark.parametrize("inputs", [
    {"minCount": 0}, {"maxCount": 6}, {"minCount": 2, "maxCount": 8}, {"nodeTaints": ["sku=gpu:NoSchedule", "b=c:NoExecute"]},
    {"nodeLabels": {"team": "ml"}},
])
def test_autoscaling_bounds_labels_and_taints_change_in_place(inputs):
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(**inputs))))
    assert result.counts == counts(update=1)


def test_ignored_count_never_diffs_but_an_owned_count_does():
    ignoring = {"ignoreChanges": ["count"]}
    quiet = diff_plans(plan(res(POOL, "p", pool(count=1), **ignoring)), plan(res(POOL, "p", pool(count=4), **ignoring)))
    assert not quiet.has_changes
    loud = diff_plans(plan(res(POOL, "p", pool(count=1))), plan(res(POOL, "p", pool(count=4))))
    assert [c.path for c in one(loud, "p").changes] == ["count"]


def test_two_secrets_are_equal_and_a_value_next_to_a_secret_is_never_shown():
    same = diff_plans(plan(outputs={"kubeconfig": SECRET}), plan(outputs={"kubeconfig": SECRET}))
    assert not same.has_changes
    exposed = diff_plans(plan(outputs={"kubeconfig": SECRET}), plan(outputs={"kubeconfig": "token-abc"}))
    assert exposed.has_changes
    text = format_diff(exposed) + json.dumps(exposed.to_dict())
    assert "token-abc" not in text
    assert "was a secret and is not one now" in text
    hidden = diff_plans(
        plan(res(K8S_PROVIDER, "k", {"kubeconfig": "plain-xyz"})), plan(res(K8S_PROVIDER, "k", {"kubeconfig": SECRET}))
    )
    text = format_diff(hidden) + json.dumps(hidden.to_dict())
    assert "plain-xyz" not in text and "a secret may have changed" in text


def test_a_resource_that_moves_to_another_provider_is_replaced():
    p1, p2 = urn(K8S_PROVIDER, "k8s-a"), urn(K8S_PROVIDER, "k8s-b")
    old = plan(res(K8S_PROVIDER, "k8s-a"), res(K8S_PROVIDER, "k8s-b"), res(DEVICE_CLASS, "dc", provider=f"{p1}::id-a"))
    new = plan(res(K8S_PROVIDER, "k8s-a"), res(K8S_PROVIDER, "k8s-b"), res(DEVICE_CLASS, "dc", provider=f"{p2}::id-b"))
    moved = one(diff_plans(old, new), "dc")
    assert moved.operation == "replace"
    assert any("another provider" in r.why for r in moved.reasons)


def test_a_provider_id_alone_is_not_a_change():
    p = urn(K8S_PROVIDER, "k8s")
    old = plan(res(K8S_PROVIDER, "k8s"), res(DEVICE_CLASS, "dc", provider=f"{p}::id-1"))
    new = plan(res(K8S_PROVIDER, "k8s"), res(DEVICE_CLASS, "dc", provider=f"{p}::id-2"))
    assert not diff_plans(old, new).has_changes


def cluster_doc(location: str, cluster_id: str, tags: dict[str, str] | None = None, protect: bool = False) -> dict[str, Any]:
    provider = urn(K8S_PROVIDER, "k8s")
    return plan(
        res(GROUP, "rg", {"location": "westeurope"}),
        res(CLUSTER, "aks", {"location": location, "tags": tags or {}}, deps=(f"{GROUP}::rg",), protect=protect),
        res(POOL, "p", pool(), deps=(f"{CLUSTER}::aks",)),
        res(K8S_PROVIDER, "k8s", {"clusterIdentifier": cluster_id, "kubeconfig": SECRET}, deps=(f"{CLUSTER}::aks",)),
        res(RELEASE, "driver", {"name": "nvidia-dra-driver-gpu"}, provider=f"{provider}::id"),
        res(DEVICE_CLASS, "dc", {"metadata": {"name": "a10-vgpu"}}, provider=f"{provider}::id"),
    )


def test_replacing_the_cluster_replaces_its_pools_and_through_the_identifier_every_kubernetes_object():
    result = diff_plans(cluster_doc("westeurope", "aks:rg/aks#1"), cluster_doc("northeurope", "aks:rg/aks#2"))
    operations = {r.name: r.operation for r in result.resources}
    assert operations == {"aks": "replace", "p": "replace", "k8s": "replace", "driver": "replace", "dc": "replace"}
    assert "rg" not in operations
    assert any("its cluster is replaced" in r.why for r in one(result, "p").reasons)
    assert not any(w.startswith("safe path") for w in one(result, "p").warnings)
    assert any("its provider is replaced" in r.why for r in one(result, "dc").reasons)
    assert one(result, "aks").delete_before_replace is True and one(result, "k8s").delete_before_replace is False
    assert not result.blocked and result.exit_status == 3


def test_an_in_place_cluster_update_touches_no_kubernetes_object():
    result = diff_plans(cluster_doc("westeurope", "aks:rg/aks#1"), cluster_doc("westeurope", "aks:rg/aks#1", {"team": "ml"}))
    assert {r.name: r.operation for r in result.resources} == {"aks": "update"}


def test_a_protected_cluster_that_would_be_replaced_is_refused_by_pulumi():
    result = diff_plans(cluster_doc("westeurope", "a#1", protect=True), cluster_doc("northeurope", "a#2", protect=True))
    cluster = one(result, "aks")
    assert cluster.operation == "refused" and cluster.refused_by == "Pulumi"
    assert any("protected" in w for w in cluster.warnings) and result.exit_status == 4


def test_a_cluster_unprotected_in_the_same_update_is_replaced_delete_first():
    """Pulumi refuses a replacement only when old and new are protected (step_generator.go: new.Protect && old.Protect)."""
    result = diff_plans(cluster_doc("westeurope", "a#1", protect=True), cluster_doc("northeurope", "a#2", protect=False))
    cluster = one(result, "aks")
    assert cluster.operation == "replace" and cluster.refused_by is None and cluster.delete_before_replace is True
    assert any("protect is turned off in this same update, so Pulumi replaces it" in w for w in cluster.warnings)
    assert not any("stops with an error" in w for w in cluster.warnings)
    assert result.exit_status == 3
    assert "REPLACE (delete first)" in format_diff(result)


def test_protecting_in_the_same_update_refuses_the_replacement_too():
    result = diff_plans(cluster_doc("westeurope", "a#1"), cluster_doc("northeurope", "a#2", protect=True))
    assert one(result, "aks").operation == "replace"  # the old state is not protected: the engine goes ahead
    both = diff_plans(cluster_doc("westeurope", "a#1", protect=True), cluster_doc("northeurope", "a#2", protect=True))
    assert any("turn protect off in the same update" in w for w in one(both, "aks").warnings)


def test_a_protected_dependent_replaced_with_its_cluster_is_refused_even_when_unprotected_now():
    old, new = cluster_doc("westeurope", "a#1"), cluster_doc("northeurope", "a#2")
    for r in old["resources"]:
        if r["name"] == "p":
            r["options"]["protect"] = True
    result = diff_plans(old, new)
    pool_diff = one(result, "p")
    assert pool_diff.operation == "refused" and pool_diff.refused_by == "Pulumi"
    assert any("pulumi state unprotect" in w for w in pool_diff.warnings) and result.exit_status == 4


def test_a_replaced_cluster_under_an_unchanged_identifier_must_not_be_applied():
    result = diff_plans(cluster_doc("westeurope", "same"), cluster_doc("northeurope", "same"))
    assert one(result, "aks").operation == "replace"
    assert "k8s" not in {r.name for r in result.resources}
    assert result.blocked and "clusterIdentifier unchanged" in result.blocked[0]
    assert result.exit_status == 4


def test_system_pool_changes_are_refused_not_a_cluster_replacement():
    def cluster(**profile: Any) -> dict[str, Any]:
        system = {"name": "system", "vmSize": "Standard_D4ds_v5", "count": 1, "mode": "System", **profile}
        return res(CLUSTER, "aks", {"location": "westeurope", "agentPoolProfiles": [system]})

    result = diff_plans(plan(cluster()), plan(cluster(vmSize="Standard_D8ds_v5")))
    changed = one(result, "aks")
    assert changed.operation == "refused" and changed.refused_by == "Azure"
    # The reason is said once, on the change line; the list entry is named by its identity, not its index.
    vm_size = next(c for c in changed.changes if c.path == 'agentPoolProfiles[name="system"].vmSize')
    assert "refused" in vm_size.effects
    assert format_diff(result).count(vm_size.rules[0].why) == 1
    scaled = one(diff_plans(plan(cluster()), plan(cluster(count=3))), "aks")
    assert scaled.operation == "update" and scaled.warnings == ()


def test_adding_a_list_item_does_not_count_as_changing_an_existing_item():
    system = {"name": "system", "vmSize": "Standard_D4ds_v5"}
    extra = {"name": "system2", "vmSize": "Standard_D8ds_v5"}
    old = plan(res(CLUSTER, "aks", {"agentPoolProfiles": [system]}))
    new = plan(res(CLUSTER, "aks", {"agentPoolProfiles": [system, extra]}))
    changed = one(diff_plans(old, new), "aks")
    assert changed.operation == "update" and changed.warnings == ()


@pytest.mark.parametrize("type_, old, new, action", [
    (CLAIM_TEMPLATE, {"spec": {"spec": {"devices": {"requests": [{"name": "gpu"}]}}}},
     {"spec": {"spec": {"devices": {"requests": [{"name": "gpu2"}]}}}}, "refused"),
    (CLAIM, {"spec": {"devices": {"requests": [{"name": "gpu"}]}}}, {"spec": {"devices": {"requests": [{"name": "x"}]}}},
     "refused"),
    (DEVICE_CLASS, {"spec": {"selectors": [{"cel": {"expression": "a"}}]}},
     {"spec": {"selectors": [{"cel": {"expression": "b"}}]}}, "update"),
    (DEVICE_CLASS, {"metadata": {"name": "a10-vgpu"}}, {"metadata": {"name": "a10"}}, "replace"),
    (JOB, {"spec": {"template": {"spec": {"containers": [{"image": "a"}]}}}},
     {"spec": {"template": {"spec": {"containers": [{"image": "b"}]}}}}, "replace"),
    (JOB, {"metadata": {"labels": {"a": "1"}}}, {"metadata": {"labels": {"a": "2"}}}, "update"),
    (RELEASE, {"namespace": "nvidia-dra-driver-gpu"}, {"namespace": "dra"}, "replace"),
])
def test_kubernetes_identity_and_immutable_specs(type_, old, new, action):
    assert one(diff_plans(plan(res(type_, "x", old)), plan(res(type_, "x", new))), "x").operation == action


def test_claims_with_replace_on_changes_are_replaced_delete_first():
    opts = {"replaceOnChanges": ["spec"], "deleteBeforeReplace": True}
    old = {"metadata": {"name": "a10-vgpu-4gib"}, "spec": {"spec": {"devices": {"requests": [{"name": "gpu"}]}}}}
    new = {"metadata": {"name": "a10-vgpu-4gib"}, "spec": {"spec": {"devices": {"requests": [{"name": "gpu2"}]}}}}
    result = diff_plans(plan(res(CLAIM_TEMPLATE, "t", old, **opts)), plan(res(CLAIM_TEMPLATE, "t", new, **opts)))
    assert one(result, "t").operation == "replace" and one(result, "t").delete_before_replace is True
    assert result.exit_status == 3


def test_a_renamed_release_is_replaced_create_first_unless_it_deletes_first():
    old, new = {"name": "nvidia-dra-driver-gpu"}, {"name": "dra"}
    create_first = one(diff_plans(plan(res(RELEASE, "r", old)), plan(res(RELEASE, "r", new))), "r")
    assert create_first.operation == "replace" and create_first.delete_before_replace is False
    dbr = {"deleteBeforeReplace": True}
    delete_first = one(diff_plans(plan(res(RELEASE, "r", old, **dbr)), plan(res(RELEASE, "r", new, **dbr))), "r")
    assert delete_first.delete_before_replace is True


def cluster_and_pool(cluster_version: str, pool_version: str, system_version: str | None = None) -> dict[str, Any]:
    system = {"name": "system", "mode": "System", "orchestratorVersion": system_version or cluster_version}
    return plan(
        res(CLUSTER, "aks", {"resourceName": "aks", "resourceGroupName": "rg", "kubernetesVersion": cluster_version,
                             "agentPoolProfiles": [system]}),
        res(POOL, "p", pool(orchestratorVersion=pool_version), deps=(f"{CLUSTER}::aks",)),
    )


def test_a_kubernetes_upgrade_updates_the_control_plane_and_rolls_every_pool_in_place():
    result = diff_plans(cluster_and_pool("1.34", "1.34"), cluster_and_pool("1.35", "1.35"))
    assert {r.name: r.operation for r in result.resources} == {"aks": "update", "p": "update"}
    assert any("rolling upgrade" in w and "surge" in w and "drains" in w for w in one(result, "p").warnings)
    assert any("system pool" in r.why for c in one(result, "aks").changes for r in c.rules)
    assert result.exit_status == 3


@pytest.mark.parametrize("old, new, why", [
    (("1.34", "1.34"), ("1.36", "1.36"), "skips a minor version"),
    (("1.35", "1.35"), ("1.34", "1.34"), "downgrade"),
    (("1.35", "1.35"), ("1.35", "1.36"), "newer than the control plane"),
    (("1.36", "1.36"), ("1.37", "1.34", "1.37"), "more than 2 minor versions behind"),
])
def test_upgrades_aks_refuses_are_refused(old, new, why):
    result = diff_plans(cluster_and_pool(*old), cluster_and_pool(*new))
    refusals = [r for d in result.resources for r in (*d.reasons, *(x for c in d.changes for x in c.rules))
                if r.effect == "refused"]
    assert any(why in r.why for r in refusals), refusals
    assert result.exit_status == 4


def test_a_resource_moved_with_an_alias_is_not_recreated():
    old = plan(res(POOL, "p", pool(), parent_type="aks-dra-vgpu:index:GpuNodePool"))
    moved = res(POOL, "p", pool(), parent_type="aks-dra-vgpu:index:GpuPlatform",
                aliases=[urn(POOL, "p", parent_type="aks-dra-vgpu:index:GpuNodePool")])
    result = diff_plans(old, plan(moved))
    (only,) = result.resources
    assert only.operation == "update" and only.moved_from is not None
    assert result.counts == counts(update=1)


def test_device_class_selectors_update_in_place_with_a_note():
    old = plan(res(DEVICE_CLASS, "dc", {"spec": {"selectors": [{"cel": {"expression": "a"}}]}}))
    new = plan(res(DEVICE_CLASS, "dc", {"spec": {"selectors": [{"cel": {"expression": "b"}}]}}))
    assert any("claims already allocated keep" in w for w in one(diff_plans(old, new), "dc").warnings)


@pytest.mark.parametrize("before, after, said", [
    ("a.io/a10-8gib", "b.io/a10-8gib", "the class now serves the new name only; pods already running keep their claims, "
     "and a pod not yet scheduled that asks for the old name stays Pending"),
    ("a.io/a10-8gib", None, "the class serves no name any more"),
    (None, "a.io/a10-8gib", "pods not yet scheduled that ask for the name are given a device of this class"),
])
def test_a_device_class_s_extended_resource_name_says_which_pods_it_serves_not_the_selectors(before, after, said):
    def spec(name: str | None) -> dict[str, Any]:
        return {"spec": {"selectors": [{"cel": {"expression": "a"}}], **({"extendedResourceName": name} if name else {})}}

    warnings = one(diff_plans(plan(res(DEVICE_CLASS, "dc", spec(before))), plan(res(DEVICE_CLASS, "dc", spec(after)))),
                   "dc").warnings
    assert len(warnings) == 1 and said in warnings[0] and "selectors" not in warnings[0]


def test_the_resources_own_replace_on_changes_option_replaces():
    opts = {"replaceOnChanges": ["nodeLabels"]}
    result = diff_plans(plan(res(POOL, "p", pool(), **opts)), plan(res(POOL, "p", pool(nodeLabels={"a": "b"}), **opts)))
    assert one(result, "p").operation == "replace"


def test_option_changes_are_state_only_changes():
    result = diff_plans(plan(res(CLUSTER, "aks")), plan(res(CLUSTER, "aks", protect=True)))
    (option,) = one(result, "aks").options
    assert (option.path, option.old, option.new) == ("protect", False, True)
    assert "Pulumi state only" in format_diff(result)


def test_deleting_retained_and_protected_resources_is_called_out():
    old = plan(res(CLUSTER, "aks", protect=True, retainOnDelete=True))
    (gone,) = diff_plans(old, plan()).resources
    assert gone.operation == "refused" and gone.refused_by == "Pulumi"
    assert any("protected" in w for w in gone.warnings)
    (retained,) = diff_plans(plan(res(CLUSTER, "aks", retainOnDelete=True)), plan()).resources
    assert retained.operation == "delete" and any("stays in Azure" in w for w in retained.warnings)


def test_plans_of_different_stacks_compare_resource_by_resource():
    old = plan(res(POOL, "p", pool(), stack="prod"), stack="prod")
    new = plan(res(POOL, "p", pool(maxCount=9), stack="prod-next"), stack="prod-next")
    result = diff_plans(old, new)
    assert result.counts["update"] == 1 and result.counts["create"] == 0
    assert format_diff(result).startswith("aks-dra-vgpu/prod -> prod-next:")
    assert local_urn(old["resources"][0]["urn"]) == local_urn(new["resources"][0]["urn"])


def test_replacing_a_pool_beside_removing_another_in_one_update_is_flagged():
    old = plan(res(POOL, "a", pool(agentPoolName="a")))
    new = plan(res(POOL, "b", pool(agentPoolName="b")))
    assert any("in the same update" in w for w in diff_plans(old, new).warnings)


def test_a_resource_that_changes_parent_is_recreated_and_flagged():
    old = plan(res(POOL, "p", pool(), parent_type="aks-dra-vgpu:index:GpuNodePool"))
    new = plan(res(POOL, "p", pool(), parent_type="aks-dra-vgpu:index:GpuPlatform"))
    result = diff_plans(old, new)
    assert result.counts == counts(create=1, delete=1)
    assert any("URN changed" in w for w in result.warnings)


def test_value_changes_are_leaf_by_leaf():
    found = value_changes({"a": {"b": 1, "c": [{}, {}]}, "d": 1}, {"a": {"b": 2, "c": [{}]}, "e": 1})
    assert [(format_path(p), o, n) for p, o, n in found] == [
        ("a.b", 1, 2), ("a.c[1]", {}, MISSING), ("d", 1, MISSING), ("e", MISSING, 1),
    ]


# --- the rules table ----------------------------------------------------------------------------------------------------
def test_every_rule_is_sourced_and_well_formed():
    assert len(RULES) > 30
    for rule in RULES:
        assert rule.source.startswith("https://"), rule
        assert rule.why and rule.effect in {"replace", "rebuild", "refused", "note"}, rule
        assert (rule.path is None) == (rule.after is not None), rule
        if rule.path is not None:
            assert format_path(parse_path(rule.path)) == rule.path


def test_the_pool_rules_follow_the_providers_force_new_list():
    replacing = {r.path for r in RULES if r.type == POOL and r.effect == "replace"}
    assert {"vmSize", "agentPoolName", "gpuInstanceProfile", "resourceName", "resourceGroupName"} <= replacing
    assert not {"maxPods", "availabilityZones", "osDiskSizeGB"} & replacing  # attempted in place, refused by AKS
    refused = {r.path for r in RULES if r.type == POOL and r.effect == "refused"}
    assert {"maxPods", "osType", "availabilityZones", "vnetSubnetID", "gpuProfile.driver", "osDiskSizeGB"} <= refused
    assert "enableFIPS" not in refused and "enableFIPS" not in replacing  # AKS switches FIPS in place (a reimage)


def test_fips_on_an_existing_pool_is_an_in_place_update_that_reimages():
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(enableFIPS=True))))
    change = one(result, "p")
    assert change.operation == "update" and result.exit_status == 3
    assert any("FIPS" in w and "reimages" in w for w in change.warnings)


def test_every_rule_names_a_public_source():
    for rule in RULES:
        assert rule.source.startswith("https://") and rule.why, rule


@pytest.mark.parametrize("text, parts", [
    ("vmSize", ("vmSize",)),
    ("agentPoolProfiles[*].vmSize", ("agentPoolProfiles", "*", "vmSize")),
    ('nodeLabels["nvidia.com/gpu.present"]', ("nodeLabels", "nvidia.com/gpu.present")),
    ("spec.selectors[0].cel.expression", ("spec", "selectors", 0, "cel", "expression")),
])
def test_property_paths_round_trip(text, parts):
    assert parse_path(text) == parts
    assert format_path(parts) == text


def test_successor_names_stay_valid_pool_names():
    assert successor_name("a10s") == "a10s2"
    assert successor_name("a10s2") == "a10s3"
    assert successor_name("twelvecharsx") == "twelvechars2"


def test_the_safe_changes_doc_describes_the_path_the_diff_points_to():
    text = (ROOT / SAFE_CHANGES_DOC).read_text()
    assert "a new pool beside the old one" in text
    assert "retainOnDelete" in text and "protect" in text


# --- real plans through the CLI -----------------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def plan_json(project: Path, stack: str) -> str:
    """`plan --json` through the CLI's own entry point."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", stack, "--project-dir", str(project), "--json"]) == 0
    return buffer.getvalue()


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """prod as it is, and copies of prod with one change each, planned and written to files."""
    work = tmp_path_factory.mktemp("diff")
    shutil.copy(ROOT / "Pulumi.yaml", work / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", work / "__main__.py")
    (work / "stacks").mkdir()
    prod = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    full = next(p for p in prod["config"]["aks-dra-vgpu:gpuPools"] if p["name"] == "a10full")
    assert full["vmSize"] == "Standard_NV36ads_A10_v5"
    variants = {
        "vmsize": lambda pools: pools[[p["name"] for p in pools].index("a10full")].update(vmSize="Standard_NV36adms_A10_v5"),
        "bounds": lambda pools: pools[[p["name"] for p in pools].index("a10third")]["autoscaling"].update(maxCount=8),
    }
    files = {"prod": work / "prod.json"}
    files["prod"].write_text(plan_json(ROOT, "prod"))
    for name, change in variants.items():
        doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
        change(doc["config"]["aks-dra-vgpu:gpuPools"])
        # Same stack name as the original: the copy is prod with one edit, as a pull request would make it.
        (work / "stacks" / "Pulumi.prod.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
        files[name] = work / f"{name}.json"
        files[name].write_text(plan_json(work, "prod"))
    return files


def test_real_plans_a_new_vm_size_replaces_that_pool_with_downtime(plans, capsys):
    status, out, err = run(capsys, "diff", str(plans["prod"]), str(plans["vmsize"]))
    assert (status, err) == (3, "")
    assert "+- AgentPool gpu-a10full-pool  REPLACE (delete first)" in out
    assert 'vmSize: "Standard_NV36ads_A10_v5" -> "Standard_NV36adms_A10_v5"' in out
    assert "DOWNTIME" in out and SAFE_CHANGES_DOC in out
    assert out.endswith("0 to create, 0 to update, 1 to replace, 0 refused, 0 to delete\n")


def test_real_plans_new_autoscaling_bounds_are_an_in_place_change(plans, capsys):
    status, out, _ = run(capsys, "diff", str(plans["prod"]), str(plans["bounds"]))
    assert status == 3
    assert "~  AgentPool gpu-a10third-pool  update" in out and "maxCount: 6 -> 8" in out
    assert "REPLACE" not in out and "DOWNTIME" not in out
    assert out.endswith("0 to create, 1 to update, 0 to replace, 0 refused, 0 to delete\n")


def test_real_plans_identical_exit_0(plans, capsys):
    status, out, err = run(capsys, "diff", str(plans["prod"]), str(plans["prod"]))
    assert (status, err) == (0, "")
    assert out.endswith(NO_CHANGES + "\n")
    status, out, _ = run(capsys, "diff", "--json", str(plans["prod"]), str(plans["prod"]))
    doc = json.loads(out)
    assert status == 0 and doc["hasChanges"] is False
    assert doc["summary"] == counts()


def test_real_plans_json_names_the_replacement_and_its_source(plans, capsys):
    status, out, _ = run(capsys, "diff", "--json", str(plans["prod"]), str(plans["vmsize"]))
    doc = json.loads(out)
    (pool_diff,) = doc["resources"]
    assert status == 3 and pool_diff["operation"] == "replace" and pool_diff["deleteBeforeReplace"] is True
    (change,) = pool_diff["changes"]
    assert change["path"] == "vmSize" and change["rules"][0]["source"].startswith("https://")


def test_diff_of_a_file_that_is_not_a_plan_exits_2(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    status, out, err = run(capsys, "diff", str(broken), str(broken))
    assert (status, out) == (2, "") and "broken.json" in err
    status, out, err = run(capsys, "diff", str(tmp_path / "missing.json"), str(broken))
    assert (status, out) == (2, "") and "no such file" in err
    shapeless = tmp_path / "shapeless.json"
    shapeless.write_text(json.dumps({"resources": [{"name": "x"}]}))
    status, out, err = run(capsys, "diff", str(shapeless), str(shapeless))
    assert (status, out) == (2, "") and "resources[0] needs text values for urn, type and name" in err
    assert "Traceback" not in err
