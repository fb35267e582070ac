"""Each GPU pool's VM size against the cluster's region: the price table's rows say where a size is sold; a size with no
price there is refused at the pool's vmSize (a region with no GPU price at all, at cluster.location), naming regions
that sell it. The example stacks: MIG-only in japanwest, an A10 pool in ukwest, H100 NVL in brazilsouth, H200 in
eastus, and a fleet member."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from components.catalog import A10_SIZES, MIG_SIZES
from components.catalog.regions import region_catalog, size_offer
from components.config import ClusterConfig, ConfigError, GpuPoolConfig, stack_config_from_mapping, validate
from components.config.pool_regions import pool_region_problems
from components.sizing.prices import price_book
from tests.conftest import MINIMAL_STACK, as_config
from tests.stack_files import cli as run
from tests.test_fleet_cli import NS, edit, fleet_project

H100_8 = "Standard_ND96isr_H100_v5"
H200_8 = "Standard_ND96isr_H200_v5"
NVL_1, NVL_2 = "Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5"
A10 = "Standard_NV12ads_A10_v5"


def stack(location: str, *pools: dict) -> dict:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["location"] = location
    data["gpuPools"] = list(pools)
    if all("gpuInstanceProfile" in p for p in pools):
        data["samples"] = {"workload": False}  # the sample Job asks for an A10 slice
    return data


def mig(name: str, vm_size: str) -> dict:
    return {"name": name, "vmSize": vm_size, "gpuInstanceProfile": "MIG3g", "count": 1}


def problems(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [(p.path, p.message) for p in caught.value.problems]


def test_a_mig_only_stack_in_a_region_without_a10_plans() -> None:
    config = stack_config_from_mapping(as_config(stack("japanwest", mig("h100", H100_8))))
    assert config.cluster.location == "japanwest"


def test_an_a10_pool_in_ukwest_is_refused_naming_uksouth_and_what_ukwest_sells() -> None:
    # ukwest has rows for ND96amsr_A100_v4 and ND96isr_H200_v5 only: no meter for any NVadsA10_v5 size
    ((path, message),) = problems(stack("ukwest", {"name": "a10s", "vmSize": A10, "count": 1}))
    assert path == "gpuPools[0].vmSize"
    assert message.startswith(f"the price table has no {A10} in ukwest (UK West, cluster.location; no "
                              "price meter there: Azure Retail Prices API")
    assert "2026-06-18), so Azure is not known to sell it there" in message
    assert "regions that price it: 'uksouth' (UK), then 'australiaeast', 'brazilsouth', 'canadacentral', " \
           "'centralindia' and 31 more" in message
    assert message.endswith("or a size priced in ukwest: Standard_ND96amsr_A100_v4, Standard_ND96isr_H200_v5")


def test_a_mig_pool_in_ukwest_of_a_size_sold_there_plans() -> None:
    stack_config_from_mapping(as_config(stack("ukwest", mig("h200", H200_8))))


def test_h100_nvl_pools_in_brazilsouth_are_refused_each_at_its_vm_size() -> None:
    found = problems(stack("brazilsouth", mig("nvl", NVL_1), mig("nvl2", NVL_2)))
    assert [path for path, _ in found] == ["gpuPools[0].vmSize", "gpuPools[1].vmSize"]
    assert found[0][1].startswith(f"the price table has no {NVL_1} in brazilsouth (Brazil South")
    assert found[1][1].startswith(f"the price table has no {NVL_2} in brazilsouth")
    # no South American region sells them; the MIG sizes brazilsouth does sell come before its A10 sizes
    assert "regions that price it: 'australiaeast', 'canadacentral', 'centralindia', 'centralus', 'eastus' and 22 " \
           "more" in found[0][1]
    assert found[0][1].endswith("or a size priced in brazilsouth: Standard_NC24ads_A100_v4, Standard_NC48ads_A100_v4, "
                                "Standard_NC96ads_A100_v4 and 8 more")


def test_an_h200_pool_in_eastus_is_refused_naming_eastus2() -> None:
    ((path, message),) = problems(stack("eastus", mig("h200", H200_8)))
    assert path == "gpuPools[0].vmSize"
    assert f"the price table has no {H200_8} in eastus (East US, cluster.location" in message
    assert "'centralus', 'eastus2', 'northcentralus', 'westus', 'westus2' (US) and 23 more" in message


def test_a_region_with_no_gpu_price_is_refused_once_at_the_location() -> None:
    found = problems(stack("francesouth", {"name": "a", "vmSize": A10, "count": 1},
                           {"name": "b", "vmSize": "Standard_NV36ads_A10_v5", "count": 1}))
    ((path, message),) = found
    assert path == "cluster.location"
    assert message.startswith(f"the price table has no {A10}, Standard_NV36ads_A10_v5 in francesouth (France South), "
                              "nor any other GPU size (no price meter known there")
    assert "so Azure is not known to sell them there; choose a region that prices all of them: 'francecentral', " \
           "'germanywestcentral', 'italynorth', 'northeurope', 'polandcentral' (Europe) and 31 more" in message


def test_a_location_on_its_own_needs_only_be_a_region() -> None:
    # the cluster section alone has no pools to sell: a region without A10 is no longer refused there
    data = {"name": "aks-r", "location": "japanwest", "resourceGroup": {"name": "rg-r"}}
    assert validate(ClusterConfig, data, "cluster").location == "japanwest"


def test_every_region_and_size_is_judged_by_its_row_of_the_price_table() -> None:
    book = price_book()
    for region in region_catalog().regions:
        row = book.row(region)
        priced = set(row[1].prices) if row else set()
        for vm_size in [*A10_SIZES, *MIG_SIZES]:
            extra = {"gpuInstanceProfile": "MIG1g"} if vm_size in MIG_SIZES else {}
            pool = GpuPoolConfig.model_validate({"name": "p", "vmSize": vm_size, "count": 1, **extra})
            found = pool_region_problems(region, [(0, pool)])
            if vm_size in priced:
                assert found == [], (region, vm_size)
            else:
                ((path, message),) = found
                assert path == ("gpuPools[0].vmSize" if row else "cluster.location")
                assert f"the price table has no {vm_size} in {region} (" in message


def test_the_catalog_reads_the_rows_as_the_price_checks_do() -> None:
    book = price_book()
    offer = size_offer()
    assert {r: set(s) for r, s in offer.sizes.items()} == {r: set(row.prices) for r, row in book.regions.items()}
    assert offer.regions_of(H200_8) == sorted(r for r, row in book.regions.items() if H200_8 in row.prices)


def test_a_fleet_member_is_checked_in_its_own_region(capsys, tmp_path: Path) -> None:
    project = fleet_project(tmp_path)
    edit(project, "fleet-eus", lambda c: c[f"{NS}:gpuPools"][0].update(vmSize=H200_8, gpuInstanceProfile="MIG3g"))
    status, _, err = run(capsys, "plan", "--fleet", "fleet", "--project-dir", str(project))
    assert status == 2
    assert ("stacks/Pulumi.fleet-eus.yaml: gpuPools[0] (a10third).vmSize: the price table has no "
            f"{H200_8} in eastus (East US") in err
    assert "fleet-weu" not in err  # the other member, in westeurope, is fine
