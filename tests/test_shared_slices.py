"""Slices shared by memory, checked against the Kubernetes API's own rules.

Devices are published as the driver's `consumableShares: memory` publishes them (kubernetes-sigs/dra-driver-nvidia-gpu
cmd/gpu-kubelet-plugin/consumable_shares.go); claims are charged as the scheduler's allocator charges them
(kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/
consumable_capacity.go: default for an empty request, min, step rounding, max, the sum within the capacity), through
`components.kubernetes.shared_slices`, whose rule is tested here against hand-computed cases first. Objects validate
against kubernetes-validate's Kubernetes 1.36 schemas in strict mode.
"""

from __future__ import annotations

import kubernetes_validate
import pulumi
import pytest

from components import DraClaimTemplates, DraClaimTemplatesArgs
from components.config import ConfigError
from components.kubernetes.claim_templates import ClaimSettings, template_specs
from components.kubernetes.memory_claims import memory_claim_spec, memory_classes
from components.kubernetes.selectors import device_class_selector, min_memory_mib
from components.kubernetes.shared_slices import (
    MIB,
    MemoryPolicy,
    consumed_mib,
    device_capacity,
    fits,
    published_policy,
    quantity_mib,
)
from components.offline import capture
from tests.test_cel import cel_device, evaluate, gpu, resource_slice

K8S = "1.36.0"
TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"


def shared_gpu(name: str, product: str, memory_mib: int) -> dict:
    """A device as consumable_shares.go publishes it in "memory" mode (memory already whole MiB here)."""
    device = gpu(name, product, f"{memory_mib}Mi")
    device["allowMultipleAllocations"] = True
    device["capacity"]["memory"] = device_capacity(published_policy(memory_mib * MIB))
    return device


# --- the allocator's rule, by hand -----------------------------------------------------------------------------------
POLICY = MemoryPolicy(capacity_mib=8000, default_mib=8000, min_mib=1, max_mib=8000, step_mib=1)


@pytest.mark.parametrize(("request_mib", "consumed"), [
    (None, 8000),   # fillEmptyRequestQuantity: the default, all of it: a whole-slice claim stays exclusive
    (0, 1),         # roundUpRange: below min is min
    (5120, 5120),   # on the grid
    (8000, 8000),   # the max itself
    (8001, None),   # violatesPolicy: above max
])
def test_consumed_memory_follows_the_allocator(request_mib, consumed):
    assert consumed_mib(request_mib, POLICY) == consumed


def test_step_rounding_and_grid_follow_the_allocator():
    coarse = MemoryPolicy(capacity_mib=8192, default_mib=8192, min_mib=1024, max_mib=8192, step_mib=1024)
    assert consumed_mib(1500, coarse) == 2048  # up to the next min + n * step
    assert consumed_mib(8000, coarse) == 8192
    odd = MemoryPolicy(capacity_mib=9000, default_mib=9000, min_mib=1024, max_mib=9000, step_mib=1024)
    assert consumed_mib(8500, odd) is None  # rounds to 9216 > max


def test_published_policy_is_consumable_shares_memory_mode():
    # 7.8 GiB reported by an 8 GB slice, not whole MiB: rounded down to a whole MiB (consumable_shares.go).
    policy = published_policy(int(7.8 * 1024 * MIB) + 12345)
    assert policy == MemoryPolicy(7987, 7987, 1, 7987, 1)
    assert device_capacity(policy) == {"value": "7987Mi", "requestPolicy": {
        "default": "7987Mi", "validRange": {"min": "1Mi", "max": "7987Mi", "step": "1Mi"}}}


def test_a_shared_resource_slice_is_valid_for_kubernetes_1_36():
    slice_ = resource_slice("aks-shared-vmss000000", [shared_gpu("gpu-0", "NVIDIA A10-24Q", 22870)])
    kubernetes_validate.validate(slice_, K8S, strict=True)


# --- the templates -------------------------------------------------------------------------------------------------
SETTINGS = ClaimSettings(sizes=[4, 8, 12, 24], memory_requests_gib=[1, 2, 3, 5, 10, 20])


def memory_specs(settings: ClaimSettings = SETTINGS) -> dict[str, dict]:
    return {name: spec for key, (name, spec) in template_specs(settings).items() if key.startswith("mem")}


def alternatives(spec: dict) -> list[dict]:
    (request,) = spec["devices"]["requests"]
    return request["firstAvailable"] if "firstAvailable" in request else [request["exactly"]]


def test_memory_templates_are_valid_resource_claim_templates_for_kubernetes_1_36():
    specs = memory_specs()
    assert sorted(specs) == ["a10-vgpu-mem-10gib", "a10-vgpu-mem-1gib", "a10-vgpu-mem-20gib", "a10-vgpu-mem-2gib",
                             "a10-vgpu-mem-3gib", "a10-vgpu-mem-5gib"]
    for name, spec in specs.items():
        template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                    "metadata": {"name": name, "namespace": "team-a"}, "spec": {"spec": spec}}
        kubernetes_validate.validate(template, K8S, strict=True)
        for choice in alternatives(spec):
            assert choice["capacity"] == {"requests": {"memory": f"{name.split('-')[-1][:-3]}Gi"}}
            assert choice["count"] == 1 and choice["allocationMode"] == "ExactCount"


def test_the_schema_check_can_fail():
    spec = memory_claim_spec("a10-vgpu", 5, [8, 24], 10)
    spec["devices"]["requests"][0]["firstAvailable"][0]["capacity"] = {"memory": "5Gi"}  # not under `requests`
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                                      "metadata": {"name": "x", "namespace": "y"}, "spec": {"spec": spec}}, K8S,
                                     strict=True)


@pytest.mark.parametrize("reported", [0.93, 1.0])  # a slice reads a little under nominal; 93 % seen on a real node
def test_every_alternative_holds_its_request_within_the_devices_request_policy(reported):
    margin = SETTINGS.memory_margin_percent
    for spec in memory_specs().values():
        for choice in alternatives(spec):
            size = int(choice.get("name", "").removesuffix("gib") or _only_class(spec))
            request = quantity_mib(choice["capacity"]["requests"]["memory"])
            for memory in (min_memory_mib(size, margin), int(size * 1024 * reported)):
                policy = published_policy(memory * MIB)
                assert consumed_mib(request, policy) == request, (spec, size, memory)
                assert fits([request], policy)


def _only_class(spec: dict) -> int:
    (choice,) = alternatives(spec)
    return next(size for size in (4, 8, 12, 24) if f"quantity('{min_memory_mib(size, 10)}Mi')" in
                choice["selectors"][0]["cel"]["expression"])


def test_alternatives_are_the_classes_that_hold_the_request_smallest_first():
    assert memory_classes(5, [4, 8, 12, 24], 10) == [8, 12, 24]  # 4 GB slices hold 3.6 GiB at a 10 % margin
    assert [c["name"] for c in alternatives(memory_specs()["a10-vgpu-mem-5gib"])] == ["8gib", "12gib", "24gib"]
    exact = ClaimSettings(sizes=[4, 8, 24], memory_requests_gib=[5], fit="exact")
    assert "exactly" in template_specs(exact)["mem5GiB"][1]["devices"]["requests"][0]
    with pytest.raises(ConfigError, match=r"(memory_requests_gib|memoryRequestsGiB): 8 GiB fits no shared slice on offer"):
        ClaimSettings(sizes=[4, 8], memory_requests_gib=[8])
    with pytest.raises(ConfigError, match="each request is 1-24 GiB"):
        ClaimSettings(sizes=[24], memory_requests_gib=[0])


# --- allocation, as the scheduler's allocator decides it on one node ---------------------------------------------------
def allocate(claims: list[dict], devices: list[dict]) -> list[str | None]:
    """Each claim in turn: its alternatives in order, the first device its selectors admit that still has room."""
    used: dict[str, list[int | None]] = {d["name"]: [] for d in devices}
    chosen = []
    for spec in claims:
        placed = None
        for choice in alternatives(spec):
            wanted = quantity_mib(choice["capacity"]["requests"]["memory"]) if "capacity" in choice else None
            for device in devices:
                cel = cel_device("gpu.nvidia.com", device)
                selectors = [device_class_selector(), *(s["cel"]["expression"] for s in choice.get("selectors", []))]
                policy = published_policy(quantity_mib(device["capacity"]["memory"]["value"]) * MIB)
                if all(evaluate(e, cel) for e in selectors) and fits([*used[device["name"]], wanted], policy):
                    placed = device["name"]
                    used[device["name"]].append(wanted)
                    break
            if placed:
                break
        chosen.append(placed)
    return chosen


def test_several_claims_share_one_slice_and_none_goes_over_its_memory():
    # A 24 GB slice reading 93 % (22.3 GiB) holds four 5 GiB claims; the fifth finds no room.
    device = shared_gpu("gpu-0", "NVIDIA A10-24Q", int(24 * 1024 * 0.93))
    spec = memory_specs()["a10-vgpu-mem-5gib"]
    assert allocate([spec] * 5, [device]) == ["gpu-0"] * 4 + [None]


def test_the_smallest_shared_slice_with_room_comes_first():
    small = shared_gpu("small", "NVIDIA A10-8Q", int(8 * 1024 * 0.93))
    large = shared_gpu("large", "NVIDIA A10-24Q", int(24 * 1024 * 0.93))
    spec = memory_specs()["a10-vgpu-mem-3gib"]
    # Two 3 GiB claims fill the 8 GB slice (7.4 GiB), the third moves to the 24 GB one; never the other way round.
    assert allocate([spec] * 3, [large, small]) == ["small", "small", "large"]


def test_a_whole_slice_claim_on_a_shared_device_stays_exclusive():
    device = shared_gpu("gpu-0", "NVIDIA A10-8Q", 7987)
    whole = template_specs(ClaimSettings(sizes=[8]))["8GiB"][1]
    memory = memory_specs()["a10-vgpu-mem-1gib"]
    assert allocate([whole, memory], [device]) == ["gpu-0", None]  # the default is all of the memory
    assert allocate([memory, whole], [device]) == ["gpu-0", None]  # and a used slice is not whole any more


# --- DraClaimTemplates offers them in any namespace --------------------------------------------------------------------
@pytest.mark.parametrize("preview", [True, False])
def test_claim_templates_component_makes_memory_templates_in_the_consumers_namespace(preview):
    import pulumi_kubernetes as k8s

    def program():
        provider = k8s.Provider("k8s", kubeconfig="offline")
        claims = DraClaimTemplates("gpus", DraClaimTemplatesArgs.model_validate(
            {"sizes": [8, 24], "memoryRequestsGiB": [5], "sharedSizes": [24], "namespace": "team-c"}),
            pulumi.ResourceOptions(providers={"kubernetes": provider}))
        pulumi.export("names", claims.claim_template_names)

    plan = capture(program, preview=preview)
    (template,) = [t for t in plan.all(TEMPLATE) if t.inputs["metadata"]["name"] == "a10-vgpu-mem-5gib"]
    assert template.inputs["metadata"]["namespace"] == "team-c"
    assert template.inputs["spec"]["spec"] == memory_claim_spec("a10-vgpu", 5, [24], 10)
    assert plan.outputs["names"]["mem5GiB"] == "a10-vgpu-mem-5gib"
