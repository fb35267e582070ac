"""`fleet-rollout`'s inputs and limits: every input checked before the first ARM call (the Kubernetes version against
AKS's catalog), all problems at once and a --json document on failure; no token in any message (ARM may repeat it);
and `--timeout` bounding a wait on an ARM that never answers (fake ARMs on loopback, tests/fake_arm.py)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from components.cli import main
from components.rollout.arm import ArmClient, ArmError, mask
from tests.fake_arm import SUB, TOKEN, FakeArm
from tests.loopback import LoopbackServer

JWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL21hbmFnZW1lbnQuYXp1cmUuY29tIn0.c2lnbmF0dXJlLXBhcnQ"


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("ARM_ACCESS_TOKEN", TOKEN)
    for name in ("ARM_SUBSCRIPTION_ID", "AZURE_SUBSCRIPTION_ID"):
        monkeypatch.delenv(name, raising=False)


def rollout(url: str, *argv: str) -> int:
    return main(["fleet-rollout", "--fleet", "fleet", "--subscription", SUB, "--arm-endpoint", url, "--poll", "0",
                 "--no-smoke", "--run-name", "run-1", *argv])


# --- inputs ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("version, words", [
    ("banana", "'banana' is not a Kubernetes version: give X.Y.Z of a minor AKS offers (1.33 (LTS only), 1.34"),
    ("latest", "'latest' is not a Kubernetes version"),
    ("1.40.1", "'1.40.1' is not a Kubernetes version AKS offers (as of 2026-12-04); supported: 1.33 (LTS only)"),
    ("1.36", "'1.36': an update run names a patch: give X.Y.Z no newer than 1.36.3"),
    ("1.36.9", "'1.36.9': not a patch AKS offers (the newest 1.36 patch known on 2026-12-04 is 1.36.3)"),
])
def test_a_version_aks_does_not_offer_is_refused_before_any_arm_call(version, words, capsys):
    with FakeArm({}) as arm:
        assert rollout(arm.url, "--kubernetes-version", version) == 2
    err = capsys.readouterr().err
    assert f"fleet-rollout: --kubernetes-version {words}" in err
    assert arm.requests == []


def test_an_offered_version_is_sent_as_written():
    with FakeArm({}, forbidden=True) as arm:
        rollout(arm.url, "--kubernetes-version", "1.36.3")
    assert arm.requests[0][2]["properties"]["managedClusterUpdate"]["upgrade"]["kubernetesVersion"] == "1.36.3"


def test_every_problem_comes_at_once_and_json_prints_a_document(capsys):
    with FakeArm({}) as arm:
        status = rollout(arm.url, "--kubernetes-version", "banana", "--context", "oops", "--context", "nosuch=x",
                         "--json")
    out = capsys.readouterr()
    assert status == 2 and arm.requests == []
    doc = json.loads(out.out)
    assert doc["exit"] == 2 and doc["run"] is None and doc["action"] == "none"
    assert [p.split(":")[1].strip().split(" ")[0] for p in doc["problems"]] == ["--kubernetes-version", "--context",
                                                                                  "--context"]
    assert "'oops': give member=context" in doc["problems"][1] and "nosuch: no such member" in doc["problems"][2]
    assert out.err.count("fleet-rollout:") == 3


# --- tokens -----------------------------------------------------------------------------------------------------------
def test_mask_hides_known_tokens_bearer_headers_and_jwts():
    text = f"Authorization: Bearer {JWT} then {JWT} and secret-token-1 and Bearer%20abc.def"
    masked = mask(text, ["secret-token-1", "t"])
    assert masked == "Authorization: Bearer *** then *** and *** and Bearer%20***"
    assert mask("a t b", ["t"]) == "a t b"  # too short to be a token: never masks every 't'


@pytest.mark.parametrize("token", [TOKEN, JWT])
def test_an_arm_error_that_repeats_the_token_is_masked(token, monkeypatch, capsys):
    monkeypatch.setenv("ARM_ACCESS_TOKEN", token)
    with FakeArm({}, echo_token=True) as arm:
        status = rollout(arm.url, "--kubernetes-version", "1.36.3", "--json")
    out = capsys.readouterr()
    assert status == 2
    assert token not in out.err and token not in out.out
    line = out.err.strip().splitlines()[-1]
    assert line.startswith("fleet-rollout: ARM PUT ") and "Authorization: Bearer *** rejected; token *** is" in line
    assert "Bearer ***" in json.loads(out.out)["message"]


def test_the_client_masks_what_it_raises():
    with FakeArm({}, echo_token=True) as arm, pytest.raises(ArmError) as caught:
        ArmClient(lambda: TOKEN, base_url=arm.url, sleep=lambda _s: None).request("GET", "/x", "2026-06-01")
    assert TOKEN not in str(caught.value) and "token *** is not valid" in str(caught.value)


# --- time limits ------------------------------------------------------------------------------------------------------
class Silent(LoopbackServer):
    """An ARM that accepts the connection and never answers (until the test ends)."""

    def __init__(self):
        self.release = threading.Event()
        release = self.release

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                release.wait(10)

            def do_PUT(self):
                release.wait(10)

        super().__init__(Handler)

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        super().__exit__(*exc)


def test_a_silent_arm_cannot_outlast_the_deadline():
    """The socket wait is bounded by what is left of the deadline (0.2 s), not by the client's 30 s; the GET retries
    that would follow are not waited for once the deadline is gone."""
    now = [0.0]
    with Silent() as arm:
        client = ArmClient(lambda: TOKEN, base_url=arm.url, sleep=lambda s: now.__setitem__(0, now[0] + s),
                           clock=lambda: now[0], deadline=0.2)
        with pytest.raises(ArmError) as caught:
            client.request("GET", "/x", "2026-06-01")
    assert caught.value.code == "Timeout" and "before the command's time limit" in str(caught.value)


def test_a_deadline_already_gone_sends_nothing():
    with FakeArm({}) as arm, pytest.raises(ArmError, match="before the command's time limit"):
        ArmClient(lambda: TOKEN, base_url=arm.url, clock=lambda: 10.0, deadline=5.0).request("GET", "/x", "2026-06-01")
    assert arm.requests == []


def test_the_command_times_out_with_exit_3_on_a_silent_arm(capsys):
    with Silent() as arm:
        status = rollout(arm.url, "--kubernetes-version", "1.36.3", "--timeout", "0.3", "--json")
    out = capsys.readouterr()
    assert status == 3, out.err
    doc = json.loads(out.out)
    assert doc["exit"] == 3 and doc["run"] == "run-1" and "--timeout 0.3 s ran out" in doc["message"]
