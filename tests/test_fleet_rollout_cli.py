"""`python -m components fleet-rollout` on the shipped example fleet (stacks/Pulumi.fleet.yaml: canary = fleet-weu,
rest = fleet-eus) against a fake ARM (tests/fake_arm.py) and a fake API server for the canary's cluster
(tests/test_verify_cli.py): the gate is approved only when the canary verifies, held when it does not, and a missing
role is one line naming it."""

from __future__ import annotations

import json

import pytest

from components.cli import main
from components.rollout.arm import ROLE
from tests.fake_arm import SUB, TOKEN, FakeArm
from tests.test_verify_cli import FakeApi
from tests.test_verify_fleet import broken, kubeconfig
from tests.verify_cluster import healthy, stack

FLEET_PATH = f"/subscriptions/{SUB}/resourceGroups/rg-fleet-gpu-prod/providers/Microsoft.ContainerService/fleets/" \
             "fleet-gpu-prod"
GROUPS = {"canary": ["aks-dra-prod-weu"], "wave-1": ["aks-dra-prod-eus"]}


@pytest.fixture(autouse=True)
def _token(monkeypatch):
    monkeypatch.setenv("ARM_ACCESS_TOKEN", TOKEN)
    for name in ("ARM_SUBSCRIPTION_ID", "AZURE_SUBSCRIPTION_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def weu():
    return stack("fleet-weu")


def rollout(arm: FakeArm, config, *extra: str) -> int:
    return main(["fleet-rollout", "--fleet", "fleet", "--kubernetes-version", "1.35.3", "--run-name", "k8s-1-35-3",
                 "--subscription", SUB, "--arm-endpoint", arm.url, "--kubeconfig", str(config), "--poll", "0",
                 "--verify-wait", "0", "--json", *(extra or ("--no-smoke",))])


def rollout_on_canary(tmp_path, capsys, canary, cluster, *extra: str) -> tuple[int, dict, FakeArm, FakeApi]:
    """fleet-rollout with the canary's (fleet-weu's) cluster served by a fake API holding `cluster`: (exit status, the
    JSON document or {} when none was printed, the fake ARM and the fake API with what each was asked)."""
    with FakeArm(GROUPS, fleet_path=FLEET_PATH) as arm, FakeApi(cluster) as west:
        status = rollout(arm, kubeconfig(tmp_path, {canary.cluster.name: west.url}), *extra)
    out = capsys.readouterr()
    assert status in (0, 4), out.err
    return status, json.loads(out.out) if out.out.strip() else {}, arm, west


def test_the_gate_is_approved_once_the_canary_verifies(tmp_path, weu, capsys):
    status, doc, arm, west = rollout_on_canary(tmp_path, capsys, weu, healthy(weu))
    assert status == 0
    assert doc["action"] == "approved" and doc["state"] == "Completed"
    assert doc["canaryMembers"] == ["aks-dra-prod-weu"]
    assert doc["verify"]["members"][0]["member"] == "aks-dra-prod-weu"
    (put,) = arm.calls("PUT", "/updateRuns/k8s-1-35-3")
    stages = put[2]["properties"]["strategy"]["stages"]
    assert [(s["name"], s["afterStageWaitInSeconds"], "afterGates" in s) for s in stages] == [
        ("canary", 86400, True), ("rest", 0, False)]  # the fleet stack's stages, a gate after the canary
    assert put[2]["properties"]["managedClusterUpdate"] == {
        "upgrade": {"type": "Full", "kubernetesVersion": "1.35.3"}, "nodeImageSelection": {"type": "Latest"}}
    assert len(arm.calls("PATCH")) == 1 and west.requests  # verified on the canary's own cluster


def test_the_smoke_runs_on_the_canary_by_default(tmp_path, weu, capsys):
    """fleet-weu has claim templates: without --no-smoke its verify claims a slice of each size (the fake API runs no
    pod, so here the canary stays unproven and the gate Pending)."""
    status, _, arm, west = rollout_on_canary(tmp_path, capsys, weu, healthy(weu), "--on-failure", "hold")
    created = [path for method, path, _ in west.requests if method == "POST"]
    assert any(p.endswith("/namespaces") for p in created) and any(p.endswith("/pods") for p in created)
    assert status == 4 and arm.calls("PATCH") == []


def test_a_broken_canary_holds_the_gate(tmp_path, weu, capsys):
    status, doc, arm, _ = rollout_on_canary(tmp_path, capsys, weu, broken(weu))
    assert status == 4
    assert doc["action"] == "held" and doc["verify"]["summary"]["failMembers"] == ["aks-dra-prod-weu"]
    assert arm.calls("PATCH") == [] and arm.calls("POST", "/stop") == []


def test_an_unreachable_canary_is_not_proven_and_the_run_stopped_when_asked(tmp_path, weu, capsys):
    with FakeArm(GROUPS, fleet_path=FLEET_PATH) as arm:
        config = kubeconfig(tmp_path, {"another-cluster": "http://127.0.0.1:9"})
        status = rollout(arm, config, "--on-failure", "stop", "--no-smoke")
        out = capsys.readouterr()
        assert status == 4
        assert json.loads(out.out)["action"] == "stopped" and len(arm.calls("POST", "/k8s-1-35-3/stop")) == 1
        assert "member aks-dra-prod-weu (context aks-dra-prod-weu)" in out.out


def test_a_missing_role_is_one_line_exit_2_naming_it(tmp_path, weu, capsys):
    with FakeArm(GROUPS, forbidden=True, fleet_path=FLEET_PATH) as arm:
        status = rollout(arm, kubeconfig(tmp_path, {weu.cluster.name: "http://127.0.0.1:9"}))
    out = capsys.readouterr()
    assert status == 2 and json.loads(out.out)["exit"] == 2  # --json: a document on failure too
    (line,) = out.err.strip().splitlines()[-1:]
    assert line.startswith("fleet-rollout: ARM refused PUT") and ROLE in line and "AuthorizationFailed" in line


@pytest.mark.parametrize("argv, words", [
    (["--kubernetes-version", "1.35.3", "--node-image"], "not allowed with argument"),
    (["--node-image", "--control-plane-only"], "--control-plane-only goes with --kubernetes-version"),
    (["--node-image", "--run-name", "Bad_Name"], "'Bad_Name' cannot name an update run"),
    (["--attach-run", "auto-1", "--run-name", "x"], "not with --attach-run"),
    (["--node-image", "--context", "nosuch=x"], "--context nosuch: no such member of this fleet"),
    (["--node-image", "--arm-endpoint", "http://arm.example.com"], "give an https:// URL (the token is sent to it"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys):
    assert main(["fleet-rollout", "--fleet", "fleet", "--subscription", SUB, *argv]) == 2
    out = capsys.readouterr()
    assert words in out.err and out.out == ""


def test_no_subscription_says_where_to_give_it(capsys):
    assert main(["fleet-rollout", "--fleet", "fleet", "--node-image"]) == 2
    assert "pass --subscription or set ARM_SUBSCRIPTION_ID" in capsys.readouterr().err
