"""`verify --fleet` against real control planes, one per member cluster (tests/integration/controlplane.py), for the
shipped example fleet (stacks/Pulumi.fleet.yaml; members fleet-weu and fleet-eus).

Each member's cluster is set up as tests/integration/test_control_plane.py sets up one: AKS-like nodes made Ready
(the lifecycle taints admission puts on every new Node lifted, as the node-lifecycle controller would), the driver's
ResourceSlices, everything `render` writes for that member stack, and the DaemonSets' pods. One test per member
(alone, healthy), then the fleet with both members, one of them broken: the command's exit and report name it.
Without the binaries every test here skips, saying how to get them.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from components.verify.expected import expected
from components.verify.fleet import targets_for, verify_fleet
from tests.conftest import ROOT
from tests.integration.controlplane import TOKEN, ControlPlane, assets
from tests.integration.test_control_plane import (
    Api,
    findings,
    owned_pods,
    put_platform,
    run_daemon_pods,
)
from tests.verify_cluster import healthy, stack

FOLDER, WHY = assets()
pytestmark = pytest.mark.skipif(FOLDER is None, reason=WHY)
FLEET = "fleet"
MEMBERS = ("fleet-weu", "fleet-eus")


def deploy(plane: ControlPlane, stack_name: str, out: Path) -> tuple[Any, Api, list[str]]:
    """The member stack's platform on this control plane, healthy: (its StackConfig, the API, its GPU nodes)."""
    config = stack(stack_name)
    exp = expected(config)
    fixture = healthy(config)
    api = Api(plane.kubeconfig)
    version, refused, _ = put_platform(api, stack_name, fixture, out)
    assert refused == [], f"{stack_name}: refused by kube-apiserver {version}: {refused}"
    gpu = [n["metadata"]["name"] for n in fixture.nodes if n["metadata"]["labels"]["kubernetes.azure.com/mode"] == "user"]
    for ns in filter(None, (exp.driver_namespace, exp.metrics_namespace)):
        for ds in api.items("apps/v1", "DaemonSet", ns):
            run_daemon_pods(api, ds, gpu, scheduling=False)
            assert sorted(p["spec"].get("nodeName") for p in owned_pods(api, ds)) == sorted(gpu)
    return config, api, gpu


def fleet_kubeconfig(path: Path, ports: dict[str, int]) -> Path:
    """One kubeconfig with a context per member cluster, named after the cluster (as `az aks get-credentials` does)."""
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": next(iter(ports)),
        "clusters": [{"name": n, "cluster": {"server": f"https://127.0.0.1:{p}", "insecure-skip-tls-verify": True}}
                     for n, p in ports.items()],
        "users": [{"name": "admin", "user": {"token": TOKEN}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "admin"}} for n in ports],
    }), encoding="utf-8")
    return path


def real_failures(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    """A member's failures, less the version check (a control plane older than the stack's version may fail it)."""
    return [f for f in findings(doc, "fail") if f[0] != "version"]


@pytest.mark.parametrize("stack_name", MEMBERS)
def test_each_member_alone_on_its_own_control_plane(stack_name, tmp_path):
    with ControlPlane(FOLDER) as plane:
        config, _, _ = deploy(plane, stack_name, tmp_path / "out")
        kubeconfig = fleet_kubeconfig(tmp_path / "kubeconfig", {config.cluster.name: plane.port})
        (target,) = targets_for([(config.cluster.name, stack_name, config, config.cluster.name)], {})
        doc = verify_fleet([target], fleet=FLEET, kubeconfig=str(kubeconfig), timeout=60)
    (member,) = doc["members"]
    assert member["member"] == config.cluster.name and member["context"] == config.cluster.name
    assert real_failures(member) == [] and findings(member, "warn") == [], member["checks"]


def test_two_members_one_broken_the_fleet_names_it(tmp_path):
    with contextlib.ExitStack() as planes:
        ports, configs, apis = {}, {}, {}
        for stack_name in MEMBERS:
            plane = planes.enter_context(ControlPlane(FOLDER))
            config, api, gpu = deploy(plane, stack_name, tmp_path / stack_name)
            ports[config.cluster.name], configs[stack_name], apis[stack_name] = plane.port, config, (api, gpu)
        kubeconfig = fleet_kubeconfig(tmp_path / "kubeconfig", ports)

        def run() -> tuple[int, dict[str, Any], str]:
            result = subprocess.run([sys.executable, "-m", "components", "verify", "--fleet", FLEET, "--kubeconfig",
                                     str(kubeconfig), "--json", "--timeout", "60"], cwd=ROOT, capture_output=True,
                                    text=True, timeout=300)
            return result.returncode, json.loads(result.stdout), result.stderr

        code, doc, err = run()
        by_member = {m["member"]: m for m in doc["members"]}
        assert set(by_member) == {c.cluster.name for c in configs.values()}, err
        assert all(real_failures(m) == [] for m in by_member.values()), doc
        assert code in (0, 4), err  # 4 only from the version check of a control plane older than a stack's version

        # Break the second member: its first GPU node's ResourceSlice is gone.
        broken_stack = MEMBERS[1]
        api, gpu = apis[broken_stack]
        slice_name = next(s["metadata"]["name"] for s in api.items("resource.k8s.io/v1", "ResourceSlice")
                          if s["spec"]["nodeName"] == gpu[0])
        api.delete("resource.k8s.io/v1", "ResourceSlice", slice_name)

        code, doc, err = run()
    broken_name, healthy_name = configs[broken_stack].cluster.name, configs[MEMBERS[0]].cluster.name
    assert code == 4, err
    assert doc["summary"]["failMembers"] == [broken_name]
    by_member = {m["member"]: m for m in doc["members"]}
    assert ("slice", gpu[0]) in [(c, s) for c, s, _ in real_failures(by_member[broken_name])]
    assert real_failures(by_member[healthy_name]) == []
    assert f"[{broken_name}] read" in err and f"[{healthy_name}] read" in err
