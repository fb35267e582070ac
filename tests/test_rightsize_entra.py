"""`rightsize` and its tokens: an Azure Monitor workspace's endpoint gets a Microsoft Entra token for
https://prometheus.monitor.azure.com/.default from `online.credential` (azure-identity, here a stand-in for it), a
self-hosted one the token in PROMETHEUS_TOKEN; a loopback endpoint checks the bearer token it is sent, and no token
ever appears in what the command prints, even when the endpoint repeats it."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from components.cli import main
from components.online.credential import PROMETHEUS_SCOPE
from components.rightsize import endpoint as endpoint_module
from components.rightsize.endpoint import endpoint
from tests.fake_prometheus import JSON, FakePrometheus, a10_row, vectors

ENTRA_TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJwcm9tZXRoZXVzIn0.c2lnbmF0dXJl"
SELF_TOKEN = "self-hosted-token-5f2a9c"


class Credential:
    """What azure-identity's DefaultAzureCredential answers, for the scopes it is asked."""

    def __init__(self, token: str = ENTRA_TOKEN, wait: float = 0.0):
        self.token, self.wait, self.scopes = token, wait, []

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        self.scopes += scopes
        time.sleep(self.wait)
        return type("AccessToken", (), {"token": self.token, "expires_on": int(time.time()) + 3600})()


def checking(token: str, refuse: int = 0) -> Any:
    """Answers the usage queries only to `Bearer <token>`; else (or with `refuse`) a refusal that repeats the header
    it was sent, as some proxies do."""
    rows = vectors(a10_row("GPU-1", 7987, 3000, claim="c", pod="chat-1"))

    def answer(form: dict[str, str], headers: dict[str, str]) -> Any:
        sent = headers.get("Authorization", "")
        if refuse or sent != f"Bearer {token}":
            body = json.dumps({"status": "error", "error": f"token rejected: {sent}"}).encode()
            return refuse or 401, JSON, body, {}
        return rows(form, headers)
    return answer


def run(capsys: pytest.CaptureFixture[str], url: str, *more: str) -> tuple[int, str, str]:
    code = main(["rightsize", "--prometheus", url, "--at", "1760000400", "--region", "westeurope", *more])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def credential(monkeypatch: pytest.MonkeyPatch) -> Credential:
    found = Credential()
    asked: list[str] = []

    def azure_credential(scope: str, env: Any = None) -> Credential:
        asked.append(scope)
        return found

    monkeypatch.setattr(endpoint_module, "azure_credential", azure_credential)
    monkeypatch.delenv("PROMETHEUS_TOKEN", raising=False)
    found.asked = asked  # type: ignore[attr-defined]
    return found


def test_the_entra_token_is_sent_and_never_shown(credential, capsys) -> None:
    with FakePrometheus(checking(ENTRA_TOKEN)) as server:
        code, out, err = run(capsys, server.url, "--entra", "--json")
    assert (code, err) == (3, "")
    assert credential.asked == [PROMETHEUS_SCOPE] and credential.scopes == [PROMETHEUS_SCOPE]
    assert json.loads(out)["workloads"][0]["verdict"] == "downsize"
    assert all(headers["Authorization"] == f"Bearer {ENTRA_TOKEN}" for _, headers in server.requests)
    assert ENTRA_TOKEN not in out


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_entra_token_names_the_role_and_hides_the_token(status, credential, capsys) -> None:
    with FakePrometheus(checking(ENTRA_TOKEN, refuse=status)) as server:
        code, out, err = run(capsys, server.url, "--entra")
    assert (code, out) == (2, "")
    assert f"answered {status}" in err and "the identity needs the 'Monitoring Data Reader' role on the Azure Monitor " \
        "workspace" in err
    assert ENTRA_TOKEN not in err and ENTRA_TOKEN[:20] not in err


def test_a_credential_that_never_answers_is_bounded(credential, capsys) -> None:
    credential.wait = 5
    with FakePrometheus(checking(ENTRA_TOKEN)) as server:
        started = time.monotonic()
        code, out, err = run(capsys, server.url, "--entra", "--timeout", "0.5")
        took = time.monotonic() - started
    assert (code, out, server.requests) == (2, "", []) and took < 2.5
    assert err.startswith(f"no Azure token for {PROMETHEUS_SCOPE} within 0.5 s: run `az login`")


def test_the_environments_token_goes_to_a_self_hosted_prometheus(capsys, monkeypatch) -> None:
    monkeypatch.setenv("PROMETHEUS_TOKEN", SELF_TOKEN)
    with FakePrometheus(checking(SELF_TOKEN)) as server:
        code, out, err = run(capsys, server.url)
    assert (code, err) == (3, "") and SELF_TOKEN not in out
    assert {headers["Authorization"] for _, headers in server.requests} == {f"Bearer {SELF_TOKEN}"}


def test_a_refused_environment_token_is_named_and_hidden(capsys, monkeypatch) -> None:
    monkeypatch.setenv("PROMETHEUS_TOKEN", SELF_TOKEN)
    with FakePrometheus(checking("another")) as server:
        code, out, err = run(capsys, server.url)
    assert (code, out) == (2, "")
    assert err == f"{server.url} answered 401 (refused the token): check the token in PROMETHEUS_TOKEN\n"


def test_no_token_is_sent_where_none_is_asked_for(capsys, monkeypatch) -> None:
    monkeypatch.delenv("PROMETHEUS_TOKEN", raising=False)
    with FakePrometheus(vectors(a10_row("GPU-1", 7987, 3000, claim="c", pod="chat-1"))) as server:
        assert run(capsys, server.url)[0] == 3
    assert all("Authorization" not in headers for _, headers in server.requests)


@pytest.mark.parametrize("url, auth", [
    ("https://amw-prod-a1b2.westeurope.prometheus.monitor.azure.com", "entra"),
    ("https://amw-prod-a1b2.westeurope.prometheus.monitor.azure.com/", "entra"),
    ("http://prometheus.monitoring:9090", "none"),
    ("https://prometheus.example.com/prom", "none"),
])
def test_the_host_says_which_token(url, auth) -> None:
    found = endpoint(url, env={})
    assert (found.auth, found.url.endswith("/")) == (auth, False)
    assert endpoint(url, env={"PROMETHEUS_TOKEN": "t"}).auth == "token"
    assert endpoint(url, entra=True, env={}).auth == "entra"
