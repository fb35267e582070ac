"""MIG claim templates: names, best fit, pairs on one GPU, memory templates, and every CEL they carry evaluated by the
real CEL engine (components.verify.cel) on devices shaped as the NVIDIA driver publishes MIG slices
(tests/verify_cluster.py mig_device), together with the chart's mig.nvidia.com DeviceClass selector."""

from __future__ import annotations

import kubernetes_validate
import pytest

from components.catalog import GPU_DRIVER_NAME
from components.catalog.mig import MIG_SIZES
from components.config.errors import ConfigError
from components.kubernetes.claim_specs import ClaimSettings, shared_claim_spec, template_specs
from components.kubernetes.mig_claims import mig_memory_spec, mig_template_name
from components.kubernetes.slice_kinds import (
    MIG_DEVICE_CLASS,
    PARENT_ATTRIBUTE,
    mig_kinds,
    pool_slice,
    slice_of,
    slice_selector,
)
from components.verify.cel import any_quantity_mib, selects
from tests.verify_cluster import gpu_device, mig_device, mig_devices, mig_node_slice, whole_gpu

# The chart's DeviceClass (templates/deviceclass-mig.yaml in every supported chart).
MIG_CLASS_CEL = f"device.driver == '{GPU_DRIVER_NAME}' && device.attributes['{GPU_DRIVER_NAME}'].type == 'mig'"
# One node per MIG size and profile: every slice kind the catalog knows, on every GPU model.
NODES = {f"{vm}/{aks}": mig_devices(vm, aks) for vm, size in MIG_SIZES.items() for aks in size.gpu.slices}
A10_8 = gpu_device(0, "NVIDIA A10-8Q", "7987Mi")


def _request_choices(spec: dict) -> list[dict]:
    (request,) = spec["devices"]["requests"]
    return [request["exactly"]] if "exactly" in request else request["firstAvailable"]


def _matches(choice: dict, device: dict) -> bool:
    expressions = [MIG_CLASS_CEL, *(s["cel"]["expression"] for s in choice["selectors"])]
    return selects(expressions, GPU_DRIVER_NAME, device)


def _settings(**kw) -> ClaimSettings:
    slices = [{"vmSize": vm, "profile": aks} for vm, size in MIG_SIZES.items() for aks in size.gpu.slices]
    return ClaimSettings(mig_slices=slices, **kw)


def test_the_fixture_slices_are_real_resource_slices_named_as_the_driver_names_them():
    listed = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList", "metadata": {},
              "items": [mig_node_slice(f"aks-mig-{i}", *key.split("/")) for i, key in enumerate(NODES)]}
    for version in ("1.34", "1.36"):
        kubernetes_validate.validate(listed, version, strict=True)
    names = [d["name"] for d in mig_devices("Standard_NC24ads_A100_v4", "MIG1g")]
    assert names == [f"gpu-0-mig-1g10gb-19-{start}" for start in range(7)]
    assert [d["name"] for d in mig_devices("Standard_NC48ads_A100_v4", "MIG3g")] == [
        "gpu-0-mig-3g40gb-9-0", "gpu-0-mig-3g40gb-9-4", "gpu-1-mig-3g40gb-9-0", "gpu-1-mig-3g40gb-9-4"]


# What tells one device of a node from another: where it sits (its name, UUIDs, PCI address, memory slices), never what
# slice it is. A template's selectors read the slice (type, profile, product, architecture, memory), so one device per
# node and slice shape stands for its siblings (588 devices are 45 shapes: each CEL evaluation costs about 0.3 ms).
IDENTITY = ("uuid", "parentUUID", "resource.kubernetes.io/pciBusID", "pcieBusID")


def _shape(device: dict) -> str:
    attributes = {k: v for k, v in device["attributes"].items() if k not in IDENTITY}
    capacity = {k: v for k, v in device["capacity"].items() if not k.startswith("memorySlice")}
    return repr(sorted(attributes.items())) + repr(sorted(capacity.items()))


def test_siblings_differ_only_where_they_sit():
    for key, found in NODES.items():
        assert len({_shape(d) for d in found}) == 1, key
        assert len({d["attributes"]["uuid"]["string"] for d in found}) == len(found), key


def test_each_slice_template_selects_exactly_its_own_slice_on_every_gpu_model():
    specs = template_specs(_settings(fit="exact"))
    devices = [(key, found[0]) for key, found in NODES.items()] + [("a10", A10_8)]  # one per shape (IDENTITY)
    for kind in mig_kinds():
        _, spec = specs[kind.key]
        (choice,) = _request_choices(spec)
        assert choice["deviceClassName"] == MIG_DEVICE_CLASS
        selected = {key for key, d in devices if _matches(choice, d)}
        expected = {key for key, d in devices if key != "a10" and slice_of(d, None, 10) == kind}
        assert selected == expected and selected, kind.key


def test_the_same_profile_name_on_two_gpu_models_is_two_templates():
    specs = template_specs(_settings())
    a100, h100 = "a100-80gb-1g.10gb", "h100-80gb-1g.10gb"
    assert specs[a100][0] == "mig-a100-80gb-1g10gb" and specs[h100][0] == "mig-h100-80gb-1g10gb"
    h100_device = mig_devices("Standard_ND96isr_H100_v5", "MIG1g")[0]
    a100_device = mig_devices("Standard_ND96amsr_A100_v4", "MIG1g")[0]
    own = _request_choices(specs[a100][1])[0]
    assert _matches(own, a100_device) and not _matches(own, h100_device)


def test_best_fit_tries_its_own_slice_then_larger_ones_less_memory_first():
    settings = ClaimSettings(mig_slices=[
        {"vmSize": "Standard_NC24ads_A100_v4", "profile": "MIG3g"},
        {"vmSize": "Standard_NC24ads_A100_v4", "profile": "1g.10gb"},
        {"vmSize": "Standard_NC96ads_A100_v4", "profile": "MIG4g"},
    ])
    choices = _request_choices(template_specs(settings)["a100-80gb-1g.10gb"][1])
    assert [c["name"] for c in choices] == ["a100-80gb-1g10gb", "a100-80gb-3g40gb", "a100-80gb-4g40gb"]
    # The widest slice has nothing larger: one choice, `exactly`.
    assert "exactly" in template_specs(settings)["a100-80gb-4g.40gb"][1]["devices"]["requests"][0]
    exact = template_specs(settings.model_copy(update={"fit": "exact"}))
    assert len(_request_choices(exact["a100-80gb-1g.10gb"][1])) == 1


def test_two_slices_on_one_gpu_share_the_parent_uuid():
    settings = ClaimSettings(mig_slices=[{"vmSize": "Standard_NC48ads_A100_v4", "profile": "MIG3g"},
                                         {"vmSize": "Standard_NC48ads_A100_v4", "profile": "MIG7g"}],
                             mig_two_slices=True)
    specs = template_specs(settings)
    assert "2xa100-80gb-7g.80gb" not in specs  # one 7g per GPU: no pair
    name, spec = specs["2xa100-80gb-3g.40gb"]
    assert name == mig_template_name(pool_slice("Standard_NC48ads_A100_v4", "MIG3g"), 2) == "mig-2x-a100-80gb-3g40gb"
    assert spec["devices"]["constraints"] == [{"requests": ["gpu"], "matchAttribute": PARENT_ATTRIBUTE}]
    assert PARENT_ATTRIBUTE == "gpu.nvidia.com/parentUUID"
    (choice,) = _request_choices(spec)
    assert choice["count"] == 2
    devices = mig_devices("Standard_NC48ads_A100_v4", "MIG3g")
    by_parent: dict[str, int] = {}
    for d in devices:
        if _matches(choice, d):
            parent = d["attributes"]["parentUUID"]["string"]
            by_parent[parent] = by_parent.get(parent, 0) + 1
    assert sorted(by_parent.values()) == [2, 2]  # two GPUs, each with a pair that satisfies the constraint


def test_a_40_gib_workload_gets_the_h100_nvl_3g47gb_not_a_3g40gb():
    settings = ClaimSettings(mig_slices=[{"vmSize": "Standard_NC24ads_A100_v4", "profile": "MIG3g"},
                                         {"vmSize": "Standard_NC40ads_H100_v5", "profile": "3g.47gb"},
                                         {"vmSize": "Standard_NC40ads_H100_v5", "profile": "MIG7g"}],
                             migMemoryRequestsGiB=[40])
    name, spec = template_specs(settings)["migMem40GiB"]
    assert name == "mig-mem-40gib"
    choices = _request_choices(spec)
    assert [c["name"] for c in choices] == ["h100-nvl-94gb-3g47gb", "h100-nvl-94gb-7g94gb"]
    nvl = mig_devices("Standard_NC40ads_H100_v5", "MIG3g")[0]
    assert _matches(choices[0], nvl)
    # The guard: a device of the right profile that reports less than asked is never handed out.
    short = mig_device(0, "Standard_NC40ads_H100_v5", "MIG3g", 0, memory="39Gi")
    assert not _matches(choices[0], short)


def test_a_memory_no_slice_holds_is_refused_naming_what_each_holds():
    with pytest.raises(ConfigError) as err:
        ClaimSettings(mig_slices=[{"vmSize": "Standard_NC24ads_A100_v4", "profile": "MIG3g"}], migMemoryRequestsGiB=[40])
    assert "40 GiB fits no MIG slice on offer (3g.40gb on A100 80GB holds 36.0 GiB at a 10 % memory margin)" in str(
        err.value)
    with pytest.raises(ValueError, match="no MIG slice is on offer"):
        mig_memory_spec(8, [], 10)


def test_bad_mig_slices_name_the_key_and_the_choices():
    with pytest.raises(Exception) as err:
        ClaimSettings(mig_slices=[{"vmSize": "Standard_NV12ads_A10_v5", "profile": "MIG1g"},
                                  {"vmSize": "Standard_ND96asr_v4", "profile": "1g.10gb"}])
    text = str(err.value)
    assert "'Standard_NV12ads_A10_v5' is not a MIG-capable size; choose one of Standard_NC24ads_A100_v4" in text
    assert "'1g.10gb' is no slice of the A100 40GB in Standard_ND96asr_v4; choose one of MIG1g (1g.5gb)" in text


def test_nothing_on_offer_is_refused_and_mig_only_settings_are_enough():
    with pytest.raises(ConfigError, match="no slice on offer: give at least one A10 size"):
        ClaimSettings()
    settings = ClaimSettings(mig_slices=[{"vmSize": "Standard_NC24ads_A100_v4", "profile": "MIG2g"}])
    assert list(template_specs(settings)) == ["a100-80gb-2g.20gb"]
    assert _request_choices(shared_claim_spec(settings))[0]["deviceClassName"] == MIG_DEVICE_CLASS


def test_a10_templates_are_unchanged_by_the_mig_fields():
    a10 = ClaimSettings(sizes=[4, 8, 24], two_devices=True)
    both = a10.model_copy(update={"mig_slices": []})
    assert template_specs(a10) == template_specs(both)
    assert all(c["deviceClassName"] == "a10-vgpu" for _, s in template_specs(a10).values() for c in _request_choices(s))


def test_slice_of_tells_the_families_apart_and_names_unknown_slices_none():
    a100 = mig_devices("Standard_NC24ads_A100_v4", "MIG1g")[0]
    assert slice_of(a100, any_quantity_mib("9728Mi"), 10) == pool_slice("Standard_NC24ads_A100_v4", "MIG1g")
    assert slice_of(A10_8, any_quantity_mib("7987Mi"), 10) == pool_slice("Standard_NV12ads_A10_v5")
    assert slice_of(whole_gpu(0, "Standard_NC24ads_A100_v4"), 77824.0, 10) is None  # a whole A100: no slice here
    odd = mig_device(0, "Standard_NC24ads_A100_v4", "MIG1g", 0, profile="1g.20gb")
    assert slice_of(odd, 19456.0, 10) is None


def test_the_slice_selector_errs_on_no_device_missing_an_attribute():
    bare = {"name": "gpu-0-mig-x", "attributes": {"type": {"string": "mig"}}}
    for kind in mig_kinds():
        assert selects([MIG_CLASS_CEL, slice_selector(kind, 10)], GPU_DRIVER_NAME, bare) is False


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36"])
def test_every_mig_template_passes_the_strict_schema(version):
    items = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
              "metadata": {"name": name, "namespace": "team-a"}, "spec": {"spec": spec}}
             for name, spec in template_specs(_settings(mig_two_slices=True, migMemoryRequestsGiB=[5, 40, 70])).values()]
    listed = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplateList", "metadata": {}, "items": items}
    kubernetes_validate.validate(listed, version, strict=True)


def test_dra_claim_templates_declares_mig_templates_in_the_consumers_namespace(preview):
    from tests.test_claim_templates import TEMPLATE, make

    plan = make(preview, {"migSlices": [{"vmSize": "Standard_NC40ads_H100_v5", "profile": "MIG3g"}],
                          "migMemoryRequestsGiB": [40], "sharedClaim": True})
    names = sorted(t.inputs["metadata"]["name"] for t in plan.all(TEMPLATE))
    assert names == ["mig-h100-nvl-94gb-3g47gb", "mig-mem-40gib"]
    assert {t.inputs["metadata"]["namespace"] for t in plan.all(TEMPLATE)} == {"team-a"}
    assert plan.outputs["claimTemplateNames"] == {"h100-nvl-94gb-3g.47gb": "mig-h100-nvl-94gb-3g47gb",
                                                  "migMem40GiB": "mig-mem-40gib"}
    (shared,) = plan.all("kubernetes:resource.k8s.io/v1:ResourceClaim")
    assert _request_choices(shared.inputs["spec"])[0]["deviceClassName"] == MIG_DEVICE_CLASS
