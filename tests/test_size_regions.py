"""`size --regions`: the same plan costed across regions, cheapest first, from the regional price table, saying which
regions lack a size; text, Markdown and JSON; region names checked as ARM writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from components.cli import main
from components.sizing.prices import _default_book, price_book
from tests.conftest import ROOT

WORKLOADS = ("--workload", "embed=3x4", "--workload", "train=20x2", "--family", "a10")  # 4 x NV6 and 2 x NV36


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["size", "--project-dir", str(ROOT), *WORKLOADS, *argv])
    out, err = capsys.readouterr()
    return status, out, err


def hourly(region: str) -> float:
    prices = price_book().regions[region].prices
    return 4 * prices["Standard_NV6ads_A10_v5"] + 2 * prices["Standard_NV36ads_A10_v5"]


def test_a_list_of_regions_cheapest_first_in_text(capsys):
    status, out, err = run(capsys, "--regions", "westeurope,eastus")
    assert (status, err) == (0, "")
    section = out.split("regions (the plan's pools at each region's prices, cheapest first):\n", 1)[1]
    rows = [line.split() for line in section.splitlines()[1:3]]
    assert [r[0] for r in rows] == ["eastus", "westeurope"]
    assert rows[0][1] == f"{hourly('eastus'):.2f}" and rows[1][1] == f"{hourly('westeurope'):.2f}"
    more = hourly("westeurope") - hourly("eastus")
    assert f"+{more:.2f} USD (+{more / hourly('eastus'):.0%})" in section.splitlines()[2]
    assert f"Cheapest: eastus at {hourly('eastus'):.2f} USD an hour." in section
    assert "|" not in section and out.splitlines()[-1] == "everything fits"


def test_all_compares_every_region_of_the_table_in_json(capsys):
    status, out, _ = run(capsys, "--regions", "all", "--json")
    regions = json.loads(out)["regions"]
    book = price_book()
    offering = [name for name, row in book.regions.items() if {"Standard_NV6ads_A10_v5", "Standard_NV36ads_A10_v5"}
                <= set(row.prices)]
    priced = [r for r in regions["rows"] if r["hourly"] is not None]
    assert status == 0 and [r["region"] for r in priced] == sorted(
        offering, key=lambda name: (round(hourly(name), 4), name))
    assert [r["hourly"] for r in priced] == sorted(r["hourly"] for r in priced)
    assert regions["cheapest"] == priced[0]["region"] and regions["currency"] == "USD"
    assert regions["vmSizes"] == ["Standard_NV6ads_A10_v5", "Standard_NV36ads_A10_v5"]
    assert all(r["missing"] == [] and r["availability"] in ("listed-by-sku-api", "price-meter-only") for r in priced)
    lacking = regions["rows"][len(priced):]  # the rows of MIG sizes alone lack both A10 sizes, and come last
    assert {r["region"] for r in lacking} == set(book.regions) - set(offering) and "japanwest" in offering + [
        r["region"] for r in lacking]
    assert all(r["missing"] == ["Standard_NV6ads_A10_v5", "Standard_NV36ads_A10_v5"] for r in lacking)
    assert regions["unpricedRegions"] > 0
    assert json.loads(out)["cost"]["region"] == "eastus"  # the plan itself is costed as before


def write_book(tmp_path: Path) -> Path:
    row = {"date": "2026-06-18", "source": "test"}
    book = {"currency": "USD", "fallbackRegion": "eastus", "regions": {
        "eastus": {**row, "prices": {"Standard_NV6ads_A10_v5": 0.5, "Standard_NV36ads_A10_v5": 3.0}},
        "westeurope": {**row, "prices": {"Standard_NV6ads_A10_v5": 0.4}},
        "uksouth": {**row, "prices": {"Standard_NV6ads_A10_v5": 0.6, "Standard_NV36ads_A10_v5": 3.5}}}}
    path = tmp_path / "book.yaml"
    path.write_text(yaml.safe_dump(book))
    return path


def test_regions_lacking_a_size_are_named_and_come_last(capsys, tmp_path: Path):
    book = write_book(tmp_path)
    status, out, _ = run(capsys, "--prices", str(book), "--regions", "all")
    assert status == 0
    assert "Lacking a size: westeurope (Standard_NV36ads_A10_v5)." in out
    assert "Cheapest: eastus at 8.00 USD an hour." in out
    section = out.split("cheapest first):\n", 1)[1].splitlines()
    assert [line.split()[0] for line in section[1:4]] == ["eastus", "uksouth", "westeurope"]
    _, out, _ = run(capsys, "--prices", str(book), "--regions", "norwayeast,uksouth", "--json")
    rows = json.loads(out)["regions"]["rows"]
    assert rows[1] == {"region": "norwayeast", "hourly": None, "monthly": None, "availability": None, "date": None,
                       "missing": ["Standard_NV6ads_A10_v5", "Standard_NV36ads_A10_v5"]}


def test_markdown_has_a_regions_section(capsys):
    _, out, _ = run(capsys, "--regions", "eastus,westeurope", "--format", "markdown")
    section = out.split("#### Regions\n", 1)[1]
    assert "| region | per hour | per month | more than the cheapest | lacks | availability | prices as of |" in section
    assert f"| `eastus` | {hourly('eastus'):.2f} USD |" in section
    assert f"Cheapest: `eastus` at {hourly('eastus'):.2f} USD an hour." in section


def test_a_stacks_pools_are_compared_across_regions(capsys):
    _, out, _ = run(capsys, "--stack", "prod", "--regions", "eastus,westeurope", "--json")
    doc = json.loads(out)
    assert doc["cost"]["region"] == "westeurope"  # the stack's own location still costs the plan
    (west,) = [r for r in doc["regions"]["rows"] if r["region"] == "westeurope"]
    assert west["hourly"] == pytest.approx(doc["cost"]["plan"]["hourly"], abs=0.01)


@pytest.mark.parametrize(("value", "words"), [
    ("West Europe", "--regions 'West Europe': 'West Europe' is not how ARM names the region; write 'westeurope'"),
    ("eastus,nowhere", "--regions 'nowhere': 'nowhere' is not an Azure region"),
    ("all,eastus", "--regions 'all,eastus': 'all' compares every region; give it alone"),
    (",", "--regions ',': name regions as ARM writes them, comma-separated (e.g. 'westeurope,eastus'), or 'all'"),
])
def test_bad_region_names_are_bad_input(capsys, value, words):
    status, out, err = run(capsys, "--regions", value)
    assert (status, out) == (2, "") and words in err


def test_a_one_region_price_file_cannot_compare_regions(capsys, tmp_path: Path):
    prices = tmp_path / "one.yaml"
    prices.write_text(yaml.safe_dump({"region": "eastus", "currency": "USD", "date": "2026-06-18", "source": "s",
                                      "prices": {"Standard_NV6ads_A10_v5": 0.5}}))
    status, out, err = run(capsys, "--prices", str(prices), "--regions", "all")
    assert (status, out) == (2, "")
    assert f"--regions: {prices} holds one region's prices; comparing regions needs a table by region" in err


def test_the_packaged_price_book_reads_the_same_with_the_c_parser_as_with_the_pure_one(monkeypatch):
    # The package's own book is read with libyaml's parser where installed; a user's file with the pure-Python one.
    loaders, fastest = [], getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    load = yaml.load
    monkeypatch.setattr(yaml, "load", lambda text, **kw: loaders.append(kw["Loader"]) or load(text, **kw))
    _default_book.cache_clear()  # the book is read once per process: read it here, then again without libyaml
    fast = price_book()
    assert price_book() is fast and len(loaders) == 1  # once per process
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    _default_book.cache_clear()
    assert price_book() == fast and "eastus" in fast.regions
    _default_book.cache_clear()
    assert loaders == [fastest, yaml.SafeLoader]
