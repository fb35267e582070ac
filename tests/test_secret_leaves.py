"""A secret is the value the user marked, and nothing that merely contains a text equal to a plain value beside it.

A `secure:` tag in prod's stack used to make every input holding the text of any other tag of the cluster section
secret (`env: prod` made the identity ID `.../id-aks-dra-prod` secret, and the plan failed in the kubeconfig).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pulumi
import pulumi_azure_native as azure_native

from components import GpuPlatform, load_stack_config
from components.offline import SECRET, capture
from tests.conftest import MINIMAL_STACK, ROOT, as_config, scratch_project
from tests.stack_files import cli

CLUSTER = "azure-native:containerservice:ManagedCluster"
IDENTITY = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-identity-prod/providers/"
            "Microsoft.ManagedIdentity/userAssignedIdentities/id-aks-dra-prod")
SECURE_TAG = "      db-password:\n        secure: v1:AAAABBBBCCCCDDDDEEEEFFFF\n"


def prod_with_secure_tag(folder: Path) -> Path:
    """A copy of the project whose only stack is prod's, with a secure `db-password` beside its `environment: prod`."""
    project = scratch_project(folder)
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    anchor = "      cost-center: ml-platform\n"
    assert "      environment: prod\n" in text and anchor in text and "id-aks-dra-prod" in text
    (project / "stacks" / "Pulumi.prod.yaml").write_text(text.replace(anchor, anchor + SECURE_TAG, 1))
    return project


def secret_paths(value: Any, path: str = "") -> list[str]:
    """Where a plan's inputs hold the secret marker."""
    if value == SECRET:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in secret_paths(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in secret_paths(v, f"{path}[{i}]")]
    return []


def test_a_secure_tag_in_prod_plans_and_only_that_tag_is_secret(tmp_path, capsys):
    project = prod_with_secure_tag(tmp_path)
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project), "--json")
    assert status == 0, err
    assert "AssertionError" not in err
    doc = json.loads(out)
    marked = {(r["type"], p) for r in doc["resources"] for p in secret_paths(r["inputs"])}
    assert {p for _, p in marked} == {"tags.db-password", "kubeconfig"}, marked
    assert ("pulumi:providers:kubernetes", "kubeconfig") in marked  # the cluster's credentials, as always
    cluster = next(r for r in doc["resources"] if r["type"] == CLUSTER)
    assert cluster["inputs"]["tags"] == {"cost-center": "ml-platform", "db-password": SECRET, "environment": "prod"}
    assert cluster["inputs"]["resourceName"] == "aks-dra-prod"
    assert cluster["inputs"]["identity"]["userAssignedIdentities"] == [IDENTITY]


def test_the_plan_tree_of_that_stack_names_the_cluster_and_no_ciphertext(tmp_path, capsys):
    project = prod_with_secure_tag(tmp_path)
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project))
    assert status == 0, err
    assert "resourceName: aks-dra-prod" in out
    assert "AAAABBBBCCCC" not in out + err
    assert not re.search(r"^\s+(resourceName|identity\S*|location): \[secret\]", out, re.M), out


def platform_program() -> None:
    GpuPlatform("gpu", load_stack_config())


def test_in_a_real_run_a_secret_tag_never_makes_a_longer_text_holding_it_secret(preview):
    # Pulumi names only the secret key (the whole cluster section): its tags count, but only as whole texts.
    cluster = {**MINIMAL_STACK["cluster"], "name": "aks-dra-prod", "identityId": IDENTITY,
               "tags": {"env": "prod", "db-password": "hunter2-s3cr3t-value"}}
    config = as_config({**MINIMAL_STACK, "cluster": cluster})
    plan = capture(platform_program, config=config, secret_keys=["aks-dra-vgpu:cluster"], preview=preview)
    inputs = plan.one(CLUSTER).inputs
    # Every text of a secret section's tags is secret in a real run (Pulumi names the section, not the value), each
    # where it sits: the tags' names stay readable.
    assert inputs["tags"] == {"env": SECRET, "db-password": SECRET}
    assert inputs["resourceName"] == "aks-dra-prod"
    assert inputs["identity"]["userAssignedIdentities"] == [IDENTITY]
    assert "hunter2-s3cr3t-value" not in plan.to_json()


def test_a_secret_user_assigned_identity_comes_back_as_azure_returns_it(preview):
    # The offline engine answers a secret identity in Azure's shape (a map of ID -> identity), as a plain one.
    def program() -> None:
        cluster = azure_native.containerservice.ManagedCluster(
            "c", resource_group_name="rg", location="westeurope", dns_prefix="c",
            identity=pulumi.Output.secret(azure_native.containerservice.ManagedClusterIdentityArgs(
                type="UserAssigned", user_assigned_identities=[IDENTITY])),
        )
        pulumi.export("ids", cluster.identity.apply(lambda i: sorted(i.user_assigned_identities or {})))

    plan = capture(program, preview=preview)
    assert plan.one(CLUSTER).inputs["identity"] == SECRET
    if not preview:
        assert plan.outputs["ids"] == SECRET


def test_a_secure_pool_tag_leaves_the_driver_values_readable(tmp_path, capsys):
    # The Helm values carry the pools' labels and taints, never their tags: a secure pool tag hides that tag alone.
    project = scratch_project(tmp_path)
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    anchor = "      tags:\n        workload-class: inference\n"
    assert anchor in text
    secure = anchor + "        db-password:\n          secure: v1:AAAABBBBCCCCDDDDEEEEFFFF\n"
    (project / "stacks" / "Pulumi.prod.yaml").write_text(text.replace(anchor, secure, 1))
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project), "--json")
    assert status == 0, err
    doc = json.loads(out)
    release = next(r for r in doc["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release")
    assert release["inputs"]["values"] != SECRET
    pools = {r["name"]: r["inputs"] for r in doc["resources"] if r["type"] == "azure-native:containerservice:AgentPool"}
    assert pools["gpu-a10third-pool"]["tags"] == {"cost-center": "ml-platform", "db-password": SECRET,
                                                  "environment": "prod", "workload-class": "inference"}
    assert SECRET not in pools["gpu-a10full-pool"]["tags"].values()


def test_one_credential_in_a_tags_map_leaves_every_other_tag_change_in_the_diff():
    from components.review.diff import diff_plans
    from components.review.diff_text import format_diff

    def plan(tags: dict[str, str]) -> dict[str, Any]:
        cluster = {**MINIMAL_STACK["cluster"], "tags": tags}
        return capture(platform_program, config=as_config({**MINIMAL_STACK, "cluster": cluster})).to_dict()

    password = "Sup3rS3cret!Passw0rd"
    text = format_diff(diff_plans(plan({"env": "dev", "team": "a"}),
                                  plan({"env": "prod", "team": "a", "db-password": password})))
    assert password not in text
    cluster = text.split("ManagedCluster gpu-cluster-aks", 1)[1].split("\n~", 1)[0]
    assert 'tags.env: "dev" -> "prod"' in cluster and "tags.db-password: (absent) -> [secret]" in cluster, text
