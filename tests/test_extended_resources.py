"""ExtendedResources (the component), its place in GpuPlatform and the shipped serving stack, and every rule of the
extendedResources section with its message."""

from __future__ import annotations

import copy

import kubernetes_validate
import pulumi
import pytest
import yaml

from components.config import ConfigError, GpuPoolConfig, StackConfig, validate
from components.kubernetes.dra_driver import driver_values, values_revision
from components.kubernetes.extended_classes import ANY_GPU_SELECTOR, extended_classes
from components.kubernetes.extended_resources import (
    RELEASE_ANNOTATION,
    REVISION_ANNOTATION,
    ExtendedResources,
    ExtendedResourcesArgs,
)
from components.offline import capture, load_project, run_project
from components.offline.render import render
from tests.conftest import ROOT
from tests.test_extended_classes import BASE, MIG_POOLS, stack
from tests.verify_cluster import stack as serving_config

DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
RELEASE = "kubernetes:helm.sh/v3:Release"


def problems(data: dict) -> list[str]:
    """Every problem of the stack, as 'key: message'."""
    with pytest.raises(ConfigError) as err:
        validate(StackConfig, data)
    return [f"{p.path}: {p.message}" for p in err.value.problems]


# --- the component alone ------------------------------------------------------------------------------------------------
POOLS = [GpuPoolConfig.model_validate(p) for p in BASE["gpuPools"]]


def make(preview: bool, depends_on: bool = False, **settings):
    import pulumi_kubernetes as k8s

    def program():
        provider = k8s.Provider("k8s", kubeconfig="offline")
        waits = [k8s.core.v1.Namespace("team", opts=pulumi.ResourceOptions(provider=provider))] if depends_on else None
        component = ExtendedResources("x", ExtendedResourcesArgs.model_validate({"pools": POOLS, **settings}),
                                      pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=waits))
        pulumi.export("deviceClasses", component.device_classes)

    return capture(program, preview=preview)


@pytest.mark.parametrize("preview", [True, False])
def test_alone_it_declares_one_class_per_name(preview):
    plan = make(preview, kubernetesVersion="1.36")
    assert {c.inputs["metadata"]["name"]: c.inputs["spec"]["extendedResourceName"] for c in plan.all(DEVICE_CLASS)} == {
        "aks-dra-vgpu-a10-8gib": "aks-dra-vgpu.io/a10-8gib", "aks-dra-vgpu-a10-24gib": "aks-dra-vgpu.io/a10-24gib"}
    assert plan.outputs["deviceClasses"] == {"aks-dra-vgpu.io/a10-8gib": "aks-dra-vgpu-a10-8gib",
                                             "aks-dra-vgpu.io/a10-24gib": "aks-dra-vgpu-a10-24gib"}


def test_alone_every_class_goes_through_the_given_provider_and_waits_for_what_the_component_waits_for():
    plan = make(False, depends_on=True, kubernetesVersion="1.36", nvidiaGpu="8GiB",
                driverRelease="gpu-ops/nvidia-dra-driver-gpu")
    provider, namespace = plan.one("pulumi:providers:kubernetes", "k8s"), plan.one("kubernetes:core/v1:Namespace")
    classes = plan.all(DEVICE_CLASS)
    assert len(classes) == 3
    assert all(c.provider.startswith(provider.urn + "::") and namespace.urn in c.dependencies for c in classes)
    ours = next(c for c in classes if c.inputs["spec"]["extendedResourceName"] == "nvidia.com/gpu")
    assert ours.inputs["metadata"]["annotations"] == {RELEASE_ANNOTATION: "gpu-ops/nvidia-dra-driver-gpu"}
    assert ours.options["replaceOnChanges"] == [f'metadata.annotations["{RELEASE_ANNOTATION}"]']


def test_alone_it_refuses_to_run_without_an_explicit_provider():
    args = ExtendedResourcesArgs.model_validate({"pools": POOLS, "kubernetesVersion": "1.36"})
    with pytest.raises(pulumi.InputPropertiesError, match="ExtendedResources needs an explicit Kubernetes provider"):
        capture(lambda: ExtendedResources("x", args), preview=True)


def test_alone_every_mistake_is_named_by_its_own_key_at_once():
    pools = [POOLS[0].model_copy(update={"kubernetes_version": "1.35"}), POOLS[1]]
    with pytest.raises(ConfigError) as err:
        validate(ExtendedResourcesArgs, {"pools": pools, "kubernetesVersion": "1.35", "nvidiaGpu": "12GiB"})
    assert [str(p) for p in err.value.problems] == [
        "kubernetesVersion: needs Kubernetes 1.36 or newer (kubernetesVersion is '1.35'): before 1.36 the "
        "DRAExtendedResource feature gate is alpha and off, and the API server drops the field; set kubernetesVersion "
        "to '1.36' (pools that pin a version too), or remove this setting",
        "nvidiaGpu: '12GiB' is no slice the pools offer; choose one of 8GiB, 24GiB, none, any",
        "driverRelease: required with nvidiaGpu '12GiB': the class aks-dra-vgpu-nvidia-gpu must be created after the "
        "NVIDIA DRA driver's release, whose chart's class gpu.nvidia.com also maps nvidia.com/gpu (Kubernetes gives the "
        "name to the class created last); write '<namespace>/<release name>' (e.g. "
        "'nvidia-dra-driver-gpu/nvidia-dra-driver-gpu') and pass the driver in dependsOn, or set nvidiaGpu: 'any' where "
        "the driver is not yours",
    ]


PINNED_LINE = ("pools[{i}].kubernetesVersion: '1.35' is older than 1.36, and the classes that map {names} select this "
               "pool's slices: a 1.35 kubelet admits a pod asking for it but never prepares the scheduler's claim (the "
               "DRAExtendedResource gate is off there), so the container runs without the GPU while the device stays "
               "allocated; pin '1.36' or newer, or leave it unset (the cluster's version)")


def test_alone_a_pool_that_runs_1_35_is_refused_pinned_or_following_a_1_35_control_plane():
    pinned = [POOLS[0].model_copy(update={"kubernetes_version": "1.35"}), POOLS[1]]
    with pytest.raises(ConfigError) as err:
        validate(ExtendedResourcesArgs, {"pools": pinned, "kubernetesVersion": "1.36"})
    assert [str(p) for p in err.value.problems] == [PINNED_LINE.format(i=0, names="aks-dra-vgpu.io/a10-8gib")]

    from components.azure.gpu_pool import GpuNodePoolArgs

    # Unpinned, but its GpuNodePool was given a 1.35 control plane: it runs 1.35 (orchestratorVersion).
    following = [GpuNodePoolArgs.model_validate({**BASE["gpuPools"][0], "clusterName": "c", "resourceGroupName": "rg",
                                                 "clusterKubernetesVersion": "1.35"}), POOLS[1]]
    with pytest.raises(ConfigError) as err:
        validate(ExtendedResourcesArgs, {"pools": following, "kubernetesVersion": "1.36", "nvidiaGpu": "any",
                                         "driverRelease": "nvidia-dra-driver-gpu/nvidia-dra-driver-gpu"})
    assert [str(p) for p in err.value.problems] == [
        PINNED_LINE.format(i=0, names="aks-dra-vgpu.io/a10-8gib, nvidia.com/gpu")]


def test_alone_a_driver_release_that_is_no_release_is_refused():
    with pytest.raises(ConfigError) as err:
        validate(ExtendedResourcesArgs, {"pools": POOLS, "kubernetesVersion": "1.36", "slices": False,
                                         "nvidiaGpu": "any", "driverRelease": "nvidia-dra-driver-gpu"})
    assert [str(p) for p in err.value.problems] == [
        "driverRelease: 'nvidia-dra-driver-gpu' is not '<namespace>/<release name>' (a DNS label, '/', a Helm release "
        "name of at most 53 characters), e.g. 'nvidia-dra-driver-gpu/nvidia-dra-driver-gpu'",
    ]


def test_alone_a_mapping_of_nothing_is_refused_and_any_with_a_driver_of_yours_is_a_class_of_its_own():
    with pytest.raises(ConfigError) as err:
        validate(ExtendedResourcesArgs, {"pools": POOLS, "kubernetesVersion": "1.36", "slices": False,
                                         "nvidiaGpu": "any"})
    assert [str(p) for p in err.value.problems] == [
        "slices: maps no name: set slices: true, or nvidiaGpu to a slice or 'none' (with no driverRelease of yours, "
        "'any' and unset leave nvidia.com/gpu to the driver's own class)"]
    plan = make(False, kubernetesVersion="1.36", slices=False, nvidiaGpu="any",
                driverRelease="nvidia-dra-driver-gpu/nvidia-dra-driver-gpu")
    (ours,) = plan.all(DEVICE_CLASS)
    assert ours.inputs["spec"]["selectors"] == [{"cel": {"expression": ANY_GPU_SELECTOR}}]
    assert ours.inputs["spec"]["extendedResourceName"] == "nvidia.com/gpu"


def test_alone_a_chart_that_maps_nvidia_gpu_keeps_the_class_with_nvidia_gpu_unset():
    plan = make(False, kubernetesVersion="1.36", chartVersion="0.4.1", driverRelease="ns/nvidia-dra-driver-gpu",
                driverRevision="0.4.1/abc")
    ours = next(c for c in plan.all(DEVICE_CLASS) if c.inputs["spec"]["extendedResourceName"] == "nvidia.com/gpu")
    assert ours.inputs["metadata"]["annotations"] == {RELEASE_ANNOTATION: "ns/nvidia-dra-driver-gpu",
                                                      REVISION_ANNOTATION: "0.4.1/abc"}
    # 25.8.1's class maps nothing: nothing to keep with nvidiaGpu unset
    plan = make(False, kubernetesVersion="1.36", chartVersion="25.8.1", driverRelease="ns/nvidia-dra-driver-gpu")
    assert {c.inputs["spec"]["extendedResourceName"] for c in plan.all(DEVICE_CLASS)} == {
        "aks-dra-vgpu.io/a10-8gib", "aks-dra-vgpu.io/a10-24gib"}


# --- in the platform: the serving stack ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def serving():
    return run_project(load_project(ROOT), "serving", preview=True)


def test_the_nvidia_gpu_class_is_created_after_the_driver_release_and_replaced_with_it(serving):
    release = serving.one(RELEASE)
    ours = next(c for c in serving.all(DEVICE_CLASS) if c.inputs["metadata"]["name"] == "aks-dra-vgpu-nvidia-gpu")
    assert release.urn in ours.dependencies
    assert ours.options["replaceOnChanges"] == [f'metadata.annotations["{RELEASE_ANNOTATION}"]']
    assert ours.options["deleteBeforeReplace"] is True
    annotations = ours.inputs["metadata"]["annotations"]
    assert annotations[RELEASE_ANNOTATION] == f"{release.inputs['namespace']}/{release.inputs['name']}"
    # every apply of the release (chart version, values) updates the class in place after it
    config = serving_config("serving")  # (no scrape group: the driver's metrics stay off)
    assert config.cluster.monitoring.scrape_group is None
    assert annotations[REVISION_ANNOTATION] == values_revision(release.inputs["version"], driver_values(
        config.dra_driver, config.gpu_pools))
    assert ours.inputs["spec"]["extendedResourceName"] == "nvidia.com/gpu"
    others = [c for c in serving.all(DEVICE_CLASS) if c is not ours]
    assert all(release.urn not in c.dependencies and not c.options["replaceOnChanges"] for c in others)


def test_the_drivers_revision_changes_with_its_chart_or_any_value_and_reads_the_same_each_run():
    first = values_revision("0.4.1", {"b": 1, "a": {"x": [1, 2]}})
    assert first == values_revision("0.4.1", {"a": {"x": [1, 2]}, "b": 1}) and first.startswith("0.4.1/")
    assert len(first.partition("/")[2]) == 16
    assert first != values_revision("0.5.0", {"b": 1, "a": {"x": [1, 2]}})
    assert first != values_revision("0.4.1", {"b": 1, "a": {"x": [2, 1]}})


def test_the_serving_stack_maps_each_size_and_plans_without_warnings(serving):
    assert serving.outputs["extendedResourceClasses"] == {
        "aks-dra-vgpu.io/a10-8gib": "aks-dra-vgpu-a10-8gib", "aks-dra-vgpu.io/a10-24gib": "aks-dra-vgpu-a10-24gib",
        "nvidia.com/gpu": "aks-dra-vgpu-nvidia-gpu"}
    assert serving.warnings == []


def test_a_1_36_stack_that_leaves_nvidia_gpu_unstated_is_warned_and_keeps_an_any_gpu_class():
    from components.platform import GpuPlatform

    config = validate(StackConfig, stack(extendedResources=None))
    plan = capture(lambda: GpuPlatform("gpu", config), preview=True)
    assert plan.warnings == [
        "extendedResources.nvidiaGpu: a pod asking for nvidia.com/gpu is given any GPU device whatever its size: the "
        "driver chart's gpu.nvidia.com class maps nvidia.com/gpu once the chart is applied on Kubernetes 1.36+ (a "
        "cluster upgraded in place from 1.35 gets it at the chart's next apply), and the package's class "
        "aks-dra-vgpu-nvidia-gpu selects the same; set extendedResources.nvidiaGpu to a slice the pools offer (8GiB, "
        "24GiB, e.g. '8GiB'), 'none', or 'any' to accept it"]
    kept = next(c for c in plan.all(DEVICE_CLASS) if c.inputs["metadata"]["name"] == "aks-dra-vgpu-nvidia-gpu")
    assert kept.inputs["spec"] == {"selectors": [{"cel": {"expression": ANY_GPU_SELECTOR}}],
                                   "extendedResourceName": "nvidia.com/gpu"}
    assert len(plan.all(DEVICE_CLASS)) == 2  # and the samples' class


@pytest.mark.parametrize("version", ["1.36"])
def test_the_rendered_classes_pass_the_official_schema(serving, tmp_path, version):
    render(serving, tmp_path)
    files = sorted((tmp_path / "kubernetes").glob("deviceclass-aks-dra-vgpu-*.yaml"))
    assert [f.name for f in files] == ["deviceclass-aks-dra-vgpu-a10-24gib.yaml", "deviceclass-aks-dra-vgpu-a10-8gib.yaml",
                                       "deviceclass-aks-dra-vgpu-nvidia-gpu.yaml"]
    for path in files:
        kubernetes_validate.validate(yaml.safe_load(path.read_text()), version, strict=True)


# --- the rules, all at once with their keys ---------------------------------------------------------------------------
def test_versions_of_the_cluster_and_every_pinned_pool_are_checked():
    data = stack()
    data["cluster"]["kubernetesVersion"] = "1.35"
    data["gpuPools"][1]["kubernetesVersion"] = "1.35"
    assert problems(data) == [
        "extendedResources: needs Kubernetes 1.36 or newer (cluster.kubernetesVersion is '1.35'): before 1.36 the "
        "DRAExtendedResource feature gate is alpha and off, and the API server drops the field; set "
        "cluster.kubernetesVersion to '1.36' (pools that pin a version too), or remove this setting",
    ]
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["gpuPools"][0]["kubernetesVersion"] = "1.35"
    assert problems(data) == [PINNED_LINE.format(i=i, names=f"aks-dra-vgpu.io/a10-{size}gib, nvidia.com/gpu").replace(
        "pools[", "gpuPools[") for i, size in ((0, 8), (1, 24))]


def test_the_charts_own_mapping_refuses_a_1_35_a10_pool_but_not_a_mig_pool_no_class_selects():
    data = stack(extendedResources=None, gpuPools=copy.deepcopy([BASE["gpuPools"][0], *MIG_POOLS]))
    for pool in data["gpuPools"]:
        pool["kubernetesVersion"] = "1.35"
    assert problems(data) == [PINNED_LINE.format(i=0, names="nvidia.com/gpu").replace("pools[", "gpuPools[")]


def test_nvidia_gpu_must_name_a_slice_the_pools_offer():
    assert problems(stack(extendedResources={"nvidiaGpu": "12GiB"})) == [
        "extendedResources.nvidiaGpu: '12GiB' is no slice the pools offer; choose one of 8GiB, 24GiB, none, any"]
    assert problems(stack(extendedResources={"nvidiaGpu": "1g.10gb"}, gpuPools=MIG_POOLS)) == [
        "extendedResources.nvidiaGpu: '1g.10gb' is no slice the pools offer; choose one of 3g.40gb, none, any"]


def test_nvidia_gpu_syntax_lists_every_form():
    found = problems(stack(extendedResources={"nvidiaGpu": "8GB"}))
    assert found == ["extendedResources.nvidiaGpu: '8GB' is not an A10 slice size (4GiB, 8GiB, 12GiB, 24GiB), a MIG "
                     "profile (1g.5gb, 1g.10gb, 2g.10gb, 1g.12gb, 1g.18gb, 2g.20gb, 3g.20gb, 4g.20gb, 2g.24gb, 2g.35gb, "
                     "3g.40gb, 4g.40gb, 7g.40gb, 3g.47gb, 4g.47gb, 3g.71gb, 4g.71gb, 7g.80gb, 7g.94gb, 7g.141gb), "
                     "'none' or 'any'"]


def test_a_section_that_maps_nothing_is_refused():
    assert problems(stack(extendedResources={"slices": False, "nvidiaGpu": "any"}, draDriver={"enabled": False})) == [
        "extendedResources: maps no name: set slices: true, or nvidiaGpu to a slice or 'none' (with "
        "draDriver.enabled: false, 'any' leaves nvidia.com/gpu to the driver's own class)"]
    # the component says the same of the same settings, at its own key
    with pytest.raises(ConfigError, match="slices: maps no name"):
        validate(ExtendedResourcesArgs, {"pools": POOLS, "kubernetesVersion": "1.36", "slices": False,
                                         "nvidiaGpu": "any"})


def test_a_driver_the_package_does_not_run_cannot_be_ordered_against():
    found = problems(stack(draDriver={"enabled": False}))
    assert found == [
        "extendedResources.nvidiaGpu: '8GiB' needs the package's class aks-dra-vgpu-nvidia-gpu to win nvidia.com/gpu "
        "over the driver's gpu.nvidia.com, which Kubernetes decides by creation order; with draDriver.enabled: false "
        "the driver's classes are someone else's and the package cannot create its class after theirs. Set nvidiaGpu: "
        "'any' (or leave it unset), or let the package run the driver"]
    validate(StackConfig, stack(draDriver={"enabled": False}, extendedResources={"nvidiaGpu": "any"}))


def test_any_is_the_packages_own_any_gpu_class_whatever_the_chart():
    for chart in ("25.8.1", "0.4.1"):
        config = validate(StackConfig, stack(draDriver={"chartVersion": chart}, extendedResources={"nvidiaGpu": "any"}))
        ours = next(c for c in extended_classes(config) if c.resource_name == "nvidia.com/gpu")
        assert (ours.class_name, ours.selector) == ("aks-dra-vgpu-nvidia-gpu", ANY_GPU_SELECTOR)


def test_names_are_unique_across_the_package_and_the_samples():
    data = stack()
    data["samples"] = {"workload": False, "extendedResourceName": "aks-dra-vgpu.io/a10-8gib",
                       "deviceClassName": "aks-dra-vgpu-a10-24gib"}
    assert problems(data) == [
        "samples.extendedResourceName: 'aks-dra-vgpu.io/a10-8gib' is also mapped by extendedResources' class "
        "aks-dra-vgpu-a10-8gib: one name must have one class (Kubernetes picks the class created last); remove "
        "samples.extendedResourceName",
        "samples.deviceClassName: 'aks-dra-vgpu-a10-24gib' is the name of one of extendedResources' classes; choose "
        "another",
    ]


def test_the_samples_cannot_take_nvidia_gpu():
    data = copy.deepcopy(BASE)
    data["samples"]["extendedResourceName"] = "nvidia.com/gpu"
    assert problems(data) == [
        "samples.extendedResourceName: 'nvidia.com/gpu' is refused here: the driver chart's gpu.nvidia.com class maps it "
        "too, and which class serves a pod would follow creation order; set extendedResources.nvidiaGpu instead "
        "(docs/extended-resources.md)"]


@pytest.mark.parametrize("domain, message", [
    ("nvidia.com", "'nvidia.com' is NVIDIA's domain, which defines no per-size A10 names; choose a domain of your own"),
    ("Example.com", "'Example.com' is not a domain; write a DNS subdomain (lowercase letters, digits, '-' and '.', "
     "each part starting and ending with a letter or digit) such as 'aks-dra-vgpu.io'"),
    ("a" * 61 + "." + "b" * 61 + "." + "c" * 61 + "." + "d" * 61, "is 247 characters; a domain of extended resource "
     "names is at most 244 (Kubernetes checks 'requests.<domain>' as a DNS subdomain of at most 253)"),
    ("k8s.kubernetes.io", "gives no valid names: 'k8s.kubernetes.io/a10-24gib' is not an extended resource name: it is "
     "in the kubernetes.io namespace"),
])
def test_the_domain_is_checked(domain, message):
    found = problems(stack(extendedResources={"domain": domain}))
    assert len(found) == 1 and found[0].startswith("extendedResources.domain:") and message in found[0]


def test_the_plan_tree_names_each_class_and_the_extended_resource_it_serves(serving):
    from components.review.tree import render_tree

    tree = render_tree(serving).splitlines()
    served = [(tree[i - 1].strip(), line.strip()) for i, line in enumerate(tree) if "spec.extendedResourceName" in line]
    assert served == [
        ("metadata.name: aks-dra-vgpu-a10-24gib", "spec.extendedResourceName: aks-dra-vgpu.io/a10-24gib"),
        ("metadata.name: aks-dra-vgpu-a10-8gib", "spec.extendedResourceName: aks-dra-vgpu.io/a10-8gib"),
        ("metadata.name: aks-dra-vgpu-nvidia-gpu", "spec.extendedResourceName: nvidia.com/gpu"),
    ]


def loaded_problems(data: dict) -> list[str]:
    """Every problem of the stack as a stack file's settings are read (the cross-section rules on the parts that
    validated too), as 'key: message'."""
    import json

    from components.config.loading import stack_config_from_mapping

    with pytest.raises(ConfigError) as err:
        stack_config_from_mapping({f"aks-dra-vgpu:{key}": json.dumps(value) for key, value in data.items()})
    return [f"{p.path}: {p.message}" for p in err.value.problems]


def test_a_mistyped_key_of_the_section_hides_none_of_its_other_rules():
    data = stack(extendedResources={"domain": "X", "nvidiaGpu": "12GiB"})
    data["cluster"]["kubernetesVersion"] = "1.35"
    data["gpuPools"][0]["kubernetesVersion"] = "1.34"
    found = loaded_problems(data)
    assert found[0].startswith("extendedResources.domain: 'X' is not a domain; write a DNS subdomain")
    # (a pool older than a 1.35 cluster: the cluster's own rule says what to change first)
    assert sorted(found[1:]) == [
        "extendedResources.nvidiaGpu: '12GiB' is no slice the pools offer; choose one of 8GiB, 24GiB, none, any",
        "extendedResources: needs Kubernetes 1.36 or newer (cluster.kubernetesVersion is '1.35'): before 1.36 the "
        "DRAExtendedResource feature gate is alpha and off, and the API server drops the field; set "
        "cluster.kubernetesVersion to '1.36' (pools that pin a version too), or remove this setting",
    ]


def test_a_section_that_is_no_mapping_still_hears_the_cluster_version():
    data = stack(extendedResources=["8GiB"])
    data["cluster"]["kubernetesVersion"] = "1.35"
    found = loaded_problems(data)
    assert any(line.startswith("extendedResources: must be a mapping") for line in found)
    assert any(line.startswith("extendedResources: needs Kubernetes 1.36 or newer") for line in found)


def test_a_section_left_partly_out_raises_no_rule_on_the_defaults_standing_in():
    # slices: false beside a refused nvidiaGpu is not 'maps no name'; a refused domain does not make the samples'
    # name collide with the default domain's
    data = stack(extendedResources={"slices": False, "nvidiaGpu": 8, "domain": "X"})
    data["samples"] = {"workload": False, "extendedResourceName": "aks-dra-vgpu.io/a10-8gib"}
    assert [line.partition(":")[0] for line in loaded_problems(data)] == [
        "extendedResources.domain", "extendedResources.nvidiaGpu"]


@pytest.mark.parametrize("value", ["08GiB", "9" * 5000 + "GiB"])
def test_nvidia_gpu_is_a_size_as_the_sizes_are_written(value):
    found = problems(stack(extendedResources={"nvidiaGpu": value}))
    assert len(found) == 1 and found[0].startswith(f"extendedResources.nvidiaGpu: '{value}' is not an A10 slice size "
                                                   "(4GiB, 8GiB, 12GiB, 24GiB), a MIG profile (1g.5gb, ")
