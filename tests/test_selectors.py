"""Size classes and the CEL that encodes them: a lower and an upper memory bound per class, bands that never overlap."""

from __future__ import annotations

import itertools

import pytest

from components.catalog import A10_SIZES
from components.config import SamplesConfig
from components.kubernetes.selectors import (
    SIZE_CLASSES,
    check_size_class,
    device_class_selector,
    max_memory_mib,
    min_memory_mib,
    size_class_of,
    size_class_selector,
    usable_memory_gib,
    vm_sizes_of_class,
)

MARGINS = range(0, 26)


def test_size_classes_are_the_catalogs_slice_sizes():
    assert SIZE_CLASSES == (4, 8, 12, 24)
    assert set(SIZE_CLASSES) == {s.gpu_memory_gib for s in A10_SIZES.values()}


def test_device_class_selector_checks_driver_type_and_a10_product_with_guards():
    cel = device_class_selector()
    assert "device.driver == 'gpu.nvidia.com'" in cel
    # Every attribute is tested for presence before it is read (a missing one is an error, not false).
    assert cel.index("'type' in device.attributes['gpu.nvidia.com']") < cel.index(".type == 'gpu'")
    assert cel.index("'productName' in device.attributes['gpu.nvidia.com']") < cel.index(".productName.matches(")


@pytest.mark.parametrize("nominal, margin, expected", [(8, 10, 7372), (4, 10, 3686), (24, 10, 22118), (8, 0, 8192)])
def test_min_memory_is_nominal_less_the_margin(nominal, margin, expected):
    assert min_memory_mib(nominal, margin) == expected


@pytest.mark.parametrize("nominal, margin, expected", [(8, 10, 9012), (4, 10, 4506), (24, 10, 27034), (8, 0, 8193),
                                                       (8, 25, 9216)])
def test_max_memory_is_nominal_plus_the_margin_cut_at_the_next_class(nominal, margin, expected):
    assert max_memory_mib(nominal, margin) == expected


def test_an_8gb_slice_reading_7_8gib_still_counts_as_8gb():
    margin = SamplesConfig().memory_margin_percent
    assert size_class_of(round(7.8 * 1024), margin) == 8
    assert min_memory_mib(8, margin) <= round(7.8 * 1024) < max_memory_mib(8, margin)


@pytest.mark.parametrize("margin", MARGINS)
def test_bands_never_overlap_at_any_allowed_margin(margin):
    for smaller, bigger in itertools.pairwise(SIZE_CLASSES):
        assert min_memory_mib(smaller, margin) < max_memory_mib(smaller, margin) <= min_memory_mib(bigger, margin)
        assert smaller * 1024 < min_memory_mib(bigger, margin), (smaller, bigger, margin)  # nominal never reaches up
        assert bigger * 1024 >= max_memory_mib(smaller, margin), (smaller, bigger, margin)  # nor down


@pytest.mark.parametrize("margin", MARGINS)
def test_every_size_reading_nominal_is_its_own_class(margin):
    for size in SIZE_CLASSES:
        assert size_class_of(size * 1024, margin) == size


def test_a_slice_reading_below_the_margin_is_no_class_never_a_smaller_one():
    assert size_class_of(23.5 * 1024, 0) is None  # 24 GB slice, no margin: not a 12
    assert size_class_of(23.5 * 1024, 10) == 24
    assert size_class_of(6 * 1024, 10) is None  # between 4 and 8: no such slice


def test_size_class_selector_bounds_memory_on_both_sides_with_a_presence_guard():
    assert size_class_selector(8, 10) == (
        "'memory' in device.capacity['gpu.nvidia.com'] && "
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('7372Mi')) >= 0 && "
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('9012Mi')) < 0"
    )


def test_usable_memory_is_what_a_slice_reports_at_the_least():
    assert usable_memory_gib(8, 10) == pytest.approx(7.2, abs=0.01)
    assert usable_memory_gib(24, 0) == 24


def test_vm_sizes_of_a_class():
    assert [s.vm_size for s in vm_sizes_of_class(24)] == [
        "Standard_NV36ads_A10_v5", "Standard_NV36adms_A10_v5", "Standard_NV72ads_A10_v5"]
    assert [s.vm_size for s in vm_sizes_of_class(24, devices=2)] == ["Standard_NV72ads_A10_v5"]
    assert vm_sizes_of_class(4, devices=2) == []


def test_a_size_that_is_no_class_is_refused():
    with pytest.raises(ValueError, match="16 GiB is not an A10 slice size; choose one of 4, 8, 12, 24"):
        check_size_class(16)
