"""A consumer's own program: a mistake in a component's arguments is told with the program's line, the resource's name
and the Args class, one line per problem, by the offline plan."""

from __future__ import annotations

from pathlib import Path

from components.cli import main

PROGRAM = '''from components import GpuNodePool, GpuNodePoolArgs

a = GpuNodePool("gpu-a", GpuNodePoolArgs(name="a", vm_size="Standard_NV12ads_A10_v5", cluster_name="c",
                                         resource_group_name="rg"))
b = GpuNodePool(
    "gpu-b",
    GpuNodePoolArgs(
        name="b",
        vm_size="Standard_NV12ads",
        taints=["sku=gpu"],
        cluster_name="c",
        resource_group_name="rg",
    ),
)
'''


def consumer(folder: Path, program: str) -> Path:
    (folder / "Pulumi.yaml").write_text("name: consumer\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(program)
    return folder


def test_two_pools_one_wrong_names_the_resource_and_the_args_class(tmp_path, capsys):
    status = main(["plan", "--stack", "dev", "--project-dir", str(consumer(tmp_path, PROGRAM))])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert (status, out) == (2, "")
    assert len(lines) == 2, lines
    assert lines[0].startswith("__main__.py:7: GpuNodePool 'gpu-b': invalid GpuNodePoolArgs: vm_size: 'Standard_NV12ads' "
                               "is not an NVadsA10_v5 size (did you mean 'Standard_NV12ads_A10_v5'?)"), lines[0]
    assert lines[1].startswith("__main__.py:7: GpuNodePool 'gpu-b': invalid GpuNodePoolArgs: taints[0]: 'sku=gpu' is "
                               "not a taint"), lines[1]


def test_args_built_apart_still_name_their_line_and_class(tmp_path, capsys):
    program = ('from components import GpuNodePoolArgs\n\n'
               'args = GpuNodePoolArgs(name="b", vm_size="Standard_NV12ads_A10_v5", max_pods=5, cluster_name="c", '
               'resource_group_name="rg")\n')
    assert main(["plan", "--stack", "dev", "--project-dir", str(consumer(tmp_path, program))]) == 2
    assert capsys.readouterr().err.strip() == ("__main__.py:3: invalid GpuNodePoolArgs: max_pods: must be a whole number "
                                               "from 10 to 250 (got 5)")


def test_a_component_refusing_its_options_names_the_resource(tmp_path, capsys):
    program = ('from components import DraSamples, DraSamplesArgs\n\n'
               'DraSamples("demo", DraSamplesArgs(pools=[{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5"}]))\n')
    assert main(["plan", "--stack", "dev", "--project-dir", str(consumer(tmp_path, program))]) == 2
    assert capsys.readouterr().err.strip() == (
        "__main__.py:3: DraSamples 'demo': DraSamples needs an explicit Kubernetes provider: opts.providers: pass "
        "providers={'kubernetes': provider}")
