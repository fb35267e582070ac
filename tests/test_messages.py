"""Messages a new user meets, each saying what to write: a section written as a switch, a dict where an Args class
belongs, the Args class a mistake belongs to."""

from __future__ import annotations

import copy

import pytest

from components.config import ConfigError, stack_config_from_mapping
from tests.conftest import MINIMAL_STACK, as_config


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(("where", "value", "told"), [
    (("gpuPools", 0, "spot"), True, "gpuPools[0].spot: must be a mapping with the keys evictionPolicy, maxPrice (got "
                                    "true); to turn it on with its defaults, write spot: {}"),
    (("gpuPools", 0, "spot"), False, "(got false); to leave it off, leave spot out"),
    (("samples",), False, "(got false); to turn it off, write samples: {enabled: false}"),
    (("cluster", "monitoring", "gpuMetrics"), True, "(got true); to turn it on, write gpuMetrics: {enabled: true}"),
])
def test_a_section_written_as_a_switch_is_told_how_to_switch_it(where, value, told):
    data = copy.deepcopy(MINIMAL_STACK)
    parent = data
    for part in where[:-1]:
        parent = parent.setdefault(part, {}) if isinstance(part, str) else parent[part]
    parent[where[-1]] = value
    (line,) = problems(data)
    assert line.endswith(told), line


def test_python_is_told_the_switch_in_its_own_words():
    from components import GpuNodePoolArgs

    with pytest.raises(ConfigError) as caught:
        GpuNodePoolArgs(name="a", vm_size="Standard_NV6ads_A10_v5", cluster_name="c", resource_group_name="rg",
                        spot=True)
    assert str(caught.value.problems[0]).endswith("(got true); to turn it on with its defaults, write spot=SpotConfig()")


# --- a project whose stack holds none of the package's settings ----------------------------------------------------------
@pytest.fixture
def consumer(tmp_path):
    """A consumer project (its own name, a stack folder) whose stack file sets only the consumer's own key."""
    (tmp_path / "Pulumi.yaml").write_text("name: consumer\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  consumer:team: ml\n")
    (tmp_path / "__main__.py").write_text("import pulumi\n")
    return tmp_path


NONE_OF_OURS = ("stacks/Pulumi.dev.yaml: sets none of this package's settings, which are read under the project's name "
                "'consumer:' (consumer:cluster and consumer:gpuPools at least; docs/configuration.md lists every key)")


@pytest.mark.parametrize("command", [["size", "--workload", "infer=4"], ["verify"]])
def test_size_and_verify_name_the_namespace_and_the_stack_file(command, consumer, capsys):
    from components.cli import main

    assert main([*command, "--stack", "dev", "--project-dir", str(consumer)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [NONE_OF_OURS]


def test_the_package_settings_under_another_namespace_are_pointed_at(consumer, capsys):
    from components.cli import main

    (consumer / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aks-dra-vgpu:cluster: {name: x}\n")
    assert main(["verify", "--stack", "dev", "--project-dir", str(consumer)]) == 2
    assert capsys.readouterr().err.strip() == (f"{NONE_OF_OURS}; aks-dra-vgpu:cluster is under another namespace: "
                                               "write it under 'consumer:'")


def test_a_program_reading_the_settings_is_told_before_it_runs(consumer, capsys):
    from components.cli import main

    (consumer / "__main__.py").write_text("from components import load_stack_config\n\nload_stack_config()\n")
    assert main(["plan", "--stack", "dev", "--project-dir", str(consumer)]) == 2
    assert capsys.readouterr().err.strip() == NONE_OF_OURS


# --- the Python API: a dict where an Args class belongs, the class a mistake belongs to ---------------------------------
def plan_consumer(folder, program: str, capsys, *extra: str) -> tuple[int, str, str]:
    from components.cli import main

    (folder / "Pulumi.yaml").write_text("name: consumer\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(program)
    status = main(["plan", "--stack", "dev", "--project-dir", str(folder), *extra])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_dict_of_arguments_is_taken_as_the_args_class_would_be(tmp_path, capsys):
    program = ('from components import GpuNodePool\n\n'
               'GpuNodePool("gpu-a", {"name": "a", "vm_size": "Standard_NV12ads_A10_v5", "cluster_name": "c",\n'
               '                      "resourceGroupName": "rg"})\n')
    status, out, err = plan_consumer(tmp_path, program, capsys, "--json")
    assert status == 0, err
    assert '"agentPoolName": "a"' in out and '"vmSize": "Standard_NV12ads_A10_v5"' in out


def test_a_dicts_mistakes_are_the_args_classs_own(tmp_path, capsys):
    program = ('from components import GpuNodePool\n\n'
               'GpuNodePool("gpu-a", {"name": "a", "vm_size": "Standard_NV12ads", "cluster_name": "c", '
               '"resource_group_name": "rg"})\n')
    status, _, err = plan_consumer(tmp_path, program, capsys)
    assert status == 2 and err.startswith("__main__.py:3: GpuNodePool 'gpu-a': invalid GpuNodePoolArgs: vm_size: "
                                          "'Standard_NV12ads' is not an NVadsA10_v5 size"), err


def test_something_else_where_args_belong_is_told_which_class_to_use(tmp_path, capsys):
    program = 'from components import GpuNodePool\n\nGpuNodePool("gpu-a", ["a", "Standard_NV12ads_A10_v5"])\n'
    status, _, err = plan_consumer(tmp_path, program, capsys)
    assert (status, err.strip()) == (2, "__main__.py:3: GpuNodePool 'gpu-a': invalid GpuNodePoolArgs: args: must be a "
                                        "GpuNodePoolArgs or a dict of its arguments (got list); write "
                                        "GpuNodePoolArgs(...) with the arguments it documents")


def test_aks_cluster_args_mistakes_name_aks_cluster_args():
    from components import AksClusterArgs, GpuPlatformArgs

    with pytest.raises(ConfigError) as caught:
        AksClusterArgs(name="aks", location="westeurope")
    assert str(caught.value).splitlines() == ["invalid AksClusterArgs:", "  resource_group: required argument is missing"]
    with pytest.raises(ConfigError) as caught:
        GpuPlatformArgs(cluster={"name": "aks"})
    assert str(caught.value).startswith("invalid GpuPlatformArgs:")


# --- extendedResources.nvidiaGpu: the value meant, among what the stack's pools offer ---------------------------------
MIG_POOL = {"name": "a100mig", "vmSize": "Standard_NC24ads_A100_v4", "gpuInstanceProfile": "MIG3g", "count": 1}


def nvidia_gpu_line(value: object, pools: list[dict] | None = None) -> str:
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["gpuPools"] += pools if pools is not None else [MIG_POOL]
    data["extendedResources"] = {"nvidiaGpu": value}
    (line,) = problems(data)
    return line


@pytest.mark.parametrize(("value", "meant"), [
    ("MIG3g", "3g.40gb"),       # the pool's gpuInstanceProfile, not the slice it lays out
    ("mig-3g.40gb", "3g.40gb"),  # the device plugin's resource name
    (8, "8GiB"),                 # YAML's number
    ("8", "8GiB"),               # the number quoted
    ("8gb", "8GiB"),
    ("8 GiB", "8GiB"),
])
def test_nvidia_gpu_is_told_the_value_meant_and_the_stacks_choices(value, meant):
    line = nvidia_gpu_line(value)
    assert line.startswith("extendedResources.nvidiaGpu: "), line
    assert line.endswith(f" (did you mean '{meant}'?); choose one the pools offer: 8GiB, 3g.40gb, none, any"), line
    assert "1g.5gb" not in line and "quote" not in line  # the stack's slices, not all 20; quoting 8 would not do


def test_a_number_is_told_it_needs_its_unit():
    assert nvidia_gpu_line(8).startswith(
        "extendedResources.nvidiaGpu: 8 is a number, and a slice size is written with its unit (did you mean '8GiB'?)")


def test_a_size_no_pool_offers_is_told_so_beside_the_name_it_meant():
    assert nvidia_gpu_line("24gib").endswith(
        "(did you mean '24GiB'? no pool here offers it); choose one the pools offer: 8GiB, 3g.40gb, none, any")
    # a size that is no A10 slice: the smallest offered that holds it
    assert "(did you mean '24GiB'?)" in nvidia_gpu_line("16gib", [{"name": "big", "vmSize": "Standard_NV36ads_A10_v5",
                                                                    "count": 1}])


def test_a_profile_no_pool_lays_out_is_told_the_one_of_its_width_that_one_does():
    assert nvidia_gpu_line("3g.20gb") == (
        "extendedResources.nvidiaGpu: '3g.20gb' is no slice the pools offer (did you mean '3g.40gb'?); choose one of "
        "8GiB, 3g.40gb, none, any")
    # another width is another slice: no guess
    assert nvidia_gpu_line("1g.10gb").endswith("'1g.10gb' is no slice the pools offer; choose one of 8GiB, 3g.40gb, "
                                               "none, any")


def test_with_a_pool_refused_nvidia_gpu_lists_every_value_it_takes():
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["kubernetesVersion"] = "1.36"
    data["gpuPools"] += [{**MIG_POOL, "name": "Bad_Name"}]
    data["extendedResources"] = {"nvidiaGpu": "8"}
    line = next(p for p in problems(data) if p.startswith("extendedResources.nvidiaGpu"))
    assert "(did you mean '8GiB'?); choose one of: 4GiB, 8GiB, 12GiB, 24GiB, 1g.5gb, " in line, line


def test_samples_extended_resource_name_on_1_35_is_told_the_fix():
    data = copy.deepcopy(MINIMAL_STACK)
    data["samples"] = {"extendedResourceName": "example.com/a10"}
    (line,) = problems(data)
    assert line.endswith("the API server drops the field; set cluster.kubernetesVersion to '1.36' (pools that pin a "
                         "version too), or leave extendedResourceName unset"), line
