"""`plan --fleet`, `diff --fleet`, a fleet's critical path, and a member planned alone against its fleet stack's file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from components.config import StackConfig
from components.review.fleet_rollout import member_upgrade_minutes
from tests.conftest import ROOT, scratch_project
from tests.stack_files import cli as run

NS = "aks-dra-vgpu"


def fleet_project(tmp_path: Path) -> Path:
    """A copy of the project with the example fleet's three stack files."""
    project = scratch_project(tmp_path)
    for name in ("fleet", "fleet-weu", "fleet-eus"):
        shutil.copy(ROOT / "stacks" / f"Pulumi.{name}.yaml", project / "stacks")
    return project


def edit(project: Path, stack: str, change) -> None:
    path = project / "stacks" / f"Pulumi.{stack}.yaml"
    doc = yaml.safe_load(path.read_text())
    change(doc["config"])
    path.write_text(yaml.safe_dump(doc))


def member_refused(capsys, tmp_path: Path, membership: dict[str, str]) -> tuple[Path, str]:
    """The example fleet with fleet-eus's fleetMembership changed by `membership`: planned alone it is refused (exit
    2). Returns the project and what was said."""
    project = fleet_project(tmp_path)
    edit(project, "fleet-eus", lambda c: c[f"{NS}:fleetMembership"].update(membership))
    status, _, err = run(capsys, "plan", "--stack", "fleet-eus", "--project-dir", str(project))
    assert status == 2, err
    return project, err


def test_plan_fleet_summarises_every_member(capsys) -> None:
    status, out, _ = run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(ROOT))
    assert status == 0
    assert out.startswith("fleet fleet-gpu-prod (stack fleet, hubless, westeurope): 5 resources, strategy "
                          "'canary-then-rest' in 2 stage(s)\nmembers (2):\n")
    # In stage order: the canary first.
    weu, eus = out.index("- fleet-weu: member aks-dra-prod-weu, westeurope, group canary, stage 1/2 canary; 38 "
                         "resources; GPU nodes "), out.index("- fleet-eus: member aks-dra-prod-eus, eastus, group wave-1, "
                                                             "stage 2/2 rest; 38 resources")
    assert weu < eus
    assert "(at westeurope prices)" in out and "(at eastus prices)" in out
    assert "fleet GPU nodes: " in out


# A second NVIDIA DRA driver release on each member's cluster (the program is every stack's): `plan --stack` refuses it.
SECOND_DRIVER = """
if not running_fleet_stack():
    from components import NvidiaDraDriver, NvidiaDraDriverArgs

    NvidiaDraDriver("second-driver", NvidiaDraDriverArgs(pools=config.gpu_pools, namespace="dra-two",
                                                         release_name="dra-two"),
                    opts=pulumi.ResourceOptions(providers={"kubernetes": platform.cluster.provider}))
"""


def test_plan_fleet_refuses_what_plan_refuses_in_a_member_and_says_each_stacks_warnings(capsys, tmp_path: Path) -> None:
    project = fleet_project(tmp_path)
    status, _, err = run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project))
    assert status == 0
    said = err.splitlines()
    assert said and all(line.startswith(("warning: fleet-weu: ", "warning: fleet-eus: ")) for line in said), said
    _, _, alone = run(capsys, "plan", "--stack", "fleet-eus", "--project-dir", str(project))
    assert [line for line in said if "fleet-eus: " in line] == [
        line.replace("warning: ", "warning: fleet-eus: ", 1) for line in alone.splitlines()]

    (project / "__main__.py").write_text((project / "__main__.py").read_text() + SECOND_DRIVER)
    assert run(capsys, "plan", "--stack", "fleet-eus", "--project-dir", str(project))[0] == 4
    for argv in ((), ("--json",)):
        status, out, err = run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project), *argv)
        assert status == 4, err
        errors = [line for line in err.splitlines() if line.startswith("error: ")]
        assert {line.split(": ")[1] for line in errors} == {"fleet-weu", "fleet-eus"}, errors
        assert all("one NVIDIA DRA driver release per cluster" in line for line in errors)
        if argv:
            assert sorted(json.loads(out)["plans"]) == ["fleet", "fleet-eus", "fleet-weu"]  # stdout stays the document


def test_plan_fleet_json_and_out_then_diff_fleet(capsys, tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    project = fleet_project(tmp_path / "p")
    status, out, _ = run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project), "--json",
                         "--out", str(tmp_path / "old"))
    assert status == 0
    doc = json.loads(out)
    assert sorted(doc["plans"]) == ["fleet", "fleet-eus", "fleet-weu"]
    assert {m["stack"]: m["group"] for m in doc["members"]} == {"fleet-weu": "canary", "fleet-eus": "wave-1"}
    assert sorted(p.name for p in (tmp_path / "old").iterdir()) == ["fleet-eus.json", "fleet-plans.manifest",
                                                                    "fleet-weu.json", "fleet.json"]

    # Unchanged: exit 0, every stack named.
    status, out, _ = run(capsys, "diff", "--fleet", str(tmp_path / "old"), str(tmp_path / "old"),
                         "--project-dir", str(project))
    assert status == 0 and "no changes: fleet, fleet-eus, fleet-weu" in out

    # A hub added (in place: Azure upgrades a hubless fleet; each member is then reconciled) and a member's group moved.
    edit(project, "fleet", lambda c: c[f"{NS}:fleet"].update(hub={"dnsPrefix": "fleet-gpu-prod"}))
    edit(project, "fleet", lambda c: c[f"{NS}:fleet"]["updateStrategy"]["stages"][1].update(groups=["wave-2"]))
    edit(project, "fleet-eus", lambda c: c[f"{NS}:fleetMembership"].update(group="wave-2"))
    assert run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project), "--out", str(tmp_path / "new"))[0] == 0
    status, out, _ = run(capsys, "diff", "--fleet", str(tmp_path / "old"), str(tmp_path / "new"),
                         "--project-dir", str(project))
    assert status == 3
    assert "~  Fleet fleet-fleet  update" in out and "REPLACE" not in out
    assert "az fleet member reconcile" in out
    assert "~  FleetMember gpu-fleet-member  update" in out
    assert 'group: "wave-1" -> "wave-2"' in out
    assert "no changes: fleet-weu" in out
    assert "- fleet-eus: member aks-dra-prod-eus, eastus, group wave-2, stage 2/2 rest" in out


def test_a_fleet_critical_path(capsys) -> None:
    status, out, _ = run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(ROOT), "--critical-path")
    assert status == 0
    weu = StackConfig.model_validate({k.split(":")[1]: v for k, v in yaml.safe_load(
        (ROOT / "stacks" / "Pulumi.fleet-weu.yaml").read_text())["config"].items()})
    minutes = member_upgrade_minutes(weu)
    # Control plane 10, three system nodes 3 each, GPU pools at their most nodes 6 each (a spot pool: no surge).
    assert minutes == 10 + 3 * 3 + (6 + 3 + 6) * 6
    assert f"  stage canary: {minutes:.2f} min, then wait 1440.00 min" in out
    assert f"    group canary: fleet-weu {minutes:.2f} min" in out
    assert f"  = {2 * minutes + 1440:.2f} min" in out
    assert "fleet stack first, then every member in parallel" in out
    assert "  fleet                   1.00 min  estimate: a hubless Fleet" in out


def test_a_member_planned_alone_is_told_of_the_fleets_rules(capsys, tmp_path: Path) -> None:
    project, err = member_refused(capsys, tmp_path, {"group": "wave-7"})
    assert "stacks/Pulumi.fleet-eus.yaml: fleetMembership.group: group 'wave-7' is in no stage of " \
           "stacks/Pulumi.fleet.yaml" in err
    # The canary's stack is right: it still plans alone.
    assert run(capsys, "plan", "--stack", "fleet-weu", "--project-dir", str(project))[0] == 0
    # The fleet stack itself reports the whole fleet.
    status, _, err = run(capsys, "plan", "--stack", "fleet", "--project-dir", str(project))
    assert status == 2 and "group 'wave-1' has no member" in err


def test_a_member_of_a_fleet_stack_that_is_not_there(capsys, tmp_path: Path) -> None:
    _, err = member_refused(capsys, tmp_path, {"fleetStack": "fleet-x"})
    assert ("fleetMembership.fleetStack: 'fleet-x' has no stack file in this project, so this stack joins no fleet; "
            "fleet stacks: fleet") in err


def test_plan_fleet_of_a_stack_that_is_no_fleet(capsys) -> None:
    status, _, err = run(capsys, "plan", "--fleet", "dev", "--project-dir", str(ROOT))
    assert status == 2 and "stacks/Pulumi.dev.yaml: not a fleet stack" in err
    status, _, err = run(capsys, "plan", "--stack", "dev", "--fleet", "fleet", "--project-dir", str(ROOT))
    assert status == 2 and "not allowed with argument" in err
