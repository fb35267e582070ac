"""`python -m components preflight` through the real azure-mgmt-compute client against a fake ARM on loopback
(tests/fake_compute.py: bodies shaped as azure-rest-api-specs' Usage_List and ResourceSkus_List examples, edited per
case): enough quota, a family short by the surge alone, Spot short, the regional total short while every family fits, a
size restricted for the subscription, a zone restriction against the pools' zones, a fleet whose members in one region
together exceed a family each fits alone, and the MIG sizes mapped through the SKU API's family. No token in any output.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cli import main
from tests.conftest import ROOT
from tests.fake_compute import TOKEN, FakeCompute, Scenario, not_for_subscription, sku, usage

WEU = "westeurope"
A10 = "StandardNVADSA10v5Family"  # family strings as the SKU API spells them (some start lower-case, some upper)
DDS = "standardDDSv5Family"


def sub(n: int) -> str:
    """A subscription of its own for each test: the fake answers per subscription."""
    return f"00000000-0000-0000-0000-{n:012d}"


@pytest.fixture(autouse=True)
def _token(arm_token):
    """Every test here authenticates with the held token (tests.fake_compute)."""


def dev_skus(region: str = WEU, **a10: Any) -> list[dict[str, Any]]:
    """The dev stack's two sizes (stacks/Pulumi.dev.yaml: system Standard_D4ds_v5 x1, a10s NV6ads maxCount 2)."""
    return [sku("Standard_D4ds_v5", DDS, 4, region), sku("Standard_NV6ads_A10_v5", A10, 6, region, **a10)]


def quotas(cores: int = 100, a10: int = 100, dds: int = 100, spot: int = 0, used: int = 0) -> list[dict[str, Any]]:
    return [usage("cores", used, cores, "Total Regional vCPUs"), usage(DDS, used, dds, "Standard DDSv5 Family vCPUs"),
            usage(A10, 0, a10, "Standard NVADSA10v5 Family vCPUs"),
            usage("lowPriorityCores", 0, spot, "Total Regional Low-priority vCPUs")]


def run(capsys, arm: FakeCompute, subscription: str, *argv: str, json_out: bool = True) -> tuple[int, Any, str]:
    """preflight against the fake: (exit status, the JSON document or the text, stderr); no token is ever printed."""
    status = main(["preflight", *argv, "--subscription", subscription, "--arm-endpoint", arm.url,
                   *(["--json"] if json_out else [])])
    out, err = capsys.readouterr()
    assert TOKEN not in out + err
    return status, json.loads(out) if json_out and out.strip() else out, err


def family(doc: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [f for f in doc["families"] if f["family"] == name]
    return found


def write_project(tmp_path: Path, stacks: dict[str, dict[str, Any]]) -> Path:
    """A project with these stack files (name -> config map), the package's own Pulumi.yaml and program."""
    (tmp_path / "stacks").mkdir(exist_ok=True)
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    for name, config in stacks.items():
        (tmp_path / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))
    return tmp_path


def platform(location: str, pools: list[dict[str, Any]], system: dict[str, Any] | None = None) -> dict[str, Any]:
    cluster = {"name": "aks-pf", "location": location, "resourceGroup": {"name": "rg-pf"},
               "systemPool": system or {"vmSize": "Standard_D4ds_v5", "count": 1}}
    return {"aks-dra-vgpu:cluster": cluster, "aks-dra-vgpu:gpuPools": pools}


def test_enough_quota_exits_0_and_reports_every_quota(capsys, arm):
    arm.scenarios[sub(1)] = Scenario(usages={WEU: quotas(used=4)}, skus={WEU: dev_skus()})
    status, doc, _ = run(capsys, arm, sub(1), "--stack", "dev")
    assert status == 0 and doc["ok"] is True and doc["exit"] == 0
    # dev: system 1 node + AKS's default 10% surge rounded up (1) = 2 x 4 vCPUs; a10s maxCount 2 + maxSurge 1 = 3 x 6
    assert [(f["family"], f["needed"], f["limit"], f["used"], f["available"], f["ok"]) for f in doc["families"]] == [
        (DDS, 8, 100, 4, 96, True), (A10, 18, 100, 0, 100, True), ("cores", 26, 100, 4, 96, True)]
    assert [(s["vmSize"], s["restricted"], s["zones"]) for s in doc["skus"]] == [
        ("Standard_D4ds_v5", [], ["1", "2", "3"]), ("Standard_NV6ads_A10_v5", [], ["1", "2", "3"])]
    assert arm.asked("skus", sub(1)) == [{"api-version": arm.asked("skus", sub(1))[0]["api-version"],
                                          "$filter": [f"location eq '{WEU}'"]}]


def test_a_family_short_by_the_surge_alone_names_the_request(capsys, arm):
    # 12 vCPUs hold a10s at maxCount (2 x 6) but not its upgrade's surge node: AKS fails the upgrade, not the create
    arm.scenarios[sub(2)] = Scenario(usages={WEU: quotas(a10=12)}, skus={WEU: dev_skus()})
    status, text, _ = run(capsys, arm, sub(2), "--stack", "dev", json_out=False)
    assert status == 4
    assert (f"- {A10} in westeurope: needed 18, limit 12, in use 0, missing 6 vCPUs (the pools fit at their most; the "
            f"6 vCPUs of upgrade surge do not); request: az quota update --resource-name {A10} --scope /subscriptions/"
            f"{sub(2)}/providers/Microsoft.Compute/locations/westeurope --limit-object value=18 --resource-type "
            "dedicated") in text.splitlines()
    assert text.splitlines()[-1] == "preflight: 1 quota shortfall(s), 0 restricted size(s): `pulumi up` would fail"


def test_spot_pools_count_against_the_spot_quota_only(capsys, arm, tmp_path):
    pools = [{"name": "spot", "vmSize": "Standard_NV12ads_A10_v5", "spot": {}, "autoscaling": {"minCount": 0,
                                                                                            "maxCount": 4}}]
    project = write_project(tmp_path, {"spot": platform(WEU, pools)})
    arm.scenarios[sub(3)] = Scenario(usages={WEU: quotas(a10=0, spot=24)}, skus={WEU: [
        sku("Standard_D4ds_v5", DDS, 4, WEU), sku("Standard_NV12ads_A10_v5", A10, 12, WEU)]})
    status, doc, _ = run(capsys, arm, sub(3), "--stack", "spot", "--project-dir", str(project))
    assert status == 4
    spot = family(doc, "lowPriorityCores")
    assert (spot["kind"], spot["needed"], spot["limit"], spot["missing"], spot["ok"]) == ("spot", 48, 24, 24, False)
    assert "Spot vCPUs quota" in spot["request"] and "new limit 48" in spot["request"]
    assert A10 not in [f["family"] for f in doc["families"]]  # its family's 0 vCPUs do not matter to a Spot pool
    assert family(doc, "cores")["needed"] == 8  # the system pool only
    (pool,) = [p for p in doc["stacks"][0]["pools"] if p["pool"] == "spot"]
    assert (pool["surge"], pool["spot"]) == (0, True)  # AKS upgrades Spot nodes without surge


def test_the_regional_total_can_be_short_while_every_family_fits(capsys, arm):
    arm.scenarios[sub(4)] = Scenario(usages={WEU: quotas(cores=20)}, skus={WEU: dev_skus()})
    status, doc, _ = run(capsys, arm, sub(4), "--stack", "dev")
    assert status == 4
    assert [f["family"] for f in doc["families"] if not f["ok"]] == ["cores"]
    total = family(doc, "cores")
    assert (total["needed"], total["limit"], total["missing"]) == (26, 20, 6)
    assert "'Total Regional vCPUs'" in total["request"] and "new limit 26" in total["request"]


def test_a_size_restricted_for_the_subscription_says_where_else_it_is_priced(capsys, arm):
    arm.scenarios[sub(5)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus(
        restrictions=(not_for_subscription(WEU),))})
    status, doc, _ = run(capsys, arm, sub(5), "--stack", "dev")
    assert status == 4 and doc["ok"] is False
    (a10,) = [s for s in doc["skus"] if s["vmSize"] == "Standard_NV6ads_A10_v5"]
    assert a10["restricted"] == ["restricted in westeurope for this subscription (NotAvailableForSubscription)"]
    assert a10["zones"] == []  # no zone of a closed region is open
    assert a10["pricedIn"] and WEU not in a10["pricedIn"] and "eastus" in a10["pricedIn"]  # the package's price table
    assert all(f["ok"] for f in doc["families"])


def test_a_zone_restriction_against_the_pools_zones(capsys, arm, tmp_path):
    pools = [{"name": "a10", "vmSize": "Standard_NV6ads_A10_v5", "count": 2, "zones": ["1", "2"]}]
    project = write_project(tmp_path, {"zoned": platform(WEU, pools)})
    arm.scenarios[sub(6)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus(
        restrictions=(not_for_subscription(WEU, ("2",)),))})
    status, text, _ = run(capsys, arm, sub(6), "--stack", "zoned", "--project-dir", str(project), json_out=False)
    assert status == 4
    assert ("- Standard_NV6ads_A10_v5 in westeurope (zoned/a10): zone 2 restricted for this subscription "
            "(NotAvailableForSubscription); open zones here: 1, 3; priced in ") in text
    # the same restriction is no problem for a pool that asks no zone of it
    pools[0]["zones"] = ["1", "3"]
    project = write_project(tmp_path, {"zoned": platform(WEU, pools)})
    assert run(capsys, arm, sub(6), "--stack", "zoned", "--project-dir", str(project))[0] == 0


def test_a_sku_list_without_the_size_says_it_is_not_offered(capsys, arm):
    arm.scenarios[sub(7)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus()[:1]})
    status, doc, _ = run(capsys, arm, sub(7), "--stack", "dev")
    assert status == 4
    (a10,) = [s for s in doc["skus"] if s["vmSize"] == "Standard_NV6ads_A10_v5"]
    assert a10["restricted"] == ["not offered in westeurope: the SKU list for this subscription and region has no such "
                                 "size"]
    assert A10 not in [f["family"] for f in doc["families"]]  # no family to count it against


def fleet_project(tmp_path: Path) -> Path:
    """The shipped fleet (stacks/Pulumi.fleet.yaml and its two members), both members moved to westeurope."""
    write_project(tmp_path, {})
    for name in ("fleet", "fleet-weu", "fleet-eus"):
        text = (ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text()
        (tmp_path / "stacks" / f"Pulumi.{name}.yaml").write_text(text.replace("location: eastus\n",
                                                                              "location: westeurope\n"))
    return tmp_path


def test_a_fleet_sums_its_members_in_one_region(capsys, arm, tmp_path):
    project = fleet_project(tmp_path)
    skus = [sku("Standard_D4ds_v5", DDS, 4, WEU), sku("Standard_NV12ads_A10_v5", A10, 12, WEU),
            sku("Standard_NV36ads_A10_v5", A10, 36, WEU)]
    arm.scenarios[sub(8)] = Scenario(usages={WEU: quotas(cores=10_000, a10=10_000, spot=10_000)}, skus={WEU: skus})
    alone = {m: family(run(capsys, arm, sub(8), "--stack", m, "--project-dir", str(project))[1], A10)["needed"]
             for m in ("fleet-weu", "fleet-eus")}
    assert alone["fleet-weu"] == alone["fleet-eus"] > 0
    # a limit each member fits alone, the two together do not
    arm.scenarios[sub(8)] = Scenario(usages={WEU: quotas(cores=10_000, a10=alone["fleet-weu"], spot=10_000)},
                                     skus={WEU: skus})
    for member in alone:
        assert run(capsys, arm, sub(8), "--stack", member, "--project-dir", str(project))[0] == 0
    status, doc, _ = run(capsys, arm, sub(8), "--fleet", "fleet", "--project-dir", str(project))
    assert status == 4
    a10 = family(doc, A10)
    assert a10["needed"] == sum(alone.values()) and a10["missing"] == alone["fleet-eus"]
    assert {p.split("/")[0] for p in a10["pools"]} == {"fleet-weu", "fleet-eus"}
    assert sorted(d["stack"] for d in doc["stacks"]) == ["fleet-eus", "fleet-weu"]


MIG = {"Standard_NC24ads_A100_v4": ("StandardNCADSA100v4Family", 24, "3g.40gb"),
       "Standard_NC40ads_H100_v5": ("StandardNCadsH100v5Family", 40, "3g.47gb"),
       "Standard_ND96isr_H100_v5": ("standardNDSH100v5Family", 96, "3g.40gb"),
       "Standard_ND96isr_H200_v5": ("standardNDISRH200V5Family", 96, "3g.71gb")}


def test_mig_sizes_count_against_the_family_the_sku_api_names(capsys, arm, tmp_path):
    pools = [{"name": f"mig{i}", "vmSize": size, "gpuInstanceProfile": profile, "count": 1}
             for i, (size, (_, _, profile)) in enumerate(MIG.items())]
    config = {**platform("eastus2", pools), "aks-dra-vgpu:samples": {"workload": False}}  # no A10 pool for its Job
    project = write_project(tmp_path, {"mig": config})
    # the SKU API's family, whatever the size's name suggests: H100 NVL (NC40ads) and H100 SXM (ND96isr) differ
    skus = [sku("Standard_D4ds_v5", DDS, 4, "eastus2")] + [sku(s, f, v, "eastus2") for s, (f, v, _) in MIG.items()]
    usages = [usage("cores", 0, 10_000), usage(DDS, 0, 100)] + [usage(f, 0, 1000) for f, _, _ in MIG.values()]
    arm.scenarios[sub(9)] = Scenario(usages={"eastus2": usages}, skus={"eastus2": skus})
    status, doc, _ = run(capsys, arm, sub(9), "--stack", "mig", "--project-dir", str(project))
    assert status == 0, doc
    found = {f["family"]: (f["needed"], f["pools"]) for f in doc["families"] if f["kind"] == "family"}
    for i, (family_name, vcpus, _) in enumerate(MIG.values()):
        assert found[family_name] == (2 * vcpus, [f"mig/mig{i}"])  # count 1 + maxSurge '1'
    # another family from the API is another quota: nothing is inferred from the size's name
    skus[2] = sku("Standard_NC40ads_H100_v5", "standardNCCadsH100v5Family", 40, "eastus2")
    status, doc, _ = run(capsys, arm, sub(9), "--stack", "mig", "--project-dir", str(project))
    assert status == 4
    missing = family(doc, "standardNCCadsH100v5Family")
    assert (missing["listed"], missing["limit"], missing["needed"]) == (False, 0, 80)
