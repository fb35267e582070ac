"""The fleet stack's settings, a member's fleetMembership, and the rules across a fleet's stacks (`load_fleet`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from components.config import ConfigError, stack_config_from_mapping
from components.config.fleet_loading import fleet_config_from_mapping
from components.offline.fleet_stacks import fleet_outputs, load_fleet

ROOT = Path(__file__).resolve().parent.parent
NS = "aks-dra-vgpu"


def fleet_section(**changes: object) -> dict:
    """The example fleet stack's `fleet` section, with changes."""
    data = yaml.safe_load((ROOT / "stacks" / "Pulumi.fleet.yaml").read_text())["config"][f"{NS}:fleet"]
    data.update(changes)
    return data


def problems_of(fn, *args) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        fn(*args)
    return [str(p) for p in caught.value.problems]


def project_with(tmp_path: Path, stacks: dict[str, dict]) -> Path:
    """A project folder holding this package's program file and the given stack files (name -> config map)."""
    (tmp_path / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "__main__.py").write_text("")
    for name, config in stacks.items():
        (tmp_path / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))
    return tmp_path


def example(name: str) -> dict:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text())["config"]


def test_the_example_fleet_loads_with_both_members() -> None:
    fleet = load_fleet(ROOT, "fleet")
    assert fleet.fleet.hub is None
    assert [(m.stack, m.group, m.member_name) for m in fleet.members] == [
        ("fleet-eus", "wave-1", "aks-dra-prod-eus"), ("fleet-weu", "canary", "aks-dra-prod-weu")]
    assert {m.config.cluster.location for m in fleet.members} == {"westeurope", "eastus"}
    outputs = fleet_outputs(fleet.fleet)
    assert outputs["fleetId"].endswith("/resourceGroups/rg-fleet-gpu-prod/providers/Microsoft.ContainerService/"
                                       "fleets/fleet-gpu-prod")
    assert outputs["updateStrategyId"] == outputs["fleetId"] + "/updateStrategies/canary-then-rest"


def test_fleet_syntax_every_mistake_at_once() -> None:
    bad = fleet_section(
        name="Fleet_1", location="westeurop",
        updateStrategy={"name": "s", "stages": [
            {"name": "canary", "groups": ["a", "a"], "afterStageWaitInSeconds": -1},
            {"name": "Rest", "groups": []},
            {"name": "canary", "groups": ["b"]},
            {"name": "more", "groups": ["Bad_Group"]},
            {"name": "most", "groups": [f"g{i}" for i in range(51)]},
        ]},
        autoUpgrade={"channel": "stable", "nodeImageSelection": "Newest"},
    )
    found = "\n".join(problems_of(fleet_config_from_mapping, {f"{NS}:fleet": json.dumps(bad), f"{NS}:cluster": "{}"}))
    for text in [
        "cluster: a fleet stack (it has the 'fleet' section) declares no platform",
        "fleet.name: 'Fleet_1' is not a fleet name; use 1-63 lowercase letters",
        "fleet.location: 'westeurop' is not an Azure region",
        "fleet.updateStrategy.stages[0].afterStageWaitInSeconds: must be a whole number from 0 to 2147483647 (got -1)",
        "fleet.updateStrategy.stages[1].name: 'Rest' is not an update stage name",
        "fleet.updateStrategy.stages[1].groups: needs at least 1 item",
        "fleet.updateStrategy.stages[3].groups[0]: 'Bad_Group' is not a fleet group name",
        "fleet.updateStrategy.stages[4].groups: holds 51 items; at most 50 are allowed",
        # Beside every other mistake: a group twice, a stage name twice.
        "fleet.updateStrategy.stages[0].groups[1]: group 'a' is already in stages[0].groups[0]",
        "fleet.updateStrategy.stages[2].name: stage name 'canary' is used twice (stages[0] and stages[2])",
        "fleet.autoUpgrade.channel: \"stable\" is not allowed; input should be 'Stable', 'Rapid' or 'NodeImage'",
        "fleet.autoUpgrade.nodeImageSelection: \"Newest\" is not allowed; input should be 'Latest' or 'Consistent'",
    ]:
        assert text in found, text


def test_a_group_twice_and_a_stage_name_twice() -> None:
    bad = fleet_section(updateStrategy={"name": "s", "stages": [
        {"name": "canary", "groups": ["a", "b"]}, {"name": "canary", "groups": ["c", "a"]}]})
    found = problems_of(fleet_config_from_mapping, {f"{NS}:fleet": bad})
    assert any("fleet.updateStrategy.stages[1].name: stage name 'canary' is used twice" in p for p in found)
    assert any("fleet.updateStrategy.stages[1].groups[1]: group 'a' is already in stages[0].groups[0]" in p
               for p in found)


def test_membership_syntax_and_a_cluster_name_that_is_no_member_name() -> None:
    config = {f"{NS}:{k.split(':')[-1]}": v for k, v in example("fleet-weu").items()}
    config[f"{NS}:cluster"] = {**config[f"{NS}:cluster"], "name": "AKS_Prod"}
    config[f"{NS}:fleetMembership"] = {"fleetStack": "fleet/x/y/z", "group": "Canary"}
    found = "\n".join(problems_of(stack_config_from_mapping, config))
    assert "fleetMembership.fleetStack: 'fleet/x/y/z' is not a stack name" in found
    assert "fleetMembership.group: 'Canary' is not a fleet group name" in found
    config[f"{NS}:fleetMembership"] = {"fleetStack": "fleet", "group": "canary"}
    found = "\n".join(problems_of(stack_config_from_mapping, config))
    assert ("fleetMembership.memberName: is unset, so the member is named after cluster.name 'AKS_Prod', which is "
            "not a fleet member name") in found


def test_rules_across_stacks_all_at_once(tmp_path: Path) -> None:
    fleet = example("fleet")
    fleet[f"{NS}:fleet"]["updateStrategy"]["stages"].append({"name": "last", "groups": ["wave-9"]})
    weu, eus = example("fleet-weu"), example("fleet-eus")
    eus[f"{NS}:fleetMembership"] = {"fleetStack": "fleet", "group": "wave-2", "memberName": "aks-dra-prod-weu"}
    eus[f"{NS}:cluster"]["upgrades"] = {"channel": "patch"}
    three = example("fleet-eus")
    three[f"{NS}:fleetMembership"] = {"fleetStack": "fleet", "group": "wave-1"}
    three[f"{NS}:cluster"]["name"] = "aks-dra-prod-eus3"
    three[f"{NS}:gpuPools"][0]["vmSize"] = "Standard_NV6ads"  # a member that fails on its own still gets checked
    project = project_with(tmp_path, {"fleet": fleet, "fleet-weu": weu, "fleet-eus": eus, "fleet-eus3": three,
                                      "dev": example("dev")})
    found = "\n".join(problems_of(load_fleet, project, "fleet"))
    for text in [
        "stacks/Pulumi.fleet-eus.yaml: fleetMembership.group: group 'wave-2' is in no stage of stacks/Pulumi.fleet.yaml",
        "stacks/Pulumi.fleet.yaml: fleet.updateStrategy.stages[2].groups[0]: group 'wave-9' has no member",
        "stacks/Pulumi.fleet-weu.yaml: cluster.name: member name 'aks-dra-prod-weu' is also "
        "stacks/Pulumi.fleet-eus.yaml's (fleetMembership.memberName)",
        "stacks/Pulumi.fleet-eus.yaml: cluster.upgrades.channel: 'patch' lets AKS upgrade this member by itself",
        "stacks/Pulumi.fleet-eus.yaml: cluster.upgrades.nodeOsChannel: unset (AKS's default, NodeImage) lets AKS move",
        "stacks/Pulumi.fleet-eus3.yaml: gpuPools[0] (a10third).vmSize: 'Standard_NV6ads'",
    ]:
        assert text in found, text
    assert "Pulumi.dev.yaml" not in found  # not a member


def test_a_canary_stage_that_holds_every_member(tmp_path: Path) -> None:
    fleet = example("fleet")
    fleet[f"{NS}:fleet"]["updateStrategy"]["stages"] = [
        {"name": "canary", "groups": ["canary", "wave-1"]}, {"name": "rest", "groups": ["later"]}]
    later = example("fleet-eus")
    later[f"{NS}:fleetMembership"]["group"] = "later"
    later[f"{NS}:cluster"]["name"] = "aks-dra-prod-eus2"
    project = project_with(tmp_path, {"fleet": fleet, "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus")})
    found = "\n".join(problems_of(load_fleet, project, "fleet"))
    assert "fleet.updateStrategy.stages[0].groups: the first stage 'canary' holds every member (2)" in found
    project_two = project_with(tmp_path / "two", {"fleet": fleet, "fleet-weu": example("fleet-weu"),
                                                  "fleet-eus": example("fleet-eus"), "fleet-eus2": later})
    assert load_fleet(project_two, "fleet").members[1].group == "later"


def test_a_disabled_profile_or_none_leaves_members_channels_alone(tmp_path: Path) -> None:
    fleet = example("fleet")
    eus = example("fleet-eus")
    eus[f"{NS}:cluster"]["upgrades"] = {"channel": "patch", "nodeOsChannel": "NodeImage"}
    fleet[f"{NS}:fleet"]["autoUpgrade"]["disabled"] = True
    project = project_with(tmp_path, {"fleet": fleet, "fleet-weu": example("fleet-weu"), "fleet-eus": eus})
    assert len(load_fleet(project, "fleet").members) == 2


def test_a_stack_that_is_not_a_fleet_stack(tmp_path: Path) -> None:
    from components.offline.project import StackFileError

    project = project_with(tmp_path, {"dev": example("dev")})
    with pytest.raises(StackFileError, match=r"stacks/Pulumi.dev.yaml: not a fleet stack: it has no "
                                             r"'aks-dra-vgpu:fleet' section; fleet stacks of this project: none"):
        load_fleet(project, "dev")


def test_one_stage_for_every_member_and_the_member_limit() -> None:
    from components.config.fleet import UpdateStrategyConfig
    from components.config.fleet_rules import MAX_MEMBERS, MemberView, fleet_problems

    one = UpdateStrategyConfig.model_validate({"name": "s", "stages": [{"name": "all", "groups": ["a", "b"]}]})
    members = [MemberView(f"m{i}.yaml", "a" if i % 2 else "b", f"m{i}", "cluster.name", None) for i in range(2)]
    found = [str(p) for p in fleet_problems("f.yaml", one, None, members)]
    assert found == ["f.yaml: fleet.updateStrategy.stages: one stage 'all' upgrades all 2 members at once; add a canary "
                     "stage first (its groups upgraded, waited on and proven before the next stage starts)"]
    many = [MemberView(f"m{i}.yaml", "a", f"m{i}", "cluster.name", None) for i in range(MAX_MEMBERS + 1)]
    two = UpdateStrategyConfig.model_validate({"name": "s", "stages": [{"name": "c", "groups": ["x"]},
                                                                       {"name": "r", "groups": ["a"]}]})
    found = [str(p) for p in fleet_problems("f.yaml", two, None, many)]
    assert "f.yaml: fleet: 1001 member stacks; a fleet holds at most 1000" in found


def test_a_member_naming_a_fleet_stack_that_does_not_exist_is_told_with_the_fleets_rules(tmp_path: Path) -> None:
    # A typo in fleetStack leaves a stack out of every fleet: the fleet's review names it beside what it leaves empty.
    eus = example("fleet-eus")
    eus[f"{NS}:fleetMembership"]["fleetStack"] = "fleeet"
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": example("fleet-weu"), "fleet-eus": eus})
    found = problems_of(load_fleet, project, "fleet")
    assert ("stacks/Pulumi.fleet-eus.yaml: fleetMembership.fleetStack: 'fleeet' has no stack file in this project, so "
            "this stack joins no fleet; fleet stacks: fleet") in found
    assert any("group 'wave-1' has no member" in p for p in found)
    # A member of another fleet stack that exists is that fleet's business, not this one's.
    eus[f"{NS}:fleetMembership"]["fleetStack"] = "fleet2"
    other = project_with(tmp_path / "other", {"fleet": example("fleet"), "fleet2": example("fleet"),
                                              "fleet-weu": example("fleet-weu"), "fleet-eus": eus})
    assert not any("fleetStack" in p for p in problems_of(load_fleet, other, "fleet"))
