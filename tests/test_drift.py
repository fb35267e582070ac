"""Drift, protection and credentials: what may differ without a change, what must not be lost, what must stay secret.

- An autoscaled pool's count belongs to the autoscaler: no plan ever diffs on it; new bounds are an in-place update.
- The cluster (and a group the stack creates) is protected per stack; `retainOnDelete` keeps them in Azure when asked;
  an existing resource group is never registered, so Pulumi can never delete it.
- The kubeconfig is a secret in the plan, the outputs, the provider's inputs, the diff and anything printed.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from typing import Any

import pulumi
import pytest
import yaml

from components.azure.cluster import AksCluster
from components.cli import main
from components.config import ClusterConfig
from components.offline import SECRET, capture, load_project, run_project
from components.offline.mocks import PLACEHOLDER_SERVER
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from tests.conftest import ROOT

POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
GROUP = "azure-native:resources:ResourceGroup"
PROVIDER = "pulumi:providers:kubernetes"
# The offline engine's stand-in credential: it must never appear anywhere a person or a machine can read.
CREDENTIAL = "offline-placeholder"
NS = "aks-dra-vgpu:"

Config = dict[str, Any]


def stack_config(stack: str) -> Config:
    """A stack file's config map, to edit."""
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


def pool_named(config: Config, name: str) -> dict[str, Any]:
    """One GPU pool's settings inside a stack's config map."""
    return next(p for p in config[NS + "gpuPools"] if p["name"] == name)


@pytest.fixture(scope="module")
def planner(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Config], dict[str, Any]]:
    """Plans a config map as stack `name` of a scratch copy of the project; returns the plan document."""
    work = tmp_path_factory.mktemp("drift")
    shutil.copy(ROOT / "Pulumi.yaml", work / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", work / "__main__.py")
    (work / "stacks").mkdir()

    made: dict[tuple[str, str], str] = {}  # the same stack file is planned once per module (plans are deterministic)

    def plan(name: str, config: Config) -> dict[str, Any]:
        text = yaml.safe_dump({"config": config}, sort_keys=False)
        if (name, text) not in made:
            (work / "stacks" / f"Pulumi.{name}.yaml").write_text(text)
            made[(name, text)] = run_project(load_project(work), name).to_json()
        return json.loads(made[(name, text)])

    return plan


def of_type(doc: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [r for r in doc["resources"] if r["type"] == type_]


def agent_pool(doc: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [r for r in of_type(doc, POOL) if r["inputs"]["agentPoolName"] == name]
    return found


# --- drift: the autoscaler's count ----------------------------------------------------------------------------------------
def test_an_autoscaled_pool_ignores_count(planner):
    doc = planner("prod-base", stack_config("prod"))
    for pool in of_type(doc, POOL):
        assert pool["inputs"]["enableAutoScaling"] is True
        assert pool["options"]["ignoreChanges"] == ["count"]


def test_the_autoscalers_count_never_diffs(planner):
    base = planner("prod-base", stack_config("prod"))
    # The state after the autoscaler scaled a10third from 1 to 5 nodes and someone refreshed: count differs, nothing else.
    scaled = copy.deepcopy(base)
    agent_pool(scaled, "a10third")["inputs"]["count"] = 5
    result = diff_plans(scaled, base)
    assert not result.has_changes, format_diff(result)
    # Writing an initial count into the stack (within the bounds) changes nothing either: it only applies at creation.
    config = stack_config("prod")
    pool_named(config, "a10third")["count"] = 4
    with_count = planner("prod-count", config)
    assert agent_pool(with_count, "a10third")["inputs"]["count"] == 4
    assert not diff_plans(base, with_count).has_changes


def test_a_pool_without_autoscaling_owns_its_count(planner):
    config = stack_config("dev")
    pool = pool_named(config, "a10s")
    del pool["autoscaling"]
    pool["count"] = 1
    before = planner("dev-fixed-1", config)
    pool["count"] = 2
    after = planner("dev-fixed-2", config)
    assert agent_pool(before, "a10s")["options"]["ignoreChanges"] == []
    (changed,) = diff_plans(before, after).resources
    assert changed.operation == "update"
    assert [(c.path, c.old, c.new) for c in changed.changes] == [("count", 1, 2)]


@pytest.mark.parametrize("bounds", [{"minCount": 2, "maxCount": 6}, {"minCount": 1, "maxCount": 10}])
def test_new_autoscaling_bounds_are_an_in_place_update(planner, bounds):
    base = planner("prod-base", stack_config("prod"))
    config = stack_config("prod")
    pool_named(config, "a10third")["autoscaling"] = bounds
    result = diff_plans(base, planner("prod-bounds", config))
    (changed,) = result.resources
    assert (changed.name, changed.operation) == ("gpu-a10third-pool", "update")
    # minCount also moves the initial count; that path is ignored like any other count.
    assert {c.path for c in changed.changes} <= {"minCount", "maxCount"}
    assert result.summary() == "0 to create, 1 to update, 0 to replace, 0 refused, 0 to delete"


# --- protection and retention ---------------------------------------------------------------------------------------------
def test_prod_protects_what_holds_workloads_and_dev_does_not(planner):
    prod = planner("prod-base", stack_config("prod"))
    dev = planner("dev-base", stack_config("dev"))
    for type_ in (CLUSTER, GROUP):
        (in_prod,) = of_type(prod, type_)
        (in_dev,) = of_type(dev, type_)
        assert in_prod["options"]["protect"] is True, type_
        assert in_dev["options"]["protect"] is False, type_
        # Retention is off everywhere: a forgotten cluster keeps running and costing (docs/safe-changes.md).
        assert in_prod["options"]["retainOnDelete"] is False and in_dev["options"]["retainOnDelete"] is False


def test_replacing_the_protected_prod_cluster_is_called_out_with_everything_it_takes(planner):
    base = planner("prod-base", stack_config("prod"))
    config = stack_config("prod")
    config[NS + "cluster"]["location"] = "northeurope"
    result = diff_plans(base, planner("prod-moved", config))
    # prod protects its cluster and group: Pulumi refuses to replace them, so the whole update stops (exit 4).
    refused = {r.type for r in result.resources if r.operation == "refused"}
    replaced = {r.type for r in result.resources if r.operation == "replace"}
    assert {CLUSTER, GROUP} <= refused
    assert {POOL, PROVIDER, "kubernetes:helm.sh/v3:Release"} <= replaced
    (cluster,) = [r for r in result.resources if r.type == CLUSTER]
    assert any(w.startswith("protected:") for w in cluster.warnings) and cluster.refused_by == "Pulumi"
    assert result.exit_status == 4


def make_cluster(preview: bool, **overrides: Any):
    data = {"name": "aks-t", "location": "westeurope", "resourceGroup": {"name": "rg-t"}, **overrides}
    config = ClusterConfig.model_validate(data)
    return capture(lambda: AksCluster("c", config), preview=preview)


def test_retain_on_delete_keeps_cluster_and_created_group_in_azure(preview):
    plan = make_cluster(preview, retainOnDelete=True)
    assert plan.one(CLUSTER).options["retainOnDelete"] is True
    assert plan.one(GROUP).options["retainOnDelete"] is True
    assert plan.one(PROVIDER).options["retainOnDelete"] is False
    assert make_cluster(preview).one(CLUSTER).options["retainOnDelete"] is False


def test_an_existing_resource_group_is_never_registered(preview):
    plan = make_cluster(preview, resourceGroup={"name": "rg-shared", "create": False}, protect=True, retainOnDelete=True)
    assert plan.all(GROUP) == []
    assert plan.one(CLUSTER).inputs["resourceGroupName"] == "rg-shared"
    assert plan.one(CLUSTER).options["protect"] is True


def test_gpu_pools_are_never_retained(planner):
    config = stack_config("prod")
    config[NS + "cluster"]["retainOnDelete"] = True
    doc = planner("prod-retain", config)
    (cluster,) = of_type(doc, CLUSTER)
    assert cluster["options"]["retainOnDelete"] is True
    assert all(p["options"]["retainOnDelete"] is False for p in of_type(doc, POOL))


def test_deleting_a_retained_cluster_says_it_stays_in_azure(planner):
    config = stack_config("dev")
    config[NS + "cluster"]["retainOnDelete"] = True
    doc = planner("dev-retain", config)
    result = diff_plans(doc, {**doc, "resources": [r for r in doc["resources"] if r["type"] != CLUSTER]})
    (gone,) = [r for r in result.resources if r.type == CLUSTER]
    assert gone.action == "delete" and any("stays in Azure" in w for w in gone.warnings)


# --- credentials ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_kubeconfig_is_secret_in_plan_tree_and_output(stack, capsys):
    assert main(["plan", "--stack", stack, "--project-dir", str(ROOT), "--json"]) == 0
    document, log = capsys.readouterr()
    assert main(["plan", "--stack", stack, "--project-dir", str(ROOT)]) == 0
    tree, tree_log = capsys.readouterr()
    doc = json.loads(document)
    assert doc["outputs"]["kubeconfig"] == SECRET
    (provider,) = of_type(doc, PROVIDER)
    assert provider["inputs"]["kubeconfig"] == SECRET
    assert "kubeconfig: [secret]" in tree
    for text in (document, log, tree, tree_log):
        assert CREDENTIAL not in text and PLACEHOLDER_SERVER not in text


def test_the_kubeconfig_is_secret_with_entra_id_too(planner):
    config = stack_config("dev")
    config[NS + "cluster"]["auth"] = {"mode": "entraId", "adminGroupObjectIds": ["00000000-0000-0000-0000-000000000001"]}
    doc = planner("dev-entra", config)
    assert doc["outputs"]["kubeconfig"] == SECRET
    (provider,) = of_type(doc, PROVIDER)
    assert provider["inputs"]["kubeconfig"] == SECRET
    assert PLACEHOLDER_SERVER not in json.dumps(doc)


def test_values_derived_from_the_kubeconfig_stay_secret(preview):
    def program() -> None:
        cluster = AksCluster("c", ClusterConfig.model_validate(
            {"name": "aks-t", "location": "westeurope", "resourceGroup": {"name": "rg-t"}}
        ))
        pulumi.export("kubeconfig", cluster.kubeconfig)
        pulumi.export("firstLine", cluster.kubeconfig.apply(lambda text: text.splitlines()[0]))
        pulumi.export("providerKubeconfig", cluster.provider_kubeconfig)

    plan = capture(program, preview=preview)
    assert plan.outputs == {"kubeconfig": SECRET, "firstLine": SECRET, "providerKubeconfig": SECRET}
    assert CREDENTIAL not in json.dumps(plan.to_dict())


def test_only_user_credentials_are_ever_requested(preview):
    plan = make_cluster(preview)
    tokens = [i.token for i in plan.invokes]
    # none in a first preview: the cluster does not exist yet
    assert tokens == ([] if preview else ["azure-native:containerservice:listManagedClusterUserCredentials"])


def test_a_diff_never_prints_the_credential(planner):
    before = planner("dev-base", stack_config("dev"))
    config = stack_config("dev")
    config[NS + "cluster"]["kubernetesVersion"] = "1.36"
    result = diff_plans(before, planner("dev-136", config))
    text = format_diff(result) + json.dumps(result.to_dict())
    assert result.has_changes
    assert CREDENTIAL not in text and PLACEHOLDER_SERVER not in text
    assert "kubeconfig" not in {c.path for c in result.outputs}
