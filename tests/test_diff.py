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
from components.offline.diff import MISSING, diff_plans, format_diff, local_urn, successor_name, value_changes
from components.offline.plan import SECRET
from components.offline.replacement_rules import (
    CLAIM_TEMPLATE,
    CLUSTER,
    DEVICE_CLASS,
    GROUP,
    JOB,
    K8S_PROVIDER,
    POOL,
    RELEASE,
    RULES,
    SAFE_CHANGES_DOC,
    format_path,
    parse_path,
)
from tests.conftest import ROOT

NO_CHANGES = "0 to add, 0 to change, 0 to replace, 0 to delete"


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
    assert result.counts == {"add": 1, "change": 1, "replace": 0, "delete": 1}
    assert result.summary() == "1 to add, 1 to change, 0 to replace, 1 to delete"
    changed = one(result, "keep").to_dict()
    assert changed["action"] == "change"
    assert changed["changes"] == [{"path": "maxCount", "old": 3, "new": 5}]
    assert one(result, "new").action == "add" and one(result, "gone").action == "delete"


def test_a_new_vm_size_replaces_the_pool_with_a_downtime_warning_and_the_safe_path():
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(vmSize="Standard_NV12ads_A10_v5"))))
    replaced = one(result, "p")
    assert replaced.action == "replace"
    (change,) = replaced.changes
    assert change.path == "vmSize" and "replace" in change.effects
    assert all(r.source.startswith("https://") for r in change.rules)
    text = format_diff(result)
    assert "+- AgentPool p  REPLACE" in text
    assert "DOWNTIME" in text and SAFE_CHANGES_DOC in text and "'a10s2'" in text
    assert text.endswith("0 to add, 0 to change, 1 to replace, 0 to delete\n")


@pytest.mark.parametrize("path, value", [
    ("agentPoolName", "a10t"), ("maxPods", 50), ("availabilityZones", ["1"]), ("osType", "Windows"),
    ("gpuProfile", {"driver": "None"}), ("osDiskSizeGB", 256), ("vnetSubnetID", "/subnets/x"),
])
def test_pool_settings_azure_cannot_change_in_place_mean_a_new_pool(path, value):
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(**{path: value}))))
    assert one(result, "p").action == "replace"
    assert "DOWNTIME" in format_diff(result)


def test_os_sku_rebuilds_every_node_in_place():
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(osSKU="AzureLinux"))))
    assert one(result, "p").action == "change"
    assert any("every node is rebuilt" in w for w in one(result, "p").warnings)


@pytest.mark.parametrize("inputs", [
    {"minCount": 0}, {"maxCount": 6}, {"minCount": 2, "maxCount": 8}, {"nodeTaints": ["sku=gpu:NoSchedule", "b=c:NoExecute"]},
    {"nodeLabels": {"team": "ml"}},
])
def test_autoscaling_bounds_labels_and_taints_change_in_place(inputs):
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(**inputs))))
    assert result.counts == {"add": 0, "change": 1, "replace": 0, "delete": 0}


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
    assert moved.action == "replace"
    assert any("another provider" in r.why for r in moved.reasons)


def test_a_provider_id_alone_is_not_a_change():
    p = urn(K8S_PROVIDER, "k8s")
    old = plan(res(K8S_PROVIDER, "k8s"), res(DEVICE_CLASS, "dc", provider=f"{p}::id-1"))
    new = plan(res(K8S_PROVIDER, "k8s"), res(DEVICE_CLASS, "dc", provider=f"{p}::id-2"))
    assert not diff_plans(old, new).has_changes


def test_replacing_the_cluster_cascades_to_pools_provider_and_every_kubernetes_object():
    def doc(location: str, cluster_id: str) -> dict[str, Any]:
        provider = urn(K8S_PROVIDER, "k8s")
        return plan(
            res(GROUP, "rg", {"location": "westeurope"}),
            res(CLUSTER, "aks", {"location": location}, deps=(f"{GROUP}::rg",), protect=True),
            res(POOL, "p", pool(), deps=(f"{CLUSTER}::aks",)),
            res(K8S_PROVIDER, "k8s", {"clusterIdentifier": cluster_id, "kubeconfig": SECRET}, deps=(f"{CLUSTER}::aks",)),
            res(RELEASE, "driver", {"name": "nvidia-dra-driver-gpu"}, provider=f"{provider}::id"),
            res(DEVICE_CLASS, "dc", {"metadata": {"name": "a10-vgpu"}}, provider=f"{provider}::id"),
        )

    # The cluster's id (its ARM id) does not change with the location: the cascade, not the input, replaces the rest.
    result = diff_plans(doc("westeurope", "/aks"), doc("northeurope", "/aks"))
    actions = {r.name: r.action for r in result.resources}
    assert actions == {"aks": "replace", "p": "replace", "k8s": "replace", "driver": "replace", "dc": "replace"}
    assert "rg" not in actions
    cluster = one(result, "aks")
    assert any("protected" in w for w in cluster.warnings)
    assert any("its cluster is replaced" in r.why for r in one(result, "p").reasons)
    assert not any(w.startswith("safe path") for w in one(result, "p").warnings)
    assert any("its provider is replaced" in r.why for r in one(result, "dc").reasons)


def test_a_new_cluster_identifier_replaces_the_provider_and_its_objects():
    provider = urn(K8S_PROVIDER, "k8s")
    old = plan(res(K8S_PROVIDER, "k8s", {"clusterIdentifier": "/a"}), res(JOB, "job", provider=f"{provider}::id"))
    new = plan(res(K8S_PROVIDER, "k8s", {"clusterIdentifier": "/b"}), res(JOB, "job", provider=f"{provider}::id"))
    result = diff_plans(old, new)
    assert {r.name: r.action for r in result.resources} == {"k8s": "replace", "job": "replace"}


def test_system_pool_changes_are_refused_not_a_cluster_replacement():
    def cluster(**profile: Any) -> dict[str, Any]:
        system = {"name": "system", "vmSize": "Standard_D4ds_v5", "count": 1, "mode": "System", **profile}
        return res(CLUSTER, "aks", {"location": "westeurope", "agentPoolProfiles": [system]})

    result = diff_plans(plan(cluster()), plan(cluster(vmSize="Standard_D8ds_v5")))
    changed = one(result, "aks")
    assert changed.action == "change"
    assert any("Azure refuses agentPoolProfiles[0].vmSize in place" in w for w in changed.warnings)
    scaled = one(diff_plans(plan(cluster()), plan(cluster(count=3))), "aks")
    assert scaled.action == "change" and scaled.warnings == ()


def test_adding_a_list_item_does_not_count_as_changing_an_existing_item():
    system = {"name": "system", "vmSize": "Standard_D4ds_v5"}
    extra = {"name": "system2", "vmSize": "Standard_D8ds_v5"}
    old = plan(res(CLUSTER, "aks", {"agentPoolProfiles": [system]}))
    new = plan(res(CLUSTER, "aks", {"agentPoolProfiles": [system, extra]}))
    changed = one(diff_plans(old, new), "aks")
    assert changed.action == "change" and changed.warnings == ()


@pytest.mark.parametrize("type_, old, new, action", [
    (CLAIM_TEMPLATE, {"spec": {"spec": {"devices": {"requests": [{"name": "gpu"}]}}}},
     {"spec": {"spec": {"devices": {"requests": [{"name": "gpu2"}]}}}}, "replace"),
    (DEVICE_CLASS, {"spec": {"selectors": [{"cel": {"expression": "a"}}]}},
     {"spec": {"selectors": [{"cel": {"expression": "b"}}]}}, "change"),
    (DEVICE_CLASS, {"metadata": {"name": "a10-vgpu"}}, {"metadata": {"name": "a10"}}, "replace"),
    (JOB, {"spec": {"template": {"spec": {"containers": [{"image": "a"}]}}}},
     {"spec": {"template": {"spec": {"containers": [{"image": "b"}]}}}}, "replace"),
    (JOB, {"metadata": {"labels": {"a": "1"}}}, {"metadata": {"labels": {"a": "2"}}}, "change"),
    (RELEASE, {"namespace": "nvidia-dra-driver-gpu"}, {"namespace": "dra"}, "replace"),
    (RELEASE, {"version": "25.8.1"}, {"version": "0.4.0"}, "change"),
])
def test_kubernetes_identity_and_immutable_specs(type_, old, new, action):
    assert one(diff_plans(plan(res(type_, "x", old)), plan(res(type_, "x", new))), "x").action == action


def test_device_class_selectors_update_in_place_with_a_note():
    old = plan(res(DEVICE_CLASS, "dc", {"spec": {"selectors": [{"cel": {"expression": "a"}}]}}))
    new = plan(res(DEVICE_CLASS, "dc", {"spec": {"selectors": [{"cel": {"expression": "b"}}]}}))
    assert any("claims already allocated keep" in w for w in one(diff_plans(old, new), "dc").warnings)


def test_the_resources_own_replace_on_changes_option_replaces():
    opts = {"replaceOnChanges": ["nodeLabels"]}
    result = diff_plans(plan(res(POOL, "p", pool(), **opts)), plan(res(POOL, "p", pool(nodeLabels={"a": "b"}), **opts)))
    assert one(result, "p").action == "replace"


def test_option_changes_are_state_only_changes():
    result = diff_plans(plan(res(CLUSTER, "aks")), plan(res(CLUSTER, "aks", protect=True)))
    (option,) = one(result, "aks").options
    assert (option.path, option.old, option.new) == ("protect", False, True)
    assert "Pulumi state only" in format_diff(result)


def test_deleting_retained_and_protected_resources_is_called_out():
    old = plan(res(CLUSTER, "aks", protect=True, retainOnDelete=True))
    (gone,) = diff_plans(old, plan()).resources
    assert gone.action == "delete"
    assert any("protected" in w for w in gone.warnings)
    assert any("stays in Azure" in w for w in gone.warnings)


def test_plans_of_different_stacks_compare_resource_by_resource():
    old = plan(res(POOL, "p", pool(), stack="prod"), stack="prod")
    new = plan(res(POOL, "p", pool(maxCount=9), stack="prod-next"), stack="prod-next")
    result = diff_plans(old, new)
    assert result.counts["change"] == 1 and result.counts["add"] == 0
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
    assert result.counts == {"add": 1, "change": 0, "replace": 0, "delete": 1}
    assert any("URN changed" in w for w in result.warnings)


def test_value_changes_are_leaf_by_leaf():
    found = value_changes({"a": {"b": 1, "c": [1, 2]}, "d": 1}, {"a": {"b": 2, "c": [1]}, "e": 1})
    assert [(format_path(p), o, n) for p, o, n in found] == [
        ("a.b", 1, 2), ("a.c[1]", 2, MISSING), ("d", 1, MISSING), ("e", MISSING, 1),
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


def test_the_pool_rules_cover_what_aks_cannot_change_in_place():
    replacing = {r.path for r in RULES if r.type == POOL and r.effect == "replace"}
    assert {"vmSize", "agentPoolName", "maxPods", "osType", "availabilityZones", "vnetSubnetID", "gpuProfile"} <= replacing


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
    assert "+- AgentPool gpu-a10full-pool  REPLACE" in out
    assert 'vmSize: "Standard_NV36ads_A10_v5" -> "Standard_NV36adms_A10_v5"' in out
    assert "DOWNTIME" in out and SAFE_CHANGES_DOC in out
    assert out.endswith("0 to add, 0 to change, 1 to replace, 0 to delete\n")


def test_real_plans_new_autoscaling_bounds_are_an_in_place_change(plans, capsys):
    status, out, _ = run(capsys, "diff", str(plans["prod"]), str(plans["bounds"]))
    assert status == 3
    assert "~  AgentPool gpu-a10third-pool  update" in out and "maxCount: 6 -> 8" in out
    assert "REPLACE" not in out and "DOWNTIME" not in out
    assert out.endswith("0 to add, 1 to change, 0 to replace, 0 to delete\n")


def test_real_plans_identical_exit_0(plans, capsys):
    status, out, err = run(capsys, "diff", str(plans["prod"]), str(plans["prod"]))
    assert (status, err) == (0, "")
    assert out.endswith(NO_CHANGES + "\n")
    status, out, _ = run(capsys, "diff", "--json", str(plans["prod"]), str(plans["prod"]))
    doc = json.loads(out)
    assert status == 0 and doc["hasChanges"] is False
    assert doc["summary"] == {"add": 0, "change": 0, "replace": 0, "delete": 0}


def test_real_plans_json_names_the_replacement_and_its_source(plans, capsys):
    status, out, _ = run(capsys, "diff", "--json", str(plans["prod"]), str(plans["vmsize"]))
    doc = json.loads(out)
    (pool_diff,) = doc["resources"]
    assert status == 3 and pool_diff["action"] == "replace"
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
