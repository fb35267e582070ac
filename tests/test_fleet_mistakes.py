"""A fleet's mistakes all at once: a broken stack file beside the other files' problems, rules that still run when a
field is refused, a member planned alone, two stacks declaring one Azure resource, and the fleet commands' inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from components.config import ConfigError
from components.offline.fleet_stacks import load_fleet
from tests.stack_files import cli
from tests.test_fleet_config import NS, example, project_with


def problems_of(project: Path, fleet: str = "fleet") -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_fleet(project, fleet)
    return [str(p) for p in caught.value.problems]


def broken_weu() -> str:
    """fleet-weu's stack file with a flow list left open on one of its lines (the next key is a few lines on)."""
    text = yaml.safe_dump({"config": example("fleet-weu")}, sort_keys=False)
    return text.replace("  - '1'\n  - '2'\n", "  - '1'\n  - '2'\n", 1).replace(
        "    vmSize: Standard_D4ds_v5\n", "    vmSize: Standard_D4ds_v5\n    zones: ['1', '2'\n", 1)


def test_a_broken_member_file_is_reported_beside_every_other_mistake_at_its_bracket(tmp_path: Path) -> None:
    eus = example("fleet-eus")
    eus[f"{NS}:cluster"]["location"] = "eastuss"
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-eus": eus})
    text = broken_weu()
    (project / "stacks" / "Pulumi.fleet-weu.yaml").write_text(text)
    bracket = next(i for i, line in enumerate(text.splitlines(), 1) if "zones: ['1', '2'" in line)
    found = problems_of(project)
    assert any(p.startswith(f"stacks/Pulumi.fleet-weu.yaml:{bracket}:") and "the '[' opened here is never closed" in p
               for p in found), found
    assert any(p.startswith("stacks/Pulumi.fleet-eus.yaml: cluster.location: 'eastuss'") for p in found), found
    # The broken file may be the canary's member: no rule guesses at its group.
    assert not any("has no member" in p for p in found), found


def test_the_flow_list_left_open_on_the_last_line_points_at_its_line_not_the_end(tmp_path: Path, capsys) -> None:
    project = project_with(tmp_path, {"dev": example("dev")})
    (project / "stacks" / "Pulumi.dev.yaml").write_text(
        (project / "stacks" / "Pulumi.dev.yaml").read_text() + "  extra:\n    x: [1, 2\n")
    lines = (project / "stacks" / "Pulumi.dev.yaml").read_text().count("\n")
    status, _, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(project))
    assert status == 2
    assert err.startswith(f"stacks/Pulumi.dev.yaml:{lines}:8: not valid YAML: the '[' opened here is never closed "
                          f"(expected ',' or ']', but got '<stream end>' at line {lines + 1}, column 1)"), err


def test_a_refused_wait_and_an_empty_stage_hide_no_group_rule(tmp_path: Path) -> None:
    fleet = example("fleet")
    fleet[f"{NS}:fleet"]["updateStrategy"]["stages"] = [
        {"name": "all", "groups": ["canary", "wave-1"], "afterStageWaitInSeconds": 2147483648},
        {"name": "empty", "groups": []}]
    three = example("fleet-eus")
    three[f"{NS}:fleetMembership"]["group"] = "wave-3"
    three[f"{NS}:cluster"]["name"] = "aks-dra-prod-eus3"
    project = project_with(tmp_path, {"fleet": fleet, "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus"), "fleet-eus3": three})
    found = problems_of(project)
    for text in [
        "stacks/Pulumi.fleet.yaml: fleet.updateStrategy.stages[0].afterStageWaitInSeconds: must be a whole number "
        "from 0 to 2147483647 (got 2147483648)",
        "stacks/Pulumi.fleet.yaml: fleet.updateStrategy.stages[1].groups: needs at least 1 item (got [])",
        "stacks/Pulumi.fleet-eus3.yaml: fleetMembership.group: group 'wave-3' is in no stage of "
        "stacks/Pulumi.fleet.yaml (fleet.updateStrategy 'canary-then-rest')",
        "stacks/Pulumi.fleet.yaml: fleet.updateStrategy.stages: one stage 'all' upgrades all 3 members at once",
    ]:
        assert any(p.startswith(text) for p in found), (text, found)


def test_a_member_planned_alone_shows_its_own_problems_and_its_broken_fleet_file(tmp_path: Path, capsys) -> None:
    weu = example("fleet-weu")
    weu[f"{NS}:cluster"]["location"] = "westeuropa"
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": weu})
    fleet_file = project / "stacks" / "Pulumi.fleet.yaml"
    fleet_file.write_text(fleet_file.read_text().replace("- canary\n", "- [canary\n", 1))
    status, out, err = cli(capsys, "plan", "--stack", "fleet-weu", "--project-dir", str(project))
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert any(line.startswith("stacks/Pulumi.fleet-weu.yaml: cluster.location: 'westeuropa'") for line in lines), lines
    assert any(line.startswith("stacks/Pulumi.fleet.yaml:") and "not valid YAML" in line for line in lines), lines


def test_two_fleet_stacks_declaring_one_fleet_are_refused_naming_both(tmp_path: Path) -> None:
    other = example("fleet")
    other[f"{NS}:fleet"]["name"] = "Fleet-GPU-Prod"  # ARM names are case-insensitive
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet2": other, "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus")})
    found = problems_of(project)
    assert any(p.startswith("stacks/Pulumi.fleet.yaml: fleet.name: fleet 'fleet-gpu-prod' in resource group "
                            "'rg-fleet-gpu-prod' is also declared by stacks/Pulumi.fleet2.yaml (fleet.name): both "
                            "stacks would manage one Azure resource") for p in found), found


def test_one_cluster_joined_twice_under_two_member_names_is_refused(tmp_path: Path) -> None:
    twice = example("fleet-weu")
    twice[f"{NS}:fleetMembership"] = {"fleetStack": "fleet", "group": "wave-1", "memberName": "weu-again"}
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus"), "fleet-weu2": twice})
    found = problems_of(project)
    assert any(p.startswith("stacks/Pulumi.fleet-weu2.yaml: cluster.name: cluster 'aks-dra-prod-weu' in resource "
                            "group 'rg-aks-dra-prod-weu' is also declared by stacks/Pulumi.fleet-weu.yaml")
               and "join it twice (as members 'aks-dra-prod-weu' and 'weu-again') and count its cost twice" in p
               for p in found), found


def test_a_member_and_another_stack_declaring_one_cluster_are_refused_naming_both(tmp_path: Path, capsys) -> None:
    copy = example("fleet-weu")
    del copy[f"{NS}:fleetMembership"]  # a platform stack of its own, on the member's cluster
    copy[f"{NS}:cluster"]["resourceGroup"]["name"] = "RG-AKS-DRA-PROD-WEU"
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus"), "a-copy": copy})
    said = ("stacks/Pulumi.fleet-weu.yaml: cluster.name: cluster 'aks-dra-prod-weu' in resource group "
            "'rg-aks-dra-prod-weu' is also declared by stacks/Pulumi.a-copy.yaml (cluster.name): both stacks would "
            "manage one Azure resource (ARM names are case-insensitive)")
    assert any(p.startswith(said) for p in problems_of(project)), problems_of(project)
    status, _, err = cli(capsys, "plan", "--stack", "fleet-weu", "--project-dir", str(project))
    assert status == 2 and said in err, err
    # Another subscription is another cluster.
    copy["azure-native:subscriptionId"] = "11111111-1111-1111-1111-111111111111"
    other = project_with(tmp_path / "other", {"fleet": example("fleet"), "fleet-weu": example("fleet-weu"),
                                              "fleet-eus": example("fleet-eus"), "a-copy": copy})
    assert len(load_fleet(other, "fleet").members) == 2


def test_a_member_naming_another_member_as_its_fleet_stack_is_told_so(tmp_path: Path, capsys) -> None:
    weu = example("fleet-weu")
    weu[f"{NS}:fleetMembership"]["fleetStack"] = "fleet-eus"
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": weu, "fleet-eus": example("fleet-eus")})
    said = ("fleetMembership.fleetStack: 'fleet-eus' is not a fleet stack (stacks/Pulumi.fleet-eus.yaml has no "
            "'aks-dra-vgpu:fleet' section: it is a platform stack, a member at most), so this stack joins no fleet; "
            "name a fleet stack: fleet")
    assert f"stacks/Pulumi.fleet-weu.yaml: {said}" in problems_of(project)
    status, _, err = cli(capsys, "plan", "--stack", "fleet-weu", "--project-dir", str(project))
    assert status == 2 and f"stacks/Pulumi.fleet-weu.yaml: {said}" in err.splitlines()


@pytest.mark.parametrize("command", ["plan", "verify"])
def test_an_empty_fleet_name_is_bad_input_not_a_crash(command: str, capsys) -> None:
    status, out, err = cli(capsys, command, "--fleet", "")
    assert (status, out) == (2, "")
    assert err == "--fleet '': empty; name a fleet stack (fleet stacks of this project: fleet)\n"


def test_a_secure_fleet_membership_is_told_not_dropped(tmp_path: Path) -> None:
    weu = example("fleet-weu")
    weu[f"{NS}:fleetMembership"] = {"secure": "v1:AAAABBBBCCCC"}
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": weu, "fleet-eus": example("fleet-eus")})
    found = problems_of(project)
    assert ("stacks/Pulumi.fleet-weu.yaml: fleetMembership: is a secure value, which is never decrypted offline, so "
            "which fleet this stack joins cannot be read; a membership holds no secret: write fleetStack and group in "
            "plain text") in found
    assert not any("has no member" in p for p in found), found  # it may be the canary's member


def test_a_stack_file_that_is_a_symlink_loop_is_told_so(tmp_path: Path, capsys) -> None:
    project = project_with(tmp_path, {"dev": example("dev")})
    os.symlink("Pulumi.loop.yaml", project / "stacks" / "Pulumi.loop.yaml")
    status, _, err = cli(capsys, "plan", "--stack", "loop", "--project-dir", str(project))
    assert status == 2
    assert err == ("stacks/Pulumi.loop.yaml: is a symbolic link loop (Pulumi.loop.yaml); point it at a stack file or "
                   "remove it\n")
    os.symlink("Pulumi.gone.yaml", project / "stacks" / "Pulumi.dangling.yaml")
    status, _, err = cli(capsys, "plan", "--stack", "dangling", "--project-dir", str(project))
    assert "stacks/Pulumi.dangling.yaml: is a symbolic link to a missing file (Pulumi.gone.yaml)" in err


def test_a_context_given_twice_for_one_member_is_refused() -> None:
    from components.cli.output import BadInputError
    from components.cli.verify_fleet import context_overrides

    assert context_overrides(["a=ctx-a", "b=ctx-b"]) == {"a": "ctx-a", "b": "ctx-b"}
    with pytest.raises(BadInputError) as caught:
        context_overrides(["aks-dra-prod-weu=one", "aks-dra-prod-weu=two"])
    assert caught.value.lines == ["verify --fleet: --context is given twice for member 'aks-dra-prod-weu' ('one' and "
                                  "'two'); give one context per member"]


def test_a_wait_past_a_week_and_past_the_channels_cadence_are_warned(tmp_path: Path, capsys) -> None:
    fleet = example("fleet")
    fleet[f"{NS}:fleet"]["updateStrategy"]["stages"][0]["afterStageWaitInSeconds"] = 2147483647
    project = project_with(tmp_path, {"fleet": fleet, "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus")})
    assert list(load_fleet(project, "fleet").warnings) == [
        "stacks/Pulumi.fleet.yaml: fleet.updateStrategy.stages[0].afterStageWaitInSeconds: 2147483647 s is 68.0 years: "
        "the stages after 'canary' would wait that long for their upgrades; a canary is proven in hours to days "
        "(86400 is one day)",
        "stacks/Pulumi.fleet.yaml: fleet.updateStrategy: its stages wait 68.0 years in total, longer than the "
        "NodeImage channel's weekly cadence (fleet.autoUpgrade.channel): a newer node image is published before a "
        "run reaches its last stage; shorten the waits"]
    # Four days in each of two stages: no stage past a week, but eight days in all, past the weekly cadence.
    fleet[f"{NS}:fleet"]["updateStrategy"]["stages"][0]["afterStageWaitInSeconds"] = 4 * 86400
    fleet[f"{NS}:fleet"]["updateStrategy"]["stages"][1]["afterStageWaitInSeconds"] = 4 * 86400
    again = project_with(tmp_path / "again", {"fleet": fleet, "fleet-weu": example("fleet-weu"),
                                              "fleet-eus": example("fleet-eus")})
    assert [w.split(": ", 2)[1] for w in load_fleet(again, "fleet").warnings] == ["fleet.updateStrategy"]
    assert load_fleet(Path(__file__).resolve().parent.parent, "fleet").warnings == ()  # the example waits a day


@pytest.mark.parametrize(("command", "instead"), [
    ("verify", "it has no cluster of its own to verify; verify its members with `verify --fleet fleet`"),
    ("render", "it declares a Fleet and no Kubernetes object, so there is nothing to render; render a member stack "
               "(`render --stack <member>`), or review the fleet with `plan --fleet fleet`"),
])
def test_a_fleet_stack_given_to_a_single_platforms_command_is_told_what_to_run(command, instead, tmp_path, capsys):
    extra = ["--out", str(tmp_path / "out")] if command == "render" else []
    status, out, err = cli(capsys, command, "--stack", "fleet", *extra)
    assert (status, out) == (2, "")
    assert err == f"stacks/Pulumi.fleet.yaml: a fleet stack (it has the 'fleet' section); {instead}\n"
    assert not (tmp_path / "out").exists()


def test_every_problem_names_its_file_one_way_and_a_pool_by_its_name(tmp_path: Path, capsys) -> None:
    mig = example("mig")
    mig[f"{NS}:gpuPools"][1]["gpuInstanceProfile"] = "9g.99gb"
    mig[f"{NS}:cluster"]["protect"] = "yes"
    project = project_with(tmp_path, {"mig": mig})
    status, _, err = cli(capsys, "plan", "--stack", "mig", "--project-dir", str(project))
    assert status == 2
    lines = err.splitlines()
    assert all(line.startswith("stacks/Pulumi.mig.yaml") for line in lines), lines
    assert any(line.startswith("stacks/Pulumi.mig.yaml: gpuPools[1] (a100mig).gpuInstanceProfile: '9g.99gb' is not a "
                               "MIG profile of Standard_NC24ads_A100_v4") for line in lines), lines
    # In a fleet's review the same line, said the same way.
    weu = example("fleet-weu")
    weu[f"{NS}:gpuPools"][2]["vmSize"] = "Standard_NV6ads"
    fleet = project_with(tmp_path / "fleet", {"fleet": example("fleet"), "fleet-weu": weu,
                                              "fleet-eus": example("fleet-eus")})
    assert any(p.startswith("stacks/Pulumi.fleet-weu.yaml: gpuPools[2] (a10spot).vmSize: 'Standard_NV6ads'")
               for p in problems_of(fleet)), problems_of(fleet)


def test_a_misspelt_member_region_hides_no_cluster_another_stack_declares(tmp_path: Path) -> None:
    # The member fails validation (its region), yet it still names this fleet: its cluster is still compared.
    eus = example("fleet-eus")
    eus[f"{NS}:cluster"]["location"] = "eastuss"
    copy = example("fleet-eus")
    del copy[f"{NS}:fleetMembership"]  # a platform stack of its own, on the member's cluster
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": example("fleet-weu"), "fleet-eus": eus,
                                      "a-copy": copy})
    found = problems_of(project)
    assert any(p.startswith("stacks/Pulumi.fleet-eus.yaml: cluster.location: 'eastuss' is not an Azure region")
               for p in found), found
    assert any(p.startswith("stacks/Pulumi.fleet-eus.yaml: cluster.name: cluster 'aks-dra-prod-eus' in resource group "
                            "'rg-aks-dra-prod-eus' is also declared by stacks/Pulumi.a-copy.yaml (cluster.name)")
               for p in found), found


def test_a_member_that_fails_validation_is_still_told_it_joins_a_cluster_twice(tmp_path: Path) -> None:
    twice = example("fleet-weu")
    twice[f"{NS}:fleetMembership"] = {"fleetStack": "fleet", "group": "wave-1", "memberName": "weu-again"}
    twice[f"{NS}:cluster"]["location"] = "westeurop"
    project = project_with(tmp_path, {"fleet": example("fleet"), "fleet-weu": example("fleet-weu"),
                                      "fleet-eus": example("fleet-eus"), "fleet-weu2": twice})
    found = problems_of(project)
    assert any("join it twice (as members 'aks-dra-prod-weu' and 'weu-again')" in p for p in found), found
