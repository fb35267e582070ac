"""Secrets from Pulumi config stay secret end to end: in the plan, in the Release values, in errors, in rendered files.

Offline, a value encrypted in the stack file (``{secure: v1:...}``, at the top of a key or anywhere inside it) is never
decrypted: it is ``[secret]`` and its key is a secret key. In a real run (here: `capture` with `secret_keys`, as the
language host sets PULUMI_CONFIG_SECRET_KEYS) the program sees the plain text, and must pass on as secrets whatever it
builds from it. Every test checks both preview and update modes where resources are involved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from components import GpuPlatform, load_stack_config
from components.cli import main
from components.config import ConfigError, stack_config_from_mapping
from components.offline import SECRET, capture
from tests.conftest import MINIMAL_STACK, as_config, scratch_project
from tests.stack_files import cli, stack_file, without_file

RELEASE = "kubernetes:helm.sh/v3:Release"
CIPHER = "v1:c2VjcmV0LWNpcGhlcnRleHQtdGhhdC1tdXN0LW5vdC1sZWFr"
PLAIN_SECRET = "hunter2-s3cr3t-value"


def stack_text(**sections: Any) -> str:
    config = {f"aks-dra-vgpu:{k}": v for k, v in {**MINIMAL_STACK, **sections}.items()}
    return yaml.safe_dump({"config": config}, sort_keys=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project's program and project file, with no stacks yet."""
    return scratch_project(tmp_path)


def plan_json(project: Path, text: str, capsys) -> tuple[dict[str, Any], str]:
    (project / "stacks" / "Pulumi.s.yaml").write_text(text)
    status, out, err = cli(capsys, "plan", "--stack", "s", "--project-dir", str(project), "--json")
    assert (status, err) == (0, ""), err
    return json.loads(out), out


SECURE = {"secure": CIPHER}


@pytest.mark.parametrize(
    "sections, secret_input",
    [
        ({"draDriver": {"extraValues": {"imagePullSecret": SECURE}}}, (RELEASE, ("values",))),
        ({"draDriver": {"extraValues": {"registry": {"auth": [SECURE]}}}}, (RELEASE, ("values",))),
        ({"cluster": {**MINIMAL_STACK["cluster"], "tags": {"costCenter": SECURE}}},
         ("azure-native:containerservice:ManagedCluster", ("tags", "costCenter"))),
        ({"cluster": {**MINIMAL_STACK["cluster"], "tags": {"owner": SECURE}}},
         ("azure-native:resources:ResourceGroup", ("tags", "owner"))),
    ],
    ids=["extra-value", "extra-value-in-a-list", "cluster-tag", "resource-group-tag"],
)
def test_an_encrypted_value_is_secret_in_the_plan_and_never_its_ciphertext(sections, secret_input, project, capsys):
    doc, text = plan_json(project, stack_text(**sections), capsys)
    assert CIPHER not in text and "secure" not in text
    type_, path = secret_input  # the Helm values whole (they mix sections: platform.py), a tag where it sits
    found = [r["inputs"] for r in doc["resources"] if r["type"] == type_]
    for part in path:
        found = [inputs[part] for inputs in found]
    assert found and all(value == SECRET for value in found)


def test_the_helm_values_never_carry_the_secure_wrapper_as_data(project, capsys):
    text = stack_text(draDriver={"extraValues": {"token": SECURE}})
    (project / "stacks" / "Pulumi.s.yaml").write_text(text)
    out = project / "rendered"
    status, _, err = cli(capsys, "render", "--stack", "s", "--project-dir", str(project), "--out", str(out))
    values = out / "helm" / "nvidia-dra-driver-gpu" / "values.yaml"
    assert (status, err) == (0, f"{values}: holds no values, only a note: the release's values hold a secret, which "
                                "the offline plan never sees; write them in before using it\n")
    assert yaml.safe_load(values.read_text()) is None  # a note only: the values hold a secret
    rendered = "".join(p.read_text() for p in out.rglob("*.yaml"))
    assert CIPHER not in rendered and "secure:" not in rendered


def test_the_plan_tree_shows_the_marker_not_the_ciphertext(project, capsys):
    (project / "stacks" / "Pulumi.s.yaml").write_text(stack_text(draDriver={"extraValues": {"token": SECURE}}))
    status, out, err = cli(capsys, "plan", "--stack", "s", "--project-dir", str(project))
    assert (status, err) == (0, "") and CIPHER not in out


@pytest.mark.parametrize(
    "sections, path",
    [
        ({"cluster": SECURE}, "cluster"),
        ({"cluster": {**MINIMAL_STACK["cluster"], "name": SECURE}}, "cluster.name"),
        ({"draDriver": {"namespace": SECURE}}, "draDriver.namespace"),
        ({"draDriver": {"extraValues": {"gpuResourcesEnabledOverride": SECURE}}},
         "draDriver.extraValues.gpuResourcesEnabledOverride"),
        ({"samples": {"workloadMemoryGiB": SECURE}}, "samples.workloadMemoryGiB"),
        ({"gpuPools": [{**MINIMAL_STACK["gpuPools"][0], "labels": {"team": SECURE}}]}, "gpuPools[0].labels"),
    ],
    ids=["whole-section", "cluster-name", "driver-namespace", "required-helm-value", "a-number", "a-label"],
)
def test_an_encrypted_value_that_is_wrong_is_reported_without_its_ciphertext(sections, path, project, capsys):
    (project / "stacks" / "Pulumi.s.yaml").write_text(stack_text(**sections))
    status, out, err = cli(capsys, "plan", "--stack", "s", "--project-dir", str(project))
    assert status == 2 and out == "" and CIPHER not in err
    assert any(line.startswith("stacks/Pulumi.s.yaml: ") and without_file(line).startswith(f"{path}:")
               for line in err.splitlines()), err


# --- a real run: the program sees plain text and must pass it on as a secret ----------------------------------------------
def platform_program() -> None:
    GpuPlatform("gpu", load_stack_config())


@pytest.mark.parametrize(
    "sections",
    [
        {"draDriver": {"extraValues": {"registry": {"password": PLAIN_SECRET}}}},
        {"cluster": {**MINIMAL_STACK["cluster"], "tags": {"owner": PLAIN_SECRET}}},
        {"gpuPools": [{**MINIMAL_STACK["gpuPools"][0], "labels": {"team": PLAIN_SECRET}}]},
        {"gpuPools": [{**MINIMAL_STACK["gpuPools"][0], "taints": [f"{PLAIN_SECRET}=x:NoSchedule"]}]},
    ],
    ids=["helm-value", "cluster-tag", "pool-label", "pool-taint"],
)
def test_a_secret_config_value_never_appears_in_the_plan(sections, preview):
    config = as_config({**MINIMAL_STACK, **sections})
    secret_keys = [f"aks-dra-vgpu:{key}" for key in sections]
    plan = capture(platform_program, config=config, secret_keys=secret_keys, preview=preview)
    assert PLAIN_SECRET not in plan.to_json()
    assert plan.resources  # the program ran: the assertion above is not vacuous


def test_without_secret_keys_the_same_values_are_plain(preview):
    # The control: such a config, not secret, shows the value (so the test above can fail); under a key that names no
    # credential (a plain `password` is kept secret by its key: test_plain_credentials.py).
    sections = {"draDriver": {"extraValues": {"registry": {"mirror": PLAIN_SECRET}}}}
    plan = capture(platform_program, config=as_config({**MINIMAL_STACK, **sections}), preview=preview)
    assert PLAIN_SECRET in plan.to_json()
    assert plan.one(RELEASE).inputs["values"] != SECRET


def test_the_release_values_are_a_secret_output_when_any_part_is_secret(preview):
    config = as_config({**MINIMAL_STACK, "draDriver": {"extraValues": {"a": PLAIN_SECRET}}})
    plan = capture(platform_program, config=config, secret_keys=["aks-dra-vgpu:draDriver"], preview=preview)
    release = plan.one(RELEASE)
    assert release.inputs["values"] == SECRET
    assert release.inputs["name"] == "nvidia-dra-driver-gpu"  # settings with a fixed syntax stay readable


@pytest.mark.parametrize(
    "section, value, path",
    [
        ("draDriver", {"namespace": f"Not A {PLAIN_SECRET}"}, "draDriver.namespace"),
        ("draDriver", {"extraValues": {"resources": PLAIN_SECRET}}, "draDriver.extraValues.resources"),
        ("draDriver", {"timeoutSeconds": 987654}, "draDriver.timeoutSeconds"),
        ("samples", {"image": f"{PLAIN_SECRET} latest"}, "samples.image"),
        ("cluster", {**MINIMAL_STACK["cluster"], "tags": {"t": 12345678}}, "cluster.tags.t"),
        ("gpuPools", [{"name": PLAIN_SECRET, "vmSize": "Standard_NV12ads_A10_v5"}], "gpuPools[0].name"),
    ],
)
def test_an_error_never_quotes_a_secret_value(section, value, path):
    config = as_config({**MINIMAL_STACK, section: value})
    with pytest.raises(ConfigError) as raised:
        stack_config_from_mapping(config, secret_keys=[f"aks-dra-vgpu:{section}"])
    text = str(raised.value)
    assert path in [p.path for p in raised.value.problems], text
    for leaf in (PLAIN_SECRET, "987654", "12345678"):
        assert leaf not in text
    assert "[secret]" in text


def test_an_error_about_a_secret_in_a_real_run_does_not_quote_it(preview):
    # Through the program, as `pulumi up` would run it: is_config_secret tells load_stack_config which keys to hide.
    config = as_config({**MINIMAL_STACK, "samples": {"namespace": f"Bad {PLAIN_SECRET}"}})
    with pytest.raises(ConfigError) as raised:
        capture(platform_program, config=config, secret_keys=["aks-dra-vgpu:samples"], preview=preview)
    assert "samples.namespace" in str(raised.value) and PLAIN_SECRET not in str(raised.value)


def test_the_same_error_without_secret_keys_quotes_the_value():
    config = as_config({**MINIMAL_STACK, "samples": {"namespace": f"Bad {PLAIN_SECRET}"}})
    with pytest.raises(ConfigError, match=PLAIN_SECRET):
        stack_config_from_mapping(config)


# --- masked by value, never by neighbourhood ---------------------------------------------------------------------------
SECURE_TAG_STACK = stack_file("sec", "1.34", """\
    systemPool: {count: 0, zones: ["1"]}
    tags:
      owner:
        secure: v1:AAAABBBBCCCCDDDD
  aks-dra-vgpu:gpuPools:
    - name: gpu
      vmSize: Standard_NV12ads_A10_v5
      count: 1
      tags:
        owner:
          secure: v1:AAAABBBBCCCCDDDD
""")


def test_one_secure_value_in_a_section_hides_nothing_else_of_it(tmp_path, capsys):
    from tests.conftest import scratch_project

    project = scratch_project(tmp_path)
    (project / "stacks" / "Pulumi.sec.yaml").write_text(SECURE_TAG_STACK)
    assert main(["plan", "--stack", "sec", "--project-dir", str(project)]) == 2
    assert capsys.readouterr().err.strip() == ("stacks/Pulumi.sec.yaml: cluster.systemPool.count: must be a whole number "
                                               "from 1 to 1000 (got 0)")


def test_in_a_real_run_a_secret_sections_values_are_hidden_where_quoted_and_bounds_stay():
    cluster = {**MINIMAL_STACK["cluster"], "systemPool": {"count": 0, "zones": ["1"]}, "name": "c",
               "tags": {"owner": "s3cr3t-owner"}, "location": "Not A Region"}
    with pytest.raises(ConfigError) as raised:
        stack_config_from_mapping(as_config({**MINIMAL_STACK, "cluster": cluster}), secret_keys=["aks-dra-vgpu:cluster"])
    lines = [str(p) for p in raised.value.problems]
    assert len(lines) == 2 and lines[1] == "cluster.systemPool.count: must be a whole number from 1 to 1000 (got [secret])"
    assert lines[0].startswith("cluster.location: '[secret]' is not an Azure region"), lines
    assert not any("Not A Region" in line or "s3cr3t" in line for line in lines), lines


def test_size_suggests_a_secure_tag_as_its_ciphertext_never_as_the_placeholder(tmp_path, capsys):
    from tests.conftest import scratch_project

    project = scratch_project(tmp_path)
    (project / "stacks" / "Pulumi.sec.yaml").write_text(SECURE_TAG_STACK.replace("{count: 0, ", "{count: 1, "))
    assert main(["size", "--stack", "sec", "--project-dir", str(project), "--slice", "a=8x3"]) == 3
    out = capsys.readouterr().out
    snippet = yaml.safe_load(out.split("gpuPools that would fit:\n", 1)[1].split("\n\n", 1)[0])
    assert snippet["aks-dra-vgpu:gpuPools"][0]["tags"] == {"owner": {"secure": "v1:AAAABBBBCCCCDDDD"}}
    assert "[secret]" not in out


def test_render_says_which_values_file_holds_a_placeholder_and_where(project, capsys):
    # A password in plain text is kept secret where it sits: the values file holds the placeholder there, and says so.
    registry = {"password": PLAIN_SECRET, "mirror": "mirror.example.com"}
    (project / "stacks" / "Pulumi.s.yaml").write_text(stack_text(draDriver={"extraValues": {"registry": registry}}))
    out = project / "rendered"
    status, _, err = cli(capsys, "render", "--stack", "s", "--project-dir", str(project), "--out", str(out))
    values = out / "helm" / "nvidia-dra-driver-gpu" / "values.yaml"
    assert status == 0 and PLAIN_SECRET not in err + values.read_text()
    assert yaml.safe_load(values.read_text())["registry"] == {"password": SECRET, "mirror": "mirror.example.com"}
    assert err == (f"{values}: holds the placeholder [secret] for a secret at registry.password, which the offline "
                   "plan never sees; put the real value in before using it\n")
