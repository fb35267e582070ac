"""The critical-path figures the README and docs/performance.md quote are generated (`python -m components docs`), and
they are what `plan --critical-path` computes for the shipped stacks."""

from __future__ import annotations

import re

import pytest

from components.cli.docs import PERFORMANCE, README, read_block
from components.cli.docs_figures import CRITICAL_PATH_BLOCK, chain_in_words, critical_path_table
from components.offline import load_project, run_project
from tests.conftest import ROOT

REGENERATE = "out of date: run `python -m components docs` and commit the result"


@pytest.fixture(scope="module")
def table() -> str:
    return critical_path_table(ROOT)


@pytest.mark.parametrize("document", [README, PERFORMANCE])
def test_the_committed_figures_are_the_generated_ones(document, table):
    committed = read_block((ROOT / document).read_text(encoding="utf-8"), CRITICAL_PATH_BLOCK)
    assert committed == table, f"the critical-path table in {document} is {REGENERATE}"


def test_the_figures_are_the_critical_path_of_the_shipped_stacks(table):
    from components.review.critical_path import critical_path

    project = load_project(ROOT)
    rows = {line.split(" | ")[0].lstrip("| ").split(" (")[0]: line for line in table.splitlines()[2:]}
    assert list(rows) == ["dev", "prod without its own subnet", "prod"]
    for stack in ("dev", "prod"):
        result = critical_path(run_project(project, stack, preview=True))
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
