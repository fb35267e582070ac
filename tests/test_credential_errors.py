"""No error shows a value under a key that names a credential (a numeric or hex password's type error, a value too
long, a value YAML reads otherwise than Pulumi, an enum miss), nor a key that looks like one; each points to
`pulumi config set --secret`, never to quoting the value into the stack file."""

from __future__ import annotations

import copy
import shlex
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from components.config import ConfigError, stack_config_from_mapping
from components.config.credential_advice import credential_warning, secret_command
from components.config.credentials import looks_like, plain_credentials
from components.config.problems import problems_of
from tests.conftest import MINIMAL_STACK, as_config
from tests.stack_files import cli
from tests.test_plain_credentials import _project_with


def problems(**changes: Any) -> list[str]:
    """The problems of the minimal stack with `changes` applied (a dotted section.key -> value)."""
    data = copy.deepcopy(MINIMAL_STACK)
    for dotted, value in changes.items():
        section, _, key = dotted.partition(".")
        target = data[section][0] if isinstance(data[section], list) else data[section]
        target[key] = value
    with pytest.raises(ConfigError) as raised:
        stack_config_from_mapping(as_config(data))
    return [str(p) for p in raised.value.problems]


GITHUB = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"
SECRET_ADVICE = "make it a secret, which Pulumi keeps as text: pulumi config set --secret --path"


@pytest.mark.parametrize("value, hidden", [
    (98765432109876, "98765432109876"),
    (0x1F2E3D4C5B6A, "34283457370986"),  # what YAML makes of `0x1F2E3D4C5B6A`
    (98765.4321, "98765.4321"),
    (["hunter2"], "hunter2"),
    ({"v": "hunter2"}, "hunter2"),
])
def test_a_value_under_a_password_key_is_never_echoed_and_the_advice_is_a_secret(value, hidden):
    (line,) = problems(**{"cluster.tags": {"db-password": value}})
    assert line == (f"cluster.tags.db-password: must be text (got [secret]); {SECRET_ADVICE} "
                    "'cluster.tags.db-password' <value>")
    assert hidden not in line and "quote it" not in line


def test_a_value_too_long_or_malformed_under_a_token_key_is_never_echoed():
    plain = "x" * 70  # no random-looking token, yet under a key that names one
    assert problems(**{"gpuPools.labels": {"api-token": plain}}) == [
        "gpuPools[0].labels: label value '[secret]' must be empty or 1-63 characters, alphanumeric at both ends"]
    (line,) = problems(**{"cluster.tags": {"api-token": "y" * 300}})
    assert "y" * 20 not in line


def test_a_key_that_looks_like_a_credential_is_never_echoed_in_a_path_or_a_message():
    (line,) = problems(**{"cluster.tags": {GITHUB: 5}})
    assert GITHUB not in line and line.startswith("cluster.tags.[secret]: must be text (got [secret]); a key is never")
    (line,) = problems(**{"gpuPools.labels": {"AccountKey=c2VjcmV0a2V5c2VjcmV0a2V5": "x"}})
    assert "c2VjcmV0a2V5" not in line and line.startswith("gpuPools[0].labels: label key '[secret]': ")


class _Settings(BaseModel):
    api_token: Literal["none", "rotate"]


def test_an_enum_miss_under_a_credential_key_is_never_echoed():
    with pytest.raises(ValidationError) as raised:
        _Settings.model_validate({"api_token": "ghs-not-a-choice"})
    (problem,) = problems_of(raised.value, _Settings, keys="python")
    assert "ghs-not-a-choice" not in problem.message and problem.message.startswith("[secret] is not allowed")


def test_a_number_under_a_password_key_is_a_credential_kept_out_of_the_plan():
    assert looks_like("password", 98765432109876) == "a password"
    assert looks_like("password", 12345) is None and looks_like("replicas", 98765432109876) is None
    assert looks_like("password", True) is None
    (found,) = plain_credentials({"registry": {"password": 98765432109876}}, "draDriver.extraValues")
    assert found.path == "draDriver.extraValues.registry.password" and found.value == 98765432109876
    # Helm values take a number: the plan holds it secret where it sits, the rest of the values readable.
    from components import GpuPlatform, load_stack_config
    from components.offline import capture

    driver = {"extraValues": {"registry": {"password": 98765432109876, "port": 5000}}}
    plan = capture(lambda: GpuPlatform("gpu", load_stack_config()), config=as_config({**MINIMAL_STACK, "draDriver": driver}))
    assert plan.one("kubernetes:helm.sh/v3:Release").inputs["values"]["registry"] == {"password": "[secret]", "port": 5000}
    assert "98765432109876" not in plan.to_json()


@pytest.mark.parametrize("written", [
    "yes",  # YAML 1.1's true, Pulumi's text
    "0755",  # octal in YAML 1.1, decimal for Pulumi
    "2001-12-14t21:59:43.10-05:00",  # a date
    "123456789012345678901",  # too large to pass exactly
])
def test_a_stack_file_value_read_otherwise_under_a_password_key_is_never_echoed(tmp_path: Path, capsys, written):
    project = _project_with(tmp_path, "prod", "      cost-center: ml-platform\n", f"      db-password: {written}\n")
    status, out, err = cli(capsys, "plan", "--stack", "prod", "--project-dir", str(project))
    assert status == 2 and out == ""
    (line,) = [line for line in err.splitlines() if "db-password" in line]
    assert line.startswith("stacks/Pulumi.prod.yaml") and "cluster.tags.db-password: " in line, line
    assert written not in line and written.upper() not in line and "quote it" not in line
    assert line.endswith(f"{SECRET_ADVICE} 'cluster.tags.db-password' <value>")


def test_a_date_under_any_key_names_the_stack_file_once(tmp_path: Path):
    # The loop that checks each value once reused the name of the file's variable for the key path.
    from components.offline import load_project
    from components.offline.stack_file import read_stack_file

    project = _project_with(tmp_path, "prod", "      cost-center: ml-platform\n", "      when: 2001-12-14\n")
    assert read_stack_file(load_project(project), "prod").lines() == [
        "stacks/Pulumi.prod.yaml: cluster.tags.when: YAML reads 2001-12-14 as a date, which Pulumi would pass in another "
        "form; quote it"]


def test_the_command_quotes_a_key_with_a_quote_for_a_posix_shell():
    (found,) = plain_credentials({"tags": {"it's-password": "Sup3rS3cret!Passw0rd"}}, "cluster")
    command = credential_warning(found, "aks-dra-vgpu", "prod").split("make it a secret: ", 1)[1].split(" (", 1)[0]
    assert shlex.split(command) == ["pulumi", "config", "set", "--stack", "prod", "--secret", "--path",
                                    "aks-dra-vgpu:cluster.tags[\"it's-password\"]", "<value>"]
    assert shlex.split(secret_command(("cluster", "tags", 'a"b\'c'))) == [
        "pulumi", "config", "set", "--secret", "--path", 'cluster.tags["a\\"b\'c"]', "<value>"]


def test_a_secure_authorized_range_gets_no_advice_built_from_the_placeholder():
    (line,) = problems(**{"cluster.apiServer": {"authorizedIpRanges": ["203.0.113.0/24", "[secret]"]}})
    assert "[secret]/" not in line and line == (
        "cluster.apiServer.authorizedIpRanges: a secure value ([secret]) cannot be checked offline, where it is never "
        "decrypted; write the ranges in plain text: an address range is no credential")
    (line,) = problems(**{"cluster.apiServer": {"authorizedIpRanges": ["203.0.113.9"]}})
    assert line == ("cluster.apiServer.authorizedIpRanges: '203.0.113.9' is not a CIDR range, only an address; add /32 "
                    "for this one address, as in '203.0.113.7/32'")


def test_in_a_real_run_a_secret_bare_address_gets_no_advice_that_embeds_the_placeholder():
    cluster = {**MINIMAL_STACK["cluster"], "apiServer": {"authorizedIpRanges": ["198.51.100.7"]}}
    with pytest.raises(ConfigError) as raised:
        stack_config_from_mapping(as_config({**MINIMAL_STACK, "cluster": cluster}), secret_keys=["aks-dra-vgpu:cluster"])
    (problem,) = raised.value.problems
    assert "198.51.100.7" not in problem.message and "[secret]/" not in problem.message
