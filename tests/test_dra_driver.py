"""NvidiaDraDriver: the pure values function for every chart version, and the helm.v3.Release the component declares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest
import yaml

from components.catalog import (
    DEFAULT_CHART_VERSION,
    DRIVER_CHARTS,
    NGC_REPOSITORY,
    OFFERED_CHART_VERSIONS,
    RESOURCE_API_VERSION,
)
from components.catalog.host_drivers import AKS_MIN_SUPPORTED_GRID_DRIVER, driver_version
from components.config import ConfigError, DraDriverConfig, GpuPoolConfig, StackConfig, validate
from components.kubernetes.dra_driver import (
    CONTROLLER_TOLERATIONS,
    LEGACY_NAME,
    NvidiaDraDriver,
    NvidiaDraDriverArgs,
    crd_files,
    deep_merge,
    driver_values,
    feature_gates,
    null_values,
    plugin_node_selector,
    plugin_tolerations,
    release_chart,
    without_nulls,
)
from components.offline import Plan, capture
from tests.conftest import all_waits

RELEASE = "kubernetes:helm.sh/v3:Release"
COMPONENT = "aks-dra-vgpu:index:NvidiaDraDriver"
VERSIONS = list(OFFERED_CHART_VERSIONS)
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
IMEX = "IMEXDaemonsWithDNSNames"

POOLS = [
    {"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "labels": {"workload-class": "inference", "team": "ml"},
     "taints": ["nvidia.com/gpu=present:NoSchedule"]},
    {"name": "full", "vmSize": "Standard_NV36ads_A10_v5", "labels": {"workload-class": "training", "team": "ml"},
     "taints": ["nvidia.com/gpu=present:NoSchedule", "dedicated:NoExecute"]},
]


def config(version: str = "25.8.1", **settings: Any) -> DraDriverConfig:
    """A driver config for a chart version (25.12.0 gets the host driver it needs to be accepted)."""
    data: dict[str, Any] = {"chartVersion": version, **settings}
    if needs_stated_driver(version):
        data.setdefault("hostDriverVersion", "580.65.06")
    return DraDriverConfig.model_validate(data)


def needs_stated_driver(version: str) -> bool:
    """Whether the chart needs more than AKS's GRID driver for A10 (so a stack must state a newer one)."""
    minimum = DRIVER_CHARTS[version].min_host_driver
    return minimum is not None and driver_version(minimum) > driver_version(AKS_MIN_SUPPORTED_GRID_DRIVER)


def pools(data: list[dict[str, Any]] = POOLS) -> list[GpuPoolConfig]:
    return [GpuPoolConfig.model_validate(p) for p in data]


def problems(data: dict[str, Any]) -> list[str]:
    """Every problem validation reports for a draDriver block, as 'path: message'."""
    with pytest.raises(ConfigError) as err:
        validate(DraDriverConfig, data, prefix="draDriver")
    return [str(p) for p in err.value.problems]


# --- the values: a pure function of config and pools --------------------------------------------------------------------
@pytest.mark.parametrize("version", VERSIONS)
def test_values_carry_the_flags_a10_vgpu_on_aks_needs(version):
    values = driver_values(config(version), pools())
    assert values["resources"]["gpus"] == {"enabled": True}
    assert values["gpuResourcesEnabledOverride"] is True
    assert values["nvidiaDriverRoot"] == "/"
    assert values["featureGates"][IMEX] is False
    assert values["resources"]["computeDomains"] == {"enabled": False}
    assert "controller" not in values  # no controller is rendered without compute domains


@pytest.mark.parametrize("version", VERSIONS)
def test_feature_gates_are_known_to_the_version_and_imex_off_implies_its_dependants_off(version):
    chart = DRIVER_CHARTS[version]
    gates = driver_values(config(version), pools())["featureGates"]
    assert set(gates) <= chart.feature_gates
    assert gates == {IMEX: False, **{g: False for g in chart.gates_requiring_imex}}


def test_gate_sets_per_version():
    assert "ComputeDomainCliques" not in DRIVER_CHARTS["25.8.1"].feature_gates
    assert DRIVER_CHARTS["25.12.0"].gates_requiring_imex == {"ComputeDomainCliques"}
    assert DRIVER_CHARTS["0.4.1"].feature_gates - DRIVER_CHARTS["25.12.0"].feature_gates == {"DeviceMetadata"}
    assert DRIVER_CHARTS["0.4.1"].feature_gates == DRIVER_CHARTS["0.4.0"].feature_gates  # featuregates.go unchanged
    assert feature_gates(config("25.8.1")) == {IMEX: False}
    assert feature_gates(config("0.4.1")) == {"ComputeDomainCliques": False, IMEX: False}


@pytest.mark.parametrize("version", VERSIONS)
def test_user_gates_pass_through(version):
    gates = driver_values(config(version, featureGates={"TimeSlicingSettings": True, "MPSSupport": False}), pools())
    assert gates["featureGates"]["TimeSlicingSettings"] is True
    assert gates["featureGates"]["MPSSupport"] is False
    assert gates["featureGates"][IMEX] is False


@pytest.mark.parametrize("version", VERSIONS)
def test_compute_domains_on_clears_the_controllers_control_plane_placement(version):
    values = driver_values(config(version, computeDomains=True), pools())
    assert values["resources"]["computeDomains"] == {"enabled": True}
    assert values["controller"] == {"nodeSelector": None, "affinity": None, "tolerations": CONTROLLER_TOLERATIONS}
    assert values["controller"]["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]


@pytest.mark.parametrize("version", VERSIONS)
def test_only_the_renamed_chart_keeps_the_25x_names(version):
    values = driver_values(config(version), pools())
    if DRIVER_CHARTS[version].chart == "dra-driver-nvidia-gpu":
        assert values["nameOverride"] == LEGACY_NAME == "nvidia-dra-driver-gpu"
    else:
        assert "nameOverride" not in values


@pytest.mark.parametrize("version", VERSIONS)
def test_the_dra_api_is_pinned_to_v1_where_the_chart_has_the_value(version):
    values = driver_values(config(version), pools())
    if version == "25.8.1":  # no resourceApiVersion in its values.yaml: sending it would be silently ignored
        assert "resourceApiVersion" not in values
    else:
        assert values["resourceApiVersion"] == RESOURCE_API_VERSION == "resource.k8s.io/v1"


def test_a_stack_that_names_no_chart_gets_the_maintained_chart():
    default = DraDriverConfig.model_validate({})
    assert default.chart_version == DEFAULT_CHART_VERSION == "0.4.1"
    assert (default.chart.chart, default.chart.repository) == ("dra-driver-nvidia-gpu", "oci://registry.k8s.io/dra-driver-nvidia/charts")
    assert default.enabled is True
    values = driver_values(default, pools())
    assert values["nameOverride"] == LEGACY_NAME
    assert values["featureGates"] == {"ComputeDomainCliques": False, IMEX: False}


@pytest.mark.parametrize("version", VERSIONS)
def test_plugin_tolerates_exactly_the_pools_taints(version):
    served = pools()
    tolerations = driver_values(config(version), served)["kubeletPlugin"]["tolerations"]
    # One per distinct taint (the shared nvidia.com/gpu taint once), each matching key, value and effect exactly.
    assert tolerations == [
        {"key": "dedicated", "operator": "Exists", "effect": "NoExecute"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
    ]
    assert {(t.key, t.value, t.effect) for p in served for t in p.parsed_taints} == {
        (t["key"], t.get("value", ""), t["effect"]) for t in tolerations
    }


def test_untainted_pools_get_no_tolerations():
    assert plugin_tolerations(pools([{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5"}])) == []


def test_plugin_selects_the_labels_all_pools_share():
    assert plugin_node_selector(pools()) == {"nvidia.com/gpu.present": "true", "team": "ml"}
    one = pools([{"name": "gpu", "vmSize": "Standard_NV6ads_A10_v5"}])
    assert plugin_node_selector(one) == {"nvidia.com/gpu.present": "true"}


@pytest.mark.parametrize("version", VERSIONS)
def test_extra_values_merge_last_and_keep_what_they_do_not_name(version):
    extra = {"logVerbosity": "6", "kubeletPlugin": {"priorityClassName": "gpu-critical",
                                                    "containers": {"gpus": {"resources": {"limits": {"memory": "1Gi"}}}}}}
    values = driver_values(config(version, extraValues=extra), pools())
    assert values["logVerbosity"] == "6"
    assert values["kubeletPlugin"]["priorityClassName"] == "gpu-critical"
    assert values["kubeletPlugin"]["containers"]["gpus"]["resources"] == {"limits": {"memory": "1Gi"}}
    assert len(values["kubeletPlugin"]["tolerations"]) == 2  # maps merge: the package's keys stay
    assert values["gpuResourcesEnabledOverride"] is True


def test_deep_merge_is_helms_merge():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": {"e": 1}}
    assert deep_merge(base, {"a": {"c": [3]}, "d": None}) == {"a": {"b": 1, "c": [3]}, "d": None}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": {"e": 1}}  # inputs untouched


def test_null_values_lists_what_deletes_chart_defaults():
    values = driver_values(config(computeDomains=True), pools())
    assert null_values(values) == {"controller": {"affinity": None, "nodeSelector": None}}
    assert null_values(driver_values(config(), pools())) == {}


@pytest.mark.parametrize(
    "version, chart, repository",
    [("25.8.1", "nvidia-dra-driver-gpu", NGC_REPOSITORY), ("25.12.0", "nvidia-dra-driver-gpu", NGC_REPOSITORY),
     ("0.4.1", "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", None)],
)
def test_release_chart_reference(version, chart, repository):
    assert release_chart(DRIVER_CHARTS[version]) == (chart, repository)
    assert NGC_REPOSITORY == "https://helm.ngc.nvidia.com/nvidia"


# --- what the config refuses (so the values above can trust it) ---------------------------------------------------------
def test_unknown_gate_is_refused_naming_the_known_ones():
    found = problems({"chartVersion": "25.8.1", "featureGates": {"ComputeDomainCliques": False}})
    assert len(found) == 1
    assert found[0].startswith("draDriver.featureGates: ComputeDomainCliques unknown to chart 25.8.1")
    assert "known gates:" in found[0] and "MPSSupport" in found[0]


@pytest.mark.parametrize("version", ["25.12.0", "0.4.1"])
def test_gates_that_need_imex_cannot_be_turned_back_on(version):
    found = problems({"chartVersion": version, "hostDriverVersion": "580.65.06",
                      "featureGates": {"ComputeDomainCliques": True, IMEX: True}})
    assert any(p.startswith("draDriver.featureGates.ComputeDomainCliques: must stay false") for p in found)
    assert any(p.startswith(f"draDriver.featureGates.{IMEX}: must stay false") for p in found)


def test_chart_25_12_is_refused_without_a_host_driver_of_580():
    # The driver AKS installs depends on the pools' sizes (its GRID driver on these A10 pools; tests/test_mig_pools.py
    # has the MIG sizes' R580), so the rule runs beside the pools: in a stack, or in the driver component's args.
    with pytest.raises(ConfigError) as err:
        NvidiaDraDriverArgs(chartVersion="25.12.0", pools=pools())
    found = [str(p) for p in err.value.problems]
    assert found == [found[0]] and found[0].startswith("chart_version: 25.12.0 is refused:")
    assert ">= 580" in found[0] and "#1014" in found[0] and "0.4.1" in found[0]
    # A stated driver below the minimum is the stated key's problem.
    stated = problems({"chartVersion": "25.12.0", "hostDriverVersion": "570.211.01"})
    assert stated == [stated[0]] and stated[0].startswith(
        "draDriver.hostDriverVersion: '570.211.01' is below what chart 25.12.0 needs: NVIDIA driver >= 580"
    )
    assert config("25.12.0", hostDriverVersion="580.65.06").chart_version == "25.12.0"


def test_chart_0_4_0_is_refused_naming_the_label_defect_and_0_4_1():
    found = problems({"chartVersion": "0.4.0"})
    assert len(found) == 1
    assert found[0].startswith("draDriver.chartVersion: 0.4.0 is refused: ")
    assert "nvidia-dra-driver-gpu-component twice" in found[0] and "#1184" in found[0]
    assert "use 0.4.1" in found[0]
    # Even with every other setting right, and not offered in the error's list of choices.
    assert found[0].endswith("choose one of 25.8.1, 0.4.1, 0.5.0")  # neither refused version among the choices
    assert "0.4.0" not in OFFERED_CHART_VERSIONS


def test_an_unknown_version_lists_only_the_offered_ones():
    found = problems({"chartVersion": "0.6.0"})
    # 25.12.0 is refused on AKS's GRID driver: never offered as a choice
    (line,) = found
    assert line.startswith("draDriver.chartVersion: '0.6.0' is not a supported chart version; choose one of 25.8.1, "
                           "0.4.1, 0.5.0 (default 0.4.1; 25.12.0 is refused: ")  # and why the known ones left out are
    assert "0.4.0 is refused: withdrawn" in line and "docs/upgrading.md" in line


def test_unstated_host_driver_is_akss_grid_driver_which_meets_0_4_1():
    assert DRIVER_CHARTS["0.4.1"].min_host_driver == "565"
    assert driver_version(AKS_MIN_SUPPORTED_GRID_DRIVER) >= driver_version("565")
    assert DraDriverConfig.model_validate({"chartVersion": "0.4.1"}).host_driver_version is None


@pytest.mark.parametrize("stated", ["570.211.01", "570.237", "580.65.06", "565"])
def test_a_stated_host_driver_at_or_above_the_minimum_passes(stated):
    assert config("0.4.1", hostDriverVersion=stated).host_driver_version == stated


def test_akss_old_grid_driver_is_refused_for_0_4_1_naming_the_node_image_to_move_to():
    found = problems({"chartVersion": "0.4.1", "hostDriverVersion": "550.144.06"})
    assert len(found) == 1
    assert found[0].startswith("draDriver.hostDriverVersion: '550.144.06' is below what chart 0.4.1 needs: "
                               "NVIDIA driver >= 565")
    assert "docs/prerequisites.md" in found[0]
    assert "node image 202606.08.1 or later by 2026-07-24" in found[0] and "Azure/AKS#5875" in found[0]


def test_another_driver_below_the_minimum_is_refused_without_aks_advice():
    found = problems({"chartVersion": "0.4.1", "hostDriverVersion": "560.35.03"})
    assert len(found) == 1 and found[0].startswith("draDriver.hostDriverVersion: '560.35.03' is below")
    assert "node image" not in found[0]


def test_chart_25_8_1_documents_no_minimum_so_any_driver_passes():
    assert DRIVER_CHARTS["25.8.1"].min_host_driver is None
    assert config("25.8.1", hostDriverVersion="550.144.06").chart_version == "25.8.1"


@pytest.mark.parametrize(
    "extra, path",
    [
        ({"gpuResourcesEnabledOverride": False}, "draDriver.extraValues.gpuResourcesEnabledOverride"),
        ({"resources": {"gpus": {"enabled": False}}}, "draDriver.extraValues.resources.gpus.enabled"),
        ({"nvidiaDriverRoot": "/run/nvidia/driver"}, "draDriver.extraValues.nvidiaDriverRoot"),
        ({"featureGates": {IMEX: True}}, "draDriver.extraValues.featureGates"),
        ({"namespaceOverride": "default"}, "draDriver.extraValues.namespaceOverride"),
        ({"kubeletPlugin": {"tolerations": []}}, "draDriver.extraValues.kubeletPlugin.tolerations"),
        ({"kubeletPlugin": {"nodeSelector": None}}, "draDriver.extraValues.kubeletPlugin.nodeSelector"),
        ({"controller": {"affinity": {}}}, "draDriver.extraValues.controller.affinity"),
        ({"nameOverride": "x"}, "draDriver.extraValues.nameOverride"),
        # A non-map at a parent key would replace the whole map and the required values in it.
        ({"resources": None}, "draDriver.extraValues.resources"),
        ({"resources": {"gpus": []}}, "draDriver.extraValues.resources.gpus"),
        ({"kubeletPlugin": None}, "draDriver.extraValues.kubeletPlugin"),
    ],
)
def test_extra_values_cannot_drop_a_required_or_managed_value(extra, path):
    found = problems({"extraValues": extra})
    assert any(p.startswith(f"{path}: ") for p in found), found


def test_extra_values_replacing_a_parent_name_what_they_would_drop():
    found = problems({"extraValues": {"resources": None}})
    assert found == [
        "draDriver.extraValues.resources: must be a map: null would replace it and drop resources.computeDomains, "
        "resources.gpus.enabled; set keys under it instead"
    ]


# --- the component ---------------------------------------------------------------------------------------------------------
def make(preview: bool, version: str = "25.8.1", **settings: Any) -> tuple[Plan, NvidiaDraDriver]:
    args = NvidiaDraDriverArgs.model_validate(
        {**config(version, **settings).model_dump(by_alias=True), "pools": POOLS}
    )
    holder = {}

    def program():
        import pulumi_kubernetes as k8s

        provider = k8s.Provider("aks", kubeconfig="apiVersion: v1\nkind: Config\n")
        holder["driver"] = NvidiaDraDriver("dra", args, pulumi.ResourceOptions(providers={"kubernetes": provider}))

    return capture(program, preview=preview), holder["driver"]


def provider_urn(plan: Plan) -> str:
    return plan.one("pulumi:providers:kubernetes").urn


@pytest.mark.parametrize("version", VERSIONS)
def test_release_is_pinned_atomic_and_on_the_explicit_provider(preview, version):
    plan, driver = make(preview, version)
    release = plan.one(RELEASE)
    component = plan.one(COMPONENT)
    assert release.provider is not None and release.provider.split("::")[:-1] == provider_urn(plan).split("::")
    assert release.parent == component.urn
    inputs = release.inputs
    chart, repository = release_chart(DRIVER_CHARTS[version])
    assert inputs["chart"] == chart
    assert inputs.get("repositoryOpts") == ({"repo": repository} if repository else None)
    assert inputs["version"] == version
    assert inputs["name"] == "nvidia-dra-driver-gpu"
    assert inputs["namespace"] == "nvidia-dra-driver-gpu"
    assert inputs["createNamespace"] is True
    assert (inputs["atomic"], inputs["cleanupOnFail"], inputs["timeout"]) == (True, True, 600)
    assert "allowNullValues" not in inputs  # deprecated; the nulls travel in a values file instead
    assert driver.values == driver_values(config(version), pools())
    assert inputs["values"] == without_nulls(driver.values)
    assert release.options["deleteBeforeReplace"] is True  # a rename never leaves two drivers side by side
    assert release.dependencies == []  # nothing but its provider: never a GPU pool


@pytest.mark.parametrize("version", VERSIONS)
def test_release_values_carry_the_flags_and_the_pools_taints(preview, version):
    plan, _ = make(preview, version)
    values = plan.one(RELEASE).inputs["values"]
    assert values["gpuResourcesEnabledOverride"] is True
    assert values["resources"]["gpus"]["enabled"] is True
    assert values["featureGates"][IMEX] is False
    assert values["nvidiaDriverRoot"] == "/"
    taints = {str(t) for p in pools() for t in p.parsed_taints}
    assert len(values["kubeletPlugin"]["tolerations"]) == len(taints) == 2
    assert values["kubeletPlugin"]["nodeSelector"]["nvidia.com/gpu.present"] == "true"


def test_null_overrides_also_reach_helm_as_a_values_file(preview):
    plan, _ = make(preview, computeDomains=True)
    inputs = plan.one(RELEASE).inputs
    assert "affinity" not in inputs["values"]["controller"]  # inline nulls would be dropped: only the file has them
    [asset] = inputs["valueYamlFiles"]
    assert yaml.safe_load(asset["text"]) == {"controller": {"affinity": None, "nodeSelector": None}}
    plain, _ = make(preview)
    assert "valueYamlFiles" not in plain.one(RELEASE).inputs


def test_timeout_and_names_come_from_config(preview):
    plan, _ = make(preview, timeoutSeconds=900, namespace="gpu-driver", releaseName="dra")
    inputs = plan.one(RELEASE).inputs
    assert (inputs["timeout"], inputs["namespace"], inputs["name"]) == (900, "gpu-driver", "dra")


def test_outputs(preview):
    plan, driver = make(preview, "0.4.1")
    assert driver.chart_version == "0.4.1"
    assert driver.values["nameOverride"] == LEGACY_NAME
    assert plan.one(COMPONENT).name == "dra"


def test_refuses_without_an_explicit_provider_before_registering_anything():
    args = NvidiaDraDriverArgs.model_validate({"pools": POOLS})
    caught = {}

    def program():
        try:
            NvidiaDraDriver("dra", args)
        except pulumi.InputPropertiesError as exc:
            caught["error"] = exc

    plan = capture(program)
    error = caught["error"]
    assert "explicit Kubernetes provider" in error.message
    assert error.errors == [{"property_path": "opts.providers", "reason": "pass providers={'kubernetes': provider}"}]
    assert plan.resources == []


def test_a_provider_of_another_package_is_not_enough():
    import pulumi_azure_native as azure_native

    args = NvidiaDraDriverArgs.model_validate({"pools": POOLS})

    def program():
        other = azure_native.Provider("azure")
        NvidiaDraDriver("dra", args, pulumi.ResourceOptions(providers=[other]))

    with pytest.raises(pulumi.InputPropertiesError, match="explicit Kubernetes provider"):
        capture(program)


def test_provider_may_come_from_the_parent(preview):
    import pulumi_kubernetes as k8s

    args = NvidiaDraDriverArgs.model_validate({"pools": POOLS})

    class Parent(pulumi.ComponentResource):
        def __init__(self, name: str, opts: pulumi.ResourceOptions):
            super().__init__("test:index:Parent", name, None, opts)
            NvidiaDraDriver("dra", args, pulumi.ResourceOptions(parent=self))

    def program():
        Parent("p", pulumi.ResourceOptions(providers={"kubernetes": k8s.Provider("aks", kubeconfig="x")}))

    plan = capture(program, preview=preview)
    assert plan.one(RELEASE).provider.startswith(provider_urn(plan))


def test_args_need_at_least_one_pool():
    with pytest.raises(ValueError, match="pools"):
        NvidiaDraDriverArgs.model_validate({"pools": []})


# --- in the platform: the driver waits for the cluster only, never for the GPU pools ----------------------------------------
def test_in_the_platform_the_release_depends_on_the_cluster_not_the_pools(preview, stack_data):
    from components.platform import GpuPlatform

    stack_data["gpuPools"] = POOLS
    stack = StackConfig.model_validate(stack_data)
    plan = capture(lambda: GpuPlatform("aks", stack), preview=preview)
    release = plan.one(RELEASE)
    waits = all_waits(plan, release.urn)
    assert plan.one("azure-native:containerservice:ManagedCluster").urn in waits
    pools_ = plan.all("azure-native:containerservice:AgentPool")
    assert len(pools_) == 2
    assert not waits & {p.urn for p in pools_}
    assert release.provider.rsplit("::", 1)[0] == provider_urn(plan)
    assert len(release.inputs["values"]["kubeletPlugin"]["tolerations"]) == 2


# --- CRDs: with compute domains on, Pulumi applies the chart version's CRDs before the release -------------------------------
def test_no_crds_are_managed_without_compute_domains():
    assert crd_files(config("0.4.1")) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_crd_urls_are_pinned_to_the_charts_own_tag(version):
    chart = DRIVER_CHARTS[version]
    files = crd_files(config(version, computeDomains=True))
    base = "https://raw.githubusercontent.com/kubernetes-sigs/dra-driver-nvidia-gpu/refs/tags"
    assert [url for _, url in files] == [f"{base}/v{version}/{chart.chart_path}/crds/{f}" for f in chart.crd_files]
    assert f"/deployments/helm/{chart.chart}/crds/" in files[0][1]
    expected = {"25.8.1": ["computedomains"]}.get(version, ["computedomaincliques", "computedomains"])
    assert [suffix for suffix, _ in files] == expected


@pytest.mark.parametrize("version", VERSIONS)
def test_with_compute_domains_the_release_waits_for_pulumi_owned_crds(preview, version):
    plan, _ = make(preview, version, computeDomains=True)
    release = plan.one(RELEASE)
    crds = plan.all(CONFIG_FILE)
    chart = DRIVER_CHARTS[version]
    assert len(crds) == len(chart.crd_files) >= 1
    assert sorted(c.inputs["file"] for c in crds) == sorted(chart.crd_urls)
    for crd in crds:
        assert crd.parent == plan.one(COMPONENT).urn
        assert crd.options["retainOnDelete"] is True  # deleting a CRD would delete every ComputeDomain
        assert crd.provider is not None and crd.provider.startswith(provider_urn(plan) + "::")  # explicit, never ambient
        assert crd.urn in release.dependencies  # applied before `helm upgrade` (Helm never upgrades crds/)
    assert release.inputs["skipCrds"] is True  # Pulumi's copy is the one that is upgraded


def test_without_compute_domains_helm_keeps_its_crds_and_nothing_waits(preview):
    plan, _ = make(preview, "0.4.1")
    assert plan.all(CONFIG_FILE) == []
    release = plan.one(RELEASE)
    assert "skipCrds" not in release.inputs
    assert release.dependencies == []


def test_a_chart_upgrade_moves_the_crds_to_the_new_tag():
    before, _ = make(False, "25.8.1", computeDomains=True)
    after, _ = make(False, "0.4.1", computeDomains=True)
    files = {p: {c.name: c.inputs["file"] for c in plan.all(CONFIG_FILE)} for p, plan in (("before", before), ("after", after))}
    # The same resource name keeps the CRD one Pulumi resource across the upgrade: an update, never a delete and create.
    assert files["before"]["dra-crd-computedomains"].split("/refs/tags/")[1].startswith("v25.8.1/")
    assert files["after"]["dra-crd-computedomains"].split("/refs/tags/")[1].startswith("v0.4.1/")
    assert set(files["after"]) - set(files["before"]) == {"dra-crd-computedomaincliques"}


# --- draDriver.enabled: false hands the driver to someone else and keeps the claims ------------------------------------------
def test_disabled_driver_registers_no_release_and_keeps_the_samples(preview, stack_data):
    from components.platform import GpuPlatform

    stack_data["draDriver"] = {"enabled": False}
    stack = StackConfig.model_validate(stack_data)
    on = StackConfig.model_validate({**stack_data, "draDriver": {}})
    built: dict[str, GpuPlatform] = {}

    def program(key: str, config: StackConfig) -> Callable[[], None]:
        return lambda: built.__setitem__(key, GpuPlatform("aks", config))

    plan = capture(program("off", stack), preview=preview)
    plan_on = capture(program("on", on), preview=preview)
    assert plan.all(RELEASE) == [] and plan.all(COMPONENT) == [] and plan.all(CONFIG_FILE) == []
    assert len(plan_on.all(RELEASE)) == 1  # the control: the same stack with the driver on has its release
    # Everything but the driver's own resources is the same, input for input: DeviceClass, claim templates, claims.
    driver_urns = {r.urn for r in plan_on.resources if r.type in (RELEASE, COMPONENT, CONFIG_FILE)}
    assert {r.urn: r.inputs for r in plan.resources} == {
        r.urn: r.inputs for r in plan_on.resources if r.urn not in driver_urns
    }
    kinds = {r.type for r in plan.resources}
    assert {"kubernetes:resource.k8s.io/v1:DeviceClass", "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"} <= kinds
    assert built["off"].driver is None and built["on"].driver is not None
    assert built["off"].samples is not None


def test_the_program_of_a_stack_with_the_driver_off_exports_no_release(preview, tmp_path):
    import shutil

    from components.offline import load_project, run_project
    from tests.conftest import ROOT

    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "stacks").mkdir()
    dev = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(yaml.safe_dump(dev))
    dev["config"]["aks-dra-vgpu:draDriver"] = {"enabled": False}
    (tmp_path / "stacks" / "Pulumi.managed.yaml").write_text(yaml.safe_dump(dev))
    project = load_project(tmp_path)
    on, off = run_project(project, "dev", preview=preview), run_project(project, "managed", preview=preview)
    assert "draDriverRelease" in on.outputs and "draDriverRelease" not in off.outputs
    assert off.all(RELEASE) == [] and off.outputs["deviceClassName"] == on.outputs["deviceClassName"]
