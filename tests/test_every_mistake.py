"""Bad stacks are told everything at once, in their own words: cross-section checks run on whatever validated, refused
chart versions are never offered as choices, version hints quote the value the user wrote."""

from __future__ import annotations

import copy

import pytest

from components.config import ConfigError, stack_config_from_mapping
from tests.conftest import MINIMAL_STACK, as_config
from tests.stack_files import stack_file, without_file


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


def test_five_independent_mistakes_get_five_messages_in_one_run():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = 1.35                                     # 1: unquoted
    data["gpuPools"] = [{"name": "gpu", "vmSize": "Standard_NV36ads_A10_v", "count": 1},  # 2: a VM size typo
                        {"name": "system", "vmSize": "Standard_NV12ads_A10_v5", "count": 1}]  # 3: the system pool's name
    data["samples"] = {"workloadMemoryGiB": 48, "namespace": "nvidia-dra-driver-gpu"}  # 4: no slice holds 48; 5: ns
    found = problems(data)
    keys = [line.split(": ", 1)[0] for line in found]
    assert keys == ["cluster.kubernetesVersion", "gpuPools[0].vmSize", "gpuPools[1].name", "samples.workloadMemoryGiB",
                    "samples.namespace"], found
    assert "48 GiB is more than any A10 slice holds (at most 24 GiB" in found[3]


def test_a_sixth_mistake_in_the_driver_does_not_hide_the_namespace_clash():
    data = copy.deepcopy(MINIMAL_STACK)
    data["draDriver"] = {"chartVersion": "0.4.0"}
    data["samples"] = {"namespace": "nvidia-dra-driver-gpu"}
    keys = [line.split(": ", 1)[0] for line in problems(data)]
    assert keys == ["draDriver.chartVersion", "samples.namespace"]


def test_with_every_pool_valid_the_sample_memory_is_checked_against_the_pools_own_slices():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.3x"
    data["samples"] = {"workloadMemoryGiB": 12}
    found = problems(data)
    assert found[1] == ("samples.workloadMemoryGiB: 12 GiB is more than any pool's slice offers (pools offer 8 GiB); "
                        "choose at most 8")


@pytest.mark.parametrize(("value", "hint"), [
    (1.35, "quote the version so YAML keeps it as written: '1.35'"),
    (1.3, "'1.3' (or '1.30': YAML reads an unquoted 1.30 as 1.3)"),
    (2, "quote the version so YAML keeps it as written: '2'"),
])
def test_an_unquoted_version_is_told_its_own_value(value, hint):
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = value
    (line,) = problems(data)
    assert line.startswith(f"cluster.kubernetesVersion: {value} is a number") and hint in line, line
    assert "'1.34'" not in line


def test_a_malformed_version_hint_starts_from_the_users_numbers():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.35.x"
    (line,) = problems(data)
    assert line.endswith("e.g. '1.35'"), line


@pytest.mark.parametrize(("driver", "refused"), [
    ({"chartVersion": "25.12.0"}, "25.12.0"),
    ({"chartVersion": "0.4.0"}, "0.4.0"),
    ({"chartVersion": "0.6.0"}, "25.12.0"),
    ({"chartVersion": "25.12.0", "hostDriverVersion": "570.211.01"}, "25.12.0"),
])
def test_a_refused_version_is_never_among_the_choices(driver, refused):
    data = copy.deepcopy(MINIMAL_STACK)
    data["draDriver"] = driver
    (line,) = problems(data)
    choices = line.rsplit("choose ", 1)[1] if "choose " in line else line.rsplit("use ", 1)[1]
    assert refused not in choices.split(" (", 1)[0], line


def test_an_unknown_version_says_why_the_known_ones_it_leaves_out_are_refused():
    data = copy.deepcopy(MINIMAL_STACK)
    data["draDriver"] = {"chartVersion": "25.99.0"}
    (line,) = problems(data)
    assert line.startswith("draDriver.chartVersion: '25.99.0' is not a supported chart version; choose one of ")
    assert "(default 0.4.1; 25.12.0 is refused: it needs an NVIDIA driver >= 580" in line
    assert "0.4.0 is refused: withdrawn; docs/upgrading.md has the table)" in line


def test_an_unknown_version_is_told_in_a_few_words_the_whole_reasons_come_with_the_version_itself():
    data = copy.deepcopy(MINIMAL_STACK)
    data["draDriver"] = {"chartVersion": "0.9.9"}
    (line,) = problems(data)
    assert len(line) < 300 and "#1014" not in line, line  # the reasons are the refused versions' own messages


TEN_MISTAKES = stack_file("bad", "1.34", """\
    protect: yes
    systemPool: {count: 0}
    monitoring:
      grafana: {enabled: true}
      alerts: {severity: 9}
  aks-dra-vgpu:gpuPools:
    - {name: gpu, vmSize: Standard_NV12ads_A10_v, count: 1}
    - {name: gpu, vmSize: Standard_NV12ads_A10_v5, count: 1, scaleDownMode: Deallocate, osDiskType: Ephemeral,
       taints: [bad]}
  aks-dra-vgpu:samples:
    namespace: nvidia-dra-driver-gpu
    workloadMemoryGiB: 48
""")

TEN_EXPECTED = [
    "cluster.protect: unquoted yes is the boolean true in YAML 1.1 but the text 'yes' for Pulumi (YAML 1.2); write true "
    "for a boolean or quote it ('yes') for text",
    "cluster.systemPool.count: must be a whole number from 1 to 1000 (got 0)",
    "cluster.monitoring.alerts.severity: must be a whole number from 0 to 4 (got 9)",
    "gpuPools[0].vmSize: 'Standard_NV12ads_A10_v' is not an NVadsA10_v5 size (did you mean 'Standard_NV12ads_A10_v5'?)",
    "gpuPools[1].taints[0]: 'bad' is not a taint; expected key=value:Effect",
    "gpuPools[1].osDiskType: Ephemeral cannot be kept with scaleDownMode Deallocate",
    "cluster.monitoring.grafana.enabled: Managed Grafana reads the managed Prometheus workspace; set managedPrometheus: "
    "true, or remove it",
    "gpuPools: pool name 'gpu' is used twice (gpuPools[0] and gpuPools[1]); pool names must be unique",
    "samples.workloadMemoryGiB: 48 GiB is more than any A10 slice holds (at most 24 GiB",
    "samples.namespace: 'nvidia-dra-driver-gpu' is the driver's namespace (draDriver.namespace)",
]


def test_ten_mistakes_across_every_layer_are_ten_lines_of_one_plan(tmp_path, capsys):
    """A YAML refusal, field errors, rules inside a section beside a typo, a duplicate name beside a broken pool, and
    rules across sections: one run of `plan` lists each once, and the program never runs."""
    from components.cli import main
    from tests.conftest import scratch_project

    project = scratch_project(tmp_path)
    (project / "stacks" / "Pulumi.bad.yaml").write_text(TEN_MISTAKES)
    status = main(["plan", "--stack", "bad", "--project-dir", str(project)])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert status == 2 and out == ""
    assert len(lines) == len(TEN_EXPECTED), lines
    for expected in TEN_EXPECTED:
        assert sum(without_file(line).startswith(expected) for line in lines) == 1, (expected, lines)
    assert lines[0].startswith("stacks/Pulumi.bad.yaml:7:14: cluster.protect: "), lines  # where it is, first
    assert all(line.startswith("stacks/Pulumi.bad.yaml") for line in lines), lines


def test_a_yaml_refusal_does_not_hide_the_next_one_nor_the_models_problems():
    from components.offline import safe_yaml

    data, found = safe_yaml.load_collecting("a: {b: on, c: 0755, b: 2}\nd: [n, 1:30, x]\ne: 5\n", "f.yaml")
    assert data == {"a": {}, "d": [None, None, "x"], "e": 5}
    assert [str(p).split(": ", 2)[1] for p in found] == ["a.b", "a.c", "a.b", "d[0]", "d[1]"]
    assert "key 'b' is written twice" in str(found[2])


def test_a_text_read_again_is_the_same_document_and_problems_in_a_copy_of_its_own():
    from components.offline import safe_yaml

    text = "a: {b: on, m: [1, {c: 2}]}\nd: x\n"
    first, found = safe_yaml.load_collecting(text, "f.yaml")
    first["a"]["m"][1]["c"] = 99  # a caller changes what it got
    first["d"] = "changed"
    found[0].position = (9, 9)
    found.clear()
    second, again = safe_yaml.load_collecting(text, "f.yaml")
    assert second == {"a": {"m": [1, {"c": 2}]}, "d": "x"}
    assert [(str(p), p.path, p.position) for p in again] == [
        (again[0].args[0], ("a", "b"), (0, 7))] and again[0].args[0].startswith("f.yaml:1:8: a.b: unquoted on")
    # The file's name is in every message: the same text under another name is that name's own.
    assert str(safe_yaml.load_collecting(text, "g.yaml")[1][0]).startswith("g.yaml:1:8: ")
    # A text that cannot be read raises each time; a large text is read, not kept.
    for _ in range(2):
        with pytest.raises(safe_yaml.YamlInputError, match=r"f\.yaml:1:"):
            safe_yaml.load_collecting("a: [", "f.yaml")
    big = "k: [" + ", ".join(["1"] * (safe_yaml.MAX_KEPT_CHARS // 3)) + "]\n"
    kept = safe_yaml._kept.cache_info().currsize
    assert len(safe_yaml.load_collecting(big, "big.yaml")[0]["k"]) == safe_yaml.MAX_KEPT_CHARS // 3
    assert safe_yaml._kept.cache_info().currsize == kept


def test_rules_inside_a_section_run_beside_a_typo_in_python_too():
    from components import GpuNodePoolArgs
    from components.config import ConfigError

    with pytest.raises(ConfigError) as caught:
        GpuNodePoolArgs(name="p", vm_size="Standard_NV12ads_A10_v5", taints=["bad"], scale_down_mode="Deallocate",
                        os_disk_type="Ephemeral", cluster_name="c", resource_group_name="rg")
    text = str(caught.value)
    assert text.startswith("invalid GpuNodePoolArgs:")
    assert "taints[0]: 'bad' is not a taint" in text
    assert "os_disk_type: Ephemeral cannot be kept with scale_down_mode Deallocate" in text


@pytest.mark.parametrize("key", ["maxPods", "maxSurge", "osDiskSizeGb", "taints", "labels", "zones"])
def test_null_is_the_key_left_out_for_every_optional_key(key):
    data = copy.deepcopy(MINIMAL_STACK)
    data["gpuPools"][0][key] = None
    plain = stack_config_from_mapping(as_config(MINIMAL_STACK)).gpu_pools[0]
    assert stack_config_from_mapping(as_config(data)).gpu_pools[0] == plain


def test_a_required_key_written_as_null_is_still_refused():
    data = copy.deepcopy(MINIMAL_STACK)
    data["gpuPools"][0]["vmSize"] = None
    assert problems(data) == ["gpuPools[0].vmSize: must be text; quote it in YAML (got null)"]


def test_cross_section_rules_read_the_cluster_keys_that_validated():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["skuTier"] = "Gold"  # a mistake in the cluster beside the keys the rules read
    data["gpuPools"][0]["capacityReservationGroupId"] = (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Compute/"
        "capacityReservationGroups/crg")
    found = problems(data)
    assert [line.split(": ", 1)[0] for line in found] == ["cluster.skuTier", "gpuPools[0].capacityReservationGroupId"]
    assert found[1].endswith("needs cluster.identityId: AKS uses capacity reservation groups only through a "
                             "user-assigned cluster identity with Contributor on the reservation's resource group")


def test_a_rule_never_reads_a_default_standing_in_for_a_bad_cluster_key():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.3x"
    data["gpuPools"][0]["kubernetesVersion"] = "1.35"  # newer than the default 1.34, but the cluster's own is unknown
    keys = [line.split(": ", 1)[0] for line in problems(data)]
    assert keys == ["cluster.kubernetesVersion"]


def test_a_models_own_rule_never_judges_the_default_of_a_refused_key():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["name"] = "aks_dev"  # a cluster name, not a DNS prefix: the default dnsPrefix would be refused
    data["cluster"]["dnsPrefix"] = "-bad"
    found = problems(data)
    assert found == ["cluster.dnsPrefix: '-bad' is not a DNS prefix; use 1-54 letters, digits and '-', starting and "
                     "ending with a letter or digit"], found


@pytest.mark.parametrize(("written", "hint"), [
    # No 24-vCPU size: the sizes on either side, with what they hold, not NV72ads (one letter away, 3x the vCPUs).
    ("Standard_NV24ads_A10_v5", "(there is no 24-vCPU size; the nearest: Standard_NV18ads_A10_v5 (18 vCPUs, 1/2 A10, "
     "12 GiB GPU memory per device) and Standard_NV36ads_A10_v5 (36 vCPUs, one A10, 24 GiB GPU memory per device))"),
    ("Standard_NV36adms", "(did you mean 'Standard_NV36adms_A10_v5'?)"),  # a known vCPU count: the rest is a typo
    ("Standard_NV100ads_A10_v5", "the nearest: Standard_NV72ads_A10_v5 (72 vCPUs, 2 A10s,"),
])
def test_a_size_not_in_the_catalog_is_told_the_sizes_it_most_likely_meant(written, hint):
    data = copy.deepcopy(MINIMAL_STACK)
    data["gpuPools"][0]["vmSize"] = written
    (line,) = problems(data)
    assert line.startswith(f"gpuPools[0].vmSize: '{written}' is not an NVadsA10_v5 size ("), line
    assert hint in line.split("; choose")[0], line


def test_a_refused_domain_hides_no_rule_that_does_not_read_it():
    # The package's class names and the MIG and nvidia.com/gpu names do not depend on extendedResources.domain: a
    # refused domain leaves out only the A10 names it would have made.
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["gpuPools"].append({"name": "a100mig", "vmSize": "Standard_NC24ads_A100_v4", "gpuInstanceProfile": "3g.40gb",
                             "count": 1})
    data["extendedResources"] = {"domain": "Bad_Domain"}
    data["samples"] = {"deviceClassName": "aks-dra-vgpu-a10-8gib", "extendedResourceName": "nvidia.com/mig-3g.40gb"}
    found = problems(data)
    assert [line.partition(":")[0] for line in found] == [
        "extendedResources.domain", "samples.extendedResourceName", "samples.deviceClassName"], found
    assert found[1] == ("samples.extendedResourceName: 'nvidia.com/mig-3g.40gb' is also mapped by extendedResources' "
                        "class aks-dra-vgpu-mig-3g.40gb: one name must have one class (Kubernetes picks the class "
                        "created last); remove samples.extendedResourceName")
    assert found[2] == ("samples.deviceClassName: 'aks-dra-vgpu-a10-8gib' is the name of one of extendedResources' "
                        "classes; choose another")


def test_a_refused_domain_does_not_judge_the_a10_names_by_the_default_domain():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["extendedResources"] = {"domain": "Bad_Domain"}
    data["samples"] = {"extendedResourceName": "aks-dra-vgpu.io/a10-8gib"}
    assert [line.partition(":")[0] for line in problems(data)] == ["extendedResources.domain"]


def test_a_refused_slices_or_nvidia_gpu_leaves_out_the_classes_they_decide():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["samples"] = {"deviceClassName": "aks-dra-vgpu-a10-8gib"}
    data["extendedResources"] = {"slices": "maybe"}
    assert [line.partition(":")[0] for line in problems(data)] == ["extendedResources.slices"]
    data["samples"] = {"deviceClassName": "aks-dra-vgpu-nvidia-gpu"}
    data["extendedResources"] = {"slices": False, "nvidiaGpu": "8gb"}
    assert [line.partition(":")[0] for line in problems(data)] == ["extendedResources.nvidiaGpu"]
    # nvidiaGpu refused beside slices: the slices' classes are still the package's
    data["samples"] = {"deviceClassName": "aks-dra-vgpu-a10-8gib"}
    data["extendedResources"] = {"nvidiaGpu": "8gb"}
    assert [line.partition(":")[0] for line in problems(data)] == [
        "extendedResources.nvidiaGpu", "samples.deviceClassName"]
