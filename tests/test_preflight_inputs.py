"""`preflight`'s bad input, each one clear line (exit 2), and how it reads ARM: no credential, an expired token, a 403
naming the role, a subscription that is no GUID, a region the subscription cannot use, an ARM that never answers
(bounded by --timeout), throttling retried with backoff within the deadline, results paged with nextLink. The credential
comes injected or from $ARM_ACCESS_TOKEN; no token appears in any output. The real azure-mgmt-compute client talks to
the fake ARM of tests/fake_compute.py."""

from __future__ import annotations

import time
from typing import Any

import pytest

from components.cli import _parser, main
from components.cli.preflight import run_preflight
from components.online.credential import HeldToken
from components.preflight.demand import surge_nodes
from tests.fake_compute import TOKEN, FakeCompute, Scenario
from tests.test_preflight import WEU, dev_skus, quotas, sub


@pytest.fixture(autouse=True)
def _token(arm_token):
    """Every test here authenticates with the held token (tests.fake_compute)."""


def fine() -> Scenario:
    return Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus()})


def refused(capsys, *argv: str) -> str:
    """The one line of a preflight that exits 2; no token in it, nothing on stdout."""
    status = main(["preflight", "--stack", "dev", *argv])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert TOKEN not in err
    (line,) = err.splitlines()
    return line


def args(arm: FakeCompute, subscription: str, *extra: str) -> Any:
    return _parser().parse_args(["preflight", "--stack", "dev", "--subscription", subscription, "--arm-endpoint",
                                 arm.url, *extra])


def test_a_subscription_that_is_no_guid(capsys):
    assert refused(capsys, "--subscription", "my-sub") == (
        "preflight: --subscription 'my-sub' is not a subscription ID: give the GUID "
        "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, `az account show --query id -o tsv`)")


def test_no_subscription_anywhere_says_where_to_give_one(capsys):
    assert refused(capsys) == ("preflight: dev: no subscription to check: pass --subscription ID, set "
                               "azure-native:subscriptionId in the stack file, or set $ARM_SUBSCRIPTION_ID")


def test_the_subscription_from_the_environment_is_checked_too(capsys, monkeypatch):
    monkeypatch.setenv("AZURE_SUBSCRIPTION_ID", "nope")
    assert refused(capsys).startswith("preflight: $AZURE_SUBSCRIPTION_ID 'nope' is not a subscription ID")


def test_plain_http_only_on_loopback(capsys):
    assert refused(capsys, "--subscription", sub(1), "--arm-endpoint", "http://arm.example.com") == (
        "preflight: --arm-endpoint http://arm.example.com: give an https:// URL (the token is sent to it; plain http "
        "only to a loopback address)")


class NoCredential:
    """A credential that has nothing, as DefaultAzureCredential says when no source of its chain answers."""

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        from azure.core.exceptions import ClientAuthenticationError

        raise ClientAuthenticationError("DefaultAzureCredential failed to retrieve a token from the included "
                                        "credentials.\nAttempted credentials:\n\tEnvironmentCredential: incomplete")


def test_no_credential_is_one_line_saying_how_to_get_one(capsys, arm):
    arm.scenarios[sub(20)] = fine()
    with pytest.raises(Exception) as caught:
        run_preflight(args(arm, sub(20)), credential=NoCredential())
    assert str(caught.value) == (
        "preflight: no Azure token for https://management.azure.com/.default: ClientAuthenticationError: "
        "DefaultAzureCredential failed to retrieve a token from the included credentials. Run `az login`, or set "
        "AZURE_CLIENT_ID/AZURE_TENANT_ID with a secret or a federated token (workload identity), or ARM_ACCESS_TOKEN "
        "for ARM")
    assert arm.asked("usages", sub(20)) == []  # nothing was sent without a token


def test_an_injected_credential_is_the_one_every_request_carries(capsys, arm, monkeypatch):
    monkeypatch.delenv("ARM_ACCESS_TOKEN")
    arm.scenarios[sub(21)] = fine()
    assert run_preflight(args(arm, sub(21)), credential=HeldToken(TOKEN)) == 0
    out = capsys.readouterr().out
    assert TOKEN not in out and "preflight: enough quota" in out
    assert {auth for path, _, auth in arm.requests if sub(21) in path} == {f"Bearer {TOKEN}"}


def test_arm_access_token_is_the_credential_when_set(capsys, arm):
    arm.scenarios[sub(22)] = fine()
    assert main(["preflight", "--stack", "dev", "--subscription", sub(22), "--arm-endpoint", arm.url]) == 0
    assert TOKEN not in capsys.readouterr().out
    assert {auth for path, _, auth in arm.requests if sub(22) in path} == {f"Bearer {TOKEN}"}


def test_an_expired_token_is_said_and_never_shown(capsys, arm):
    arm.scenarios[sub(23)] = Scenario(error=(401, "ExpiredAuthenticationToken", (
        f"The access token expiry UTC time '9/1/2026 10:00:00 AM' is earlier than current UTC time; token {TOKEN}")))
    line = refused(capsys, "--subscription", sub(23), "--arm-endpoint", arm.url)
    assert line.startswith("preflight: ARM refused the token (401 ExpiredAuthenticationToken: The access token expiry")
    assert "token ***" in line and line.endswith("it has expired or is not a token for ARM; run `az login` again, or "
                                                 "refresh $ARM_ACCESS_TOKEN")


def test_a_403_names_the_reader_role(capsys, arm):
    arm.scenarios[sub(24)] = Scenario(error=(403, "AuthorizationFailed", "The client 'ci' does not have authorization "
                                             "to perform action 'Microsoft.Compute/locations/usages/read'"))
    assert refused(capsys, "--subscription", sub(24), "--arm-endpoint", arm.url) == (
        f"preflight: ARM refused reading the Compute usages of subscription {sub(24)} (403 AuthorizationFailed): the "
        "identity needs the 'Reader' role (acdd72a7-3385-48ef-bd42-f606fba81ae7) on the subscription; Reader is enough")


def test_a_region_the_subscription_cannot_use(capsys, arm):
    arm.scenarios[sub(25)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus()}, unusable=(WEU,))
    line = refused(capsys, "--subscription", sub(25), "--arm-endpoint", arm.url)
    assert line.startswith(f"preflight: region westeurope: subscription {sub(25)} cannot use it (400 "
                           "NoRegisteredProviderFound: No registered resource provider found for location 'westeurope'")
    assert line.endswith("deploy to a region it can use, or ask for access to this one")


def test_an_arm_that_never_answers_is_bounded_by_the_timeout(capsys, arm):
    arm.scenarios[sub(26)] = Scenario(hang=True)
    started = time.monotonic()
    line = refused(capsys, "--subscription", sub(26), "--arm-endpoint", arm.url, "--timeout", "0.3")
    assert time.monotonic() - started < 3
    assert line == (f"preflight: no answer from ARM ({arm.url}) for the Compute usages of westeurope within --timeout "
                    "0.3 s")


def test_an_unreachable_arm_is_one_line_after_its_retries(capsys, arm):
    with FakeCompute() as gone:
        closed = gone
    slept: list[float] = []
    with pytest.raises(Exception) as caught:
        run_preflight(args(closed, sub(27)), sleep=slept.append)
    (line,) = str(caught.value).splitlines()
    assert line.startswith(f"preflight: ARM ({closed.url}) unreachable for the Compute usages of westeurope: ")
    assert slept  # connection errors are retried (with backoff) before giving up


def test_throttling_is_retried_with_the_servers_pause_within_the_deadline(capsys, arm):
    arm.scenarios[sub(28)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus()}, throttle=2, retry_after="7")
    slept: list[float] = []
    assert run_preflight(args(arm, sub(28)), sleep=slept.append) == 0
    assert slept == [7.0, 7.0]  # Retry-After honoured, each pause through the injected sleep
    assert len(arm.asked("usages", sub(28))) == 3


def test_a_pause_past_the_deadline_is_not_waited_for(capsys, arm):
    arm.scenarios[sub(29)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus()}, throttle=1, retry_after="30")
    slept: list[float] = []
    with pytest.raises(Exception, match=r"no answer from ARM .* within --timeout 10 s"):
        run_preflight(args(arm, sub(29), "--timeout", "10"), sleep=slept.append)
    assert slept == []


def test_every_page_is_read(capsys, arm):
    arm.scenarios[sub(30)] = Scenario(usages={WEU: quotas()}, skus={WEU: dev_skus()}, page=1)
    assert run_preflight(args(arm, sub(30))) == 0
    usages, skus = arm.asked("usages", sub(30)), arm.asked("skus", sub(30))
    assert [q.get("$skiptoken") for q in usages] == [None, ["1"], ["2"], ["3"]]  # four quotas, one a page
    assert [q.get("$skiptoken") for q in skus] == [None, ["1"]]
    assert all(q["$filter"] == ["location eq 'westeurope'"] for q in skus)  # the filter survives the nextLink
    assert "StandardNVADSA10v5Family      18     100" in capsys.readouterr().out  # the last page's quota was read


@pytest.mark.parametrize(("surge", "nodes", "extra"), [("1", 4, 1), ("3", 2, 3), ("33%", 4, 2), ("10%", 1, 1),
                                                       ("10%", 10, 1), ("10%", 11, 2), ("100%", 3, 3), ("50%", 0, 0)])
def test_surge_rounds_a_percentage_up_as_aks_does(surge, nodes, extra):
    assert surge_nodes(surge, nodes) == extra


def test_the_stacks_own_subscription_is_used_and_checked(capsys, arm, tmp_path):
    from tests.test_preflight import platform, write_project

    config = {**platform(WEU, [{"name": "a10", "vmSize": "Standard_NV6ads_A10_v5", "count": 1}]),
              "azure-native:subscriptionId": sub(31).upper()}
    project = write_project(tmp_path, {"owned": config, "typo": {**config, "azure-native:subscriptionId": "sub-31"}})
    arm.scenarios[sub(31)] = fine()
    assert main(["preflight", "--stack", "owned", "--project-dir", str(project), "--arm-endpoint", arm.url]) == 0
    assert f"subscription {sub(31)}, region westeurope (stacks: owned)" in capsys.readouterr().out
    assert main(["preflight", "--stack", "typo", "--project-dir", str(project), "--arm-endpoint", arm.url]) == 2
    assert capsys.readouterr().err.startswith("preflight: typo: azure-native:subscriptionId 'sub-31' is not a "
                                              "subscription ID")


def test_a_fleet_stack_is_checked_with_fleet(capsys):
    assert main(["preflight", "--stack", "fleet", "--subscription", sub(1)]) == 2
    assert capsys.readouterr().err.strip() == (
        "stacks/Pulumi.fleet.yaml: a fleet stack (it has the 'fleet' section); it has no pools of its own; check its "
        "members' quota with `preflight --fleet fleet`")
