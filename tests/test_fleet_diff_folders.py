"""`diff --fleet` reads the two folders of plans and nothing else: its summary comes from the plans (not the stack files
as they are now); `plan --fleet --out` removes the plans it wrote before and no longer writes, never a file it did not
write; folders of another fleet, a file holding another stack's plan, and OLD planned after NEW are said."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from components.cli.fleet import MANIFEST
from tests.stack_files import cli as run
from tests.test_fleet_cli import NS, edit, fleet_project


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> tuple[Path, Path]:
    """The example fleet planned before (`old`) and after (`new`) fleet-eus moves to group wave-2; the project's stack
    files are deleted afterwards: nothing may read them."""
    root = tmp_path_factory.mktemp("fleet-diff")
    project = fleet_project(root)
    from components.cli import main

    assert main(["plan", "--fleet", "fleet", "--project-dir", str(project), "--out", str(root / "old")]) == 0
    edit(project, "fleet", lambda c: c[f"{NS}:fleet"]["updateStrategy"]["stages"][1].update(groups=["wave-2"]))
    edit(project, "fleet-eus", lambda c: c[f"{NS}:fleetMembership"].update(group="wave-2"))
    assert main(["plan", "--fleet", "fleet", "--project-dir", str(project), "--out", str(root / "new")]) == 0
    shutil.rmtree(project / "stacks")
    return root / "old", root / "new"


def copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def set_planned(folder: Path, when: str) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    (folder / MANIFEST).write_text(json.dumps({**manifest, "planned": when}))


def test_the_summary_is_read_from_the_two_plans_alone(planned, capsys, tmp_path) -> None:
    old, new = planned
    status, out, err = run(capsys, "diff", "--fleet", str(old), str(new), "--project-dir", str(tmp_path))
    assert status == 3, err
    assert "fleet fleet-gpu-prod (stack fleet, hubless, westeurope): 5 resources, strategy 'canary-then-rest' in 2 " \
           "stage(s)" in out
    assert "- fleet-eus: member aks-dra-prod-eus, eastus, group wave-2, stage 2/2 rest; 38 resources; GPU nodes " \
           "0.91-20.50 USD/h (at eastus prices)" in out
    assert "- fleet-weu: member aks-dra-prod-weu, westeurope, group canary, stage 1/2 canary" in out
    assert "fleet GPU nodes: 2.09-47.14 USD/h" in out


def test_plan_out_removes_what_it_wrote_before_and_nothing_else(planned, capsys, tmp_path) -> None:
    folder = copy(planned[0], tmp_path / "plans")
    (folder / "fleet-gone.json").write_text((folder / "fleet-eus.json").read_text())  # a member since removed
    (folder / "mine.json").write_text("{}")  # the user's own file
    manifest = json.loads((folder / MANIFEST).read_text())
    (folder / MANIFEST).write_text(json.dumps({**manifest, "files": [*manifest["files"], "fleet-gone.json",
                                                                     "../outside.json"]}))
    (tmp_path / "outside.json").write_text("{}")
    (tmp_path / "p").mkdir()
    project = fleet_project(tmp_path / "p")
    assert run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project), "--out", str(folder))[0] == 0
    assert sorted(p.name for p in folder.iterdir()) == ["fleet-eus.json", "fleet-plans.manifest", "fleet-weu.json",
                                                        "fleet.json", "mine.json"]
    assert (tmp_path / "outside.json").exists()


def test_swapped_folders_are_said(planned, capsys, tmp_path) -> None:
    old, new = copy(planned[0], tmp_path / "old"), copy(planned[1], tmp_path / "new")
    set_planned(old, "2026-12-05T10:00:00Z")
    set_planned(new, "2026-12-05T09:00:00Z")
    status, out, err = run(capsys, "diff", "--fleet", str(old), str(new), "--json")
    assert status == 3
    words = f"OLD {old} was planned after NEW {new} (2026-12-05T10:00:00Z > 2026-12-05T09:00:00Z): were they given in " \
            "the wrong order?"
    assert f"warning: {words}" in err and words in json.loads(out)["warnings"][0]


def test_a_file_holding_another_stacks_plan_is_refused(planned, capsys, tmp_path) -> None:
    new = copy(planned[1], tmp_path / "new")
    shutil.copy(new / "fleet-weu.json", new / "fleet-eus.json")
    status, out, err = run(capsys, "diff", "--fleet", str(planned[0]), str(new))
    assert status == 2 and out == ""
    assert f"diff --fleet: NEW {new}/fleet-eus.json holds the plan of stack fleet-weu, not fleet-eus" in err


def test_plans_of_another_fleet_are_refused_all_at_once(planned, capsys, tmp_path) -> None:
    new = copy(planned[1], tmp_path / "new")
    doc = json.loads((new / "fleet.json").read_text())
    for resource in doc["resources"]:
        if resource["type"] == "azure-native:containerservice:Fleet":
            resource["inputs"]["fleetName"] = "fleet-other"
    (new / "fleet.json").write_text(json.dumps(doc))
    status, _, err = run(capsys, "diff", "--fleet", str(planned[0]), str(new))
    assert status == 2
    assert f"diff --fleet: NEW {new}/fleet-eus.json is a member of fleet fleet-gpu-prod (resource group " \
           "rg-fleet-gpu-prod), not of fleet-other (rg-fleet-gpu-prod) that fleet.json declares" in err
    assert f"NEW {new}/fleet-weu.json is a member of fleet fleet-gpu-prod" in err
    assert f"diff --fleet: OLD {planned[0]} is fleet stack fleet (fleet fleet-gpu-prod in rg-fleet-gpu-prod), NEW {new} " \
           "is fleet stack fleet (fleet fleet-other in rg-fleet-gpu-prod): diff two plans of one fleet" in err
