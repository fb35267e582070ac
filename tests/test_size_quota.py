"""`size --regions ... --subscription ID`: with a credential, the regions offering every size are ranked by the quota
the subscription has free there for the plan's pools (read through preflight's reader and the real azure-mgmt-compute
client from the fake ARM of tests/fake_compute.py), then by price; without one, the ranking stays by price and one line
says why. Bad input is one line."""

from __future__ import annotations

import json

import pytest

from components.cli import _parser, main
from components.cli.size_quota import quota_of
from components.sizing.command import run
from tests.fake_compute import TOKEN, FakeCompute, Scenario, sku
from tests.test_preflight import A10, quotas, sub
from tests.test_preflight_inputs import NoCredential

REGIONS = ("eastus", "westeurope", "uksouth")  # eastus is the cheapest of the three for an NV12ads pool


@pytest.fixture(scope="module")
def arm():
    with FakeCompute() as fake:
        fake.scenarios[sub(40)] = Scenario(
            usages={r: quotas(a10=10 if r == "eastus" else 100) for r in REGIONS},
            skus={r: [sku("Standard_NV12ads_A10_v5", A10, 12, r)] for r in REGIONS}, unusable=("uksouth",))
        yield fake


@pytest.fixture(autouse=True)
def _token(monkeypatch):
    monkeypatch.setenv("ARM_ACCESS_TOKEN", TOKEN)


def size(arm: FakeCompute, *extra: str) -> list[str]:
    return ["size", "--workload", "a=6x3", "--regions", ",".join(REGIONS), "--subscription", sub(40), "--arm-endpoint",
            arm.url, *extra]


def test_regions_where_the_quota_fits_come_first(capsys, arm):
    assert main(size(arm, "--json")) == 0
    out = capsys.readouterr().out
    assert TOKEN not in out
    regions = json.loads(out)["regions"]
    # the plan: 3 NV12ads nodes (maxCount 3) + 1 surge = 48 vCPUs of the family; eastus has 10 free
    assert [(r["region"], r["quota"]["fits"]) for r in regions["rows"]] == [
        ("westeurope", True), ("eastus", False), ("uksouth", False)]
    assert regions["rows"][1]["quota"]["short"] == [f"{A10}: 48 vCPUs needed, 10 free"]
    assert regions["rows"][2]["quota"]["short"] == ["this subscription cannot use the region"]
    assert (regions["cheapest"], regions["cheapestWithQuota"]) == ("eastus", "westeurope")
    assert regions["quotaNote"].startswith(f"Quota: subscription {sub(40)}'s free vCPUs checked for the plan's pools")


def test_without_a_credential_it_ranks_by_price_and_says_so_in_one_line(capsys, arm):
    args = _parser().parse_args(size(arm))
    assert run(args, quota_of(args, credential=NoCredential())) == 0
    out = capsys.readouterr().out
    section = out.split("regions (the plan's pools at each region's prices, cheapest first):\n", 1)[1].splitlines()
    assert [line.split()[0] for line in section[1:4]] == ["eastus", "uksouth", "westeurope"]  # by price alone
    (note,) = [line for line in out.splitlines() if line.startswith("Quota:")]
    assert note.startswith("Quota: not checked (no Azure token for https://management.azure.com/.default: "
                           "ClientAuthenticationError: DefaultAzureCredential failed")
    assert note.endswith("regions ranked by price only.")
    assert "quota" not in section[0]  # no quota column when nothing was read


def test_without_subscription_size_stays_offline(capsys, arm):
    asked = len(arm.requests)
    assert main(["size", "--workload", "a=6x3", "--regions", "eastus,westeurope", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "quotaNote" not in doc["regions"] and "quota" not in doc["regions"]["rows"][0]
    assert len(arm.requests) == asked


def test_a_subscription_needs_regions_and_a_guid(capsys):
    assert main(["size", "--workload", "a=6x3", "--subscription", "abc"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "size: --subscription 'abc' is not a subscription ID: give the GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, "
        "`az account show --query id -o tsv`)",
        "size: --subscription goes with --regions: it ranks those regions by the quota free there"]
