"""Kubernetes versions as AKS offers them: the catalog, refusals with the supported list, support warnings."""

from __future__ import annotations

import copy
from datetime import date

import pytest

from components.catalog.kubernetes_versions import AKS_MINORS, AKS_VERSIONS_AS_OF, as_of_note, supported_list
from components.config import ConfigError, stack_config_from_mapping
from components.config.versions import offered_problem, support_warning, upgrade_problem
from tests.conftest import MINIMAL_STACK, as_config

SUPPORTED = "supported: 1.33 (LTS only), 1.34 (GA, LTS), 1.35 (GA, LTS), 1.36 (GA, LTS), 1.37 (preview)"


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


def test_the_catalog_follows_the_aks_calendar_and_release_notes():
    # Azure/AKS #5008: every minor from 1.27 on is LTS-enabled; the calendar's LTS table gives each one's end.
    assert all(m.lts for m in AKS_MINORS.values())
    assert {m.text: m.end_of_lts for m in AKS_MINORS.values()} == {
        "1.33": date(2027, 7, 31), "1.34": date(2027, 11, 30), "1.35": date(2028, 3, 31), "1.36": date(2028, 6, 30),
        "1.37": None}
    # The calendar states the end of standard support of 1.35 and 1.36: nothing about them is unverified.
    assert AKS_MINORS[(1, 35)].end_of_standard_support == date(2027, 3, 31) and not AKS_MINORS[(1, 35)].unverified
    assert AKS_MINORS[(1, 36)].end_of_standard_support == date(2027, 6, 30) and not AKS_MINORS[(1, 36)].unverified
    # Release 2026-07-17 made 1.33 LTS-only (not the 2026-06-19 one).
    assert AKS_MINORS[(1, 33)].status == "lts-only" and AKS_MINORS[(1, 33)].end_of_standard_support == date(2026, 7, 17)
    assert AKS_MINORS[(1, 37)].status == "preview"  # Azure/AKS #5948 (release 2026-09-04)


def test_what_rests_on_the_table_names_its_date_once_it_has_passed():
    day_after = date.fromordinal(AKS_VERSIONS_AS_OF.toordinal() + 1)
    assert as_of_note(AKS_VERSIONS_AS_OF) == "" and as_of_note(day_after) == " as of 2026-12-04"
    assert support_warning("1.37", AKS_VERSIONS_AS_OF).startswith("Kubernetes 1.37 is in preview on AKS (no SLA")
    assert support_warning("1.37", day_after).startswith("Kubernetes 1.37 is in preview on AKS as of 2026-12-04 (no")
    assert "AKS Long-Term Support as of 2026-12-04" in support_warning("1.33", day_after)
    # Dates are judged on the day given, not on the table's: a year on, 1.35's end has passed.
    assert "1.35's standard support on AKS ended in March 2027" in support_warning("1.35", date(2027, 12, 4))
    # A refusal always names the table's date: AKS may offer more since.
    assert offered_problem("1.38").startswith("'1.38' is not a Kubernetes version AKS offers (as of 2026-12-04); ")


@pytest.mark.parametrize("version", ["1.99", "1.38", "1.32", "2.0"])
def test_a_minor_aks_does_not_offer_is_refused_with_the_supported_list(version):
    (line,) = problems_for(version)
    assert line.startswith("cluster.kubernetesVersion: ")
    if version in ("1.32",):  # below DRA's minimum: that is said first
        assert "needs Kubernetes 1.34 or newer" in line
    else:
        assert line.endswith(f"'{version}' is not a Kubernetes version AKS offers (as of 2026-12-04); {SUPPORTED}")


@pytest.mark.parametrize(("version", "newest"), [("1.35.99", "1.35.7"), ("1.36.4", "1.36.3"), ("1.34.11", "1.34.10")])
def test_a_patch_above_the_newest_known_is_refused(version, newest):
    (line,) = problems_for(version)
    assert f"'{version}' is not a patch AKS offers (the newest {version[:4]} patch known on 2026-12-04 is" in line
    assert newest in line
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
    ("1.37", date(2026, 12, 4), "in preview on AKS (no SLA, not for production); 1.36 is the newest GA minor (LTS too)"),
    ("1.33", date(2026, 12, 4), "offered only with AKS Long-Term Support (Premium tier, supportPlan AKSLongTermSupport) "
                                "until July 2027"),
])
def test_support_warnings_name_the_lts_way_out(version, on, wanted):
    found = support_warning(version, on)
    if wanted is None:
        assert found is None
    else:
        assert wanted in found
        if "support on AKS" in wanted:  # 1.34 and 1.35 are LTS-enabled: keep them with LTS until its end
            until = {"1.34": "November 2027", "1.35": "March 2028"}[version]
            assert f"or keep {version} with Long-Term Support (Premium tier, supportPlan AKSLongTermSupport) until " \
                   f"{until}" in found


def test_once_lts_has_ended_too_only_the_upgrade_is_left():
    found = support_warning("1.34", date(2027, 12, 15))
    assert found.endswith("upgrade one minor at a time to 1.35 or 1.36 (its Long-Term Support ended in November 2027 too)")


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("1.35", "1.36", None), ("1.36", "1.37", None), ("1.36.3", "1.37", None),
    ("1.35", "1.37", "skips a minor version"), ("1.37", "1.36", "is a downgrade"),
    ("1.37", "1.38", "'1.38' is not a Kubernetes version AKS offers"), ("1.36.3", "1.36.9", "not a patch AKS offers"),
])
def test_upgrades_across_1_36_and_1_37_follow_akss_one_minor_rule(old, new, problem):
    found = upgrade_problem(old, new)
    assert (found is None) if problem is None else (problem in found)
