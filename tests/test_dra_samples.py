"""DraSamples: a DeviceClass for A10 vGPUs, a claim template per slice size, a shared claim, and a locked-down sample Job."""

from __future__ import annotations

import itertools

import pulumi
import pytest
from pydantic import ValidationError

from components.catalog import A10_SIZES
from components.config import GpuPoolConfig, SamplesConfig
from components.dra_samples import (
    JOB_COMMAND,
    DraSamples,
    DraSamplesArgs,
    claim_template_name,
    device_class_selector,
    device_request,
    job_spec,
    memory_selector,
    min_memory_mib,
    sizes_in_use,
    workload_memory,
    workload_tolerations,
)
from components.offline import capture

DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
JOB = "kubernetes:batch/v1:Job"
NAMESPACE = "kubernetes:core/v1:Namespace"


def pool(name: str, vm_size: str, taints: list[str] | None = None) -> GpuPoolConfig:
    return GpuPoolConfig.model_validate({"name": name, "vmSize": vm_size, "taints": taints or []})


SMALL = pool("small", "Standard_NV6ads_A10_v5")
THIRD = pool("third", "Standard_NV12ads_A10_v5", ["nvidia.com/gpu=present:NoSchedule"])
FULL = pool("full", "Standard_NV36ads_A10_v5", ["nvidia.com/gpu=present:NoSchedule", "tier=training:NoSchedule"])


def args(pools: list[GpuPoolConfig] | None = None, **overrides) -> DraSamplesArgs:
    return DraSamplesArgs.model_validate({"pools": pools or [THIRD, FULL], **overrides})


# --- pure functions -------------------------------------------------------------------------------------------------------
def test_device_class_selector_checks_driver_type_and_a10_product_with_guards():
    cel = device_class_selector()
    assert "device.driver == 'gpu.nvidia.com'" in cel
    # Every attribute is tested for presence before it is read (a missing one is an error, not false).
    assert cel.index("'type' in device.attributes['gpu.nvidia.com']") < cel.index(".type == 'gpu'")
    assert cel.index("'productName' in device.attributes['gpu.nvidia.com']") < cel.index(".productName.matches(")


@pytest.mark.parametrize("nominal, margin, expected", [(8, 10, 7372), (4, 10, 3686), (24, 10, 22118), (8, 0, 8192)])
def test_min_memory_is_nominal_less_the_margin(nominal, margin, expected):
    assert min_memory_mib(nominal, margin) == expected


def test_an_8gb_slice_reading_7_8gib_still_counts_as_8gb():
    assert round(7.8 * 1024) >= min_memory_mib(8, SamplesConfig().memory_margin_percent)


@pytest.mark.parametrize("margin", range(0, 26))
def test_no_allowed_margin_lets_a_smaller_size_reach_a_bigger_template(margin):
    sizes = sorted({s.gpu_memory_gib for s in A10_SIZES.values()})
    for smaller, bigger in itertools.pairwise(sizes):
        assert smaller * 1024 < min_memory_mib(bigger, margin), (smaller, bigger, margin)


def test_memory_selector_guards_the_capacity_then_compares_with_a_quantity():
    cel = memory_selector(8, 10)
    assert cel == (
        "'memory' in device.capacity['gpu.nvidia.com'] && "
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('7372Mi')) >= 0"
    )


def test_sizes_in_use_are_distinct_and_sorted():
    pools = [FULL, SMALL, THIRD, pool("other", "Standard_NV36adms_A10_v5"), pool("big", "Standard_NV72ads_A10_v5")]
    assert sizes_in_use(pools) == [4, 8, 24]


def test_device_request_is_v1_shaped():
    request = device_request(args(), 8)
    assert set(request) == {"name", "exactly"}  # v1 wraps the details; v1beta1 had them at the top
    assert request["exactly"]["deviceClassName"] == "a10-vgpu"
    assert (request["exactly"]["allocationMode"], request["exactly"]["count"]) == ("ExactCount", 1)
    assert request["exactly"]["selectors"] == [{"cel": {"expression": memory_selector(8, 10)}}]


def test_template_names_follow_the_class():
    assert claim_template_name("a10-vgpu", 8) == "a10-vgpu-8gib"


@pytest.mark.parametrize("wanted, size", [(None, 8), (1, 8), (8, 8), (9, 24), (24, 24)])
def test_workload_asks_for_the_smallest_size_that_fits(wanted, size):
    assert workload_memory(args(workloadMemoryGiB=wanted), [THIRD, FULL]) == size


def test_workload_bigger_than_every_slice_is_refused_with_the_key():
    with pytest.raises(ValidationError) as err:
        args(workloadMemoryGiB=48)
    assert "workloadMemoryGiB: 48 GiB is more than any pool's slice offers (8, 24 GiB)" in str(err.value)


def test_chart_device_class_name_is_refused():
    with pytest.raises(ValidationError) as err:
        args(deviceClassName="gpu.nvidia.com")
    assert "'gpu.nvidia.com' is created by the NVIDIA chart" in str(err.value)


def test_tolerations_cover_only_pools_big_enough_each_taint_once():
    assert workload_tolerations([THIRD, FULL], 24) == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "tier", "operator": "Equal", "value": "training", "effect": "NoSchedule"},
    ]
    assert workload_tolerations([THIRD, FULL], 8) == workload_tolerations([THIRD, FULL], 24)
    assert workload_tolerations([SMALL], 4) == []


def test_job_is_locked_down_and_claims_a_vgpu():
    spec = job_spec(args(), [THIRD, FULL])
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"] == JOB_COMMAND == ["nvidia-smi", "-L"]
    assert container["image"] == "ubuntu:24.04"
    assert pod["restartPolicy"] == "Never"
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "privileged": False,
        "capabilities": {"drop": ["ALL"]},
    }
    assert set(container["resources"]["limits"]) == {"cpu", "memory"}
    assert pod["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "a10-vgpu-8gib"}]
    assert container["resources"]["claims"] == [{"name": "gpu"}]
    assert {t["key"] for t in pod["tolerations"]} == {"nvidia.com/gpu", "tier"}
    assert "ttlSecondsAfterFinished" not in spec


def test_job_on_untainted_pools_has_no_tolerations():
    assert "tolerations" not in job_spec(args([SMALL]), [SMALL])["template"]["spec"]


# --- the component under mocks ----------------------------------------------------------------------------------------------
def make(preview: bool, samples: DraSamplesArgs, with_provider: bool = True):
    import pulumi_kubernetes as k8s

    def program():
        opts = None
        if with_provider:
            provider = k8s.Provider("k8s", kubeconfig="offline")
            opts = pulumi.ResourceOptions(providers={"kubernetes": provider})
        s = DraSamples("s", samples, opts)
        pulumi.export("deviceClassName", s.device_class_name)
        pulumi.export("claimTemplateNames", s.claim_template_names)
        pulumi.export("sharedClaimName", s.shared_claim_name)
        pulumi.export("jobName", s.job_name)

    return capture(program, preview=preview)


@pytest.fixture(scope="module")
def plans() -> dict[bool, object]:
    """The two-pool samples, captured once per engine mode."""
    return {preview: make(preview, args()) for preview in (True, False)}


def test_device_class(plans, preview):
    dc = plans[preview].one(DEVICE_CLASS)
    assert dc.inputs["metadata"] == {"name": "a10-vgpu"}
    assert dc.inputs["spec"] == {"selectors": [{"cel": {"expression": device_class_selector()}}]}


def test_one_template_per_size_in_use(plans, preview):
    templates = {t.inputs["metadata"]["name"]: t for t in plans[preview].all(TEMPLATE)}
    assert sorted(templates) == ["a10-vgpu-24gib", "a10-vgpu-8gib"]
    for size in (8, 24):
        t = templates[f"a10-vgpu-{size}gib"]
        assert t.inputs["metadata"]["namespace"] == "dra-samples"
        assert t.inputs["spec"] == {"spec": {"devices": {"requests": [device_request(args(), size)]}}}


def test_shared_claim_asks_for_the_smallest_size(plans, preview):
    claim = plans[preview].one(CLAIM)
    assert claim.inputs["metadata"] == {"name": "a10-vgpu-shared", "namespace": "dra-samples"}
    assert claim.inputs["spec"]["devices"]["requests"] == [device_request(args(), 8)]


def test_job_does_not_block_pulumi_up(plans, preview):
    job = plans[preview].one(JOB)
    assert job.inputs["metadata"]["annotations"]["pulumi.com/skipAwait"] == "true"
    assert job.inputs["metadata"]["namespace"] == "dra-samples"
    assert job.inputs["spec"] == job_spec(args(), [THIRD, FULL])


def test_namespace_enforces_restricted_pod_security(plans, preview):
    ns = plans[preview].one(NAMESPACE)
    assert ns.inputs["metadata"] == {"name": "dra-samples", "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}


def test_each_object_waits_only_for_what_it_references(plans, preview):
    plan = plans[preview]
    urn = {r.name: r.urn for r in plan.resources}
    deps = {r.name: set(r.dependencies) for r in plan.resources if r.type.startswith("kubernetes:")}
    assert deps["s-ns"] == set()
    assert deps["s-class"] == set()
    assert deps["s-8gib"] == deps["s-24gib"] == deps["s-shared"] == {urn["s-ns"], urn["s-class"]}
    assert deps["s-deny-all"] == {urn["s-ns"]}
    assert deps["s-nvidia-smi"] == {urn["s-ns"], urn["s-8gib"], urn["s-deny-all"]}


def test_every_object_uses_the_explicit_provider(plans, preview):
    plan = plans[preview]
    provider = plan.one("pulumi:providers:kubernetes").urn
    objects = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert len(objects) == 7  # namespace, class, 2 templates, shared claim, deny-all policy, job
    for r in objects:
        assert r.provider is not None and r.provider.split("::")[:-1] == provider.split("::"), r.name


def test_outputs_name_the_class_templates_claim_and_job(plans, preview):
    assert plans[preview].outputs == {
        "deviceClassName": "a10-vgpu",
        "claimTemplateNames": {"8GiB": "a10-vgpu-8gib", "24GiB": "a10-vgpu-24gib"},
        "sharedClaimName": "a10-vgpu-shared",
        "jobName": "nvidia-smi",
    }


def test_job_and_shared_claim_can_be_turned_off(preview):
    plan = make(preview, args(workload=False, sharedClaim=False))
    assert plan.all(JOB) == [] and plan.all(CLAIM) == []
    assert len(plan.all(TEMPLATE)) == 2
    assert "jobName" not in plan.outputs and "sharedClaimName" not in plan.outputs


def test_without_an_explicit_provider_it_refuses():
    with pytest.raises(pulumi.InputPropertiesError) as err:
        make(False, args(), with_provider=False)
    assert "explicit Kubernetes provider" in str(err.value)
