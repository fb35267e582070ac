"""The host-driver facts: AKS's GRID driver for A10 per node image, and how driver versions compare."""

from __future__ import annotations

import pytest

from components.catalog import DRIVER_CHARTS
from components.catalog.host_drivers import (
    AKS_A10_GRID_DRIVERS,
    AKS_MIN_SUPPORTED_GRID_DRIVER,
    AKS_MIN_SUPPORTED_NODE_IMAGE,
    driver_version,
    grid_driver_named,
    min_grid_driver_for_node_image,
    node_image_version,
)


def test_versions_compare_as_numbers_part_by_part():
    assert driver_version("570.211.01") == (570, 211, 1)
    assert driver_version("570.237") > driver_version("570.211.01") > driver_version("565") > driver_version("550.144.06")
    assert driver_version("580") > driver_version("570.237")


@pytest.mark.parametrize(
    "image, driver",
    [
        ("202605.27.0", "550.144.06"),
        ("202606.08.0", "550.144.06"),
        ("202606.08.1", "570.211.01"),
        ("AKSUbuntu-2204gen2containerd-202607.09.0", "570.211.01"),
        ("202611.03.0", "570.211.01"),  # at least: 570.237's first node image is not announced
    ],
)
def test_node_image_to_the_oldest_grid_driver_it_can_carry(image, driver):
    assert min_grid_driver_for_node_image(image).version == driver


@pytest.mark.parametrize("bad", ["latest", "2026.06.08", "202606.08.1-beta", ""])
def test_node_image_versions_are_checked(bad):
    with pytest.raises(ValueError, match="not an AKS node image version"):
        node_image_version(bad)


def test_the_grid_lines_are_in_order_and_each_has_a_source():
    versions = [driver_version(d.version) for d in AKS_A10_GRID_DRIVERS]
    assert versions == sorted(versions)
    assert [d.version for d in AKS_A10_GRID_DRIVERS] == ["550.144.06", "570.211.01", "570.237"]
    assert all(d.source.startswith("Azure/") for d in AKS_A10_GRID_DRIVERS)
    assert grid_driver_named(AKS_MIN_SUPPORTED_GRID_DRIVER).first_node_image == AKS_MIN_SUPPORTED_NODE_IMAGE
    assert grid_driver_named("535.0") is None


def test_what_each_chart_needs_against_akss_driver():
    aks = driver_version(AKS_MIN_SUPPORTED_GRID_DRIVER)
    needs = {v: c.min_host_driver for v, c in DRIVER_CHARTS.items()}
    assert needs == {"25.8.1": None, "25.12.0": "580", "0.4.0": "565", "0.4.1": "565", "0.5.0": "565"}
    assert driver_version(needs["0.4.1"]) <= aks < driver_version(needs["25.12.0"])
    # AKS's 550 line (before node image 202606.08.1) was below what 0.4.x documents.
    assert driver_version("550.144.06") < driver_version(needs["0.4.1"])
    for chart in DRIVER_CHARTS.values():
        assert (chart.min_host_driver is None) == (chart.host_driver_reason == "")
