"""The critical-path figures the README and docs/performance.md quote are generated (`python -m components docs`), and
they are what `plan --critical-path` computes for the shipped stacks; so is the README's table of the stacks (their
Kubernetes version, nodes, pools and resource count)."""

from __future__ import annotations

import re

import pytest
import yaml

from components.cli.docs import PERFORMANCE, README, expected_files, read_block
from components.cli.docs_figures import (
    CRITICAL_PATH_BLOCK,
    STACKS_BLOCK,
    StackPlans,
    chain_in_words,
    critical_path_table,
    stacks_table,
)
from tests.conftest import ROOT

REGENERATE = "out of date: run `python -m components docs` and commit the result"


@pytest.fixture(scope="module")
def plans() -> StackPlans:
    """The shipped stacks' first-preview plans (`run_project(..., preview=True)`), made once for the module."""
    return StackPlans(ROOT)


@pytest.fixture(scope="module")
def table(plans: StackPlans) -> str:
    return critical_path_table(ROOT, plans)


@pytest.mark.parametrize("document", [README, PERFORMANCE])
def test_the_committed_figures_are_the_generated_ones(document, table):
    committed = read_block((ROOT / document).read_text(encoding="utf-8"), CRITICAL_PATH_BLOCK)
    assert committed == table, f"the critical-path table in {document} is {REGENERATE}"


def test_the_figures_are_the_critical_path_of_the_shipped_stacks(table, plans):
    from components.review.critical_path import critical_path

    rows = {line.split(" | ")[0].lstrip("| ").split(" (")[0]: line for line in table.splitlines()[2:]}
    assert list(rows) == ["dev", "prod without its own subnet", "prod"]
    for stack in ("dev", "prod"):
        result = critical_path(plans(stack))
        cells = rows[stack].split(" | ")
        assert re.fullmatch(rf"\*\*{result.minutes:g} min\*\*: .*", cells[1]), cells[1]
        assert cells[3].startswith(f"**{result.manual_minutes:g} min**"), cells[3]


def test_no_hand_written_figure_of_the_manual_recipe_is_left():
    for document in (README, PERFORMANCE):
        text = (ROOT / document).read_text(encoding="utf-8")
        outside = text.replace(read_block(text, CRITICAL_PATH_BLOCK) or "", "")
        assert not re.search(r"manual recipe[^.|]*\*\*\d", outside), document


def test_a_chain_counts_repeats():
    kinds = ["resource group", "AKS cluster", "maintenance configuration", "maintenance configuration",
             "GPU agent pool"]
    assert chain_in_words(kinds) == ("resource group -> AKS cluster -> 2 maintenance configurations one after another "
                                     "-> GPU agent pool")


# --- the stacks table: its figures read from the stack files and the plans ---------------------------------------------
@pytest.fixture(scope="module")
def stacks(plans: StackPlans) -> dict[str, list[str]]:
    table = stacks_table(ROOT, plans)
    return {line.split(" | ")[0].strip("| `"): line.split(" | ") for line in table.splitlines()[2:]}


def test_the_committed_stacks_table_is_the_generated_one(plans):
    committed = read_block((ROOT / README).read_text(encoding="utf-8"), STACKS_BLOCK)
    assert committed == stacks_table(ROOT, plans), f"the stacks table in {README} is {REGENERATE}"


def test_the_stacks_table_quotes_each_stacks_version_and_resource_count(stacks, plans):
    assert list(stacks) == ["dev", "prod", "serving"]
    for name, cells in stacks.items():
        config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text())["config"]
        version = config["aks-dra-vgpu:cluster"]["kubernetesVersion"]
        assert cells[1].startswith(f"Kubernetes {version}, "), cells[1]
        assert cells[4].rstrip(" |") == str(len(plans(name).resources))
    assert stacks["dev"][1].startswith("Kubernetes 1.35, Free tier, 1 system node")  # not 1.34, as the README said
    assert stacks["prod"][4].rstrip(" |") == "38"  # not 37
    assert "3 system nodes across zones" in stacks["prod"][1] and "autoscaling 0-3 on a capacity reservation" in \
        stacks["prod"][2]


def test_a_changed_stack_file_changes_the_table(tmp_path):
    import shutil

    for item in ("Pulumi.yaml", "__main__.py", "stacks"):
        (shutil.copytree if (ROOT / item).is_dir() else shutil.copy)(ROOT / item, tmp_path / item)
    dev = tmp_path / "stacks" / "Pulumi.dev.yaml"
    dev.write_text(dev.read_text().replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.36"'))
    assert "| `dev` | Kubernetes 1.36, " in stacks_table(tmp_path)


def test_one_docs_run_plans_each_shipped_stack_once_and_writes_what_is_committed(monkeypatch):
    # The graph, the critical-path table and the stacks table quote the shipped stacks' plans: one run makes each once.
    import components.offline

    made: list[str] = []
    real = components.offline.run_project

    def counted(project, stack, **options):
        made.append(stack)
        return real(project, stack, **options)

    monkeypatch.setattr(components.offline, "run_project", counted)
    generated = expected_files(ROOT)
    assert sorted(made) == ["dev", "prod", "serving"]
    assert {path: text for path, text in generated.items() if (ROOT / path).read_text(encoding="utf-8") != text} == {}
