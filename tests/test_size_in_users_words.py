"""`size` in the user's words: slices asked for by name, spot pools only for workloads that opt in, a stack's pools
checked one by one and kept as written in the suggestion (each change listed), prices for the stack's region."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cli import main
from components.config import StackConfig
from components.config.pools import SPOT_TAINT
from components.sizing.command import parse_slice
from components.sizing.planner import Workload, plan_sizing
from tests.conftest import MINIMAL_STACK, ROOT
from tests.test_sizing import PRICES

PROD = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
PROD_POOLS = PROD["config"]["aks-dra-vgpu:gpuPools"]


def run(capsys, *argv: str, project: Path = ROOT) -> tuple[int, str, str]:
    status = main(["size", "--project-dir", str(project), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def project_with(tmp_path: Path, pools: list[dict[str, Any]], location: str = "westeurope") -> Path:
    """A project whose stack `t` is the minimal stack with these GPU pools, in this region."""
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    data = copy.deepcopy(MINIMAL_STACK)
    data["cluster"]["location"] = location
    config = {f"aks-dra-vgpu:{k}": v for k, v in data.items()}
    config["aks-dra-vgpu:gpuPools"] = pools
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return tmp_path


def pool(name: str, vm: str = "Standard_NV12ads_A10_v5", low: int = 1, high: int = 3, **more: Any) -> dict[str, Any]:
    return {"name": name, "vmSize": vm, "autoscaling": {"minCount": low, "maxCount": high}, **more}


def stack_of(*pools: dict[str, Any]) -> StackConfig:
    data = copy.deepcopy(MINIMAL_STACK)
    data["gpuPools"] = list(pools)
    return StackConfig.model_validate(data)


# --- the brief: 6 inference replicas of 7 GiB, 2 training jobs on a whole A10 each, on prod -----------------------------
def test_training_on_whole_a10s_and_prods_pools_kept_exactly_as_written(capsys):
    status, out, err = run(capsys, "--workload", "inference=7x6", "--slice", "training=24x2", "--stack", "prod", "--json")
    assert (status, err) == (0, "")
    doc = json.loads(out)
    work = {w["name"]: w for w in doc["workloads"]}
    assert (work["training"]["vmSize"], work["training"]["claimTemplate"]) == ("Standard_NV36ads_A10_v5", "a10-vgpu-24gib")
    assert work["training"]["stackPools"] == ["a10full"] and work["training"]["slice"] == 24
    assert work["inference"]["stackPools"] == ["a10third"]  # not the spot pool: it did not opt in
    assert SPOT_TAINT.split(":")[0].split("=")[0] not in json.dumps(work["inference"]["tolerations"])
    assert doc["gpuPools"] == PROD_POOLS  # every pool, every key, as the stack file writes it
    assert doc["gpuPoolsChanges"] == []
    assert doc["cost"]["region"] == "westeurope"


def test_what_fits_nowhere_keeps_every_pool_and_exits_3(capsys):
    status, out, _ = run(capsys, "--workload", "training=24x2", "--workload", "inference=7x2", "--stack", "prod", "--json")
    assert status == 3
    doc = json.loads(out)
    assert doc["gpuPools"] == PROD_POOLS
    (error,) = [p for p in doc["problems"] if p["severity"] == "error"]
    assert error["kind"] == "no-fit" and "ask `--slice training=24` to take the whole slice" in error["message"]
    full = next(p for p in doc["problems"] if p["key"] == "gpuPools[1]")
    assert "training nearly fits its slices" in full["message"] and "remove" not in full["message"]


def test_with_nothing_placed_at_all_every_pool_is_still_suggested(capsys):
    status, out, _ = run(capsys, "--workload", "training=24x2", "--stack", "prod", "--json")
    doc = json.loads(out)
    assert (status, doc["gpuPools"], doc["gpuPoolsChanges"], doc["pools"]) == (3, PROD_POOLS, [], [])
    assert not any("remove" in p["message"] for p in doc["problems"])


def test_text_lists_each_change_and_says_when_nothing_changes(capsys):
    status, out, _ = run(capsys, "--workload", "inference=7x8", "--stack", "prod")
    assert status == 3
    assert "- a10third: autoscaling.maxCount 6 -> 8 (inference needs 8 nodes of Standard_NV12ads_A10_v5)" in out
    status, out, _ = run(capsys, "--workload", "inference=7x2", "--stack", "prod")
    assert status == 0 and "Changes to the stack's gpuPools: none (every pool as written)." in out


# --- pool by pool -----------------------------------------------------------------------------------------------------
def test_max_count_advice_names_each_pools_own_max_count_never_a_sum():
    stack = stack_of(pool("a", high=3), pool("b", high=2), pool("s", high=6, spot={}))
    plan = plan_sizing([Workload("chat", 7, 8)], PRICES, stack)
    (error,) = [f for f in plan.findings if f.kind == "max-count"]
    assert error.key == "gpuPools[0].autoscaling.maxCount"
    assert error.message == ("a (Standard_NV12ads_A10_v5) has maxCount 3 (3 devices); chat needs 8 nodes (8 devices); "
                             "b holds 2 nodes more at its own maxCount 2: raise a's maxCount to 6")
    numbers = set(re.findall(r"(?<![_\w])\d+(?![_\w])", error.message))
    assert numbers == {"3", "8", "2", "6"}  # never 5 (a + b) or 11 (a + b + the spot pool)
    assert [(c.pool, c.old, c.new) for c in plan.changes] == [("a", 3, 6)]
    assert [p["autoscaling"]["maxCount"] for p in plan.gpu_pools] == [6, 2, 6]


def test_a_fixed_count_pool_is_raised_at_its_count():
    stack = stack_of({"name": "fixed", "vmSize": "Standard_NV12ads_A10_v5", "count": 1})
    plan = plan_sizing([Workload("chat", 7, 3)], PRICES, stack)
    (error,) = plan.findings
    assert error.key == "gpuPools[0].count" and "has count 1" in error.message and "raise fixed's count to 3" in error.message
    assert plan.gpu_pools == [{"name": "fixed", "vmSize": "Standard_NV12ads_A10_v5", "count": 3}]


# --- spot only by opting in ---------------------------------------------------------------------------------------------
def test_a_spot_only_size_is_missing_for_a_workload_that_did_not_opt_in():
    stack = stack_of(pool("cheap", spot={"evictionPolicy": "Delete", "maxPrice": -1}))
    plan = plan_sizing([Workload("chat", 7, 2)], PRICES, stack)
    (error,) = [f for f in plan.findings if f.severity == "error"]
    assert error.kind == "missing-size" and "cheap is a spot pool" in error.message and "--spot NAME" in error.message
    (p,) = plan.placements
    assert p.stack_pools == () and p.tolerations == []
    assert plan.gpu_pools[0] == {"name": "cheap", "vmSize": "Standard_NV12ads_A10_v5", "autoscaling": {
        "minCount": 1, "maxCount": 3}, "spot": {"evictionPolicy": "Delete", "maxPrice": -1}}  # kept as written


def test_an_opted_in_workload_runs_on_the_spot_pool_with_its_toleration():
    stack = stack_of(pool("steady"), pool("cheap", spot={}))
    (p,) = plan_sizing([Workload("batch", 7, 2, spot=True)], PRICES, stack).placements
    assert p.stack_pools == (1,)
    assert {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot",
            "effect": "NoSchedule"} in p.tolerations
    (q,) = plan_sizing([Workload("chat", 7, 2)], PRICES, stack).placements
    assert q.stack_pools == (0,) and q.tolerations == []


def test_spot_by_flag_and_by_file(capsys, tmp_path: Path):
    project = project_with(tmp_path, [pool("steady"), pool("cheap", spot={})])
    status, out, _ = run(capsys, "--workload", "batch=7", "--spot", "batch", "--stack", "t", "--json", project=project)
    assert status == 0 and json.loads(out)["workloads"][0]["stackPools"] == ["cheap"]
    file = tmp_path / "w.yaml"
    file.write_text(yaml.safe_dump({"workloads": [{"name": "batch", "slice": 8, "spot": True}]}))
    status, out, _ = run(capsys, "--workloads", str(file), "--stack", "t", "--json", project=project)
    (w,) = json.loads(out)["workloads"]
    assert status == 0 and (w["stackPools"], w["spot"], w["slice"]) == (["cheap"], True, 8)


# --- slices by name -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "vm", "template"), [
    ("a=4", "Standard_NV6ads_A10_v5", "a10-vgpu-4gib"),
    ("a=8x6", "Standard_NV12ads_A10_v5", "a10-vgpu-8gib"),
    ("a=12", "Standard_NV18ads_A10_v5", "a10-vgpu-12gib"),
    ("a=24x2", "Standard_NV36ads_A10_v5", "a10-vgpu-24gib"),
    ("a=48", "Standard_NV72ads_A10_v5", "a10-vgpu-2x24gib"),
])
def test_a_slice_gets_its_own_size_and_claim_template(text, vm, template):
    (p,) = plan_sizing([parse_slice(text)], PRICES).placements
    assert (p.vm_size, p.claim_template) == (vm, template)


def test_the_margin_moving_a_workload_up_is_said_in_one_line(capsys):
    status, out, _ = run(capsys, "--workload", "chat=8", "--slice", "chat2=8")
    assert status == 0
    notes = [line for line in out.splitlines() if "needs the" in line]
    assert notes == ["chat: 8 GiB needs the 12 GiB slice: an 8 GiB slice offers 7.2 GiB after the 10 % margin; ask "
                     "`--slice chat=8` to take it"]
    assert "8 GiB (7.2 GiB usable)" in out and "12 GiB (10.8 GiB usable)" in out
    assert "Usable GPU memory per slice after the 10 % margin: 3.6 of 4 GiB, 7.2 of 8 GiB" in out


@pytest.mark.parametrize(("argv", "line"), [
    (["--slice", "a=16"], "--slice 'a=16': 16 GiB is not an A10 slice; GiB is one of 4, 8, 12, 24, 48"),
    (["--slice", "a"], "--slice 'a': expected NAME=GiB[xCOUNT] with GiB one of 4, 8, 12, 24, 48"),
    (["--slice", "a=8x0"], "--slice 'a=8x0': COUNT must be at least 1"),
    (["--workload", "a=3", "--spot", "b"], "--spot 'b': no workload is named 'b'; name one of a"),
])
def test_bad_slices_exit_2_with_one_line_and_nothing_on_stdout(capsys, argv, line):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.splitlines()[0].startswith(line), err


@pytest.mark.parametrize(("entry", "key", "words"), [
    ({"name": "a", "slice": 16}, "workloads[0].slice", "4, 8, 12, 24 or 48"),
    ({"name": "a"}, "workloads[0].memoryGiB", "give memoryGiB (GiB the workload needs) or slice"),
    ({"name": "a", "slice": 8, "memoryGiB": 7}, "workloads[0].memoryGiB", "one of the two"),
    ({"name": "a", "slice": 8, "devices": 2}, "workloads[0].devices", "write slice: 48"),
])
def test_bad_slices_in_a_file_name_the_key(capsys, tmp_path: Path, entry, key, words):
    file = tmp_path / "w.yaml"
    file.write_text(yaml.safe_dump([entry]))
    status, out, err = run(capsys, "--workloads", str(file))
    assert (status, out) == (2, "")
    assert err.startswith(f"{file}: {key}:") and words in err, err


# --- prices for the stack's region --------------------------------------------------------------------------------------------
def test_a_northeurope_stack_is_costed_at_northeurope_prices(capsys, tmp_path: Path):
    project = project_with(tmp_path, [pool("third")], location="northeurope")
    status, out, _ = run(capsys, "--workload", "chat=7", "--stack", "t", "--json", project=project)
    cost = json.loads(out)["cost"]
    assert status == 0 and cost["region"] == "northeurope"
    assert cost["plan"]["hourly"] == 1.09  # the northeurope row's Standard_NV12ads_A10_v5


def test_a_region_the_table_lacks_names_the_fallback_in_one_warning(capsys, tmp_path: Path):
    # A stack can only be in a region that offers the sizes (cluster.location is checked), and the packaged table has
    # a row for each: a table of your own without the stack's region is what falls back.
    from components.catalog.prices import DEFAULT_PRICES

    table = yaml.safe_load(DEFAULT_PRICES.read_text())
    del table["regions"]["westeurope"]
    prices = tmp_path / "prices.yaml"
    prices.write_text(yaml.safe_dump(table))
    project = project_with(tmp_path, [pool("third")], location="westeurope")
    status, out, _ = run(capsys, "--workload", "chat=7", "--stack", "t", "--json", "--prices", str(prices),
                         project=project)
    doc = json.loads(out)
    assert status == 0 and doc["cost"]["region"] == "eastus"
    (warning,) = [p for p in doc["problems"] if p["kind"] == "price-region"]
    assert warning["message"] == ("the price table has no row for westeurope; costed at eastus prices instead "
                                  "(give your own with --prices FILE)")


def test_the_packaged_table_has_a_dated_sourced_row_per_region():
    from components.catalog import A10_SIZES, MIG_SIZES
    from components.sizing.prices import DEFAULT_PRICES, PriceBook

    book = PriceBook.model_validate(yaml.safe_load(DEFAULT_PRICES.read_text()))
    largest = {"eastus", "eastus2", "westus2", "westeurope", "northeurope", "southcentralus", "uksouth",
               "southeastasia", "japaneast", "australiaeast"}
    assert largest <= set(book.regions) and book.fallback_region == "eastus"
    for row in book.regions.values():
        # every A10 size or none (a row of MIG sizes alone), and nothing but A10 and MIG sizes
        assert row.date and "Retail Prices API" in row.source and set(A10_SIZES) & set(row.prices) in (set(A10_SIZES),
                                                                                                         set())
        assert set(row.prices) <= set(A10_SIZES) | set(MIG_SIZES)


def test_every_sizing_line_speaks_gib_and_never_gb(capsys):
    from components.cli import main

    main(["size", "--slice", "a=8x2", "--slice", "p=48", "--workload", "b=7"])
    out = capsys.readouterr().out
    assert " GB" not in out.replace("GB/", "")
    assert "8 GiB (7.2 GiB usable)" in out


def test_a_workload_for_two_whole_a10s_is_told_about_the_two_device_node(capsys):
    from components.cli import main

    # among A10 slices alone (--family a10) the answer is today's; with MIG open, big gets a MIG slice (test_size_mig)
    assert main(["size", "--workload", "big=40", "--family", "a10"]) == 3
    out = capsys.readouterr().out
    assert ("big: 40 GiB is more than any single A10 slice holds (at most 21.6 GiB usable of 24 GiB with the 10 % "
            "margin); Standard_NV72ads_A10_v5 has two 24 GiB devices (48 GiB) on one node: a workload that spreads its "
            "memory over two GPUs can claim both (a multi-device claim): ask `--slice big=48`") in out
    assert main(["size", "--workload", "huge=50", "--family", "a10"]) == 3
    assert "Standard_NV72ads_A10_v5 has two" not in capsys.readouterr().out
