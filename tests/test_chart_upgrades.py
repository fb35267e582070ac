"""chart_transition: which chart changes of the driver's release are in-place upgrades, and which are refused."""

from __future__ import annotations

import pytest

from components.catalog import DRIVER_CHARTS
from components.kubernetes.chart_upgrades import Transition, chart_name, chart_transition
from components.kubernetes.dra_driver import release_chart

NGC = "nvidia-dra-driver-gpu"
SIGS = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"  # as the Release's `chart` input holds it


def move(old: str, new: str) -> Transition:
    """The verdict between two catalog versions, with the chart names the Release would carry."""
    return chart_transition(release_chart(DRIVER_CHARTS[old])[0], old, release_chart(DRIVER_CHARTS[new])[0], new)


def test_25_8_1_to_0_4_1_is_in_place_because_name_override_keeps_the_names():
    t = chart_transition(NGC, "25.8.1", SIGS, "0.4.1")
    assert (t.allowed, t.in_place) == (True, True)
    assert "nameOverride=nvidia-dra-driver-gpu" in t.reason and "not replaced" in t.reason
    assert "docs/upgrade.md" in t.source and "helm_release.go" in t.source


@pytest.mark.parametrize("old", ["0.4.0", "0.4.1"])
@pytest.mark.parametrize("new", ["25.8.1", "25.12.0"])
def test_0_4_to_25_x_is_refused_forward_only(old, new):
    t = move(old, new)
    assert (t.allowed, t.in_place) == (False, False)
    assert "forward-only" in t.reason and "BootID" in t.reason and "numNodes" in t.reason
    assert t.source.startswith("kubernetes-sigs/dra-driver-nvidia-gpu docs/upgrade.md")
    assert "checkpoint" in t.source


def test_25_12_to_25_8_is_refused_by_the_checkpoint_too():
    t = move("25.12.0", "25.8.1")
    assert not t.allowed
    assert "checkpoint" in t.reason and "forward-only" not in t.reason  # code, not upstream's guide, says so
    assert "checkpointv.go" in t.source


@pytest.mark.parametrize("old, new", [("25.8.1", "25.12.0"), ("0.4.0", "0.4.1"), ("25.12.0", "0.4.1")])
def test_forward_moves_are_in_place(old, new):
    t = move(old, new)
    assert (t.allowed, t.in_place) == (True, True), t.reason


def test_every_pair_of_known_versions_has_a_verdict_and_no_downgrade_of_the_checkpoint_is_allowed():
    for old in DRIVER_CHARTS.values():
        for new in DRIVER_CHARTS.values():
            t = move(old.version, new.version)
            assert t.reason and t.source
            assert t.allowed == (new.checkpoint_format >= old.checkpoint_format), (old.version, new.version)
            assert t.in_place == t.allowed


def test_no_change_is_no_upgrade():
    t = chart_transition(SIGS, "0.4.1", "dra-driver-nvidia-gpu", "0.4.1")
    assert (t.allowed, t.in_place) == (True, True) and "nothing to upgrade" in t.reason


@pytest.mark.parametrize(
    "old_chart, old_version, new_chart, new_version, named",
    [
        (NGC, "25.8.1", SIGS, "0.6.0", "dra-driver-nvidia-gpu 0.6.0"),
        (NGC, "25.8.1", NGC, "0.4.1", "nvidia-dra-driver-gpu 0.4.1"),  # 0.4.1 exists only under the new name
        (SIGS, "25.8.1", SIGS, "0.4.1", "dra-driver-nvidia-gpu 25.8.1"),
    ],
)
def test_unknown_charts_are_not_allowed(old_chart, old_version, new_chart, new_version, named):
    t = chart_transition(old_chart, old_version, new_chart, new_version)
    assert (t.allowed, t.in_place) == (False, False)
    assert t.reason.startswith(f"{named} is not a chart this package knows")


def test_chart_name_reads_plain_names_and_oci_references():
    assert chart_name(SIGS) == "dra-driver-nvidia-gpu"
    assert chart_name(NGC) == NGC
    assert chart_name(SIGS + "/") == "dra-driver-nvidia-gpu"


@pytest.mark.parametrize("old", ["25.8.1", "0.4.1"])
def test_upgrades_to_0_5_0_are_in_place(old):
    t = move(old, "0.5.0")
    assert (t.allowed, t.in_place) == (True, True)
    assert "CRDs are applied before the release" in t.reason
    if old == "25.8.1":
        assert "nameOverride=nvidia-dra-driver-gpu" in t.reason


@pytest.mark.parametrize("new", ["25.8.1", "25.12.0", "0.4.1"])
def test_0_5_0_is_forward_only(new):
    t = move("0.5.0", new)
    assert (t.allowed, t.in_place) == (False, False)
    assert "downgrade" in t.reason and "stay on 0.5.0 or move forward" in t.reason
    if new == "0.4.1":
        assert "cannot publish slices shared by memory" in t.reason
