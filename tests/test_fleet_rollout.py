"""The rollout against a fake ARM on loopback (tests/fake_arm.py): the run it creates (2026-06-01 body, a gate after
the canary), the gate approved only after the canary's members pass, held or the run stopped when they fail, the
fallback for runs without a gate, and a missing role as one clear line."""

from __future__ import annotations

import pytest

from components.rollout.arm import ROLE, ROLE_ID, ArmClient, ArmError, CredentialToken, TokenError
from components.rollout.flow import Follow, create_and_start, follow_run
from components.rollout.updaterun import GATE_DISPLAY_NAME, FleetRef, Stage, run_body, run_name_problem, upgrade
from tests.fake_arm import FLEET, RG, SUB, TOKEN, FakeArm
from tests.loopback import LoopbackServer

STAGES = [Stage("canary", ("canary",), 0), Stage("wave-1", ("wave-1",), 3600)]
GROUPS = {"canary": ["eu-canary"], "wave-1": ["us-wave"]}
FLEET_REF = FleetRef(SUB, RG, FLEET)


def fast(**kw) -> Follow:
    return Follow(poll=0.0, timeout=30.0, sleep=lambda _s: None, **kw)


class Prover:
    """Stands in for `verify --fleet` on the members it is given; records what it was asked."""

    def __init__(self, passed: bool):
        self.passed = passed
        self.asked: list[list[str]] = []

    def __call__(self, members: list[str]):
        self.asked.append(members)
        return self.passed, {"summary": {"status": "ok" if self.passed else "fail", "exit": 0 if self.passed else 4}}


def arm_client(arm: FakeArm, token: str = TOKEN) -> ArmClient:
    return ArmClient(lambda: token, base_url=arm.url, sleep=lambda _s: None)


def start(arm: FakeArm, prover: Prover, **kw):
    client = arm_client(arm)
    body = run_body(STAGES, upgrade("1.35.3", False))
    create_and_start(client, FLEET_REF, "gpu-rollout-1", body, fast(), lambda _l: None)
    return follow_run(client, FLEET_REF, "gpu-rollout-1", STAGES[0], prover, fast(**kw), lambda _l: None)


def test_the_run_body_is_the_fleets_stages_with_a_gate_after_the_canary():
    body = run_body(STAGES, upgrade(None, True), "Consistent")
    stages = body["properties"]["strategy"]["stages"]
    assert stages[0] == {"name": "canary", "groups": [{"name": "canary"}], "afterStageWaitInSeconds": 0,
                         "afterGates": [{"displayName": GATE_DISPLAY_NAME, "type": "Approval"}]}
    assert "afterGates" not in stages[1] and stages[1]["afterStageWaitInSeconds"] == 3600
    assert body["properties"]["managedClusterUpdate"] == {"upgrade": {"type": "NodeImageOnly"},
                                                          "nodeImageSelection": {"type": "Consistent"}}
    assert upgrade("1.35.3", False) == {"type": "Full", "kubernetesVersion": "1.35.3"}
    assert upgrade("1.35.3", False, control_plane_only=True)["type"] == "ControlPlaneOnly"
    assert 1 <= len(GATE_DISPLAY_NAME) <= 100
    assert run_name_problem("gpu-rollout-1") is None and "cannot name an update run" in run_name_problem("Bad_Name")


def test_a_pending_gate_is_approved_after_the_canary_passes():
    with FakeArm(GROUPS) as arm:
        prover = Prover(True)
        outcome = start(arm, prover)
        assert outcome.exit == 0 and outcome.action == "approved" and outcome.state == "Completed", outcome
        assert prover.asked == [["eu-canary"]]  # only the canary stage's members
        (put,) = arm.calls("PUT", "/updateRuns/gpu-rollout-1")
        assert put[2]["properties"]["strategy"]["stages"][0]["afterGates"][0]["type"] == "Approval"
        assert len(arm.calls("POST", "/start")) == 1 and arm.calls("POST", "/stop") == []
        (patch,) = arm.calls("PATCH")
        assert patch[2] == {"properties": {"state": "Completed"}}
        assert patch[1].startswith(f"/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.ContainerService/"
                                   f"fleets/{FLEET}/gates/")
        # the approval came after the proof, and nothing was approved before the gate was Pending
        order = [m for m, p, _ in arm.requests if m != "GET"]
        assert order == ["PUT", "POST", "PATCH"]


def test_not_following_to_the_end_returns_once_approved():
    with FakeArm(GROUPS) as arm:
        outcome = start(arm, Prover(True), to_the_end=False)
        assert outcome.exit == 0 and outcome.action == "approved" and outcome.state != "Completed"
        assert arm.runs["gpu-rollout-1"]["properties"]["status"]["status"]["state"] == "Running"


def test_a_failing_canary_leaves_the_gate_pending():
    with FakeArm(GROUPS) as arm:
        outcome = start(arm, Prover(False))
        assert outcome.exit == 4 and outcome.action == "held"
        assert "left Pending" in outcome.message and outcome.report["summary"]["status"] == "fail"
        assert arm.calls("PATCH") == [] and arm.calls("POST", "/stop") == []
        assert [g["properties"]["state"] for g in arm.gates.values()] == ["Pending"]


def test_a_failing_canary_stops_the_run_when_asked():
    with FakeArm(GROUPS) as arm:
        outcome = start(arm, Prover(False), on_failure="stop")
        assert outcome.exit == 4 and outcome.action == "stopped"
        assert arm.calls("PATCH") == [] and len(arm.calls("POST", "/gpu-rollout-1/stop")) == 1


def test_a_run_without_gates_is_proven_after_the_canary_and_stopped_when_it_fails():
    """The fallback for runs an auto-upgrade profile started from a strategy without gates."""
    strategy = {"stages": [{"name": "canary", "groups": [{"name": "canary"}], "afterStageWaitInSeconds": 3600},
                           {"name": "wave-1", "groups": [{"name": "wave-1"}]}]}
    with FakeArm(GROUPS) as arm:
        arm.add_run("auto-1", strategy)
        prover = Prover(False)
        outcome = follow_run(arm_client(arm), FLEET_REF, "auto-1", STAGES[0], prover, fast(), lambda _l: None)
        assert outcome.exit == 4 and outcome.action == "stopped" and prover.asked == [["eu-canary"]]
        assert arm.calls("PUT") == [] and len(arm.calls("POST", "/auto-1/stop")) == 1
        # and when it passes, the run goes on untouched
        arm.add_run("auto-2", strategy)
        outcome = follow_run(arm_client(arm), FLEET_REF, "auto-2", STAGES[0], Prover(True), fast(), lambda _l: None)
        assert outcome.exit == 0 and outcome.state == "Completed" and arm.calls("POST", "/auto-2/stop") == []


def test_a_run_that_ends_without_the_proof_is_exit_5():
    with FakeArm(GROUPS) as arm:
        run = arm.add_run("other", {"stages": [{"name": "canary", "groups": [{"name": "canary"}]}]})
        run["properties"]["status"]["status"]["state"] = "Failed"
        outcome = follow_run(arm_client(arm), FLEET_REF, "other", STAGES[0], Prover(True), fast(), lambda _l: None)
        assert outcome.exit == 5 and "ended Failed" in outcome.message


def test_time_running_out_leaves_the_run_as_it_is():
    ticks = iter(range(0, 10_000, 100))
    with FakeArm(GROUPS) as arm:
        arm.add_run("slow", {"stages": [{"name": "canary", "groups": [{"name": "canary"}],
                                         "afterGates": [{"type": "Approval"}]}]}, started=False)
        follow = Follow(poll=0.0, timeout=250.0, sleep=lambda _s: None, clock=lambda: float(next(ticks)))
        outcome = follow_run(arm_client(arm), FLEET_REF, "slow", STAGES[0], Prover(True), follow, lambda _l: None)
        assert outcome.exit == 3 and "left as it is" in outcome.message and arm.calls("PATCH") == []


def test_a_missing_role_is_one_line_naming_it():
    with FakeArm(GROUPS, forbidden=True) as arm, pytest.raises(ArmError) as caught:
        start(arm, Prover(True))
    message = str(caught.value)
    assert caught.value.status == 403 and caught.value.code == "AuthorizationFailed"
    assert ROLE in message and ROLE_ID in message and "\n" not in message
    assert message.startswith("ARM refused PUT /subscriptions/") and "api-version" not in message


def test_a_wrong_token_is_arms_own_error():
    with FakeArm(GROUPS) as arm, pytest.raises(ArmError, match="401 InvalidAuthenticationToken: bad token"):
        arm_client(arm, "nope").request("GET", f"{FLEET_REF.run_path('x')}", "2026-06-01")


def test_a_gate_of_another_fleet_is_never_approved():
    with pytest.raises(ValueError, match="not a gate of fleet"):
        FLEET_REF.gate_path(f"/subscriptions/{SUB}/resourceGroups/other/providers/Microsoft.ContainerService/fleets/"
                            f"{FLEET}/gates/aaaa0a0a-bb1b-cc2c-dd3d-eeeeee4e4e4e")
    assert FLEET_REF.gate_path(f"{FLEET_REF.path}/gates/aaaa0a0a-bb1b-cc2c-dd3d-eeeeee4e4e4e").endswith(
        "/gates/aaaa0a0a-bb1b-cc2c-dd3d-eeeeee4e4e4e")


class Credential:
    """Stands in for azure-identity's credential: hands out numbered tokens, each valid an hour; records the scopes."""

    def __init__(self, now: list[float], error: Exception | None = None):
        self.now, self.error, self.scopes = now, error, []

    def get_token(self, *scopes: str, **_kw):
        from azure.core.credentials import AccessToken

        self.scopes.append(scopes)
        if self.error is not None:
            raise self.error
        return AccessToken(f"t{len(self.scopes)}", int(self.now[0]) + 3600)


def test_the_credentials_token_is_kept_until_shortly_before_it_expires():
    now = [1000.0]
    credential = Credential(now)
    token = CredentialToken(credential, "https://management.azure.com/.default", clock=lambda: now[0])
    assert token() == "t1" and token() == "t1" and credential.scopes == [("https://management.azure.com/.default",)]
    now[0] += 3600 - 200  # inside the refresh margin
    assert token() == "t2"


def test_no_credential_says_how_to_get_one_and_is_an_arm_error_of_the_client():
    from azure.core.exceptions import ClientAuthenticationError

    credential = Credential([0.0], ClientAuthenticationError("DefaultAzureCredential failed to retrieve a token"))
    token = CredentialToken(credential, "https://management.azure.com/.default")
    with pytest.raises(TokenError, match=r"Run `az login`, or set AZURE_CLIENT_ID/AZURE_TENANT_ID .* or ARM_ACCESS_TOKEN"):
        token()
    with pytest.raises(ArmError, match="DefaultAzureCredential failed to retrieve a token") as caught:
        ArmClient(token, base_url="http://127.0.0.1:9", sleep=lambda _s: None).request("GET", "/x", "2026-06-01")
    assert (caught.value.status, caught.value.code) == (401, "NoToken")


def test_a_busy_arm_is_asked_again_for_reads_only():
    """A 503 while polling a run that lasts hours must not end the rollout; a refused write is never sent twice."""
    import json
    from http.server import BaseHTTPRequestHandler

    seen: list[str] = []

    class Busy(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _answer(self):
            seen.append(self.command)
            code, body = (503, {"error": {"code": "ServerBusy", "message": "try later"}}) if len(seen) == 1 or \
                self.command == "POST" else (200, {"ok": True})
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._answer()

        def do_POST(self):
            self._answer()

    with LoopbackServer(Busy) as server:
        client = ArmClient(lambda: "t", base_url=server.url, sleep=lambda _s: None)
        assert client.request("GET", "/x", "2026-06-01") == {"ok": True} and seen == ["GET", "GET"]
        with pytest.raises(ArmError, match="503 ServerBusy: try later"):
            client.request("POST", "/x/stop", "2026-06-01")
        assert seen == ["GET", "GET", "POST"]


def test_an_attached_run_of_another_strategy_has_its_own_first_stage_as_canary():
    strategy = {"stages": [{"name": "first", "groups": [{"name": "canary"}], "afterGates": [{"type": "Approval"}]},
                           {"name": "second", "groups": [{"name": "wave-1"}]}]}
    with FakeArm(GROUPS) as arm:
        arm.add_run("manual", strategy)
        prover = Prover(True)
        outcome = follow_run(arm_client(arm), FLEET_REF, "manual", STAGES[0], prover, fast(), lambda _l: None)
        assert outcome.exit == 0 and prover.asked == [["eu-canary"]] and len(arm.calls("PATCH")) == 1
