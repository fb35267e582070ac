"""The offline CLI: `plan` prints the tree or the plan document; bad input exits 2 with one line per problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from components.cli import main
from tests.conftest import ROOT, scratch_project
from tests.stack_files import without_file

NVADS = {"Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV18ads_A10_v5",
         "Standard_NV36ads_A10_v5", "Standard_NV36adms_A10_v5", "Standard_NV72ads_A10_v5"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def plans() -> dict[str, dict]:
    """The plan documents of both stacks, made once for the module (through the CLI's own code path)."""
    import contextlib
    import io

    docs = {}
    for stack in ("dev", "prod"):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            assert main(["plan", "--stack", stack, "--project-dir", str(ROOT), "--json"]) == 0
        docs[stack] = json.loads(buffer.getvalue())
    return docs


def of_type(doc: dict, type_: str) -> list[dict]:
    return [r for r in doc["resources"] if r["type"] == type_]


def test_plan_tree_for_people(capsys):
    status, out, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT))
    assert status == 0 and err.startswith("warning: pool a10s autoscales from minCount 0")  # dev scales from zero
    assert out.startswith("aks-dra-vgpu/dev: ")
    assert "AgentPool gpu-a10s-pool" in out and "vmSize: Standard_NV6ads_A10_v5" in out
    assert "kubeconfig: [secret]" in out


def test_plan_document_shape(plans):
    doc = plans["dev"]
    assert set(doc) == {"project", "stack", "resources", "outputs"}
    assert (doc["project"], doc["stack"]) == ("aks-dra-vgpu", "dev")
    for r in doc["resources"]:
        assert set(r) == {"urn", "type", "name", "custom", "parent", "provider", "dependencies", "inputs", "options"}
        assert set(r["options"]) == {"protect", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace",
                                     "retainOnDelete"}
    urns = [r["urn"] for r in doc["resources"]]
    assert urns == sorted(urns)


def test_plan_json_is_byte_identical_across_runs(capsys):
    first = run(capsys, "plan", "--stack", "prod", "--project-dir", str(ROOT), "--json")[1]
    second = run(capsys, "plan", "--stack", "prod", "--project-dir", str(ROOT), "--json")[1]
    assert first == second and first.endswith("\n")


def test_dev_plan_has_system_inline_pool_and_a10_agent_pools(plans):
    (cluster,) = of_type(plans["dev"], "azure-native:containerservice:ManagedCluster")
    assert [p["mode"] for p in cluster["inputs"]["agentPoolProfiles"]] == ["System"]
    pools = of_type(plans["dev"], "azure-native:containerservice:AgentPool")
    assert pools
    for pool in pools:
        assert pool["inputs"]["vmSize"] in NVADS
        assert pool["inputs"]["nodeLabels"]["nvidia.com/gpu.present"] == "true"
        assert pool["inputs"]["gpuProfile"]["driver"] == "Install"


def test_prod_has_tainted_pools_and_a_protected_cluster(plans):
    pools = of_type(plans["prod"], "azure-native:containerservice:AgentPool")
    assert len(pools) >= 2
    assert len({p["inputs"]["vmSize"] for p in pools}) >= 2
    assert all(p["inputs"]["nodeTaints"] for p in pools)
    (cluster,) = of_type(plans["prod"], "azure-native:containerservice:ManagedCluster")
    assert cluster["options"]["protect"] is True
    system = cluster["inputs"]["agentPoolProfiles"][0]
    assert system["count"] == 3 and system["availabilityZones"] == ["1", "2", "3"]


def test_secrets_never_appear_in_plans(plans):
    for doc in plans.values():
        text = json.dumps(doc)
        assert "offline-placeholder" not in text  # the mock kubeconfig's token
        assert doc["outputs"]["kubeconfig"] == "[secret]"


# --- bad input -----------------------------------------------------------------------------------------------------
@pytest.fixture(name="scratch_project")
def _scratch_project(tmp_path: Path) -> Path:
    """A copy of the project's program and project file, with no stacks yet."""
    return scratch_project(tmp_path)


def write_stack(project: Path, name: str, text: str) -> None:
    (project / "stacks" / f"Pulumi.{name}.yaml").write_text(text)


def dev_config() -> dict:
    return yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())


def test_the_four_classic_mistakes_exit_2_naming_each_key(capsys, scratch_project):
    doc = dev_config()
    doc["config"]["aks-dra-vgpu:cluster"]["kubernetesVersion"] = "1.33"
    doc["config"]["aks-dra-vgpu:gpuPools"][0].update(
        name="thirteenchars", vmSize="Standard_NC6s_v3", autoscaling={"minCount": 3, "maxCount": 2}
    )
    write_stack(scratch_project, "bad", yaml.safe_dump(doc))
    status, out, err = run(capsys, "plan", "--stack", "bad", "--project-dir", str(scratch_project))
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    for key in ("cluster.kubernetesVersion", "gpuPools[0].name", "gpuPools[0].vmSize",
                "gpuPools[0].autoscaling.minCount"):
        assert any(line.startswith("stacks/Pulumi.bad.yaml: ") and without_file(line).startswith(f"{key}:")
                   for line in lines), (key, lines)
    assert len(lines) == 4


def test_yaml_syntax_error_names_file_and_line(capsys, scratch_project):
    write_stack(scratch_project, "broken", "config:\n  aks-dra-vgpu:cluster:\n    name: [unclosed\n")
    status, out, err = run(capsys, "plan", "--stack", "broken", "--project-dir", str(scratch_project))
    assert status == 2 and out == ""
    # The line of the bracket left open, not the end of the file where the parser gave up.
    assert err.startswith("stacks/Pulumi.broken.yaml:3:11: not valid YAML: the '[' opened here is never closed")
    assert "Traceback" not in err


def test_missing_stack_lists_the_known_ones(capsys, project_dir):
    status, out, err = run(capsys, "plan", "--stack", "nope", "--project-dir", str(project_dir))
    assert status == 2 and out == ""
    assert "Pulumi.nope.yaml" in err and "dev" in err and "prod" in err


# --- bad input under --json: a document on stdout too, as `size --json` prints one ---------------------------------------
BAD_INPUT = {"key": "", "kind": "bad-input", "severity": "error"}


@pytest.mark.parametrize("asked", [["--json"], ["--format", "json"], ["--format=json"]])
def test_plan_json_on_bad_input_prints_a_document_of_its_problems(capsys, scratch_project, asked):
    doc = dev_config()
    doc["config"]["aks-dra-vgpu:gpuPools"][0]["vmSize"] = "Standard_NV6ads_A10"
    write_stack(scratch_project, "bad", yaml.safe_dump(doc))
    status, out, err = run(capsys, "plan", "--stack", "bad", "--project-dir", str(scratch_project), *asked)
    assert status == 2
    document = json.loads(out)
    assert document["exit"] == 2 and "resources" not in document  # never read as an empty plan
    (problem,) = document["problems"]
    assert {k: problem[k] for k in BAD_INPUT} == BAD_INPUT
    assert problem["message"].startswith("stacks/Pulumi.bad.yaml: gpuPools[0] (a10s).vmSize: 'Standard_NV6ads_A10' "
                                         "is not an NVadsA10_v5 size")
    assert err.strip() == problem["message"]  # and the same line on stderr
    # diff refuses it, saying what it is
    (scratch_project / "bad.json").write_text(out)
    status, _, err = run(capsys, "diff", str(scratch_project / "bad.json"), str(scratch_project / "bad.json"))
    assert status == 2 and err.startswith(f"{scratch_project / 'bad.json'}: not a plan document: the plan that wrote "
                                          "it failed (exit 2): stacks/Pulumi.bad.yaml: gpuPools[0]")


def test_a_fleet_plan_json_on_bad_input_prints_a_document_too(capsys, project_dir):
    status, out, err = run(capsys, "plan", "--fleet", "nope", "--project-dir", str(project_dir), "--json")
    assert status == 2 and json.loads(out)["problems"][0]["message"] == err.strip().splitlines()[0]


@pytest.mark.parametrize("argv, document", [
    (["size", "--json", "--bogus"], {"exit": 2, "fits": False}),
    (["plan", "--stack", "dev", "--format", "json", "--timeout", "-1"], {"exit": 2}),
    (["diff", "a.json", "--json"], {"exit": 2}),
    (["verify", "--json", "--bogus"], {"checks": []}),
    (["preflight", "--json", "--bogus"], {"ok": False, "exit": 2}),
])
def test_a_usage_mistake_under_json_prints_the_commands_document(argv, document, capsys):
    status, out, err = run(capsys, *argv)
    assert status == 2 and err.strip()
    printed = json.loads(out)
    assert {k: printed[k] for k in document} == document
    said = json.dumps(printed)
    assert err.strip().replace('"', '\\"') in said or err.strip() in said


def test_a_usage_mistake_without_json_prints_nothing_on_stdout(capsys):
    status, out, _ = run(capsys, "size", "--bogus", "--", "--json")
    assert status == 2 and out == ""


def test_diff_json_on_bad_input_prints_a_document(capsys, tmp_path):
    status, out, err = run(capsys, "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json")
    assert status == 2
    assert json.loads(out) == {"exit": 2, "problems": [{**BAD_INPUT, "message": err.strip()}]}
