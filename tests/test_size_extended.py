"""`size` with workloads written as extended resources (`--workload NAME=[GiB@]RESOURCE[xCOUNT]`, `resource:` in a
workloads file): which slice the name gives them on the stack, planned and costed like other workloads; a name that
names nothing, or a count that is no whole number, is bad input (exit 2). Where they are placed: test_size_by_name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from components.cli import main
from components.kubernetes.slice_kinds import a10_slice
from components.sizing.extended import ExtendedAsk, parse_extended, served_slices
from tests.conftest import ROOT
from tests.verify_cluster import stack


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["size", "--project-dir", str(ROOT), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_parse_extended_workloads():
    assert parse_extended("infer=nvidia.com/gpu") == ExtendedAsk("infer", "nvidia.com/gpu", None, 1)
    assert parse_extended("a=aks-dra-vgpu.io/a10-8gibx3") == ExtendedAsk("a", "aks-dra-vgpu.io/a10-8gib", None, 3)
    assert parse_extended("llm=20GiB@nvidia.com/gpu") == ExtendedAsk("llm", "nvidia.com/gpu", 20.0, 1)
    assert parse_extended("m=nvidia.com/mig-3g.40gbx2") == ExtendedAsk("m", "nvidia.com/mig-3g.40gb", None, 2)
    with pytest.raises(ValueError, match=r"expected NAME=\[GiB@\]RESOURCE\[xCOUNT\]"):
        parse_extended("x=20@@nvidia.com/gpu")
    with pytest.raises(ValueError, match=r"'kubernetes.io/gpu' is not an extended resource name: it is in the "
                                         r"kubernetes.io namespace"):
        parse_extended("x=kubernetes.io/gpu")


def test_the_slice_a_name_gives_follows_the_stack():
    serving = stack("serving")
    assert served_slices("nvidia.com/gpu", serving) == ((a10_slice(8),), "the stack's class aks-dra-vgpu-nvidia-gpu")
    assert served_slices("aks-dra-vgpu.io/a10-24gib", None)[0] == (a10_slice(24),)
    with pytest.raises(ValueError, match=r"depends on the stack .*add --stack"):
        served_slices("nvidia.com/gpu", None)
    with pytest.raises(ValueError, match=r"the stack maps no class to example.com/gpu \(it maps: "
                                         r"aks-dra-vgpu.io/a10-24gib, aks-dra-vgpu.io/a10-8gib, nvidia.com/gpu\)"):
        served_slices("example.com/gpu", serving)


def test_size_command_with_extended_workloads(capsys):
    status, out, err = run(capsys, "--stack", "serving", "--workload", "infer=nvidia.com/gpu", "--workload",
                           "llm=20GiB@nvidia.com/gpu", "--workload", "big=aks-dra-vgpu.io/a10-24gib", "--json")
    assert err == "" and status == 3  # llm's 20 GiB is more than the 8 GiB slice nvidia.com/gpu gives
    doc = json.loads(out)
    assert {w["name"]: w["sizeClassGiB"] for w in doc["workloads"]} == {"infer": 8, "llm": None, "big": 24}
    assert "llm: nvidia.com/gpu gives an 8 GiB slice" in " ".join(p["message"] for p in doc["problems"])
    assert "big: aks-dra-vgpu.io/a10-24gib -> the stack's class aks-dra-vgpu-a10-24gib: 24 GiB slice" in doc["notes"]


def test_the_memory_stated_is_in_the_output(capsys):
    status, out, _ = run(capsys, "--stack", "serving", "--workload", "small=6GiB@nvidia.com/gpu", "--workload",
                         "big=aks-dra-vgpu.io/a10-24gib", "--json")
    doc = json.loads(out)
    assert status == 0
    assert {w["name"]: (w["memoryGiB"], w["extendedResource"], w["slice"]) for w in doc["workloads"]} == {
        "small": (6.0, "nvidia.com/gpu", None), "big": (None, "aks-dra-vgpu.io/a10-24gib", None)}
    _, text, _ = run(capsys, "--stack", "serving", "--workload", "small=6GiB@nvidia.com/gpu")
    assert "  small     6 GiB as nvidia.com/gpu  1" in text


@pytest.mark.parametrize("argv, said", [
    (["--workload", "infer=nvidia.com/gpu"],
     "--workload infer: what nvidia.com/gpu gives depends on the stack (extendedResources.nvidiaGpu): add --stack"),
    (["--workload", "x=example.com/gpu"], "--workload x: example.com/gpu names no slice the package knows "
     "(<domain>/a10-<N>gib with N one of 4, 8, 12, 24, or nvidia.com/mig-<profile>); add --stack to read what a stack "
     "maps"),
    (["--workload", "x=nvidia.com/mig-9g.99gb"], "--workload x: nvidia.com/mig-9g.99gb names no slice the package knows"),
    (["--stack", "serving", "--workload", "x=aks-dra-vgpu.io/a10-8gb"], "--workload x: the stack maps no class to "
     "aks-dra-vgpu.io/a10-8gb (it maps: aks-dra-vgpu.io/a10-24gib, aks-dra-vgpu.io/a10-8gib, nvidia.com/gpu)"),
    (["--workload", "x=nvidia.com/gpux-1"], "--workload 'x=nvidia.com/gpux-1': COUNT (after 'x') is a whole number of "
     "replicas, at least 1 and at most 10000; '-1' is not"),
    (["--workload", "x=aks-dra-vgpu.io/a10-8gibx1.5"], "--workload 'x=aks-dra-vgpu.io/a10-8gibx1.5': COUNT (after 'x') "
     "is a whole number of replicas, at least 1 and at most 10000; '1.5' is not"),
])
def test_bad_extended_resource_input_exits_2(capsys, argv, said):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "") and said in err
    status, out, _ = run(capsys, *argv, "--json")
    doc = json.loads(out)
    assert (status, doc["exit"], doc["fits"]) == (2, 2, False) and said in doc["problems"][0]["message"]


def test_a_package_name_the_stack_does_not_map_does_not_fit(capsys):
    # a valid name of the package's, which serving's pools (8 and 24 GiB) give no class: pods stay Pending, exit 3
    status, out, _ = run(capsys, "--stack", "serving", "--workload", "x=aks-dra-vgpu.io/a10-12gib", "--json")
    (problem,) = [p for p in json.loads(out)["problems"] if p["severity"] == "error"]
    assert status == 3 and problem["message"].startswith("x: the stack maps no class to aks-dra-vgpu.io/a10-12gib")


def test_a_workloads_file_asks_for_an_extended_resource(capsys, tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump({"workloads": [
        {"name": "infer", "resource": "nvidia.com/gpu", "count": 2}, {"name": "llm", "resource": "nvidia.com/gpu",
                                                                     "memoryGiB": 6, "spot": True},
        {"name": "chat", "memoryGiB": 7}]}))
    status, out, _ = run(capsys, "--stack", "serving", "--workloads", str(path), "--json")
    doc = json.loads(out)
    assert status == 3  # the small pool (count 1) is too small for three 8 GiB replicas
    assert {w["name"]: (w["extendedResource"], w["memoryGiB"], w["count"], w["spot"], w["sizeClassGiB"])
            for w in doc["workloads"]} == {"chat": (None, 7.0, 1, False, 8), "infer": ("nvidia.com/gpu", None, 2, False, 8),
                                           "llm": ("nvidia.com/gpu", 6.0, 1, True, 8)}
    path.write_text(yaml.safe_dump({"workloads": [{"name": "a", "resource": "kubernetes.io/gpu"},
                                                  {"name": "b", "resource": "nvidia.com/gpu", "slice": 8}]}))
    status, _, err = run(capsys, "--stack", "serving", "--workloads", str(path))
    assert status == 2
    assert f"{path}: workloads[0].resource: 'kubernetes.io/gpu' is not an extended resource name" in err
    assert f"{path}: workloads[1].slice: resource names the slices the workload gets; leave slice out" in err
    path.write_text(yaml.safe_dump([{"name": "c", "resource": "example.com/gpu"}]))  # a name that names nothing
    status, _, err = run(capsys, "--stack", "serving", "--workloads", str(path))
    assert status == 2 and f"{path}: workloads[0].resource: the stack maps no class to example.com/gpu" in err


@pytest.mark.parametrize("text, said", [
    ("x=nvidia.com/gpux99999999999", "too many digits; GiB is more than 0 and at most 1024, COUNT at least 1 and at "
     "most 10000"),
    ("x=nvidia.com/gpux10001", "GiB is more than 0 and at most 1024, COUNT at least 1 and at most 10000"),
    ("x=99999GiB@nvidia.com/gpu", "GiB is more than 0 and at most 1024, COUNT at least 1 and at most 10000"),
    ("x=0GiB@nvidia.com/gpu", "GiB is more than 0 and at most 1024, COUNT at least 1 and at most 10000"),
])
def test_numbers_out_of_range_are_told_the_limits_not_taken_for_a_resource_name(text, said):
    with pytest.raises(ValueError) as err:
        parse_extended(text)
    assert str(err.value).endswith(said)


def test_an_at_sign_without_a_resource_is_told_the_extended_syntax(capsys):
    status, _, err = run(capsys, "--workload", "x=@", "--workload", "y=8GiB@")
    assert status == 2
    assert "--workload 'x=@': expected NAME=[GiB@]RESOURCE[xCOUNT], e.g. 'infer=nvidia.com/gpu'" in err
    assert "--workload 'y=8GiB@': expected NAME=[GiB@]RESOURCE[xCOUNT]" in err


def test_extended_workloads_share_the_names_and_spot_of_the_others(capsys):
    status, _, err = run(capsys, "--stack", "serving", "--workload", "x=8", "--workload", "x=nvidia.com/gpu")
    assert status == 2 and "workload 'x' is named twice; give each workload its own name" in err
    status, out, err = run(capsys, "--stack", "serving", "--workload", "a=3", "--workload", "x=nvidia.com/gpu",
                           "--spot", "x", "--json")
    assert "--spot" not in err
    assert {w["name"]: w["spot"] for w in json.loads(out)["workloads"]} == {"a": False, "x": True}
