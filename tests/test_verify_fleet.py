"""`verify --fleet`: every member stack of a fleet verified on its own cluster (recorded clusters from
tests/verify_cluster.py), each member's checks under its name, and the fleet's exit status; then the command itself
against fake API servers on loopback, one per member, found through the kubeconfig context named after each cluster."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from components.cli import main
from components.verify import UnreachableError
from components.verify.fleet import MemberTarget, fleet_text_lines, targets_for, verify_fleet
from tests.test_verify_cli import TOKEN, FakeApi
from tests.verify_cluster import FakeClient, healthy, stack, stack_fixture

dev, prod = stack_fixture("dev"), stack_fixture("prod")


def broken(config):
    cluster = healthy(config)
    cluster.slices = []  # the driver publishes nothing: a failed `slice` check per GPU node
    return cluster


def not_yet(config):
    cluster = healthy(config)
    cluster.pods = {ns: [{**p, "status": {**p["status"], "phase": "Pending", "conditions": [
        {"type": "Ready", "status": "False"}]}} for p in pods] for ns, pods in cluster.pods.items()}
    return cluster


class Unreachable:
    """A member whose API server does not answer."""

    def server(self):
        return "https://gone.example:443"

    def version(self):
        raise UnreachableError("cannot reach https://gone.example:443: connection refused")


def run(targets, clusters: dict[str, Any], **options) -> dict[str, Any]:
    def client_for(t: MemberTarget):
        found = clusters[t.member]
        return found if isinstance(found, Unreachable) else FakeClient(found)

    return verify_fleet(targets, fleet="gpu-fleet", client_for=client_for, **options)


def two(dev, prod) -> list[MemberTarget]:
    return targets_for([("eu-canary", "eu", dev, "aks-eu"), ("us-wave", "us", prod, "aks-us")], {})


def test_each_member_reports_its_checks_under_its_name(dev, prod):
    doc = run(two(dev, prod), {"eu-canary": healthy(dev), "us-wave": healthy(prod)})
    assert [m["member"] for m in doc["members"]] == ["eu-canary", "us-wave"]
    assert [m["stack"] for m in doc["members"]] == ["eu", "us"]
    assert [m["summary"]["cluster"] for m in doc["members"]] == [dev.cluster.name, prod.cluster.name]
    assert all(m["checks"] and m["summary"]["exit"] == 0 for m in doc["members"])
    assert doc["summary"] == {"members": 2, "ok": 2, "warn": 0, "fail": 0, "unreachable": 0, "status": "ok", "exit": 0}


def test_one_broken_member_fails_the_fleet_and_is_named(dev, prod):
    doc = run(two(dev, prod), {"eu-canary": healthy(dev), "us-wave": broken(prod)})
    assert doc["summary"]["exit"] == 4 and doc["summary"]["failMembers"] == ["us-wave"]
    eu, us = doc["members"]
    assert eu["summary"]["exit"] == 0 and us["summary"]["exit"] == 4
    assert any(c["check"] == "slice" and c["status"] == "fail" for c in us["checks"])
    text = "\n".join(fleet_text_lines(doc))
    assert "== member us-wave (stack us, context aks-us)" in text
    assert text.splitlines()[-1] == "FLEET FAIL: 2 member(s), 1 ok, 0 warn, 1 fail, 0 unreachable (fail: us-wave)"


def test_a_member_not_there_yet_warns_the_fleet(dev, prod):
    doc = run(two(dev, prod), {"eu-canary": not_yet(dev), "us-wave": healthy(prod)})
    assert doc["summary"]["exit"] == 3 and doc["summary"]["warnMembers"] == ["eu-canary"]


def test_an_unreachable_member_is_exit_2_naming_it_and_the_others_are_still_checked(dev, prod):
    doc = run(two(dev, prod), {"eu-canary": Unreachable(), "us-wave": not_yet(prod)})
    assert doc["summary"]["exit"] == 2 and doc["summary"]["unreachableMembers"] == ["eu-canary"]
    eu, us = doc["members"]
    assert eu["checks"] == [] and "member eu-canary (context aks-eu)" in eu["error"] and "connection refused" in eu["error"]
    assert us["summary"]["exit"] == 3  # still checked
    assert "UNREACHABLE: member eu-canary" in "\n".join(fleet_text_lines(doc))


def test_broken_outranks_unreachable_which_outranks_not_yet(dev, prod):
    targets = targets_for([("a", "a", dev, "a"), ("b", "b", prod, "b"), ("c", "c", dev, "c")], {})
    doc = run(targets, {"a": Unreachable(), "b": broken(prod), "c": not_yet(dev)})
    assert doc["summary"]["exit"] == 4
    assert (doc["summary"]["fail"], doc["summary"]["unreachable"], doc["summary"]["warn"]) == (1, 1, 1)


def test_contexts_default_to_the_cluster_name_and_can_be_overridden(dev, prod):
    rows = [("eu-canary", "eu", dev, "aks-eu"), ("us-wave", "us", prod, "aks-us")]
    assert [t.context for t in targets_for(rows, {"us-wave": "prod-admin"})] == ["aks-eu", "prod-admin"]
    with pytest.raises(ValueError, match="--context nosuch: no such member of this fleet; members: eu-canary, us-wave"):
        targets_for(rows, {"nosuch": "x"})


def test_members_are_checked_in_parallel_on_a_bounded_pool(dev):
    """Every member blocks in its first read until all of them have started: only parallel checks get through (a
    barrier with a timeout, so a serial run fails instead of hanging); `parallel` bounds the threads."""
    targets = targets_for([(f"m{i}", f"s{i}", dev, f"c{i}") for i in range(3)], {})
    barrier = threading.Barrier(3, timeout=30)
    threads: set[str] = set()

    class Blocking(FakeClient):
        def version(self):
            threads.add(threading.current_thread().name)
            barrier.wait()
            return super().version()

    doc = verify_fleet(targets, client_for=lambda t: Blocking(healthy(dev)))
    assert doc["summary"]["exit"] == 0 and len(threads) == 3

    threads.clear()
    doc = verify_fleet(targets, client_for=lambda t: FakeClient(healthy(dev)), parallel=1)
    assert doc["summary"]["ok"] == 3


# --- the command, against fake API servers on loopback ---------------------------------------------------------------

@dataclass
class Member:
    """What the fleet loader gives for one member stack."""

    stack: str
    config: Any
    member_name: str
    cluster_name: str
    group: str = "canary"
    file: Path = field(default_factory=lambda: Path("stacks/Pulumi.x.yaml"))


@dataclass
class FleetSet:
    stack: str
    members: list[Member]
    fleet: Any = None
    file: Path = field(default_factory=lambda: Path("stacks/Pulumi.fleet.yaml"))


def kubeconfig(tmp_path: Path, servers: dict[str, str]) -> Path:
    """One kubeconfig, one context per cluster named after it (as `az aks get-credentials` writes them)."""
    path = tmp_path / "kubeconfig.yaml"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": next(iter(servers)),
        "clusters": [{"name": n, "cluster": {"server": s}} for n, s in servers.items()],
        "users": [{"name": "u", "user": {"token": TOKEN}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "u"}} for n in servers],
    }), encoding="utf-8")
    return path


@pytest.fixture
def fleet_of(monkeypatch):
    def install(*members: Member) -> None:
        monkeypatch.setattr("components.cli.fleet.load_fleet_set",
                            lambda project_dir, name: FleetSet(name, list(members)))
    return install


def test_the_command_verifies_each_member_on_its_own_cluster(tmp_path, dev, prod, fleet_of, capsys):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"), Member("us", prod, "us-wave", "aks-us"))
    with FakeApi(healthy(dev)) as eu, FakeApi(broken(prod)) as us:
        config = kubeconfig(tmp_path, {"aks-eu": eu.url, "aks-us": us.url})
        status = main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config), "--json"])
    out = capsys.readouterr()
    assert status == 4, out.err
    doc = json.loads(out.out)
    assert {m["member"]: m["summary"]["exit"] for m in doc["members"]} == {"eu-canary": 0, "us-wave": 4}
    assert {m["member"]: m["summary"]["server"] for m in doc["members"]} == {"eu-canary": eu.url, "us-wave": us.url}
    assert eu.requests and us.requests
    assert "[eu-canary] read" in out.err and "[us-wave] read" in out.err


def test_a_member_without_its_context_is_exit_2_naming_it(tmp_path, dev, prod, fleet_of, capsys):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"), Member("us", prod, "us-wave", "aks-us"))
    with FakeApi(healthy(dev)) as eu:
        config = kubeconfig(tmp_path, {"aks-eu": eu.url})
        status = main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config)])
    out = capsys.readouterr()
    assert status == 2
    assert "cannot reach member us-wave (context aks-us)" in out.err and "aks-us" in out.err
    assert "Traceback" not in out.err
    assert "== member eu-canary" in out.out and "UNREACHABLE: member us-wave" in out.out


def test_context_flags_pick_a_members_context(tmp_path, dev, prod, fleet_of, capsys):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"), Member("us", prod, "us-wave", "aks-us"))
    with FakeApi(healthy(dev)) as eu, FakeApi(healthy(prod)) as us:
        config = kubeconfig(tmp_path, {"aks-eu": eu.url, "us-admin": us.url})
        status = main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config), "--context", "us-wave=us-admin"])
    assert status == 0, capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--context", "us-wave"], "--context 'us-wave': give member=context"),
    (["--context", "nosuch=x"], "--context nosuch: no such member of this fleet; members: eu-canary"),
    (["--size", "8"], "--size and --image go with --smoke"),
    (["--stack", "dev"], "not allowed with argument"),
])
def test_bad_fleet_input_is_one_line_exit_2(argv, words, dev, fleet_of, capsys, tmp_path):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"))
    config = kubeconfig(tmp_path, {"aks-eu": "http://127.0.0.1:9"})
    assert main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config), *argv]) == 2
    out = capsys.readouterr()
    assert words in out.err and out.out == ""


def test_a_fleet_without_members_is_bad_input(fleet_of, capsys):
    fleet_of()
    assert main(["verify", "--fleet", "gpu-fleet"]) == 2
    assert "no member stack names this fleet stack" in capsys.readouterr().err


def test_the_example_fleet_is_verified_member_by_member(tmp_path, capsys):
    """The shipped example (stacks/Pulumi.fleet.yaml and its two members), loaded as the command loads it: each member
    on the context named after its cluster, one broken."""
    weu, eus = stack("fleet-weu"), stack("fleet-eus")
    with FakeApi(healthy(weu)) as west, FakeApi(broken(eus)) as east:
        config = kubeconfig(tmp_path, {weu.cluster.name: west.url, eus.cluster.name: east.url})
        status = main(["verify", "--fleet", "fleet", "--kubeconfig", str(config), "--json"])
    out = capsys.readouterr()
    assert status == 4, out.err
    doc = json.loads(out.out)
    assert doc["fleet"] == "fleet"
    assert {m["member"]: (m["stack"], m["context"], m["summary"]["exit"]) for m in doc["members"]} == {
        "aks-dra-prod-weu": ("fleet-weu", "aks-dra-prod-weu", 0), "aks-dra-prod-eus": ("fleet-eus", "aks-dra-prod-eus", 4)}
    assert doc["summary"]["failMembers"] == ["aks-dra-prod-eus"]


def test_a_stack_that_is_not_a_fleet_stack_is_bad_input(capsys):
    assert main(["verify", "--fleet", "dev", "--kubeconfig", "x"]) == 2
    assert "not a fleet stack" in capsys.readouterr().err
