"""Price tables: every number finite and in range, every date a real day, regions compared as Azure compares them, a
one-region table used elsewhere said so; and the catalog, which holds the data, imports nothing of ours."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from components.config import ConfigError
from components.offline.safe_yaml import load
from components.sizing.prices import prices_for
from tests.conftest import ROOT

ONE = {"region": "eastus", "currency": "USD", "date": "2026-06-18", "source": "test",
       "prices": {"Standard_NV12ads_A10_v5": 0.9}}
BOOK = {"currency": "USD", "fallbackRegion": "eastus",
        "regions": {"eastus": {"date": "2026-06-18", "source": "t", "prices": {"Standard_NV12ads_A10_v5": 0.9}},
                    "westeurope": {"date": "2026-06-18", "source": "t", "prices": {"Standard_NV12ads_A10_v5": 1.1}}}}


def refused(doc: object) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        prices_for("eastus", "p.yaml", doc)
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("text", [".inf", "-.inf", ".nan", "1e999"])
def test_a_price_that_is_not_a_finite_number_is_refused(text):
    doc = load(f"region: eastus\ncurrency: USD\ndate: '2026-06-18'\nsource: t\nprices: {{Standard_NV12ads_A10_v5: {text}}}",
               "p.yaml")
    (line,) = refused(doc)
    assert line.startswith("p.yaml: prices.Standard_NV12ads_A10_v5:") and "finite number" in line, line


@pytest.mark.parametrize("text", ["Infinity", "NaN"])
def test_json_infinity_and_nan_are_refused(text):
    doc = load(json.dumps(ONE).replace("0.9", text), "p.json")
    (line,) = refused(doc)
    assert line.startswith("p.yaml: prices.Standard_NV12ads_A10_v5:"), line


def test_a_price_beyond_any_vm_hour_is_refused():
    (line,) = refused({**ONE, "prices": {"Standard_NV12ads_A10_v5": 1e12}})
    assert line == "p.yaml: prices: Standard_NV12ads_A10_v5: a price per VM-hour must be at most 1,000,000"


def test_an_infinite_month_is_refused():
    (line,) = refused({**ONE, "hoursPerMonth": float("inf")})
    assert line.startswith("p.yaml: hoursPerMonth:") and "finite number" in line, line


@pytest.mark.parametrize("date", ["2026-02-30", "2026-13-01", "0000-01-01"])
def test_an_impossible_date_is_refused(date):
    (line,) = refused({**ONE, "date": date})
    assert line == f"p.yaml: date: '{date}' is not a day of the calendar; write a real date as YYYY-MM-DD"


def test_a_one_region_table_used_for_another_region_warns():
    table, warning = prices_for("westeurope", "p.yaml", ONE)
    assert table.region == "eastus"
    assert warning == ("p.yaml holds eastus prices only; the stack is in westeurope, costed at eastus prices (give a "
                       "table with a row for westeurope to cost it there)")
    assert prices_for("EastUS", "p.yaml", ONE)[1] is None


def test_region_keys_compare_without_case_or_spaces():
    book = {**BOOK, "regions": {"EastUS": BOOK["regions"]["eastus"], "West Europe": BOOK["regions"]["westeurope"]}}
    table, warning = prices_for("westeurope", "p.yaml", book)
    assert (table.hourly("Standard_NV12ads_A10_v5"), warning) == (1.1, None)
    assert prices_for("eastus", "p.yaml", book)[1] is None


def test_two_rows_of_one_region_are_refused():
    book = {**BOOK, "regions": {**BOOK["regions"], "EastUS": BOOK["regions"]["eastus"]}}
    assert refused(book) == ["p.yaml: regions.EastUS: is the same region as 'eastus' (region names ignore case and "
                             "spaces); keep one row"]


def test_the_catalog_imports_nothing_of_ours():
    for path in sorted((ROOT / "components" / "catalog").glob("*.py")):
        tree = ast.parse(Path(path).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                pytest.fail(f"{path.name} imports ..{node.module}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("components"):
                pytest.fail(f"{path.name} imports {node.module}")


def test_the_packaged_table_prices_the_mig_sizes_where_a_meter_exists_and_nowhere_else():
    from components.catalog import MIG_SIZES
    from components.sizing.prices import price_book

    book = price_book()
    row = {name: r.prices for name, r in book.regions.items()}
    # Azure/karpenter-provider-azure pkg/providers/pricing/zz_generated.pricing.go @2b431da1 (generated 2026-06-18)
    assert (row["eastus"]["Standard_NC24ads_A100_v4"], row["westeurope"]["Standard_NC24ads_A100_v4"]) == (3.673, 4.775)
    assert (row["eastus"]["Standard_NC40ads_H100_v5"], row["westeurope"]["Standard_NC40ads_H100_v5"]) == (6.98, 9.08)
    assert (row["eastus"]["Standard_ND96amsr_A100_v4"], row["westeurope"]["Standard_ND96amsr_A100_v4"]) == (32.77, 40.962)
    assert sorted(n for n, p in row.items() if "Standard_ND96asr_v4" in p) == [
        "eastus", "italynorth", "southcentralus", "westeurope", "westus2"]
    assert "Standard_ND96isr_H200_v5" not in row["eastus"] and "Standard_ND96isr_H200_v5" not in row["westeurope"]
    assert row["eastus2"]["Standard_ND96isr_H200_v5"] == 84.8
    assert all(any(size in p for p in row.values()) for size in MIG_SIZES)  # every MIG size is priced somewhere
    assert row["japanwest"] == {"Standard_ND96amsr_A100_v4": 50.794, "Standard_ND96isr_H100_v5": 152.396,
                                "Standard_ND96isr_H200_v5": 131.44}  # a row of MIG sizes alone


def test_a_size_neither_a10_nor_mig_is_refused_naming_both_families():
    (line,) = refused({**ONE, "prices": {"Standard_NC6": 1.0}})
    assert line.startswith("p.yaml: prices: Standard_NC6 not an NVadsA10_v5 or MIG size; price some of "
                           "Standard_NV6ads_A10_v5"), line
    assert "Standard_NC24ads_A100_v4" in line
