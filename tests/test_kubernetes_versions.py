"""Kubernetes versions as AKS offers them: the catalog, refusals with the supported list, support warnings."""

from __future__ import annotations

import copy
from datetime import date

import pytest

from components.catalog.kubernetes_versions import AKS_MINORS, supported_list
from components.config import ConfigError, stack_config_from_mapping
from components.config.versions import offered_problem, support_warning, upgrade_problem
from tests.conftest import MINIMAL_STACK, as_config

SUPPORTED = "supported: 1.33 (LTS only), 1.34 (GA), 1.35 (GA), 1.36 (GA, LTS), 1.37 (preview)"


def problems_for(version: str) -> list[str]:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = version
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


def test_the_catalog_holds_what_aks_offers_with_its_patches():
    assert supported_list() + "" == SUPPORTED.removeprefix("supported: ")
    assert {m.text: m.newest_patch for m in AKS_MINORS.values()} == {
        "1.33": None, "1.34": 10, "1.35": 7, "1.36": 3, "1.37": None}  # Azure/AKS#5948
    assert AKS_MINORS[(1, 36)].lts and AKS_MINORS[(1, 36)].ga == "2026-06-19"


@pytest.mark.parametrize("version", ["1.99", "1.38", "1.32", "2.0"])
def test_a_minor_aks_does_not_offer_is_refused_with_the_supported_list(version):
    (line,) = problems_for(version)
    assert line.startswith("cluster.kubernetesVersion: ")
    if version in ("1.32",):  # below DRA's minimum: that is said first
        assert "needs Kubernetes 1.34 or newer" in line
    else:
        assert line.endswith(f"'{version}' is not a Kubernetes version AKS offers; {SUPPORTED}")


@pytest.mark.parametrize(("version", "newest"), [("1.35.99", "1.35.7"), ("1.36.4", "1.36.3"), ("1.34.11", "1.34.10")])
def test_a_patch_above_the_newest_known_is_refused(version, newest):
    (line,) = problems_for(version)
    assert f"'{version}' is not a patch AKS offers (the newest known" in line and newest in line
    assert f"write '{version.rsplit('.', 1)[0]}' to let AKS pick its newest patch" in line and SUPPORTED in line


@pytest.mark.parametrize("version", ["1.34", "1.34.10", "1.35.7", "1.36", "1.36.3", "1.37"])
def test_versions_aks_offers_are_accepted(version):
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = version
    assert stack_config_from_mapping(as_config(data)).cluster.kubernetes_version == version
    assert offered_problem(version) is None


def test_a_pool_pin_is_checked_too():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["gpuPools"][0]["kubernetesVersion"] = "1.35.99"
    with pytest.raises(ConfigError, match=r"gpuPools\[0\]\.kubernetesVersion: '1.35.99' is not a patch AKS offers"):
        stack_config_from_mapping(as_config(data))


@pytest.mark.parametrize(("version", "on", "wanted"), [
    ("1.34", date(2026, 12, 4), "standard support on AKS ended in November 2026"),
    ("1.34", date(2026, 10, 1), "standard support on AKS ends in November 2026: plan the upgrade"),
    ("1.34", date(2026, 6, 1), None),
    ("1.35", date(2026, 12, 4), None),
    ("1.35", date(2027, 2, 1), "ends in March 2027"),
    ("1.36.3", date(2026, 12, 4), None),
    ("1.37", date(2026, 12, 4), "in preview on AKS (no SLA, not for production); 1.36 is GA and LTS"),
    ("1.33", date(2026, 12, 4), "offered only with AKS Long-Term Support"),
])
def test_support_warnings_name_the_lts_way_out(version, on, wanted):
    found = support_warning(version, on)
    if wanted is None:
        assert found is None
    else:
        assert wanted in found
        if "support on AKS" in wanted:
            assert "Long-Term Support (Premium tier, supportPlan AKSLongTermSupport)" in found
            assert "1.36 is also LTS" in found


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("1.35", "1.36", None), ("1.36", "1.37", None), ("1.36.3", "1.37", None),
    ("1.35", "1.37", "skips a minor version"), ("1.37", "1.36", "is a downgrade"),
    ("1.37", "1.38", "'1.38' is not a Kubernetes version AKS offers"), ("1.36.3", "1.36.9", "not a patch AKS offers"),
])
def test_upgrades_across_1_36_and_1_37_follow_akss_one_minor_rule(old, new, problem):
    found = upgrade_problem(old, new)
    assert (found is None) if problem is None else (problem in found)
