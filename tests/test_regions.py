"""cluster.location: a region that exists, spelt as ARM spells it (that it sells each pool's size: test_pool_regions)."""

from __future__ import annotations

import pytest
import yaml

from components.catalog import A10_SIZES
from components.catalog.prices import DEFAULT_PRICES
from components.catalog.regions import REGIONS_FILE, region_catalog
from components.config import ClusterConfig, ConfigError, validate


def location_error(location: str) -> str:
    data = {"name": "aks-r", "location": location, "resourceGroup": {"name": "rg-r"}}
    with pytest.raises(ConfigError) as err:
        validate(ClusterConfig, data, "cluster")
    (problem,) = err.value.problems
    assert problem.path == "cluster.location"
    return problem.message


@pytest.mark.parametrize("location", ["westeurope", "eastus2", "swedencentral", "uksouth"])
def test_regions_that_offer_the_sizes_are_accepted(location):
    data = {"name": "aks-r", "location": location, "resourceGroup": {"name": "rg-r"}}
    assert validate(ClusterConfig, data, "cluster").location == location


def test_a_misspelt_region_suggests_the_nearest():
    message = location_error("westeruope")
    assert "'westeruope' is not an Azure region" in message and "did you mean 'westeurope'" in message


def test_a_region_that_does_not_exist_lists_where_the_sizes_are():
    message = location_error("mars")
    assert "'mars' is not an Azure region" in message and "'westeurope'" in message and "'eastus'" in message


def test_a_region_without_the_sizes_is_refused_beside_the_pools_not_on_its_own():
    data = {"name": "aks-r", "location": "francesouth", "resourceGroup": {"name": "rg-r"}}
    assert validate(ClusterConfig, data, "cluster").location == "francesouth"  # test_pool_regions: the stack refuses


@pytest.mark.parametrize(("written", "name"), [("West Europe", "westeurope"), ("WestEurope", "westeurope"),
                                               ("east-us-2", "eastus2"), ("UK South", "uksouth")])
def test_display_names_are_refused_with_the_name_arm_uses(written, name):
    # ARM answers with the name: the diff, the replacement identity and the price table compare that.
    assert f"is not how ARM names the region; write '{name}'" in location_error(written)


def test_the_catalog_agrees_with_the_price_table():
    prices = yaml.safe_load(DEFAULT_PRICES.read_text())
    catalog = region_catalog()
    # a region offers the series where its row prices every NVadsA10_v5 size (rows of MIG sizes alone exist too)
    a10 = {name for name, row in prices["regions"].items() if set(A10_SIZES) <= set(row["prices"])}
    assert set(catalog.a10_regions) == a10
    assert all(not set(A10_SIZES) & set(row["prices"]) for name, row in prices["regions"].items() if name not in a10)
    assert {"francesouth", "ukwest", "newzealandnorth"} <= set(catalog.regions) - set(catalog.a10_regions)
    assert all(r.name == r.name.lower() and " " not in r.name for r in catalog.regions.values())
    doc = yaml.safe_load(REGIONS_FILE.read_text())
    assert doc["source"]["regionsDate"] and doc["source"]["nvadsA10v5Date"]


WORKSPACE = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Monitor/accounts/amw"


def workspace_location_problems(location: str) -> list[tuple[str, str]]:
    monitoring = {"managedPrometheus": True, "workspaceId": WORKSPACE, "workspaceLocation": location}
    data = {"name": "aks-r", "location": "westeurope", "resourceGroup": {"name": "rg-r"}, "monitoring": monitoring}
    try:
        validate(ClusterConfig, data, "cluster")
    except ConfigError as err:
        return [(p.path, p.message) for p in err.problems]
    return []


def test_the_workspace_location_is_a_region_as_arm_writes_it_and_needs_no_gpu_sizes():
    assert workspace_location_problems("francesouth") == []  # a workspace needs no NVadsA10_v5 there
    ((path, message),) = workspace_location_problems("westeruope")
    assert path == "cluster.monitoring.workspaceLocation"
    assert "'westeruope' is not an Azure region" in message and "did you mean 'westeurope'" in message
    ((_, message),) = workspace_location_problems("West Europe")
    assert message == "'West Europe' is not how ARM names the region; write 'westeurope' (West Europe)"


def test_the_region_catalog_reads_the_same_with_the_c_parser_as_with_the_pure_one(monkeypatch):
    # region_catalog reads its own data file with libyaml's parser where installed (the plan reads it every run).
    loaders, fastest = [], getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    load = yaml.load
    monkeypatch.setattr(yaml, "load", lambda text, **kw: loaders.append(kw["Loader"]) or load(text, **kw))
    region_catalog.cache_clear()
    fast = region_catalog()
    region_catalog.cache_clear()
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    pure = region_catalog()
    region_catalog.cache_clear()
    assert fast == pure and "westeurope" in fast.regions
    assert loaders == [fastest, yaml.SafeLoader]
