"""Credentials written in plain text: found by shape or by key, warned about with the command that makes them secure,
kept out of the plan, the diff and errors; ordinary settings are left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components.config import ConfigError, stack_config_from_mapping
from components.config.credential_advice import credential_warning
from components.config.credentials import Credential, looks_like, plain_credentials
from components.config.syntax import MISSING
from components.review.diff_model import CREDENTIAL, ValueChange
from tests.conftest import MINIMAL_STACK, ROOT, as_config, scratch_project
from tests.stack_files import cli

PASSWORD = "Sup3rS3cret!Passw0rd"
ACCOUNT_KEY = "c2VjcmV0a2V5c2VjcmV0a2V5c2VjcmV0a2V5PT0="
CONNECTION = (f"DefaultEndpointsProtocol=https;AccountName=stfleet;AccountKey={ACCOUNT_KEY};"
              "EndpointSuffix=core.windows.net")
CLIENT_SECRET = "abc8Q~" + "Zq3vR7tY1uW9xP2sL5kM8nB4cD6fG0hJ2aS4dF6g"[:34]


@pytest.mark.parametrize("key, value, what", [
    ("db-password", PASSWORD, "a password"),
    ("DB_PASSWORD", "changeme-now", "a password"),
    ("backup", CONNECTION, "an Azure connection string with a key"),
    ("url", "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=abcdefABCDEF0123%2F", "an Azure SAS token"),
    ("note", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "a JSON Web Token"),
    ("tls", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...", "a PEM private key"),
    ("db", "postgres://admin:hunter2@db.internal:5432/app", "a URL with a password"),
    ("api-token", "9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZ", "a secret key or token"),
    ("storage-key", "Xk3+9aQ2mZ/p8RtY1uW7vB4nC6eD0fG5hJ==", "a secret key or token"),
    ("anything", CLIENT_SECRET, "an Entra ID client secret"),
])
def test_a_credential_is_found_by_its_shape_or_its_key(key, value, what):
    assert looks_like(key, value) == what


@pytest.mark.parametrize("key, value", [
    ("costcenter", "ml-platform"),
    ("cost-center", "CC-1234-ML"),
    ("environment", "prod"),
    ("owner", "team-a@contoso.com"),
    ("sshPublicKey", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7Xk3+9aQ2mZ/p8RtY1uW7vB4nC6eD0fG5hJ user@host"),
    ("existingSecret", "my-db-secret"),
    ("secretName", "regcred"),
    ("tokenFile", "/var/run/secrets/tokens/azure-identity-token"),
    ("token", "my-token-name"),
    ("key", "nvidia.com/gpu"),
    ("image", "nvcr.io/nvidia/k8s-dra-driver-gpu:v25.8.0"),
    ("identityId", "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/"
                   "Microsoft.ManagedIdentity/userAssignedIdentities/id-aks"),
    ("password", "[secret]"),
    ("caBundle", "-----BEGIN CERTIFICATE-----\nMIIB..."),
])
def test_ordinary_settings_are_not_credentials(key, value):
    assert looks_like(key, value) is None


def test_the_warning_names_the_path_and_the_command_never_the_value():
    found = plain_credentials({"tags": {"db-password": PASSWORD, "env": "prod"}}, "cluster")
    assert found == [Credential("cluster.tags.db-password", "a password", ("cluster", "tags", "db-password"))]
    text = credential_warning(found[0], "aks-dra-vgpu", "prod")
    assert text == ("cluster.tags.db-password: looks like a password, written in plain text: it shows in the plan, the "
                    "state and every diff; make it a secret: pulumi config set --stack prod --secret --path "
                    "'aks-dra-vgpu:cluster.tags.db-password' <value> (the stack file then holds it as secure: ...)")


def test_a_key_that_is_no_plain_name_is_quoted_in_the_config_path():
    found = plain_credentials({"labels": {"example.com/password": PASSWORD}}, "gpuPools")
    assert "--path 'aks-dra-vgpu:gpuPools.labels[\"example.com/password\"]'" in credential_warning(found[0],
                                                                                                  "aks-dra-vgpu")


def _project_with(tmp_path: Path, stack: str, anchor: str, added: str) -> Path:
    project = scratch_project(tmp_path)
    for source in (ROOT / "stacks").glob("Pulumi.*.yaml"):
        text = source.read_text()
        if source.name == f"Pulumi.{stack}.yaml":
            assert anchor in text
            text = text.replace(anchor, anchor + added, 1)
        (project / "stacks" / source.name).write_text(text)
    return project


def test_plan_warns_about_a_plain_password_tag_and_keeps_it_out_of_the_plan(tmp_path, capsys):
    project = _project_with(tmp_path, "prod", "      cost-center: ml-platform\n", f"      db-password: {PASSWORD}\n")
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project))
    assert status == 0, err
    assert ("warning: cluster.tags.db-password: looks like a password, written in plain text: it shows in the plan, "
            "the state and every diff; make it a secret: pulumi config set --stack prod --secret --path "
            "'aks-dra-vgpu:cluster.tags.db-password' <value>") in err
    status, doc, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project), "--json")
    assert status == 0 and PASSWORD not in out + err + doc
    plan = json.loads(doc)
    assert any(w.startswith("cluster.tags.db-password: looks like a password") for w in plan["warnings"])
    cluster = next(r for r in plan["resources"] if r["type"] == "azure-native:containerservice:ManagedCluster")
    # Only the credential is secret: the other tags stay readable, so a diff still shows their changes.
    assert cluster["inputs"]["tags"] == {"cost-center": "ml-platform", "db-password": "[secret]", "environment": "prod"}
    assert cluster["inputs"]["resourceName"] == "aks-dra-prod"


def test_a_fleet_tag_holding_an_account_key_is_warned_about_and_kept_out(tmp_path, capsys):
    project = _project_with(tmp_path, "fleet", "      cost-center: ml-platform\n", f"      backup: {CONNECTION}\n")
    status, out, err = cli(capsys, "plan", "--stack", "fleet", "--project-dir", str(project), "--json")
    assert status == 0, err
    assert ACCOUNT_KEY not in out + err
    warnings = json.loads(out)["warnings"]
    assert any(w.startswith("fleet.tags.backup: looks like an Azure connection string with a key, written in plain "
                            "text") and "--path 'aks-dra-vgpu:fleet.tags.backup'" in w for w in warnings), warnings


def test_diff_never_prints_a_plain_credential_even_from_a_plan_that_carries_one(tmp_path, capsys):
    project = _project_with(tmp_path, "prod", "      cost-center: ml-platform\n", "")
    _, base, _ = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project), "--json")
    head = json.loads(base)
    # A plan made by a program that passes the credential on in plain text (an older version of this one).
    for res in head["resources"]:
        if isinstance(res["inputs"].get("tags"), dict):
            res["inputs"]["tags"] = {**res["inputs"]["tags"], "db-password": PASSWORD, "backup": CONNECTION}
    (tmp_path / "base.json").write_text(base)
    (tmp_path / "head.json").write_text(json.dumps(head))
    status, out, err = cli(capsys, "diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"))
    assert status == 3, err
    assert PASSWORD not in out + err and ACCOUNT_KEY not in out + err
    assert f"tags.db-password: (absent) -> \"{CREDENTIAL}\"" in out


def test_a_value_change_shows_every_other_part_of_a_map():
    _old, new = ValueChange("tags", MISSING, {"db-password": PASSWORD, "env": "prod"}).shown()
    assert new == {"db-password": CREDENTIAL, "env": "prod"}


def test_a_client_secret_written_as_client_id_is_refused_without_repeating_it():
    cluster = {**MINIMAL_STACK["cluster"], "auth": {"mode": "entraId", "clientId": CLIENT_SECRET}}
    with pytest.raises(ConfigError) as raised:
        stack_config_from_mapping(as_config({**MINIMAL_STACK, "cluster": cluster}))
    assert str(raised.value) == ("cluster.auth.clientId: is not a GUID and looks like a client secret (not shown); write "
                                 "the application's client ID, a GUID such as '00000000-0000-0000-0000-000000000000', "
                                 "and keep the secret out of the stack file")
    assert CLIENT_SECRET not in str(raised.value)


@pytest.mark.parametrize("section, key", [("cluster", "name"), ("cluster", "location"),
                                          ("extendedResources", "domain"), ("extendedResources", "nvidiaGpu")])
def test_a_credential_pasted_where_a_setting_goes_is_refused_without_being_quoted(section, key):
    data = {**MINIMAL_STACK, "cluster": dict(MINIMAL_STACK["cluster"])}
    data[section] = {**data.get(section, {}), key: CONNECTION}
    with pytest.raises(ConfigError) as raised:
        stack_config_from_mapping(as_config(data))
    assert f"{section}.{key}: '[secret]' is not" in str(raised.value)
    assert ACCOUNT_KEY not in str(raised.value)


def test_a_credential_under_a_key_that_is_no_text_is_refused_at_the_key_and_never_shown():
    # A dict from Python (or YAML's `1:`) may key a credential with an int: the credential is found by its value, and
    # the refusal names the key without quoting the value (it once failed with a KeyError looking the value up again).
    key = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg=="
    data = {**MINIMAL_STACK, "cluster": {**MINIMAL_STACK["cluster"], "tags": {1: key}}}
    with pytest.raises(ConfigError) as caught:
        stack_config_from_mapping(as_config(data))
    text = str(caught.value)
    assert "cluster.tags[1].[key]: must be text" in text
    assert "AccountKey" not in text
    (found,) = plain_credentials({1: key}, "tags")
    assert found.value == key and key not in repr(found)
