"""A credential written as a map's key (a tag named `AccountKey=...`, a GitHub token, a JWT) is a credential like a
value: found at every depth, warned about without being shown, kept out of the plan, the diff and the policy's report,
and refused by the policy. Pulumi encrypts values only, so the map that holds such a key is secret whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.config.credential_advice import credential_warning
from components.config.credentials import plain_credentials
from components.policies import check_plain_credentials
from components.review.diff import diff_plans
from components.review.diff_text import format_diff
from tests.conftest import MINIMAL_STACK, scratch_project
from tests.stack_files import cli
from tests.test_plain_credentials import ACCOUNT_KEY, _project_with

GITHUB = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
CONNECTION_KEY = f"AccountKey={ACCOUNT_KEY}"
KEYS = {CONNECTION_KEY: "an Azure connection string with a key", GITHUB: "a GitHub token", JWT: "a JSON Web Token"}
SECRET = "[secret]"


@pytest.mark.parametrize("key, what", KEYS.items(), ids=["account-key", "github", "jwt"])
def test_a_key_that_looks_like_a_credential_is_found_at_every_depth_never_in_its_path(key, what):
    data = {"tags": {key: "x", "env": "prod"}, "values": {"a": [{"b": {key: 1}}]}, 7: {key: "y"}}
    found = plain_credentials(data, "draDriver")
    assert [(c.path, c.looks_like, c.key) for c in found] == [
        ("draDriver.tags", what, True), ("draDriver.values.a[0].b", what, True), ("draDriver.7", what, True)]
    assert all(c.value == key and key not in repr(c) + c.path for c in found)


def test_a_key_warning_names_the_map_and_says_a_key_is_never_encrypted():
    (found,) = plain_credentials({"tags": {GITHUB: "x"}}, "cluster")
    text = credential_warning(found, "aks-dra-vgpu", "prod")
    assert GITHUB not in text
    assert text == ("cluster.tags: holds a key that looks like a GitHub token (not shown), written in plain text: a key "
                    "is never encrypted (Pulumi encrypts values only, as secure: ...), so it shows in the plan, the "
                    "state and every diff; remove it, and keep the credential as a secret value under a plain name: "
                    "pulumi config set --stack prod --secret --path 'aks-dra-vgpu:cluster.tags.<name>' <value>")


def test_a_value_under_a_credential_key_is_told_about_the_key_not_shown_in_a_command():
    found = plain_credentials({"values": {GITHUB: {"password": "Sup3rS3cret!Passw0rd"}}}, "draDriver")
    assert [c.key for c in found] == [True, False]
    (text,) = {credential_warning(c, "aks-dra-vgpu") for c in found}  # the key's advice, for the password too
    assert GITHUB not in text and text.startswith("draDriver.values: holds a key that looks like a GitHub token")


def test_the_policy_refuses_a_credential_key_without_showing_it():
    config = {"aks-dra-vgpu:cluster": {"tags": {CONNECTION_KEY: "backup"}},
              "aks-dra-vgpu:draDriver": {"extraValues": {"registries": [{JWT: "x"}]}}}
    messages = check_plain_credentials(config, [], "aks-dra-vgpu", "prod")
    assert [m.split(":", 1)[0] for m in messages] == ["cluster.tags", "draDriver.extraValues.registries[0]"]
    assert not any(ACCOUNT_KEY in m or JWT in m for m in messages)


def _stack(**sections: Any) -> str:
    config = {f"aks-dra-vgpu:{k}": v for k, v in {**MINIMAL_STACK, **sections}.items()}
    return yaml.safe_dump({"config": config}, sort_keys=False)


def test_plan_keeps_credential_keys_out_of_every_resource_and_warns_once_each(tmp_path: Path, capsys):
    project = scratch_project(tmp_path)
    cluster = {**MINIMAL_STACK["cluster"], "tags": {GITHUB: "ci", "env": "dev"}}
    pool = {**MINIMAL_STACK["gpuPools"][0], "tags": {JWT: "t", "team": "ml"}}
    driver = {"extraValues": {"registries": [{CONNECTION_KEY: "backup", "mirror": "m"}]}}
    (project / "stacks" / "Pulumi.s.yaml").write_text(_stack(cluster=cluster, gpuPools=[pool], draDriver=driver))
    status, doc, err = cli(capsys, "plan", "--stack", "s", "--project-dir", str(project), "--json")
    assert status == 0, err
    assert not any(k in doc + err for k in (GITHUB, JWT, ACCOUNT_KEY))
    plan = json.loads(doc)
    tagged = {r["name"]: r["inputs"]["tags"] for r in plan["resources"] if "tags" in r["inputs"]}
    assert tagged and all(tags == SECRET for tags in tagged.values()), tagged  # every kind of resource with tags
    release = next(r for r in plan["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release")
    assert release["inputs"]["values"]["registries"] == [SECRET]  # the map that holds the key, and only it
    assert sorted(w.split(":", 1)[0] for w in plan["warnings"] if "holds a key" in w) == [
        "cluster.tags", "draDriver.extraValues.registries[0]", "gpuPools[0].tags"]
    _, again, _ = cli(capsys, "plan", "--stack", "s", "--project-dir", str(project), "--json")
    assert again == doc  # masked output stays deterministic: the plan document is diffed in pull requests
    status, tree, err = cli(capsys, "plan", "--stack", "s", "--project-dir", str(project))
    assert status == 0 and not any(k in tree + err for k in (GITHUB, JWT, ACCOUNT_KEY))


def test_a_fleet_tag_named_like_a_credential_is_kept_out_and_refused_by_the_policy(tmp_path: Path, capsys):
    project = _project_with(tmp_path, "fleet", "      cost-center: ml-platform\n", f"      {GITHUB}: ci\n")
    status, out, err = cli(capsys, "plan", "--stack", "fleet", "--project-dir", str(project), "--json")
    assert status == 0, err
    assert GITHUB not in out + err
    assert any(w.startswith("fleet.tags: holds a key that looks like a GitHub token") for w in json.loads(out)["warnings"])
    status, out, err = cli(capsys, "plan", "--stack", "fleet", "--project-dir", str(project), "--policy")
    assert "[mandatory] no-plain-credentials: stacks/Pulumi.fleet.yaml\n      fleet.tags: holds a key" in out
    assert GITHUB not in out + err


def test_a_credential_key_written_twice_is_reported_at_its_line_without_being_shown(tmp_path: Path, capsys):
    project = _project_with(tmp_path, "prod", "      cost-center: ml-platform\n",
                            f'      "{CONNECTION_KEY}": a\n      "{CONNECTION_KEY}": b\n')
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project))
    assert status == 2 and ACCOUNT_KEY not in out + err
    assert err.startswith("stacks/Pulumi.prod.yaml:75:7: cluster.tags.[secret]: a key here looks like an Azure "
                          "connection string with a key (not shown); a key is never encrypted"), err


def _plan_with(tags: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """A plan document of a program that passed credentials on in plain text (another program, or an older one)."""
    return {"project": "p", "stack": "s", "resources": [
        {"urn": "urn:pulumi:s::p::azure-native:resources:ResourceGroup::rg", "type": "azure-native:resources:ResourceGroup",
         "name": "rg", "inputs": {"location": "westeurope", "tags": tags}},
        {"urn": "urn:pulumi:s::p::kubernetes:helm.sh/v3:Release::r", "type": "kubernetes:helm.sh/v3:Release",
         "name": "r", "inputs": {"name": "r", "values": values}},
    ]}


def test_diff_never_prints_a_credential_key_and_still_shows_every_other_change():
    old = _plan_with({"env": "dev"}, {"registries": ["a"]})
    new = _plan_with({"env": "prod", GITHUB: "ci", CONNECTION_KEY: "backup"},
                     {"registries": ["a", JWT], "auth": {JWT: {"user": "u"}}, "password": [98765432109876]})
    result = diff_plans(old, new)
    text, doc = format_diff(result), json.dumps(result.to_dict())
    for leaked in (GITHUB, ACCOUNT_KEY, JWT, "98765432109876"):
        assert leaked not in text and leaked not in doc
    assert 'tags.env: "dev" -> "prod"' in text
    assert text.count('tags["[secret]"]: (absent) ->') == 2
    assert 'values.registries[[secret]]: (absent) -> "(not shown: looks like a credential)"' in text
    assert format_diff(diff_plans(old, new)) == text  # the same plans, the same masked diff


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_size_suggests_the_stacks_pools_without_a_credential_key_or_value(tmp_path, capsys, fmt):
    # `size --stack` prints the stack's gpuPools as written, for a pull request: a credential a pool's tags carry in
    # plain text (as a key or as a value) is shown as the mark, and a note says so.
    added = f"      tags:\n        {GITHUB}: x\n        token: {JWT}\n"
    project = _project_with(tmp_path, "dev", "      vmSize: Standard_NV6ads_A10_v5\n", added)
    status, out, err = cli(capsys, "size", "--stack", "dev", "--project-dir", str(project), "--slice", "chat=8x6",
                           "--format", fmt)
    assert status in (0, 3), err
    assert GITHUB not in out + err and JWT not in out + err
    assert "(not shown: looks like a credential)" in out
    assert "keep the credential out of plain text" in out
    if fmt == "json":
        (pool,) = [p for p in json.loads(out)["gpuPools"] if p["name"] == "a10s"]
        assert pool["tags"] == {"(not shown: looks like a credential)": "x", "token": "(not shown: looks like a credential)"}
