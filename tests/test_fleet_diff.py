"""What changing a fleet does, as `diff` says it: every input the fleet resources send has a rule or an in-place entry,
and the replacements of issue 36 (a hub, a member's cluster) are shown with their sources."""

from __future__ import annotations

import copy

from components.config import FleetConfig, StackConfig
from components.offline import Plan, capture
from components.offline.capture import ORGANIZATION
from components.platform import GpuPlatform
from components.review.diff import diff_plans
from components.review.rules.azure_fleet import AUTO_UPGRADE, FLEET, FLEET_MEMBER, STRATEGY
from tests.conftest import MINIMAL_STACK
from tests.test_rule_coverage import leaf_paths, uncovered

FLEET_DATA = {
    "name": "fleet-a", "resourceGroupName": "rg-fleet", "location": "westeurope",
    "hub": {"dnsPrefix": "fleet-a", "vmSize": "Standard_D4ds_v5"}, "tags": {"team": "gpu"},
    "updateStrategy": {"name": "staged", "stages": [{"name": "canary", "groups": ["canary"]},
                                                    {"name": "rest", "groups": ["wave-1"]}]},
    "autoUpgrade": {"channel": "NodeImage", "nodeImageSelection": "Latest", "disabled": True},
}
OUTPUTS = {f"{ORGANIZATION}/aks-dra-vgpu/fleet": {"fleetName": "fleet-a", "fleetResourceGroupName": "rg-fleet"}}


def fleet_plan(data: dict) -> Plan:
    from components.azure.fleet import GpuFleet

    config = FleetConfig.model_validate(data)
    return capture(lambda: GpuFleet("fleet", config), preview=True)


def member_plan(data: dict) -> Plan:
    config = StackConfig.model_validate(data)
    return capture(lambda: GpuPlatform("gpu", config), preview=True, stack_outputs=OUTPUTS)


def member(**changes: object) -> dict:
    data = copy.deepcopy(MINIMAL_STACK)
    data["fleetMembership"] = {"fleetStack": "fleet", "group": "canary"}
    for key, value in changes.items():
        data[key] = value
    return data


def test_every_input_the_fleet_resources_send_has_a_rule() -> None:
    seen: dict[str, set[tuple]] = {t: set() for t in (FLEET, STRATEGY, AUTO_UPGRADE, FLEET_MEMBER)}
    for plan in (fleet_plan(FLEET_DATA), member_plan(member())):
        for r in plan.resources:
            if r.type in seen:
                seen[r.type] |= leaf_paths(r.inputs)
    assert all(seen.values())
    for type_, paths in seen.items():
        assert uncovered(type_, paths) == [], f"{type_}: add a rule or an InPlace entry (components/review/rules)"


def by_name(result, name: str):
    return next(r for r in result.resources if r.name == name)


HUBLESS = {k: v for k, v in FLEET_DATA.items() if k != "hub"}


def test_a_hub_added_to_a_hubless_fleet_is_an_update_in_place_then_each_member_is_reconciled() -> None:
    # pulumi-azure-native: hubProfile has no x-ms-mutability, its create-only fields are nested (no ForceNew).
    result = diff_plans(fleet_plan(HUBLESS).to_dict(), fleet_plan(FLEET_DATA).to_dict())
    (fleet,) = result.resources
    assert (fleet.name, fleet.operation, fleet.replacement) == ("fleet-fleet", "update", None)
    (change,) = fleet.changes
    (rule,) = change.rules
    assert (rule.effect, change.path) == ("note", "hubProfile")
    assert "Azure upgrades the fleet to a hub in place" in rule.why
    assert "az fleet member reconcile" in rule.why
    assert rule.source.endswith("articles/kubernetes-fleet/upgrade-hub-cluster-type.md")
    assert result.exit_status == 3


def test_removing_the_hub_is_refused_by_azure_and_replaces_nothing() -> None:
    result = diff_plans(fleet_plan(FLEET_DATA).to_dict(), fleet_plan(HUBLESS).to_dict())
    (fleet,) = result.resources
    assert (fleet.name, fleet.operation, fleet.refused_by) == ("fleet-fleet", "refused", "Azure")
    (change,) = fleet.changes
    (rule,) = change.rules
    assert rule.effect == "refused" and rule.when == "removed"
    assert "a hub removed: Pulumi updates the fleet in place" in rule.why
    assert "cannot be downgraded to hubless" in rule.why
    assert result.exit_status == 4


def test_changing_an_existing_hub_is_refused_by_azure() -> None:
    for hub in ({"dnsPrefix": "fleet-b", "vmSize": "Standard_D4ds_v5"}, {"dnsPrefix": "fleet-a"}):
        result = diff_plans(fleet_plan(FLEET_DATA).to_dict(), fleet_plan({**FLEET_DATA, "hub": hub}).to_dict())
        (fleet,) = result.resources
        assert (fleet.operation, fleet.refused_by) == ("refused", "Azure")
        assert all(r.effect == "refused" and r.when == "changed" for c in fleet.changes for r in c.rules)
        assert "a hub's settings changed" in fleet.changes[0].rules[0].why


def test_a_new_stage_wait_is_in_place_and_a_new_channel_a_new_profile() -> None:
    changed = copy.deepcopy(FLEET_DATA)
    changed["updateStrategy"]["stages"][0]["afterStageWaitInSeconds"] = 600
    changed["autoUpgrade"]["channel"] = "Stable"
    result = diff_plans(fleet_plan(FLEET_DATA).to_dict(), fleet_plan(changed).to_dict())
    assert by_name(result, "fleet-strategy").operation == "update"
    assert all(r.name != "fleet-fleet" for r in result.resources)
    profile = by_name(result, "fleet-auto-upgrade")
    assert profile.operation == "replace"
    assert {c.path for c in profile.changes} >= {"channel", "autoUpgradeProfileName"}


def test_a_member_whose_cluster_is_replaced_joins_as_a_new_member_and_a_new_group_is_in_place() -> None:
    old = member_plan(member()).to_dict()
    moved = member(cluster={**MINIMAL_STACK["cluster"], "location": "eastus"})
    result = diff_plans(old, member_plan(moved).to_dict())
    fleet_member = by_name(result, "gpu-fleet-member")
    assert fleet_member.operation == "replace"
    assert any("clusterResourceId is create-only" in r.why for r in fleet_member.reasons)
    regrouped = member()
    regrouped["fleetMembership"] = {"fleetStack": "fleet", "group": "wave-1"}
    result = diff_plans(old, member_plan(regrouped).to_dict())
    (only,) = result.resources
    assert (only.name, only.operation) == ("gpu-fleet-member", "update")
    assert "changed in place (PATCH" in only.changes[0].rules[0].why


def test_a_rule_may_hold_only_when_its_value_is_added_removed_or_changed() -> None:
    from components.config.syntax import MISSING
    from components.review.diff_values import presence
    from components.review.replacement_rules import RULES, parse_path, rules_table

    pattern = ("hubProfile",)
    assert presence(pattern, {}, {"hubProfile": {}}) == "added"
    assert presence(pattern, {"hubProfile": {"dnsPrefix": "a"}}, {}) == "removed"
    assert presence(pattern, {"hubProfile": {"dnsPrefix": "a"}}, {"hubProfile": {"dnsPrefix": "b"}}) == "changed"
    assert presence(pattern, {"hubProfile": {}}, {"hubProfile": MISSING}) == "removed"
    # "*" would collect several values: a presence rule names one value.
    assert all("*" not in parse_path(r.path) for r in RULES if r.when is not None and r.path is not None)
    table = rules_table()
    assert "| `azure-native:containerservice:Fleet` | `hubProfile` (set where it was unset) | in place |" in table
    assert "| `azure-native:containerservice:Fleet` | `hubProfile` (removed) | attempted in place and refused" in table
