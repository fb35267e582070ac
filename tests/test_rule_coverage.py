"""Every input the AgentPool and ManagedCluster mappings emit has a diff rule or an explicit in-place entry.

A setting added to a mapping without saying what changing it does fails here: forgetting a rule can no longer pass.
The plan tree's rows for these types come from the same table (components.review.tree.KEY_SETTINGS).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from components.config import StackConfig
from components.offline import Plan, capture
from components.platform import GpuPlatform
from components.review.replacement_rules import IN_PLACE, RULES, is_prefix, parse_path, tree_settings
from components.review.rules.model import CLUSTER, GROUP, MAINTENANCE, POOL
from components.review.tree import KEY_SETTINGS
from tests.conftest import ROOT

MAPPED = (GROUP, CLUSTER, POOL, MAINTENANCE)


def prod_data() -> dict[str, Any]:
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    return {key.split(":", 1)[1]: value for key, value in doc["config"].items()}


def variants() -> list[dict[str, Any]]:
    """Prod (spot, capacity reservation, subnet, windows, ranges) and the settings it leaves out."""
    entra = copy.deepcopy(prod_data())
    entra["cluster"]["auth"] = {"mode": "entraId", "adminGroupObjectIds": ["00000000-0000-0000-0000-000000000001"]}
    private = copy.deepcopy(prod_data())
    private["cluster"]["apiServer"] = {"private": True}
    return [prod_data(), entra, private]


@pytest.fixture(scope="module")
def plans() -> list[Plan]:
    found = []
    for data in variants():
        config = StackConfig.model_validate(data)
        found.append(capture(lambda config=config: GpuPlatform("gpu", config), preview=True))
    return found


def leaf_paths(value: Any, parts: tuple = ()) -> set[tuple]:
    """Every leaf of an input document, list items as "*" and the keys of free-form maps (labels, tags) left out."""
    if isinstance(value, dict) and value and parts[-1:] not in (("tags",), ("nodeLabels",)):
        return {p for key, item in value.items() for p in leaf_paths(item, (*parts, key))}
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return {p for item in value for p in leaf_paths(item, (*parts, "*"))}
    return {parts}


def uncovered(type_: str, paths: set[tuple]) -> list[str]:
    """The paths that no rule and no in-place entry of the type names (or names an object above)."""
    patterns = [parse_path(e.path) for e in (*RULES, *IN_PLACE) if e.path is not None and e.type == type_]
    return sorted(".".join(map(str, p)) for p in paths if not any(is_prefix(pattern, p) for pattern in patterns))


def test_every_emitted_azure_input_has_a_rule_or_an_in_place_entry(plans):
    seen: dict[str, set[tuple]] = {t: set() for t in MAPPED}
    for plan in plans:
        for r in plan.resources:
            if r.type in seen:
                seen[r.type] |= leaf_paths(r.inputs)
    assert all(seen.values()), "every mapped type is in the plans"
    assert {("aadProfile", "managed"), ("apiServerAccessProfile", "enablePrivateCluster"), ("spotMaxPrice",)} <= (
        seen[CLUSTER] | seen[POOL]
    )
    for type_, paths in seen.items():
        assert uncovered(type_, paths) == [], f"{type_}: add a rule or an InPlace entry (components/review/rules)"


def test_a_forgotten_rule_fails():
    assert uncovered(POOL, {("newSetting",), ("upgradeSettings", "drainTimeoutInMinutes")}) == [
        "newSetting", "upgradeSettings.drainTimeoutInMinutes"
    ]
    assert uncovered(POOL, {("nodeLabels",), ("gpuProfile", "driver")}) == []


def test_every_entry_names_a_source():
    for entry in (*RULES, *IN_PLACE):
        assert entry.source, entry


def test_the_plan_tree_rows_come_from_the_table():
    for type_ in MAPPED:
        assert KEY_SETTINGS[type_] == tree_settings(type_) and KEY_SETTINGS[type_]
    assert KEY_SETTINGS[POOL][:2] == ("agentPoolName", "vmSize") and "gpuProfile.driver" in KEY_SETTINGS[POOL]
    rows = [(e.type, e.shown) for e in (*RULES, *IN_PLACE) if e.shown is not None and e.shows is None]
    assert len(rows) == len(set(rows)), "two entries claim one row"
