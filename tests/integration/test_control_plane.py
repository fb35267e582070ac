"""The package's Kubernetes layer and `verify` against a real kube-apiserver (and, where the binaries are there, the
real scheduler and controller-manager), started on loopback from KUBEBUILDER_ASSETS (tests/integration/controlplane.py).

Per stack (dev, prod, and mig: an A10 pool beside an A100 MIG pool): AKS-like nodes and ResourceSlices as the NVIDIA
driver publishes them (tests/verify_cluster.py, MIG slices included), everything `python -m components render` writes
applied (both Helm charts templated by the real helm when HELM and DRA_CHARTS_DIR are set, as in
tests/test_chart_render.py); every object must be accepted. Then `verify` must find the healthy set-up healthy and name
each broken one. With the scheduler and controller-manager: the kubelet plugin and dcgm-exporter DaemonSets get a pod
on exactly the GPU nodes, and each claim template's pod is allocated a device of its own slice first, an A10 size class
or a MIG profile (no kubelet: pods stay unstarted, the allocation is in the ResourceClaim's status).
Without the binaries every test here skips, saying how to get them.
"""

from __future__ import annotations

import contextlib
import copy
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import components
from components.kubernetes.slice_kinds import slice_of
from components.verify.checks_devices import memory_mib
from components.verify.expected import expected
from components.verify.kube import KubernetesClient
from components.verify.smoke import pod_body
from tests.conftest import ROOT
from tests.integration.controlplane import LIFECYCLE_TAINTS, ControlPlane, assets, can_schedule, without_lifecycle_taints
from tests.verify_cluster import aks_node, daemon_set, healthy, node_slice, plugin_template, stack

FOLDER, WHY = assets()
pytestmark = pytest.mark.skipif(FOLDER is None, reason=WHY)
NODES = {"dev": {"a10s": 2}, "prod": {"a10third": 2, "a10full": 1, "a10spot": 1}, "mig": {"a10s": 1, "a100mig": 1}}
# Kinds whose API comes from a CRD that a bare control plane does not have (AKS's metrics add-on, prometheus-operator).
CRD_GROUPS = ("azmonitoring.coreos.com/", "monitoring.coreos.com/", "cert-manager.io/")
WAIT = 90.0


def wait_for(what: str, probe: Callable[[], Any], seconds: float = WAIT) -> Any:
    """probe() until it returns something truthy, at most `seconds`; fails naming what never happened."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.5)
    pytest.fail(f"{what}: not within {seconds:g} s")


class Api:
    """Any object through the official client's dynamic client (discovery decides the path)."""

    def __init__(self, kubeconfig: Path):
        from kubernetes import config, dynamic

        self.kubeconfig = kubeconfig
        self.dyn = dynamic.DynamicClient(config.new_client_from_config(config_file=str(kubeconfig)))

    def resource(self, api_version: str, kind: str) -> Any:
        return self.dyn.resources.get(api_version=api_version, kind=kind)

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        body = copy.deepcopy(obj)
        for key in ("uid", "resourceVersion", "creationTimestamp"):
            body["metadata"].pop(key, None)
        body.pop("status", None)
        r = self.resource(body["apiVersion"], body["kind"])
        if not r.namespaced:
            body["metadata"].pop("namespace", None)
        return r.create(body=body, namespace=body["metadata"].get("namespace") if r.namespaced else None).to_dict()

    def patch(self, api_version: str, kind: str, name: str, body: dict[str, Any], namespace: str | None = None,
              status: bool = False) -> None:
        r = self.resource(api_version, kind)
        self.dyn.patch(r.status if status else r, body=body, name=name, namespace=namespace,
                       content_type="application/merge-patch+json")

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        from kubernetes.dynamic.exceptions import NotFoundError

        with contextlib.suppress(NotFoundError):  # already gone (a controller got there first)
            self.resource(api_version, kind).delete(name=name, namespace=namespace)

    def items(self, api_version: str, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.resource(api_version, kind).get(namespace=namespace).to_dict().get("items") or []

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        return self.resource(api_version, kind).get(name=name, namespace=namespace).to_dict()


def rendered(stack_name: str, out: Path) -> list[dict[str, Any]]:
    """What `python -m components render` writes, as objects: the manifests, then each release templated by helm."""
    result = subprocess.run([sys.executable, "-m", "components", "render", "--stack", stack_name, "--out", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    objects = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((out / "kubernetes").glob("*.yaml"))]
    return sorted(objects, key=lambda o: o["kind"] != "Namespace")


def helm_objects(out: Path, kube_version: str) -> list[dict[str, Any]] | None:
    """Each rendered release templated with the real chart and the package's values, or None without helm/charts."""
    helm, charts = os.environ.get("HELM"), os.environ.get("DRA_CHARTS_DIR")
    if not (helm and charts and Path(helm).exists() and Path(charts).is_dir()):
        return None
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
               for ns in sorted({yaml.safe_load((d / "release.yaml").read_text())["namespace"]
                                 for d in (out / "helm").iterdir()})]
    for folder in sorted((out / "helm").iterdir()):
        release = yaml.safe_load((folder / "release.yaml").read_text(encoding="utf-8"))
        chart = Path(charts) / f"{release['chart'].rsplit('/', 1)[-1]}-{release['version']}"
        env = {**os.environ, **{k: str(out / k.lower()) for k in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME")}}
        result = subprocess.run([helm, "template", release["name"], str(chart), "-n", release["namespace"], "-f",
                                 str(folder / "values.yaml"), "--kube-version", kube_version], capture_output=True,
                                text=True, env=env, timeout=120)
        assert result.returncode == 0, f"helm template {release['name']}: {result.stderr}"
        for doc in yaml.safe_load_all(result.stdout):
            if doc:
                doc["metadata"].setdefault("namespace", release["namespace"])
                objects.append(doc)
    return objects


def apply_all(api: Api, objects: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Creates every object; (refused with why, skipped because its CRD is absent)."""
    from kubernetes.dynamic.exceptions import DynamicApiError, ResourceNotFoundError

    refused, skipped = [], []
    for obj in objects:
        name = f"{obj['kind']}/{obj['metadata']['name']}"
        try:
            api.create(obj)
        except ResourceNotFoundError:
            if obj["apiVersion"].startswith(CRD_GROUPS):
                skipped.append(name)
            else:
                refused.append(f"{name}: its API is not served")
        except DynamicApiError as exc:
            if exc.status == 409 and obj["kind"] == "Namespace":
                continue
            refused.append(f"{name}: {' '.join(exc.summary().split())[:300]}")
    return refused, skipped


def make_ready(api: Api, node: dict[str, Any]) -> None:
    """Create an AKS-like node, write its Ready status, then lift the not-ready taint admission put on it (without that
    the DaemonSet controller wants no pod there: DESIRED 0)."""
    name = node["metadata"]["name"]
    api.create(node)
    api.patch("v1", "Node", name, {"status": node["status"]}, status=True)
    live = api.get("v1", "Node", name)
    if without_lifecycle_taints(live) != ((live.get("spec") or {}).get("taints") or None):
        api.patch("v1", "Node", name, {"spec": {"taints": without_lifecycle_taints(live)}})
    left = [t["key"] for t in (api.get("v1", "Node", name).get("spec") or {}).get("taints") or []
            if t["key"] in LIFECYCLE_TAINTS]
    assert left == [], f"node {name} still carries {left}"


def owned_pods(api: Api, ds: dict[str, Any]) -> list[dict[str, Any]]:
    ns, uid = ds["metadata"]["namespace"], ds["metadata"]["uid"]
    return [p for p in api.items("v1", "Pod", ns) if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]


def run_daemon_pods(api: Api, ds: dict[str, Any], nodes: list[str], scheduling: bool) -> None:
    """Gives the DaemonSet a running, ready pod on each node, as kubelets would (the controller and scheduler place them
    when they run; else they are created here as the DaemonSet controller would)."""
    if scheduling:
        wait_for(f"{ds['metadata']['name']} pods bound to {nodes}",
                 lambda: sorted(p["spec"].get("nodeName") or "" for p in owned_pods(api, ds)) == sorted(nodes))
    else:
        for node in nodes:
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
                "generateName": f"{ds['metadata']['name']}-", "namespace": ds["metadata"]["namespace"],
                "labels": ds["spec"]["selector"]["matchLabels"], "ownerReferences": [{
                    "apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
                    "uid": ds["metadata"]["uid"], "controller": True}]},
                "spec": {**copy.deepcopy(ds["spec"]["template"]["spec"]), "nodeName": node}}
            api.create(pod)
    for pod in owned_pods(api, ds):
        if pod["spec"].get("nodeName") in nodes:
            api.patch("v1", "Pod", pod["metadata"]["name"], {"status": {"phase": "Running", "conditions": [
                {"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}]}},
                pod["metadata"]["namespace"], status=True)


def findings(doc: dict[str, Any], status: str) -> list[tuple[str, str, str]]:
    return [(c["check"], c["subject"], c["message"]) for c in doc["checks"] if c["status"] == status]


def put_platform(api: Api, stack_name: str, fixture: Any, out: Path) -> tuple[str, list[str], list[str]]:
    """The stack's platform on this API server: AKS-like nodes made Ready (no kubelet: the status is written as one
    would, and the lifecycle taints lifted as the node-lifecycle controller would) and the driver's slices from
    `fixture`, then everything `render` writes into `out`; without helm the two DaemonSets come from the package's own
    values. Returns (the server's version, what it refused, what it skipped)."""
    config = stack(stack_name)
    exp = expected(config)
    version = KubernetesClient.from_kubeconfig(str(api.kubeconfig)).version()["gitVersion"]
    for node in fixture.nodes:
        # The nodes of a cluster on this server's version: their kubelets report it (the stack's version is the
        # fixture's default, and a 1.35 kubelet beside the chart's nvidia.com/gpu mapping is a finding of its own).
        node["status"].setdefault("nodeInfo", {})["kubeletVersion"] = version
        make_ready(api, node)
    refused, _ = apply_all(api, fixture.slices)
    assert refused == [], refused
    objects = rendered(stack_name, out)
    charts = helm_objects(out, version.lstrip("v").split("+")[0])
    if charts is None:
        name, spec, selector = plugin_template(config)
        objects += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": exp.driver_namespace}},
                    daemon_set(name, exp.driver_namespace or "", spec, selector)]
        objects += [o for ns, items in fixture.daemon_sets.items() if ns == exp.metrics_namespace for o in
                    [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}, *items]]
        # The chart's MIG DeviceClass, which MIG claim templates name (the real chart creates it when rendered).
        objects += [o for o in fixture.device_classes if o["metadata"]["name"] == "mig.nvidia.com"]
    refused, skipped = apply_all(api, objects + (charts or []))
    return version, refused, skipped


@pytest.mark.parametrize("stack_name", ["dev", "prod", "mig"])
def test_the_rendered_platform_on_a_real_api_server(stack_name, tmp_path):
    config = stack(stack_name)
    exp = expected(config)
    scheduling = can_schedule(FOLDER)
    fixture = healthy(config, NODES[stack_name])
    gpu = [n["metadata"]["name"] for n in fixture.nodes if n["metadata"]["labels"]["kubernetes.azure.com/mode"] == "user"]
    with ControlPlane(FOLDER, scheduling=scheduling) as plane:
        api = Api(plane.kubeconfig)
        version, refused, skipped = put_platform(api, stack_name, fixture, tmp_path / "out")
        assert refused == [], f"refused by kube-apiserver {version}: {refused}"
        assert not [s for s in skipped if not s.startswith(("ServiceMonitor/", "PodMonitor/", "PrometheusRule/"))]

        daemon_sets = [d for ns in filter(None, (exp.driver_namespace, exp.metrics_namespace))
                       for d in api.items("apps/v1", "DaemonSet", ns)]
        names = {d["metadata"]["name"] for d in daemon_sets}
        assert exp.plugin_daemon_set in names, names
        assert not exp.metrics_release or any(n.startswith(exp.metrics_release) for n in names), names
        for ds in daemon_sets:  # on exactly the GPU nodes (checked by placement when the controllers run)
            run_daemon_pods(api, ds, gpu, scheduling)
            placed = sorted(p["spec"].get("nodeName") for p in owned_pods(api, ds))
            assert placed == sorted(gpu), (ds["metadata"]["name"], placed)

        def check(expect_exit: int | None = None) -> dict[str, Any]:
            doc = components.verify(config, kubeconfig=str(plane.kubeconfig), timeout=60)
            if expect_exit is not None:
                assert doc["summary"]["exit"] == expect_exit, findings(doc, "fail") + findings(doc, "warn")
            return doc

        # Healthy: nothing broken (a server older than the stack's version is the only failure it may name).
        doc = check()
        fails = [f for f in findings(doc, "fail") if f[0] != "version"]
        assert fails == [] and findings(doc, "warn") == [], doc["checks"]

        if scheduling:  # each claim template's pod gets a device of its own slice first (A10 size class or MIG profile)
            for template in exp.templates:
                pod = api.create({**pod_body(exp, template, "busybox", 0), "metadata": {
                    "generateName": f"alloc-{template.key.lower()}-", "namespace": exp.samples_namespace}})
                name = pod["metadata"]["name"]

                def allocation(name: str = name) -> list[dict[str, Any]] | None:
                    live = api.get("v1", "Pod", name, exp.samples_namespace)
                    for status in (live.get("status") or {}).get("resourceClaimStatuses") or []:
                        claim = api.get("resource.k8s.io/v1", "ResourceClaim", status["resourceClaimName"],
                                        exp.samples_namespace)
                        return ((claim.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results")
                    return None

                results = wait_for(f"claim of {name} allocated", allocation)
                for r in results:
                    device = next(d for s in fixture.slices if s["spec"]["nodeName"] == r["pool"]
                                  for d in s["spec"]["devices"] if d["name"] == r["device"])
                    assert slice_of(device, memory_mib(device), exp.margin_percent) == template.kind, (template.key, r)

        # Broken set-ups, one at a time, each put back afterwards.
        node, node_pool = gpu[0], next(p for p in config.gpu_pools if p.name in gpu[0])
        own_slice = next(s for s in fixture.slices if s["spec"]["nodeName"] == node)
        api.delete("resource.k8s.io/v1", "ResourceSlice", own_slice["metadata"]["name"])
        assert ("slice", node) in [(c, s) for c, s, _ in findings(check(4), "fail")]
        small = "Standard_NV6ads_A10_v5" if node_pool.vm_size != "Standard_NV6ads_A10_v5" else "Standard_NV12ads_A10_v5"
        api.create(node_slice(node, small))
        assert any(c == "slice" and s == node and "#wrong-slice" in m for c, s, m in findings(check(4), "fail"))
        api.delete("resource.k8s.io/v1", "ResourceSlice", f"{node}-gpu.nvidia.com-x7k2q")
        api.create(own_slice)
        check(None)

        plugin = next(d for d in daemon_sets if d["metadata"]["name"] == exp.plugin_daemon_set)
        for label_or_taint in ("label", "taint"):
            target = gpu[-1] if label_or_taint == "label" else gpu[0]
            if label_or_taint == "label":
                api.patch("v1", "Node", target, {"metadata": {"labels": {"nvidia.com/gpu.present": None}}})
            else:
                taints = (aks_node(target, node_pool.name, node_pool.vm_size, taints=node_pool.node_taints)["spec"]
                          .get("taints") or [])
                api.patch("v1", "Node", target, {"spec": {"taints": [*taints, {"key": "sku", "value": "gpu",
                                                                             "effect": "NoSchedule"}]}})
            for pod in owned_pods(api, plugin):  # the DaemonSet controller removes (or never makes) it there
                if pod["spec"].get("nodeName") == target:
                    api.delete("v1", "Pod", pod["metadata"]["name"], pod["metadata"]["namespace"])
            failed = findings(check(4), "fail")
            words = "nvidia.com/gpu.present=true" if label_or_taint == "label" else "sku=gpu:NoSchedule"
            assert any(c == "dra-plugin" and s == target and words in m for c, s, m in failed), failed
