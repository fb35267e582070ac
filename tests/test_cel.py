"""The DeviceClass and claim selectors, compiled and evaluated by a real CEL engine (cel-python) against ResourceSlice devices.

Kubernetes adds `quantity()` and `Quantity.compareTo()` to CEL and gives `device.attributes[domain]` /
`device.capacity[domain]` as maps that are empty for an unknown domain; components.verify.cel registers the same (the
engine `verify` evaluates live selectors with), and this module tests the package's selectors through it. Devices are
written as resource.k8s.io/v1 ResourceSlices (validated against the official schema), shaped as the NVIDIA driver
publishes them (kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/deviceinfo.go GetDevice: attributes in the
driver's domain, capacity `memory` from NVML's total, nvlib.go). It publishes a vGPU like any GPU (a vGPU guest only
skips DynamicMIG, nvlib.go): an A10 vGPU slice is a small A10 whose productName carries the profile (`NVIDIA A10-8Q`),
its memory a little under nominal.
"""

from __future__ import annotations

import uuid
from fractions import Fraction

import kubernetes_validate
import pytest
from celpy import celtypes

from components.catalog import A10_SIZES, GPU_DRIVER_NAME
from components.config import SamplesConfig
from components.kubernetes.claim_templates import ClaimSettings, template_specs
from components.kubernetes.selectors import SIZE_CLASSES, device_class_selector, size_class_selector
from components.kubernetes.shared_slices import quantity_mib as written_quantity_mib
from components.verify.cel import CelError, Quantity, any_quantity_mib, cel_device
from components.verify.cel import evaluate as cel_evaluate


@pytest.mark.parametrize(
    "text, value",
    [
        ("1Ki", 1024), ("1Mi", 2**20), ("7.8Gi", Fraction(78, 10) * 2**30), ("0.5Gi", 2**29), ("+1Mi", 2**20),
        ("1k", 1000), ("1M", 10**6), ("8G", 8 * 10**9), ("2E", 2 * 10**18), ("1500m", Fraction(3, 2)),
        ("250u", Fraction(1, 4000)), ("1e3", 1000), ("1E3", 1000), ("5e-1", Fraction(1, 2)), ("25232932864", 25232932864),
        ("-1Gi", -(2**30)), (".5k", 500), ("3.", 3),
    ],
)
def test_quantity_parses_like_kubernetes(text, value):
    assert Quantity(text).value == value


@pytest.mark.parametrize("text", ["", "Mi", "1K", "1KiB", "1 Mi", "1.2.3", "1e", "8GB", "1mi", "0x10", "1Gi1"])
def test_quantity_rejects_what_kubernetes_rejects(text):
    with pytest.raises(ValueError):
        Quantity(text)


def test_the_two_quantity_readers_say_which_they_are():
    # verify reads what a driver publishes (any quantity, None for junk); the claim packing reads only the whole Gi/Mi
    # the package writes, and refuses the rest.
    assert any_quantity_mib("23028Mi") == 23028 and any_quantity_mib("2.5Gi") == 2560
    assert any_quantity_mib("25232932864") == 25232932864 / 2**20 and any_quantity_mib("8GB") is None
    assert written_quantity_mib("5Gi") == 5120
    with pytest.raises(ValueError, match="whole number of Gi or Mi"):
        written_quantity_mib("2.5Gi")


# --- the devices: ResourceSlices as the NVIDIA driver publishes them ------------------------------------------------------------
def gpu(name: str, product: str | None, memory: str | None, *, gpu_type: str | None = "gpu", driver_domain: bool = True):
    """One device: attributes unqualified (the driver's own domain), memory as a capacity, productName optional."""
    attributes = {
        "uuid": {"string": f"GPU-{uuid.uuid5(uuid.NAMESPACE_OID, f'{name}/{product}/{memory}')}"},
        "brand": {"string": "Nvidia"},
        "architecture": {"string": "Ampere"},
        "cudaComputeCapability": {"version": "8.6.0"},
        "driverVersion": {"version": "550.144.6"},
        "cudaDriverVersion": {"version": "12.4.0"},
    }
    if gpu_type is not None:
        attributes["type"] = {"string": gpu_type}
    if product is not None:
        attributes["productName"] = {"string": product}
    device = {"name": name, "attributes": attributes}
    if memory is not None:
        device["capacity"] = {"memory": {"value": memory}}
    return device


def resource_slice(node: str, devices: list[dict], driver: str = GPU_DRIVER_NAME) -> dict:
    """A v1 ResourceSlice: one pool per node, named after the node (as the driver does)."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{driver}-x7k2q"},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


# (node, VM size, devices): every NVadsA10_v5 size. Reported memory reads a little under nominal (an 8 GB slice about
# 7.8 GiB), written in the different quantity notations a driver may use.
A10_NODES = [
    ("aks-nv6-vmss000000", "Standard_NV6ads_A10_v5", [gpu("gpu-0", "NVIDIA A10-4Q", "3.8Gi")]),
    ("aks-nv12-vmss000000", "Standard_NV12ads_A10_v5", [gpu("gpu-0", "NVIDIA A10-8Q", "7.8Gi")]),
    ("aks-nv12-vmss000001", "Standard_NV12ads_A10_v5", [gpu("gpu-0", "NVIDIA A10-8Q", "7987Mi")]),
    ("aks-nv18-vmss000000", "Standard_NV18ads_A10_v5", [gpu("gpu-0", "NVIDIA A10-12Q", "12480M")]),
    ("aks-nv36-vmss000000", "Standard_NV36ads_A10_v5", [gpu("gpu-0", "NVIDIA A10-24Q", "25232932864")]),
    ("aks-nv36m-vmss000000", "Standard_NV36adms_A10_v5", [gpu("gpu-0", "NVIDIA A10-24Q", "23.5Gi")]),
    (
        "aks-nv72-vmss000000",
        "Standard_NV72ads_A10_v5",
        [gpu("gpu-0", "NVIDIA A10-24Q", "23.5Gi"), gpu("gpu-1", "NVIDIA A10-24Q", "23.5Gi")],
    ),
]
OTHER_NODES = [
    ("aks-nc-a100", [gpu("gpu-0", "NVIDIA A100 80GB PCIe", "79.2Gi")]),
    ("aks-a10g", [gpu("gpu-0", "NVIDIA A10G", "22Gi")]),
    ("aks-a16", [gpu("gpu-0", "NVIDIA A16", "14.5Gi"), gpu("gpu-1", "NVIDIA A16-4Q", "3.8Gi")]),
    ("aks-l4", [gpu("gpu-0", "NVIDIA L4", "22Gi")]),
    ("aks-no-product", [gpu("gpu-0", None, "7.8Gi")]),
    ("aks-no-type", [gpu("gpu-0", "NVIDIA A10-8Q", "7.8Gi", gpu_type=None)]),
    ("aks-mig", [gpu("mig-0", "NVIDIA A10-8Q", "7.8Gi", gpu_type="mig")]),
]
OTHER_DRIVER = resource_slice("aks-other", [gpu("dev-0", "NVIDIA A10-8Q", "7.8Gi")], driver="gpu.example.com")
NO_MEMORY = resource_slice("aks-no-memory", [gpu("gpu-0", "NVIDIA A10-8Q", None)])

SLICES = (
    [resource_slice(node, devices) for node, _, devices in A10_NODES]
    + [resource_slice(node, devices) for node, devices in OTHER_NODES]
    + [OTHER_DRIVER, NO_MEMORY]
)


def test_every_size_has_a_slice_and_slices_are_real_resource_slices():
    assert {vm for _, vm, _ in A10_NODES} == set(A10_SIZES)
    listed = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList", "metadata": {}, "items": SLICES}
    for version in ("1.34", "1.35", "1.36"):
        kubernetes_validate.validate(listed, version, strict=True)  # one call: the schema loads once per version


def devices_of(slices: list[dict]) -> dict[str, celtypes.MapType]:
    """Every device of these slices, keyed `node/device`."""
    return {
        f"{s['spec']['nodeName']}/{d['name']}": cel_device(s["spec"]["driver"], d) for s in slices for d in s["spec"]["devices"]
    }


ALL_DEVICES = devices_of(SLICES)
NOMINAL = {  # device key -> nominal GiB of the A10 slices
    f"{node}/{d['name']}": A10_SIZES[vm].gpu_memory_gib for node, vm, devices in A10_NODES for d in devices
}
SIZES = sorted({s.gpu_memory_gib for s in A10_SIZES.values()})
MARGIN = SamplesConfig().memory_margin_percent

def evaluate(expression: str, device: celtypes.MapType) -> bool:
    """The selector's result (the shared engine of components.verify.cel); an error raises CelError (in Kubernetes it
    aborts the whole allocation)."""
    return cel_evaluate(expression, device)


def matches(*expressions: str) -> set[str]:
    """The devices every expression selects (a request's selectors AND its class's)."""
    return {key for key, device in ALL_DEVICES.items() if all(evaluate(e, device) for e in expressions)}


SELECTORS = [device_class_selector()] + [size_class_selector(size, m) for size in SIZES for m in (0, MARGIN, 25)]


@pytest.mark.parametrize("expression", SELECTORS)
def test_selectors_never_error_on_any_device(expression):
    results = {key: evaluate(expression, device) for key, device in ALL_DEVICES.items()}  # an error raises
    assert len(results) == len(ALL_DEVICES) > len(NOMINAL)


def test_device_class_selects_exactly_the_a10_slices():
    assert matches(device_class_selector()) == set(NOMINAL) | {"aks-no-memory/gpu-0"}


@pytest.mark.parametrize("margin", [0, 5, MARGIN, 20, 25])
@pytest.mark.parametrize("size", SIZES)
def test_each_size_class_admits_its_own_slices_and_no_other(size, margin):
    selected = matches(device_class_selector(), size_class_selector(size, margin))
    own = {key for key, nominal in NOMINAL.items() if nominal == size}
    if margin == 0:
        # No margin: a slice reading under nominal (they all do) fits no class; the margin is what makes them match.
        assert selected <= own
        return
    assert selected == own


@pytest.mark.parametrize("margin", [5, MARGIN, 25])
def test_every_a10_slice_is_in_exactly_one_size_class(margin):
    for key in NOMINAL:
        classes = [size for size in SIZES if evaluate(size_class_selector(size, margin), ALL_DEVICES[key])]
        assert classes == [NOMINAL[key]], key


def requests_of(spec: dict) -> list[dict]:
    """(sub-)requests of a claim spec in the order the scheduler tries them: [exactly] or firstAvailable."""
    (request,) = spec["devices"]["requests"]
    return [request["exactly"]] if "exactly" in request else request["firstAvailable"]


FOUR_SIZES = ClaimSettings(sizes=list(SIZE_CLASSES), two_devices=True)


@pytest.mark.parametrize("fit", ["bestFit", "exact"])
def test_with_four_sizes_each_first_choice_admits_only_its_own_size_and_alternatives_go_up(fit):
    settings = FOUR_SIZES.model_copy(update={"fit": fit})
    for key, (name, spec) in template_specs(settings).items():
        choices = requests_of(spec)
        picked = [matches(device_class_selector(), c["selectors"][0]["cel"]["expression"]) for c in choices]
        classes = [{NOMINAL[k] for k in p} for p in picked]
        assert all(len(c) == 1 for c in classes), (name, classes)  # every choice admits one size class only
        order = [c.pop() for c in classes]
        own = 24 if key == "2x24GiB" else int(key.removesuffix("GiB"))
        assert order[0] == own, name
        if fit == "exact" or key == "2x24GiB":
            assert order == [own], name
        else:
            assert order == [s for s in SIZES if s >= own], name  # smallest first, each larger size once


def test_the_8gib_template_never_lands_on_a_4gib_slice_and_tries_8_before_24():
    (_, spec) = template_specs(FOUR_SIZES)["8GiB"]
    first, *rest = requests_of(spec)
    assert matches(device_class_selector(), first["selectors"][0]["cel"]["expression"]) == {
        "aks-nv12-vmss000000/gpu-0", "aks-nv12-vmss000001/gpu-0"}  # one reads 7.8Gi: still an 8 GB slice
    every = set().union(*(matches(device_class_selector(), c["selectors"][0]["cel"]["expression"]) for c in [first, *rest]))
    assert not any(NOMINAL[key] == 4 for key in every)


def test_the_two_device_template_needs_a_node_with_two_24gib_devices():
    (_, spec) = template_specs(FOUR_SIZES)["2x24GiB"]
    (choice,) = requests_of(spec)
    selected = matches(device_class_selector(), choice["selectors"][0]["cel"]["expression"])
    # The scheduler allocates a claim's devices on one node: only the NV72ads node has two that match.
    per_node: dict[str, int] = {}
    for key in selected:
        per_node[key.split("/")[0]] = per_node.get(key.split("/")[0], 0) + 1
    assert choice["count"] == 2
    assert [node for node, n in per_node.items() if n >= choice["count"]] == ["aks-nv72-vmss000000"]


def test_a10_without_a_memory_capacity_is_in_the_class_but_no_template():
    key = "aks-no-memory/gpu-0"
    assert evaluate(device_class_selector(), ALL_DEVICES[key])
    assert not any(evaluate(size_class_selector(size, MARGIN), ALL_DEVICES[key]) for size in SIZES)


# --- controls: what the guards and the margin are for ---------------------------------------------------------------------------
def test_without_the_margin_an_8gb_slice_would_not_count_as_8gb():
    exact = f"device.capacity['{GPU_DRIVER_NAME}'].memory.compareTo(quantity('8Gi')) >= 0"
    assert not evaluate(exact, ALL_DEVICES["aks-nv12-vmss000000/gpu-0"])


def test_without_the_presence_guards_other_devices_abort_allocation():
    unguarded_memory = f"device.capacity['{GPU_DRIVER_NAME}'].memory.compareTo(quantity('1Mi')) >= 0"
    with pytest.raises(CelError):
        evaluate(unguarded_memory, ALL_DEVICES["aks-other/dev-0"])
    unguarded_product = f"device.attributes['{GPU_DRIVER_NAME}'].productName.matches('^NVIDIA A10')"
    with pytest.raises(CelError):
        evaluate(unguarded_product, ALL_DEVICES["aks-no-product/gpu-0"])


def test_an_invalid_quantity_is_an_evaluation_error():
    with pytest.raises(CelError):
        evaluate(f"device.capacity['{GPU_DRIVER_NAME}'].memory.compareTo(quantity('8GB')) >= 0", ALL_DEVICES["aks-l4/gpu-0"])
