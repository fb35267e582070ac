"""`verify --fleet` on kubeconfig users with an `exec` credential plugin (kubelogin's kind): a plugin that hangs is
ended at the run's deadline and its member named; a missing plugin is one line per member naming the command (no raw
`ERROR:root:` lines from the Kubernetes client's logging); a working one's token reaches the API server."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from components.cli import main
from components.verify.exec_plugin import ExecPluginError, run_exec_plugin
from tests.test_verify_cli import TOKEN, FakeApi
from tests.test_verify_fleet import Member
from tests.test_verify_fleet import fleet_of as fleet_of  # a fixture
from tests.verify_cluster import healthy, stack_fixture

dev = stack_fixture("dev")
API = "client.authentication.k8s.io/v1"


def plugin(tmp_path: Path, body: str) -> str:
    """A plugin script in the kubeconfig's folder, named by a relative path as kubeconfigs may name it."""
    path = tmp_path / "plugin.sh"
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return "./plugin.sh"


def exec_kubeconfig(tmp_path: Path, servers: dict[str, str], command: str) -> Path:
    path = tmp_path / "kubeconfig.yaml"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": next(iter(servers)),
        "clusters": [{"name": n, "cluster": {"server": s}} for n, s in servers.items()],
        "users": [{"name": "entra", "user": {"exec": {"apiVersion": API, "command": command,
                                                      "args": ["get-token"], "interactiveMode": "IfAvailable"}}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "entra"}} for n in servers],
    }), encoding="utf-8")
    return path


def test_a_hanging_plugin_is_ended_at_the_deadline_and_its_member_named(tmp_path, dev, fleet_of, capsys):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"), Member("us", dev, "us-wave", "aks-us"))
    command = plugin(tmp_path, "exec sleep 30")
    config = exec_kubeconfig(tmp_path, {"aks-eu": "http://127.0.0.1:9", "aks-us": "http://127.0.0.1:9"}, command)
    status = main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config), "--timeout", "0.3"])
    err = capsys.readouterr().err
    assert status == 2
    for member, context in (("eu-canary", "aks-eu"), ("us-wave", "aks-us")):
        assert (f"cannot reach member {member} (context {context}): the kubeconfig's credential plugin "
                f"'{command}' did not answer within") in err


def test_a_missing_plugin_is_one_line_per_member_naming_the_command(tmp_path, dev, fleet_of, capfd):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"), Member("us", dev, "us-wave", "aks-us"))
    config = exec_kubeconfig(tmp_path, {"aks-eu": "http://127.0.0.1:9", "aks-us": "http://127.0.0.1:9"},
                             "kubelogin-not-installed")
    status = main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config)])
    err = capfd.readouterr().err
    assert status == 2 and "ERROR:root" not in err
    lines = [line for line in err.splitlines() if "cannot reach member" in line]
    assert lines == [f"verify --fleet gpu-fleet: cannot reach member {m} (context {c}): the kubeconfig's credential "
                     "plugin 'kubelogin-not-installed' is not installed (not found on PATH); install it or get a "
                     "kubeconfig without it" for m, c in (("eu-canary", "aks-eu"), ("us-wave", "aks-us"))]


def test_a_working_plugins_token_reaches_the_api_server(tmp_path, dev, fleet_of, capsys):
    fleet_of(Member("eu", dev, "eu-canary", "aks-eu"))
    credential = {"apiVersion": API, "kind": "ExecCredential", "status": {"token": TOKEN}}
    command = plugin(tmp_path, f"echo '{json.dumps(credential)}'")
    with FakeApi(healthy(dev)) as api:
        config = exec_kubeconfig(tmp_path, {"aks-eu": api.url}, command)
        status = main(["verify", "--fleet", "gpu-fleet", "--kubeconfig", str(config), "--json"])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert api.requests and {auth for _m, _p, auth in api.requests} == {f"Bearer {TOKEN}"}


@pytest.mark.parametrize("body, words", [
    ("echo denied >&2; exit 3", "failed: denied"),
    ("echo '{}'", "printed no ExecCredential"),
    ("echo '{\"status\": {}}'", "returned neither a token nor a client certificate and key"),
])
def test_a_plugin_that_fails_says_how(tmp_path, body, words):
    command = plugin(tmp_path, body)
    with pytest.raises(ExecPluginError, match=f"credential plugin '{command}' {words}".replace(".", r"\.")):
        run_exec_plugin({"apiVersion": API, "command": command}, None, str(tmp_path), 5.0)


def test_the_plugin_gets_the_exec_info_and_its_env(tmp_path):
    """Run as the Kubernetes client runs it: KUBERNETES_EXEC_INFO, the user's env, the kubeconfig's folder as cwd."""
    command = plugin(tmp_path, 'printf %s "$EXTRA" > extra.txt; printf %s "$KUBERNETES_EXEC_INFO" > info.txt; '
                               'echo \'{"status": {"token": "t0ken"}}\'')
    status = run_exec_plugin({"apiVersion": API, "command": command, "env": [{"name": "EXTRA", "value": "x"}]},
                             None, str(tmp_path), 5.0)
    assert status == {"token": "t0ken"} and (tmp_path / "extra.txt").read_text() == "x"
    assert json.loads((tmp_path / "info.txt").read_text()) == {"apiVersion": API, "kind": "ExecCredential",
                                                               "spec": {"interactive": False}}
