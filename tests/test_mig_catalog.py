"""The MIG catalog: sizes, the slices each AKS profile lays out per GPU, and the slice-name translation."""

from __future__ import annotations

import pytest

from components.catalog import A10_SIZES, MIG_PROFILES, MIG_SIZES, mig_slice, slice_profile_to_aks


def test_every_size_offers_every_aks_profile_in_order():
    for size in MIG_SIZES.values():
        assert tuple(size.gpu.slices) == MIG_PROFILES, size.vm_size


@pytest.mark.parametrize(
    "aks, per_gpu, compute",
    [("MIG1g", 7, 1), ("MIG2g", 3, 2), ("MIG3g", 2, 3), ("MIG4g", 1, 4), ("MIG7g", 1, 7)],
)
def test_agentbaker_layout_per_gpu(aks, per_gpu, compute):
    for size in MIG_SIZES.values():
        s = size.gpu.slices[aks]
        assert (s.per_gpu, s.compute_units) == (per_gpu, compute)
        assert s.per_gpu * s.compute_units <= 7  # a GPU has seven compute slices


@pytest.mark.parametrize(
    "vm_size, aks, profile, gib",
    [
        ("Standard_NC24ads_A100_v4", "MIG1g", "1g.10gb", 10),  # never 1g.20gb: AKS lays out profile 19
        ("Standard_ND96amsr_A100_v4", "MIG3g", "3g.40gb", 40),
        ("Standard_ND96asr_v4", "MIG3g", "3g.20gb", 20),
        ("Standard_NC40ads_H100_v5", "MIG3g", "3g.47gb", 47),
        ("Standard_ND96isr_H100_v5", "MIG7g", "7g.80gb", 80),
        ("Standard_ND96isr_H200_v5", "MIG1g", "1g.18gb", 18),
    ],
)
def test_slice_of_a_size(vm_size, aks, profile, gib):
    s = mig_slice(vm_size, aks)
    assert (s.profile, s.memory_gib) == (profile, gib)
    assert slice_profile_to_aks(vm_size, profile) == aks
    assert slice_profile_to_aks(vm_size, aks) == aks


def test_a_slice_name_of_another_gpu_does_not_translate():
    assert slice_profile_to_aks("Standard_ND96asr_v4", "3g.40gb") is None  # an A100 40GB has 3g.20gb
    assert slice_profile_to_aks("Standard_NV36ads_A10_v5", "MIG3g") is None


def test_mig_slice_names_what_is_unknown():
    with pytest.raises(KeyError, match="Standard_NV36ads_A10_v5 is not a MIG size"):
        mig_slice("Standard_NV36ads_A10_v5", "MIG1g")
    with pytest.raises(KeyError, match="MIG5g is not a gpuInstanceProfile"):
        mig_slice("Standard_NC24ads_A100_v4", "MIG5g")


def test_sizes_from_the_docs():
    nc96 = MIG_SIZES["Standard_NC96ads_A100_v4"]
    assert (nc96.vcpus, nc96.ram_gib, nc96.gpus, nc96.gpu.memory_gib) == (96, 880, 4, 80)
    assert nc96.slices_per_node["MIG1g"] == 28
    assert MIG_SIZES["Standard_ND96asr_v4"].gpu.memory_gib * 8 == 320  # "8 | 320" in the Accelerators tab
    assert MIG_SIZES["Standard_ND96isr_H200_v5"].gpu.memory_gib * 8 == 1128


def test_short_names_are_unique_dns_safe_and_fit_a_pool_name():
    names = [s.short_name for s in MIG_SIZES.values()]
    assert len(set(names)) == len(names)
    assert not set(names) & {s.short_name for s in A10_SIZES.values()}
    for n in names:
        assert n.isalnum() and n.islower() and len(n) <= 12, n
    assert MIG_SIZES["Standard_ND96isr_H200_v5"].short_name == "nd96isrh200"


def test_unverified_facts_are_marked():
    assert MIG_SIZES["Standard_NC40ads_H100_v5"].gpu.slices["MIG1g"].unverified
    assert not MIG_SIZES["Standard_NC24ads_A100_v4"].gpu.slices["MIG1g"].unverified
    assert all(s.gpu.unverified for s in MIG_SIZES.values())  # NVML product names were not read on Azure
