"""Sharing the project's config namespace: the package owns its four sections; a consumer's own keys in the same
namespace are the consumer's, except near-misses of the four, which are refused with "did you mean".

Checked where it matters: through the CLI on a stack file, and through `load_stack_config` in a running program.
"""

from __future__ import annotations

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


def test_cli_leaves_a_consumers_own_keys_alone(project, capsys):
    write_stack(project, "shared", CONSUMER_KEYS)
    status, out, err = plan(project, "shared", capsys)
    # only the scale-from-zero warning about the pool (minCount 0), no word about the consumer's keys
    assert status == 0 and all(line.startswith("warning: pool ") for line in err.splitlines())
    assert '"azure-native:containerservice:AgentPool"' in out


def test_cli_refuses_near_misses_of_the_packages_sections_with_did_you_mean(project, capsys):
    write_stack(project, "typos", {**CONSUMER_KEYS, f"{NS}:gpuPool": [{"name": "x"}], f"{NS}:draDrivers": {}})
    status, out, err = plan(project, "typos", capsys)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    for typo, meant in NEAR_MISSES.items():
        assert any(without_file(line).startswith(f"{typo}: unknown key (did you mean '{meant}'?)") for line in lines), lines
    assert not any("myTeam" in line or "costCenter" in line for line in lines), lines
    assert len(lines) == 2


def loaded(config: dict[str, Any]) -> Any:
    """`load_stack_config()` as a program calls it, with this config in the project's namespace."""
    found: dict[str, Any] = {}
    capture(lambda: found.update(stack=load_stack_config()), project=NS, config=config)
    return found["stack"]


def test_load_stack_config_takes_its_sections_and_ignores_the_consumers_keys():
    stack = loaded({**as_config(MINIMAL_STACK), **CONSUMER_KEYS})
    assert stack.cluster.name == MINIMAL_STACK["cluster"]["name"]
    assert [p.name for p in stack.gpu_pools] == ["gpu"]


@pytest.mark.parametrize(("typo", "meant"), sorted(NEAR_MISSES.items()))
def test_load_stack_config_refuses_a_near_miss_naming_the_section_it_meant(typo, meant):
    with pytest.raises(ConfigError) as caught:
        loaded({**as_config(MINIMAL_STACK), **CONSUMER_KEYS, f"{NS}:{typo}": {}})
    (problem,) = caught.value.problems
    assert problem.path == typo
    assert problem.message.startswith(f"unknown key (did you mean '{meant}'?)")
