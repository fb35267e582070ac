"""The policy `no-plain-credentials`: the stack's own file, read with `secure:` values still encrypted, holds no
credential in plain text; the pack refuses it (mandatory) and `plan --policy` reports the same, naming the key path and
the command, never the value."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from components.cli import EXIT_POLICY
from components.offline import load_project
from components.offline.plan import SECRET
from components.offline.stacks import read_stack_file
from components.policies import NO_PLAIN_CREDENTIALS, check_plain_credentials
from tests.conftest import ROOT
from tests.stack_files import cli
from tests.test_plain_credentials import PASSWORD, _project_with

TAG = "      cost-center: ml-platform\n"
MESSAGE = ("cluster.tags.db-password: looks like a password, written in plain text: it shows in the plan, the state and "
           "every diff; make it a secret: pulumi config set --stack prod --secret --path "
           "'aks-dra-vgpu:cluster.tags.db-password' <value> (the stack file then holds it as secure: ...)")
CIPHERTEXT = "v1:AAAABBBBCCCCDDDD:EEEEFFFFGGGGHHHHIIIIJJJJ"


def with_password(tmp_path: Path) -> Path:
    """The project with prod's cluster tags holding a plain password."""
    return _project_with(tmp_path, "prod", TAG, f"      db-password: {PASSWORD}\n")


# --- the pure check ------------------------------------------------------------------------------------------------------
def test_a_plain_password_is_refused_by_key_path_and_command_never_by_value():
    config = {"aks-dra-vgpu:cluster": {"tags": {"db-password": PASSWORD, "env": "prod"}}}
    assert check_plain_credentials(config, [], "aks-dra-vgpu", "prod") == [MESSAGE]


def test_a_secure_value_is_no_plain_credential_but_its_plain_sibling_is():
    config = {"aks-dra-vgpu:cluster": {"tags": {"db-password": SECRET, "api-password": PASSWORD}}}
    (message,) = check_plain_credentials(config, ["aks-dra-vgpu:cluster"], "aks-dra-vgpu", "prod")
    assert message.startswith("cluster.tags.api-password: looks like a password") and PASSWORD not in message
    assert check_plain_credentials({"other:cluster": {"password": PASSWORD}}, [], "aks-dra-vgpu", "prod") == []


def test_the_stack_file_reader_keeps_secure_leaves_encrypted_so_they_pass(tmp_path: Path):
    project = _project_with(tmp_path, "prod", TAG, f"      db-password:\n        secure: {CIPHERTEXT}\n")
    found = read_stack_file(load_project(project), "prod")
    assert check_plain_credentials(found.config, found.secrets, "aks-dra-vgpu", "prod") == []
    (tmp_path / "plain").mkdir()
    project = with_password(tmp_path / "plain")
    found = read_stack_file(load_project(project), "prod")
    assert check_plain_credentials(found.config, found.secrets, "aks-dra-vgpu", "prod") == [MESSAGE]


# --- the pack ------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pack():
    """The pack's module, loaded without starting its analyzer server."""
    pytest.importorskip("pulumi_policy")
    return runpy.run_path(str(ROOT / "policy" / "__main__.py"), run_name="policy_pack")


def test_the_pack_reads_its_own_projects_stack_file_and_says_nothing_for_another(pack, tmp_path: Path):
    read = pack["stack_file_credentials"]
    project = with_password(tmp_path)
    assert read(project, "aks-dra-vgpu", "prod") == [MESSAGE]
    assert read(project, "aks-dra-vgpu", "acme/aks-dra-vgpu/prod") == [MESSAGE]
    assert read(project, "another-project", "prod") == []  # the pack run against another project
    assert read(project, "aks-dra-vgpu", "staging") == []  # no such stack file
    assert read(tmp_path / "nowhere", "aks-dra-vgpu", "prod") == []
    assert read(project, None, None) == []
    assert read(ROOT, "aks-dra-vgpu", "prod") == []  # the shipped stacks hold no plain credential


def test_the_pack_refuses_through_the_sdk_as_a_mandatory_stack_policy(pack, tmp_path: Path, monkeypatch):
    import pulumi
    from pulumi_policy import EnforcementLevel, StackValidationArgs

    (policy,) = [p for p in pack["stack_policies"]() if p.name == NO_PLAIN_CREDENTIALS]
    assert policy.enforcement_level == EnforcementLevel.MANDATORY
    monkeypatch.setitem(pack["stack_file_credentials"].__globals__, "PROJECT_ROOT", with_password(tmp_path))
    # What pulumi_policy's _configure_runtime_settings sets from PULUMI_PROJECT and PULUMI_STACK.
    monkeypatch.setattr(pulumi.runtime.settings.SETTINGS, "project", "aks-dra-vgpu")
    monkeypatch.setattr(pulumi.runtime.settings.SETTINGS, "stack", "prod")
    reported: list[tuple[str, str | None]] = []
    policy.validate(StackValidationArgs([]), lambda message, urn=None: reported.append((message, urn)))
    assert reported == [(MESSAGE, None)]
    monkeypatch.setattr(pulumi.runtime.settings.SETTINGS, "project", "someone-else")
    reported.clear()
    policy.validate(StackValidationArgs([]), lambda message, urn=None: reported.append((message, urn)))
    assert reported == []


# --- plan --policy -------------------------------------------------------------------------------------------------------
def test_plan_policy_refuses_a_plain_password_tag_once_without_its_value(tmp_path: Path, capsys):
    project = with_password(tmp_path)
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project), "--policy")
    assert status == EXIT_POLICY
    assert f"[mandatory] no-plain-credentials: stacks/Pulumi.prod.yaml\n      {MESSAGE}" in out
    assert PASSWORD not in out + err
    assert "cluster.tags.db-password" not in err  # said once: in the policy report, not again as a warning
    _, out, _ = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(ROOT), "--policy")
    assert "no-plain-credentials:" not in out  # the shipped prod stack holds none
