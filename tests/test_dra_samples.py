"""DraSamples: a DeviceClass for A10 vGPUs, a claim template per slice size, a shared claim, and a locked-down sample Job."""

from __future__ import annotations

import pulumi
import pytest
from pydantic import ValidationError

from components.config import GpuPoolConfig
from components.kubernetes.claim_templates import claim_spec, device_class_spec, template_specs
from components.kubernetes.dra_samples import (
    JOB_COMMAND,
    DraSamples,
    DraSamplesArgs,
    claim_settings,
    job_spec,
    sizes_in_use,
    workload_memory,
)
from components.kubernetes.tolerations import tolerations_for_size
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
PAIRS = pool("pairs", "Standard_NV72ads_A10_v5", ["tier=pairs:NoSchedule"])


def args(pools: list[GpuPoolConfig] | None = None, **overrides) -> DraSamplesArgs:
    return DraSamplesArgs.model_validate({"pools": pools or [THIRD, FULL], **overrides})


# --- pure functions -------------------------------------------------------------------------------------------------------
def test_sizes_in_use_are_distinct_and_sorted():
    pools = [FULL, SMALL, THIRD, pool("other", "Standard_NV36adms_A10_v5"), pool("big", "Standard_NV72ads_A10_v5")]
    assert sizes_in_use(pools) == [4, 8, 24]


def test_claim_settings_follow_the_pools_and_the_samples_settings():
    settings = claim_settings(args(fit="exact", memoryMarginPercent=5), [THIRD, FULL])
    assert (settings.sizes, settings.two_devices, settings.fit, settings.memory_margin_percent) == ([8, 24], False, "exact", 5)
    assert claim_settings(args([SMALL, PAIRS]), [SMALL, PAIRS]).two_devices is True  # NV72ads nodes: two devices each


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


@pytest.mark.parametrize("namespace", ["default", "kube-system", "kube-public", "kube-node-lease", "kube-anything"])
def test_namespaces_the_samples_would_break_are_refused(namespace):
    with pytest.raises(ValidationError) as err:
        args(namespace=namespace)
    assert f"namespace\n  Value error, '{namespace}' is refused" in str(err.value)


@pytest.mark.parametrize("namespace", ["dra-samples", "team-kube", "kubeflow", "defaults"])
def test_other_namespaces_are_fine(namespace):
    assert args(namespace=namespace).namespace == namespace


def test_extended_resource_name_needs_kubernetes_1_36():
    with pytest.raises(ValidationError) as err:
        args(extendedResourceName="example.com/a10")
    assert "extendedResourceName: needs the cluster's Kubernetes version (kubernetesVersion)" in str(err.value)
    with pytest.raises(ValidationError) as err:
        args(extendedResourceName="example.com/a10", kubernetesVersion="1.35")
    assert "needs Kubernetes 1.36 or newer (kubernetesVersion is '1.35')" in str(err.value)
    assert args(extendedResourceName="example.com/a10", kubernetesVersion="1.36").extended_resource_name == "example.com/a10"


@pytest.mark.parametrize("name", ["gpu", "kubernetes.io/gpu", "nvidia.com/", "/gpu", "nvidia.com/g pu", "Nvidia_com/gpu"])
def test_extended_resource_names_must_be_domain_qualified(name):
    with pytest.raises(ValidationError) as err:
        args(extendedResourceName=name, kubernetesVersion="1.36")
    assert "is not an extended resource name" in str(err.value)


def test_job_tolerates_only_its_own_size_class():
    # The 8 GiB Job may fall back to the 24 GiB slices (bestFit), but never onto the tainted 24 GiB pool.
    pod = job_spec(args(), [THIRD, FULL])["template"]["spec"]
    assert pod["tolerations"] == tolerations_for_size([THIRD, FULL], 8)
    assert {t["key"] for t in pod["tolerations"]} == {"nvidia.com/gpu"}
    assert "tier" not in {t["key"] for t in pod["tolerations"]}
    big = job_spec(args(workloadMemoryGiB=24), [THIRD, FULL])["template"]["spec"]
    assert {t["key"] for t in big["tolerations"]} == {"nvidia.com/gpu", "tier"}
    assert big["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "a10-vgpu-24gib"}]


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
    assert dc.inputs["spec"] == device_class_spec()
    assert "extendedResourceName" not in dc.inputs["spec"]  # off by default


def test_one_template_per_size_in_use(plans, preview):
    templates = {t.inputs["metadata"]["name"]: t for t in plans[preview].all(TEMPLATE)}
    assert sorted(templates) == ["a10-vgpu-24gib", "a10-vgpu-8gib"]
    for size in (8, 24):
        t = templates[f"a10-vgpu-{size}gib"]
        assert t.inputs["metadata"]["namespace"] == "dra-samples"
        assert t.inputs["spec"] == {"spec": claim_spec(claim_settings(args(), [THIRD, FULL]), size)}
        assert t.inputs["spec"]["spec"] == template_specs(claim_settings(args(), [THIRD, FULL]))[f"{size}GiB"][1]


def test_shared_claim_asks_for_the_smallest_size(plans, preview):
    claim = plans[preview].one(CLAIM)
    assert claim.inputs["metadata"] == {"name": "a10-vgpu-shared", "namespace": "dra-samples"}
    assert claim.inputs["spec"] == claim_spec(claim_settings(args(), [THIRD, FULL]), 8)


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


MIG = GpuPoolConfig.model_validate({"name": "mig", "vmSize": "Standard_NC24ads_A100_v4", "gpuInstanceProfile": "MIG3g"})


def test_with_mig_pools_alone_the_samples_make_mig_claims_and_no_job(preview):
    plan = make(preview, args([MIG], workload=False, workloadMemoryGiB=8))
    assert plan.all(JOB) == []
    assert plan.outputs["claimTemplateNames"] == {"a100-80gb-3g.40gb": "mig-a100-80gb-3g40gb"}
    assert plan.outputs["sharedClaimName"] == "a10-vgpu-shared"
    assert len(plan.all(DEVICE_CLASS)) == 1


def test_with_mig_pools_alone_the_sample_job_is_refused():
    with pytest.raises(ValidationError) as err:
        args([MIG])
    assert "workload: the sample Job asks for an A10 vGPU slice and every pool here is a MIG pool" in str(err.value)


def test_without_an_explicit_provider_it_refuses():
    with pytest.raises(pulumi.InputPropertiesError) as err:
        make(False, args(), with_provider=False)
    assert "explicit Kubernetes provider" in str(err.value)


def test_two_device_nodes_get_a_two_device_template(preview):
    plan = make(preview, args([THIRD, PAIRS], workload=False))
    templates = {t.inputs["metadata"]["name"]: t.inputs["spec"]["spec"] for t in plan.all(TEMPLATE)}
    assert sorted(templates) == ["a10-vgpu-24gib", "a10-vgpu-2x24gib", "a10-vgpu-8gib"]
    (request,) = templates["a10-vgpu-2x24gib"]["devices"]["requests"]
    assert request["exactly"]["count"] == 2 and request["name"] == "gpu"
    assert plan.outputs["claimTemplateNames"]["2x24GiB"] == "a10-vgpu-2x24gib"


def test_extended_resource_name_reaches_the_device_class_on_1_36(preview):
    plan = make(preview, args(extendedResourceName="example.com/a10", kubernetesVersion="1.36", workload=False))
    assert plan.one(DEVICE_CLASS).inputs["spec"] == device_class_spec("example.com/a10")
    assert plan.one(DEVICE_CLASS).inputs["spec"]["extendedResourceName"] == "example.com/a10"


def test_nvidia_gpu_is_refused_on_the_samples_class():
    # The chart's gpu.nvidia.com maps it too: which class serves it would follow creation order.
    with pytest.raises(ValidationError) as err:
        args(extendedResourceName="nvidia.com/gpu", kubernetesVersion="1.36")
    assert ("'nvidia.com/gpu' is refused here: the driver chart's gpu.nvidia.com class maps it too, and which class "
            "serves a pod would follow creation order; set extendedResources.nvidiaGpu instead") in str(err.value)
