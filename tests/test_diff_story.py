"""The diff tells one story: every line about a replacement comes from one decision, a refusal's reason is said once,
lists compare by identity, and the reference docs say what the rule table says."""

from __future__ import annotations

import re
from typing import Any

import pytest

from components.config.pools import GpuPoolConfig
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from components.review.diff_values import value_changes
from components.review.replacement_rules import RULES, canonical_type, format_path
from components.review.rules.azure_monitoring import GRAFANA, WORKSPACE
from components.review.rules.model import CLUSTER, POOL, RELEASE
from tests.conftest import ROOT
from tests.test_diff import one, plan, pool, res
from tests.test_diff_scenarios import NS, scenario  # noqa: F401  (the fixture that plans the real stacks)

DRIVER_CHART = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"


def block(text: str, name: str) -> str:
    """One resource's lines in the diff for people."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {name}  " in line)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("      ")), len(lines))
    return "\n".join(lines[start:end])


def release(namespace: str, **options: Any) -> dict[str, Any]:
    return res(RELEASE, "driver", {"name": "nvidia-dra-driver-gpu", "namespace": namespace, "chart": DRIVER_CHART},
               **options)


# --- one decision per replacement ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dbr", [True, False])
def test_a_release_replacement_says_one_order_in_its_header_its_reason_and_its_cost(dbr):
    result = diff_plans(plan(release("a", deleteBeforeReplace=dbr)), plan(release("b", deleteBeforeReplace=dbr)))
    driver = one(result, "driver")
    order, other = ("delete first", "create first") if dbr else ("create first", "delete first")
    text = block(format_diff(result), "driver")
    assert f"REPLACE ({order})" in text and other not in text
    assert driver.replacement.order == order and driver.to_dict()["deleteBeforeReplace"] is dbr
    assert driver.to_dict()["replacement"]["order"] == order
    cost = "uninstalled, then installed anew" if dbr else "installed anew, then the old release uninstalled"
    assert any(cost in w for w in driver.warnings), driver.warnings
    source = "step_generator.go" if dbr else "helm_release.go"
    assert source in driver.replacement.source


def test_an_azure_resource_replaced_by_its_own_inputs_goes_delete_first_with_the_providers_reason():
    result = diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", pool(vmSize="Standard_NV12ads_A10_v5"))))
    replaced = one(result, "p")
    assert replaced.replacement.delete_first and "provider.go" in replaced.replacement.source
    assert "DOWNTIME" in " ".join(replaced.warnings) and "create first" not in format_diff(result)


def test_an_azure_resource_replaced_by_the_engine_goes_create_first_and_says_it_collides():
    opts = {"replaceOnChanges": ["tags"]}
    result = diff_plans(plan(res(POOL, "p", pool(tags={"a": "1"}), **opts)),
                        plan(res(POOL, "p", pool(tags={"a": "2"}), **opts)))
    replaced = one(result, "p")
    assert replaced.replacement.order == "create first"
    warnings = " ".join(replaced.warnings)
    assert "join before the old pool is deleted" in warnings and "DOWNTIME" not in warnings
    assert "already there" in warnings and "deleteBeforeReplace" in warnings


# --- said once ------------------------------------------------------------------------------------------------------
def test_a_refused_field_gives_its_reason_once():
    result = diff_plans(plan(res(POOL, "p", pool(maxPods=110))), plan(res(POOL, "p", pool(maxPods=60))))
    refused = one(result, "p")
    (rule,) = [r for c in refused.changes for r in c.rules if r.effect == "refused"]
    assert refused.operation == "refused" and format_diff(result).count(rule.why) == 1


# --- lists by identity ---------------------------------------------------------------------------------------------
def paths(old: Any, new: Any) -> list[str]:
    return [format_path(p) for p, _, _ in value_changes(old, new)]


def test_one_added_toleration_is_one_change_not_a_rewrite_of_every_later_entry():
    gpu = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    spot = {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
    new = {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}
    assert paths({"t": [gpu, spot]}, {"t": [new, gpu, spot]}) == ['t[key="team",effect="NoSchedule"]']
    changed = {**spot, "value": "regular"}
    assert paths({"t": [gpu, spot]}, {"t": [gpu, changed]}) == [
        't[key="kubernetes.azure.com/scalesetpriority",effect="NoSchedule"].value'
    ]
    assert paths({"t": [gpu, spot]}, {"t": [spot]}) == ['t[key="nvidia.com/gpu",effect="NoSchedule"]']


def test_rules_pools_and_scalars_have_identities_and_a_list_without_one_compares_by_index():
    rules = [{"alert": "GpuHot", "expr": "a > 1"}, {"record": "gpu:util", "expr": "b"}]
    assert paths({"r": rules}, {"r": [{"alert": "GpuNew", "expr": "c"}, *rules]}) == ['r[alert="GpuNew"]']
    pools = [{"name": "system", "count": 1}, {"name": "gpu", "count": 1}]
    assert paths({"p": pools}, {"p": [pools[0], {"name": "gpu", "count": 2}]}) == ['p[name="gpu"].count']
    assert paths({"z": ["1", "2"]}, {"z": ["1", "2", "3"]}) == ['z[item="3"]']
    assert paths({"z": ["1", "1"]}, {"z": ["1", "1", "2"]}) == ["z[2]"]  # duplicates: no identity
    assert paths({"x": [{"a": 1}]}, {"x": [{"a": 2}]}) == ["x[0].a"]  # no identity key
    assert paths({"z": ["1", "2"]}, {"z": ["2", "1"]}) == ["z"]  # the same entries reordered: the list changes


def test_a_new_zone_is_still_refused_when_the_zones_compare_by_identity():
    result = diff_plans(plan(res(POOL, "p", pool(availabilityZones=["1", "2"]))),
                        plan(res(POOL, "p", pool(availabilityZones=["1", "2", "3"]))))
    refused = one(result, "p")
    assert refused.operation == "refused" and [c.path for c in refused.changes] == ['availabilityZones[item="3"]']


# --- what fails is not an update ------------------------------------------------------------------------------------
def test_adding_the_managed_gpu_profile_to_an_existing_pool_is_refused():
    before = pool(gpuProfile={"driver": "Install"})
    after = pool(gpuProfile={"driver": "Install", "nvidia": {"managementMode": "Managed"}})
    refused = one(diff_plans(plan(res(POOL, "p", before)), plan(res(POOL, "p", after))), "p")
    assert refused.operation == "refused" and refused.refused_by == "Azure"
    assert "no-managed-gpu-profile" in refused.changes[0].rules[0].why
    bare = one(diff_plans(plan(res(POOL, "p", pool())), plan(res(POOL, "p", after))), "p")
    assert bare.operation == "refused"


@pytest.mark.parametrize("token", [
    "azure-native:containerservice/v20250801:AgentPool", "azure-native:containerservice/v20240702preview:AgentPool",
])
def test_an_api_versioned_token_follows_its_resources_rules(token):
    assert canonical_type(token) == POOL
    result = diff_plans(plan(res(token, "p", pool())), plan(res(token, "p", pool(vmSize="Standard_NV12ads_A10_v5"))))
    replaced = one(result, "p")
    assert replaced.operation == "replace" and replaced.delete_before_replace is True and replaced.type == token
    assert canonical_type("azure-native:containerservice:AgentPool") == POOL
    assert canonical_type("kubernetes:apps/v1:Deployment") == "kubernetes:apps/v1:Deployment"


# --- costs a reviewer must see -------------------------------------------------------------------------------------
@pytest.mark.parametrize("type_", [WORKSPACE, GRAFANA])
def test_deleting_monitoring_data_says_it_is_lost(type_):
    result = diff_plans(plan(res(type_, "m")), plan())
    assert any(w.startswith("DATA LOSS") for w in one(result, "m").warnings)


def test_the_system_pools_upgrade_speaks_of_the_system_pool_not_of_gpu_pods():
    def cluster(version: str) -> dict[str, Any]:
        system = {"name": "system", "mode": "System", "orchestratorVersion": version, "vmSize": "Standard_D4ds_v5"}
        return res(CLUSTER, "aks", {"kubernetesVersion": version, "agentPoolProfiles": [system]})

    warnings = " ".join(one(diff_plans(plan(cluster("1.35")), plan(cluster("1.36"))), "aks").warnings)
    assert "system node" in warnings and "GPU pods" not in warnings and "vGPU" not in warnings
    gpu = pool(orchestratorVersion="1.36", nodeLabels={"nvidia.com/gpu.present": "true"})
    gpu_warnings = one(diff_plans(plan(res(POOL, "p", pool(orchestratorVersion="1.35",
                                                           nodeLabels=gpu["nodeLabels"]))),
                                  plan(res(POOL, "p", gpu))), "p").warnings
    assert any("GPU pods are evicted" in w for w in gpu_warnings)


# --- the reference says what the rules say ------------------------------------------------------------------------
# A pool setting whose description says what changing it does, and the AgentPool input the rules decide it by.
POOL_SETTINGS = {
    "zones": "availabilityZones", "max_pods": "maxPods", "os_sku": "osSKU", "spot": "scaleSetPriority",
    "os_disk_type": "osDiskType", "capacity_reservation_group_id": "capacityReservationGroupID",
    "gpu_instance_profile": "gpuInstanceProfile",
}
WORDS = {"replace": "a change replaces the pool", "refused": "AKS refuses a change in place", "rebuild": "changed in place"}
CLAIMS = ("immutable", "replaces the pool", "refuses a change", "changed in place", "fixed at creation")


def test_pool_setting_descriptions_say_what_the_rule_table_says():
    for field, path in POOL_SETTINGS.items():
        (effect,) = {r.effect for r in RULES if r.type == POOL and r.path == path}
        description = GpuPoolConfig.model_fields[field].description or ""
        assert WORDS[effect] in description, (field, effect, description)
        assert not [w for e, w in WORDS.items() if e != effect and w in description], (field, description)
    # A description that claims what a change does is checked above, not left to drift.
    claiming = {name for name, f in GpuPoolConfig.model_fields.items()
                if any(c in (f.description or "").lower() for c in CLAIMS)}
    assert claiming <= set(POOL_SETTINGS), claiming - set(POOL_SETTINGS)


# --- docs/safe-changes.md tells the same story as the diff -----------------------------------------------------------
STORY = {
    "`draDriver.namespace`": lambda c: c.setdefault(NS + "draDriver", {}).update(namespace="gpu-dra"),
    "`zones`": lambda c: c[NS + "gpuPools"][0].update(zones=["1", "2", "3"]),
    "`monitoring` switched off": lambda c: c[NS + "cluster"].update(monitoring={"managedPrometheus": False}),
}


def story_rows() -> dict[str, list[str]]:
    """The doc's table: the change's cell -> the fragments it says `diff` prints."""
    text = (ROOT / "docs" / "safe-changes.md").read_text()
    table = text.split("<!-- diff-story:", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[3:]:
        change, prints = line.split(" | ")[:2]
        rows[change.lstrip("| ")] = [f.replace('\\"', '"') for f in re.findall(r'"((?:[^"\\]|\\.)*)"', prints)]
    return rows


@pytest.mark.parametrize("marker", list(STORY))
def test_safe_changes_tells_the_story_the_diff_prints(scenario, marker):  # noqa: F811
    (fragments,) = [f for change, f in story_rows().items() if marker in change]
    result = scenario("prod", STORY[marker])
    text = format_diff(result)
    assert fragments and [f for f in fragments if f not in text] == [], text
    for resource in result.resources:
        if resource.replacement:  # no block speaks of the other order
            other = "create first" if resource.replacement.delete_first else "delete first"
            assert other not in block(text, resource.name), block(text, resource.name)


def test_plan_policy_says_each_finding_once(capsys):
    from components.cli import main

    assert main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--policy"]) == 0
    out = capsys.readouterr()
    both = out.out + out.err
    findings = [line for line in both.splitlines() if "autoscales from minCount 0" in line]
    pools = {re.search(r"pool (\w+) autoscales", line).group(1) for line in findings}
    assert pools and len(findings) == len(pools), findings


def test_an_ignore_changes_path_with_an_index_still_names_an_entry_matched_by_identity():
    old = pool(nodeTaints=["a=b:NoSchedule", "sku=gpu:NoSchedule"])
    new = pool(nodeTaints=["a=b:NoSchedule", "sku=gpu:NoExecute"])
    ignoring = {"ignoreChanges": ["nodeTaints[1]"]}
    assert not diff_plans(plan(res(POOL, "p", old, **ignoring)), plan(res(POOL, "p", new, **ignoring))).resources
    assert one(diff_plans(plan(res(POOL, "p", old)), plan(res(POOL, "p", new))), "p").operation == "update"
