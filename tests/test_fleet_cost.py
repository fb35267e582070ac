"""A fleet's GPU cost per hour when the price table has no price for a member's pool: the pool is named ("no price
known for <size> in <region>"), left out of the member's and the fleet's sums, and those sums are said to be partial;
never "0.00 USD/h"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from components.review.fleet import MemberLine, format_summary
from components.review.fleet_plans import PlannedFleet, PlannedMember, PlannedStage, PlannedStrategy, planned_cost
from tests.stack_files import cli as run
from tests.test_fleet_cli import fleet_project

H200_8 = "Standard_ND96isr_H200_v5"
NVL_1 = "Standard_NC40ads_H100_v5"
A10 = "Standard_NV12ads_A10_v5"  # 0.908 USD/h in eastus, 1.18 in westeurope (data/prices.yaml)
FLEET = PlannedFleet("f", "rg", "westeurope", False, PlannedStrategy("s", (PlannedStage("one", ("g",)),)))


def member(stack: str, region: str, *pools: tuple[str, int, int]) -> MemberLine:
    planned = PlannedMember(stack, "f", "rg", "g", region, pools)
    return MemberLine(stack, stack, region, "g", "1/1 one", 10, planned_cost(planned))


def test_a_member_with_no_price_for_any_pool_says_so_and_is_no_zero() -> None:
    text = format_summary("fleet", FLEET, 5, [member("br", "brazilsouth", (NVL_1, 1, 2))])
    assert f"GPU nodes no price known for {NVL_1} in brazilsouth\n" in text
    assert "0.00" not in text
    assert "fleet GPU nodes: no price known for any member's GPU pools" in text


def test_a_pool_with_no_price_is_left_out_of_the_sums_which_say_they_are_partial() -> None:
    lines = [member("eus", "eastus", (A10, 1, 2), (H200_8, 1, 1)), member("weu", "westeurope", (A10, 1, 1))]
    text = format_summary("fleet", FLEET, 5, lines)
    assert ("- eus: member eus, eastus, group g, stage 1/1 one; 10 resources; GPU nodes "
            f"0.91-1.82 USD/h, partial: no price known for {H200_8} in eastus, left out (at eastus prices)") in text
    assert "- weu: member weu, westeurope, group g, stage 1/1 one; 10 resources; GPU nodes 1.18 USD/h (at westeurope " \
           "prices)" in text
    assert "fleet GPU nodes: 2.09-3.00 USD/h, partial: leaves out the pools with no price of eus" in text
    cost = lines[0].to_dict()["gpuCostPerHour"]
    assert cost["unpriced"] == [H200_8] and cost["partial"] is True and cost["most"] == 1.82


def test_json_has_no_figure_where_no_price_is_known() -> None:
    cost = member("br", "brazilsouth", (NVL_1, 1, 2)).to_dict()["gpuCostPerHour"]
    assert cost["least"] is None and cost["most"] is None and cost["unpriced"] == [NVL_1]


def test_diff_fleet_of_a_plan_with_a_pool_the_table_does_not_price(capsys, tmp_path: Path) -> None:
    # A plan made before the region check (or by hand): diff --fleet reads the plans alone and must not cost it as 0.
    (tmp_path / "p").mkdir()
    project = fleet_project(tmp_path / "p")
    assert run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project), "--out", str(tmp_path / "old"))[0] == 0
    new = tmp_path / "new"
    shutil.copytree(tmp_path / "old", new)
    doc = json.loads((new / "fleet-eus.json").read_text())
    for resource in doc["resources"]:
        if resource["type"].endswith(":AgentPool") and resource["inputs"].get("vmSize") == "Standard_NV36ads_A10_v5":
            resource["inputs"]["vmSize"] = H200_8
    (new / "fleet-eus.json").write_text(json.dumps(doc))
    status, out, err = run(capsys, "diff", "--fleet", str(tmp_path / "old"), str(new), "--project-dir", str(tmp_path))
    assert status in (0, 3, 4), err
    assert f"partial: no price known for {H200_8} in eastus, left out (at eastus prices)" in out
    assert "fleet GPU nodes: " in out and "partial: leaves out the pools with no price of fleet-eus" in out
