"""Sharing the project's config namespace: the package owns its sections; a consumer's own keys in the same namespace
are the consumer's (named to `load_stack_config(others=...)`), near-misses of the sections are refused with "did you
mean", and any other key is warned about: nothing reads it.

Checked where it matters: through the CLI on a stack file, and through `load_stack_config` in a running program.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from components import load_stack_config
from components.cli import main
from components.config import ConfigError
from components.offline import capture
from tests.conftest import MINIMAL_STACK, ROOT, as_config
from tests.stack_files import without_file

NS = "aks-dra-vgpu"
CONSUMER_KEYS = {f"{NS}:myTeam": "ml-platform", f"{NS}:costCenter": {"code": 4711}}
NEAR_MISSES = {"gpuPool": "gpuPools", "draDrivers": "draDriver"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch copy of this project (its program and the dev stack's settings)."""
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "stacks").mkdir()
    return tmp_path


def write_stack(project: Path, name: str, extra: dict[str, Any]) -> None:
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    doc["config"].update(extra)
    (project / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(doc))


def plan(project: Path, stack: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["plan", "--project-dir", str(project), "--stack", stack, "--json"])
    out, err = capsys.readouterr()
    return status, out, err


UNREAD = ("warning: aks-dra-vgpu:costCenter, aks-dra-vgpu:myTeam: are not settings of this package (its keys here: "
          "cluster, gpuPools, draDriver, samples, extendedResources, fleetMembership; docs/configuration.md), so "
          "nothing here reads them; remove them, or, where your own program reads them, pass them as `others` when it "
          "loads the settings")


def test_cli_plans_beside_keys_nothing_reads_and_warns_about_them_once(project, capsys):
    # This project's program reads no key of its own: a key it does not know does nothing, said in one warning.
    write_stack(project, "shared", CONSUMER_KEYS)
    status, out, _ = plan(project, "shared", capsys)
    assert status == 0 and '"azure-native:containerservice:AgentPool"' in out
    assert json.loads(out)["warnings"].count(UNREAD.removeprefix("warning: ")) == 1  # --json: in the document
    status = main(["plan", "--project-dir", str(project), "--stack", "shared"])
    assert status == 0 and capsys.readouterr().err.count(UNREAD) == 1


def test_cli_refuses_near_misses_of_the_packages_sections_with_did_you_mean(project, capsys):
    write_stack(project, "typos", {**CONSUMER_KEYS, f"{NS}:gpuPool": [{"name": "x"}], f"{NS}:draDrivers": {}})
    status, out, err = plan(project, "typos", capsys)
    lines = err.strip().splitlines()
    # --json: the problems as a document on stdout too
    assert status == 2 and [p["message"] for p in json.loads(out)["problems"]] == lines
    for typo, meant in NEAR_MISSES.items():
        assert any(without_file(line).startswith(f"{typo}: unknown key (did you mean '{meant}'?)") for line in lines), lines
    assert not any("myTeam" in line or "costCenter" in line for line in lines), lines
    assert len(lines) == 2


def loaded(config: dict[str, Any]) -> Any:
    """`load_stack_config()` as a program calls it, with this config in the project's namespace."""
    found: dict[str, Any] = {}
    capture(lambda: found.update(stack=load_stack_config()), project=NS, config=config)
    return found["stack"]


def test_load_stack_config_takes_its_sections_and_leaves_the_keys_a_program_reads_itself_unsaid(capsys):
    found: dict[str, Any] = {}
    config = {**as_config(MINIMAL_STACK), **CONSUMER_KEYS}
    capture(lambda: found.update(stack=load_stack_config(others=["myTeam", "costCenter"])), project=NS, config=config)
    stack = found["stack"]
    assert stack.cluster.name == MINIMAL_STACK["cluster"]["name"]
    assert [p.name for p in stack.gpu_pools] == ["gpu"]
    assert "not a setting" not in capsys.readouterr().err


def test_unread_keys_are_told_by_name_a_credential_shaped_one_never():
    from components.config.loading import refused_in_platform, unknown_keys_warning

    token = "ghp_" + "a1" * 18
    config = {**as_config(MINIMAL_STACK), f"{NS}:{token}": "x", f"{NS}:gpuPool": [], "other:thing": 1}
    said = unknown_keys_warning(config, NS, ["cluster", "gpuPools"], refused_in_platform)
    assert said is not None and said.startswith("aks-dra-vgpu:[secret]: is not a setting of this package"), said
    assert token not in said and "gpuPool:" not in said and "other:" not in said  # a near miss is refused instead


def test_a_fleet_stack_warns_about_keys_nothing_reads(tmp_path, capsys):
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.fleet.yaml").read_text())
    doc["config"][f"{NS}:fleetNotes"] = "canary first"
    (tmp_path / "stacks" / "Pulumi.fleet.yaml").write_text(yaml.safe_dump(doc))
    status, out, err = plan(tmp_path, "fleet", capsys)
    assert status == 0, err
    assert any(w.startswith("aks-dra-vgpu:fleetNotes: is not a setting of this package (its keys here: fleet; "
                            "docs/configuration.md)") for w in json.loads(out)["warnings"]), out


@pytest.mark.parametrize(("typo", "meant"), sorted(NEAR_MISSES.items()))
def test_load_stack_config_refuses_a_near_miss_naming_the_section_it_meant(typo, meant):
    with pytest.raises(ConfigError) as caught:
        loaded({**as_config(MINIMAL_STACK), **CONSUMER_KEYS, f"{NS}:{typo}": {}})
    (problem,) = caught.value.problems
    assert problem.path == typo
    assert problem.message.startswith(f"unknown key (did you mean '{meant}'?)")
