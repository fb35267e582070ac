"""The one credential of the online commands (components/online): `$ARM_ACCESS_TOKEN` for ARM, else azure-identity's
DefaultAzureCredential, never interactive; every wait for a token bounded; every failure one masked line; the ARM
endpoints a token may be sent to. fleet-rollout and preflight both take theirs from here."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from components.cli.rollout import _token
from components.online.credential import (
    ARM_SCOPE,
    PROMETHEUS_SCOPE,
    CredentialError,
    HeldToken,
    access_token,
    azure_credential,
    bearer_token,
)
from components.online.endpoints import arm_scope, endpoint_problem, needs_plain_http
from components.rollout.arm import CredentialToken

TOKEN = "held-arm-token-0123"


def test_arm_access_token_is_held_for_arm_only():
    held = azure_credential(ARM_SCOPE, {"ARM_ACCESS_TOKEN": f" {TOKEN}\n"})
    assert isinstance(held, HeldToken) and TOKEN not in repr(held)
    assert bearer_token(held, ARM_SCOPE, 1.0) == TOKEN
    # Azure Monitor's Prometheus is another audience: a token for ARM is no use there
    assert type(azure_credential(PROMETHEUS_SCOPE, {"ARM_ACCESS_TOKEN": TOKEN})).__name__ == "DefaultAzureCredential"


def test_without_a_held_token_it_is_azure_identitys_chain_never_a_browser():
    from azure.identity import DefaultAzureCredential

    credential = azure_credential(ARM_SCOPE, {})
    assert isinstance(credential, DefaultAzureCredential)
    names = [type(c).__name__ for c in credential.credentials]
    assert "InteractiveBrowserCredential" not in names
    # (workload identity joins the chain where its environment variables are set: GitHub OIDC through azure/login)
    assert {"EnvironmentCredential", "ManagedIdentityCredential", "AzureCliCredential"} <= set(names)


def test_fleet_rollout_takes_the_same_credential(monkeypatch):
    monkeypatch.setenv("ARM_ACCESS_TOKEN", TOKEN)
    provider = _token("https://management.azure.com")
    assert isinstance(provider, CredentialToken) and isinstance(provider.credential, HeldToken)
    assert provider() == TOKEN
    monkeypatch.delenv("ARM_ACCESS_TOKEN")
    assert type(_token("https://management.usgovcloudapi.net").credential).__name__ == "DefaultAzureCredential"
    assert _token("https://management.usgovcloudapi.net").scope == "https://management.usgovcloudapi.net/.default"


class Slow:
    """A credential that never answers within the test (a managed-identity probe that hangs)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        self.release.wait(5)
        raise RuntimeError("released")


def test_a_credential_that_never_answers_is_bounded():
    slow = Slow()
    started = time.monotonic()
    with pytest.raises(CredentialError, match=r"no Azure token for .* within 0.2 s: run `az login`"):
        bearer_token(slow, ARM_SCOPE, 0.2)
    slow.release.set()
    assert time.monotonic() - started < 2


class Failing:
    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        raise ValueError(f"AADSTS700024: client assertion is not within its valid time range\nBearer {TOKEN}xyz")


def test_a_failure_is_one_masked_line():
    with pytest.raises(CredentialError) as caught:
        bearer_token(Failing(), ARM_SCOPE, 1.0)
    (line,) = str(caught.value).splitlines()
    assert line.startswith("no Azure token for https://management.azure.com/.default: ValueError: AADSTS700024")
    assert TOKEN not in line


def test_the_expiry_comes_with_the_token():
    token, expires = access_token(HeldToken(TOKEN), ARM_SCOPE, 1.0)
    assert token == TOKEN and expires > time.time() + 3000


@pytest.mark.parametrize(("url", "ok"), [("https://management.azure.com", True), ("http://127.0.0.1:8080", True),
                                         ("http://localhost:1", True), ("http://arm.example.com", False),
                                         ("ftp://127.0.0.1", False), ("management.azure.com", False)])
def test_a_token_goes_over_https_or_to_loopback_only(url, ok):
    assert (endpoint_problem("--arm-endpoint", url) is None) is ok


def test_scopes_and_plain_http():
    assert arm_scope("https://management.azure.com/") == ARM_SCOPE
    assert arm_scope("http://127.0.0.1:9") == ARM_SCOPE
    assert arm_scope("https://management.chinacloudapi.cn") == "https://management.chinacloudapi.cn/.default"
    assert needs_plain_http("http://127.0.0.1:9") and not needs_plain_http("https://management.azure.com")
