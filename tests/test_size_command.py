"""`python -m components size`: exit 0 when everything fits, 3 when something does not, 2 on bad input (nothing on
stdout, or with --json a document of the problems); JSON for machines, text for people, Markdown for pull requests;
`--stack` checks a stack's pools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from components.cli import main
from components.sizing.command import parse_workload
from components.sizing.planner import Workload
from tests.conftest import ROOT


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["size", "--project-dir", str(ROOT), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_parse_workload():
    assert parse_workload("embed=3x4") == Workload("embed", 3.0, 4)
    assert parse_workload("llm=20") == Workload("llm", 20.0, 1)
    assert parse_workload("chat=7.5GiBx2") == Workload("chat", 7.5, 2)
    for bad in ("embed", "embed=", "=3", "embed=3x", "embed=3x0", "embed=-1", "embed=0", "embed=3x2x1", "em bed=3"):
        with pytest.raises(ValueError, match=r"expected NAME=GiB\[xCOUNT\]|more than 0"):
            parse_workload(bad)


def test_json_keys_and_exit_0_when_everything_fits(capsys):
    status, out, err = run(capsys, "--workload", "embed=3x4", "--workload", "chat=7x2", "--json")
    assert (status, err) == (0, "")
    doc = json.loads(out)
    assert {"workloads", "pools", "cost", "problems"} <= set(doc)
    assert doc["workloads"][0] == {
        "name": "embed", "memoryGiB": 3.0, "slice": None, "extendedResource": None, "count": 4, "devices": 1,
        "spot": False, "sizeClassGiB": 4,
        "usableGiB": 3.6, "vmSize": "Standard_NV6ads_A10_v5", "claimTemplate": "a10-vgpu-4gib", "stackPools": [],
        "tolerations": [], "family": "a10", "gpuInstanceProfile": None, "migProfile": None, "gpuModel": None,
    }
    assert doc["usableGiB"] == {"4": 3.6, "8": 7.2, "12": 10.8, "24": 21.6}
    assert [(p["vmSize"], p["nodes"], p["devices"]) for p in doc["pools"]] == [
        ("Standard_NV6ads_A10_v5", 4, 4), ("Standard_NV12ads_A10_v5", 2, 2)]
    cost = doc["cost"]
    assert {"currency", "region", "date", "source", "plan", "wholeA10PerWorkload", "largestSizePool"} <= set(cost)
    assert cost["plan"]["hourly"] < cost["wholeA10PerWorkload"]["hourly"]
    assert 0 < cost["plan"]["utilisation"] <= 1
    assert doc["problems"] == [] and doc["fits"] is True


def test_what_fits_nowhere_exits_3_and_is_in_problems(capsys):
    # A10 slices alone (a 40 GiB workload gets a MIG slice when both families are open: test_size_mig)
    status, out, err = run(capsys, "--workload", "embed=3", "--workload", "llm70b=40x2", "--format", "json",
                           "--family", "a10")
    assert (status, err) == (3, "")
    doc = json.loads(out)
    assert doc["workloads"][1]["vmSize"] is None and doc["workloads"][1]["claimTemplate"] is None
    (problem,) = doc["problems"]
    assert (problem["severity"], problem["kind"], problem["key"]) == ("error", "no-fit", "workloads[1]")


def test_a_stack_lacking_a_needed_size_exits_3_and_prints_a_snippet_that_fits(capsys):
    # prod has 8 GiB and 24 GiB pools: a 3 GiB workload needs the 4 GiB size it lacks.
    status, out, _ = run(capsys, "--workload", "embed=3x2", "--workload", "chat=7x2", "--stack", "prod")
    assert status == 3
    assert "no pool offers 4 GiB slices (Standard_NV6ads_A10_v5) to embed" in out
    snippet = yaml.safe_load(out.split("gpuPools that would fit:\n", 1)[1].rsplit("\n\n", 1)[0])
    pools = snippet["aks-dra-vgpu:gpuPools"]
    # prod's three pools as written, then the missing 4 GiB size
    prod = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]["aks-dra-vgpu:gpuPools"]
    assert pools[:3] == prod
    assert pools[3] == {"name": "nv6ads", "vmSize": "Standard_NV6ads_A10_v5",
                        "autoscaling": {"minCount": 1, "maxCount": 2}}
    assert "a10full (Standard_NV36ads_A10_v5, 24 GiB slices): no workload listed here runs on it" in out
    assert "chat" in out and "nvidia.com/gpu=present:NoSchedule" in out  # tolerations from the stack's pools


def test_the_snippet_makes_a_valid_stack_that_fits(capsys, tmp_path: Path):
    status, out, _ = run(capsys, "--workload", "embed=3x2", "--workload", "ft=20x3", "--stack", "prod", "--json")
    assert status == 3
    prod = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    prod["config"]["aks-dra-vgpu:gpuPools"] = json.loads(out)["gpuPools"]
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())  # a project has its program
    (tmp_path / "stacks" / "Pulumi.fixed.yaml").write_text(yaml.safe_dump(prod))
    status = main(["size", "--project-dir", str(tmp_path), "--stack", "fixed",
                   "--workload", "embed=3x2", "--workload", "ft=20x3", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0 and [p for p in doc["problems"] if p["severity"] == "error"] == []


def test_markdown_for_pull_requests(capsys):
    status, out, _ = run(capsys, "--workload", "embed=3x4", "--format", "markdown")
    assert status == 0
    assert out.startswith("### GPU sizing\n")
    assert ("| embed | 3 GiB | 4 | 1 | - | 4 GiB (3.6 GiB usable) | Standard_NV6ads_A10_v5 | a10-vgpu-4gib | - |"
            in out)
    assert "#### Cost" in out and "```yaml\naks-dra-vgpu:gpuPools:" in out


def test_workloads_from_a_file_and_a_two_device_workload(capsys, tmp_path: Path):
    # A10 slices alone: with MIG open, two MIG slices of one GPU are cheaper for the pair (test_size_mig)
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump({"workloads": [
        {"name": "pair", "memoryGiB": 20, "count": 2, "devices": 2}, {"name": "chat", "memoryGiB": 7}]}))
    status, out, _ = run(capsys, "--workloads", str(path), "--json", "--family", "a10")
    doc = json.loads(out)
    assert status == 0
    assert [(w["name"], w["vmSize"], w["claimTemplate"]) for w in doc["workloads"]] == [
        ("pair", "Standard_NV72ads_A10_v5", "a10-vgpu-2x24gib"), ("chat", "Standard_NV12ads_A10_v5", "a10-vgpu-8gib")]
    assert doc["pools"][-1] == {**doc["pools"][-1], "vmSize": "Standard_NV72ads_A10_v5", "nodes": 2, "devices": 4}


def test_prices_file_overrides_the_table(capsys, tmp_path: Path):
    prices = tmp_path / "prices.yaml"
    prices.write_text(yaml.safe_dump({"region": "westeurope", "currency": "EUR", "date": "2026-11-30",
                                      "source": "our agreement", "prices": {"Standard_NV6ads_A10_v5": 0.5}}))
    status, out, _ = run(capsys, "--workload", "embed=3x4", "--prices", str(prices), "--json")
    cost = json.loads(out)["cost"]
    assert status == 0
    assert (cost["currency"], cost["region"], cost["source"], cost["plan"]["hourly"]) == ("EUR", "westeurope",
                                                                                         "our agreement", 2.0)
    assert cost["wholeA10PerWorkload"]["hourly"] is None  # no price for a whole A10 in that table


@pytest.mark.parametrize(("argv", "words"), [
    (["--workload", "embed"], "--workload 'embed': expected NAME=GiB[xCOUNT]"),
    ([], "no workloads: give --workload NAME=GiB[xCOUNT], --slice NAME=GiB[xCOUNT] or --workloads FILE"),
    (["--workload", "a=3", "--workload", "a=4"], "workload 'a' is named twice"),
    (["--workload", "a=3", "--stack", "nosuch"], "Pulumi.nosuch.yaml: no such stack file"),
    (["--workload", "a=3", "--workloads", "missing.yaml"], "missing.yaml: no such file"),
    (["--workload", "a=3", "--prices", "missing-prices.yaml"], "missing-prices.yaml: no such file"),
])
def test_bad_input_exits_2_with_nothing_on_stdout(capsys, argv, words):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert words in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("argv", "words"), [
    (["--workload", "llm=banana"], "or an extended resource, NAME=[GiB@]RESOURCE[xCOUNT]"),
    (["--workload", "a=3", "--stack", "nosuch"], "Pulumi.nosuch.yaml: no such stack file"),
    (["--workload", "a=3", "--workload", "a=4", "--workload", "b=0"], "workload 'a' is named twice"),
])
def test_with_json_bad_input_is_a_document_on_stdout_too(capsys, argv, words):
    status, out, err = run(capsys, *argv, "--json")
    doc = json.loads(out)
    assert status == 2 and doc["exit"] == 2 and doc["fits"] is False
    messages = [p["message"] for p in doc["problems"]]
    assert any(words in m for m in messages), messages
    assert {p["kind"] for p in doc["problems"]} == {"bad-input"}
    assert len(messages) == len(err.splitlines()) and words in err  # the same lines, still on stderr


def test_bad_files_name_the_key(capsys, tmp_path: Path):
    workloads = tmp_path / "w.yaml"
    workloads.write_text(yaml.safe_dump([{"name": "a", "memoryGiB": 0}, {"name": "b", "memoryGiB": 3, "devices": 3}]))
    prices = tmp_path / "p.yaml"
    prices.write_text(yaml.safe_dump({"region": "x", "currency": "usd", "date": "today", "source": "s",
                                      "prices": {"Standard_NC6": 1}}))
    status, out, err = run(capsys, "--workloads", str(workloads), "--prices", str(prices))
    assert (status, out) == (2, "")
    lines = err.splitlines()
    for key in ("workloads[0].memoryGiB", "workloads[1].devices"):
        assert any(line.startswith(f"{workloads}: {key}:") for line in lines), (key, lines)
    for key in ("currency", "date", "prices"):
        assert any(line.startswith(f"{prices}: {key}:") for line in lines), (key, lines)


def test_a_bad_stack_is_bad_input(capsys, tmp_path: Path):
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    prod = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    prod["config"]["aks-dra-vgpu:samples"] = {"namespace": "kube-system"}
    (tmp_path / "stacks" / "Pulumi.bad.yaml").write_text(yaml.safe_dump(prod))
    status = main(["size", "--project-dir", str(tmp_path), "--stack", "bad", "--workload", "a=3"])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err.startswith("samples.namespace: 'kube-system' is refused")
