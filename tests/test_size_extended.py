"""`size` with workloads written as extended resources (`--workload NAME=[GiB@]RESOURCE[xCOUNT]`): which slice the name
gives them on the stack, planned and costed like other workloads, and the warning where that slice is smaller than the
memory stated."""

from __future__ import annotations

import json

import pytest

from components.cli import main
from components.kubernetes.slice_kinds import a10_slice
from components.sizing.extended import ExtendedAsk, parse_extended, resolve, served_slices
from components.sizing.model import Workload
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


def test_a_name_smaller_than_the_memory_stated_warns_and_plans_what_it_would_get():
    workload, findings, note = resolve(ExtendedAsk("llm", "nvidia.com/gpu", 20.0, 1), stack("serving"), 10)
    assert workload == Workload("llm", 20.0, 1, 1, 8)  # placed on the 8 GiB slice the name gives
    (finding,) = findings
    assert finding.severity == "warning" and finding.key == "--workload llm"
    assert finding.message.startswith("llm: nvidia.com/gpu gives an 8 GiB slice in this stack (7.2 GiB usable at the "
                                      "10 % margin), less than the 20 GiB it needs")
    assert note == "llm: nvidia.com/gpu -> the stack's class aks-dra-vgpu-nvidia-gpu: 8 GiB slice"
    _, fits, _ = resolve(ExtendedAsk("small", "nvidia.com/gpu", 6.0, 1), stack("serving"), 10)
    assert fits == []


def test_size_command_with_extended_workloads(capsys):
    status, out, err = run(capsys, "--stack", "serving", "--workload", "infer=nvidia.com/gpu", "--workload",
                           "llm=20GiB@nvidia.com/gpu", "--workload", "big=aks-dra-vgpu.io/a10-24gib", "--json")
    assert err == "" and status == 3  # the small pool (count 1) is too small for two 8 GiB replicas
    doc = json.loads(out)
    assert {w["name"]: w["sizeClassGiB"] for w in doc["workloads"]} == {"infer": 8, "llm": 8, "big": 24}
    assert "llm: nvidia.com/gpu gives an 8 GiB slice" in " ".join(p["message"] for p in doc["problems"])
    assert "big: aks-dra-vgpu.io/a10-24gib -> the stack's class aks-dra-vgpu-a10-24gib: 24 GiB slice" in doc["notes"]


def test_size_refuses_nvidia_gpu_without_a_stack(capsys):
    status, out, _ = run(capsys, "--workload", "infer=nvidia.com/gpu", "--json")
    doc = json.loads(out)
    assert status == 3 and doc["problems"][0]["message"] == (
        "infer: what nvidia.com/gpu gives depends on the stack (extendedResources.nvidiaGpu): add --stack")


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
