"""`verify`'s checks on recorded clusters (API JSON, tests/verify_cluster.py): healthy, and each way a deployed
platform breaks. The checks and the report are the library's own (`aks_dra_vgpu.verify` with a client passed in)."""

from __future__ import annotations

import pytest

import components
from components.catalog import SCALE_FROM_ZERO_WHY
from components.verify import run as verify_run
from components.verify.expected import expected
from tests.verify_cluster import FakeClient, daemon_pod, healthy, node_slice, stack_fixture

dev, prod = stack_fixture("dev"), stack_fixture("prod")

PROD_NODES = {"a10third": 2, "a10full": 1, "a10spot": 1}


def run(config, cluster):
    return components.verify(config, FakeClient(cluster))


def without_plugin(cluster, node: str, slices: bool = True) -> None:
    """The driver's kubelet plugin never ran on `node`: no plugin pod there and (unless `slices` is False) no slice."""
    ns = "nvidia-dra-driver-gpu"
    cluster.pods[ns] = [p for p in cluster.pods[ns] if p["spec"]["nodeName"] != node]
    if slices:
        cluster.slices = [s for s in cluster.slices if s["spec"]["nodeName"] != node]


def bad(doc):
    return [c for c in doc["checks"] if c["status"] in ("warn", "fail")]


def one(doc, check, subject=None, status=None):
    found = [c for c in doc["checks"] if c["check"] == check and (subject is None or c["subject"] == subject)
             and (status is None or c["status"] == status)]
    assert found, (check, subject, status, doc["checks"])
    return found[0]


def test_a_healthy_prod_like_cluster_is_all_ok(prod):
    doc = run(prod, healthy(prod, PROD_NODES))
    assert bad(doc) == []
    assert doc["summary"]["exit"] == 0 and doc["summary"]["status"] == "ok" and doc["summary"]["fail"] == 0
    checks = {c["check"] for c in doc["checks"]}
    assert checks >= {"api", "version", "dra-api", "pool", "node", "dra-plugin", "slice", "device-class",
                      "claim-template", "shared-claim", "gpu-metrics"}
    # one plugin, slice and exporter check per GPU node (4), none for the system node
    for check in ("dra-plugin", "slice", "gpu-metrics", "node"):
        subjects = [c["subject"] for c in doc["checks"] if c["check"] == check]
        assert len(subjects) == 4 and not any("system" in s for s in subjects), (check, subjects)
    assert set(doc["checks"][0]) == {"check", "subject", "status", "message"}


def test_a_healthy_dev_cluster_is_all_ok(dev):
    doc = run(dev, healthy(dev))
    assert bad(doc) == []
    assert one(doc, "gpu-metrics")["status"] == "skip"


def test_a_gpu_node_without_a_slice_fails(prod):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10spot-12345678-vmss000000"
    cluster.slices = [s for s in cluster.slices if s["spec"]["nodeName"] != node]
    doc = run(prod, cluster)
    check = one(doc, "slice", node, "fail")
    assert "no ResourceSlice from gpu.nvidia.com" in check["message"] and "#no-resourceslice" in check["message"]
    assert doc["summary"]["exit"] == 4
    assert [c["subject"] for c in bad(doc)] == [node]


def test_a_slice_of_the_wrong_size_fails_naming_product_and_memory(prod):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10third-12345678-vmss000001"  # an NV12ads node (8 GiB) publishing a 4 GiB slice
    cluster.slices = [node_slice(node, "Standard_NV6ads_A10_v5") if s["spec"]["nodeName"] == node else s
                      for s in cluster.slices]
    doc = run(prod, cluster)
    message = one(doc, "slice", node, "fail")["message"]
    assert "'NVIDIA A10-4Q'" in message and "'NVIDIA A10-8Q'" in message
    assert "outside the 8 GiB band" in message and "reads as a 4 GiB slice" in message and "#wrong-slice" in message
    assert doc["summary"]["exit"] == 4


@pytest.mark.parametrize("change, words", [
    ({"memory": "11Gi"}, "outside the 8 GiB band"),  # reads as 12 GiB
    ({"memory": "6Gi"}, "outside the 8 GiB band"),  # further below nominal than the margin allows
    ({"devices": 2}, "2 device(s), Standard_NV12ads_A10_v5 presents 1"),
    ({"product": "NVIDIA A10G"}, "productName is 'NVIDIA A10G'"),
])
def test_each_wrong_slice_detail_fails(prod, change, words):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10third-12345678-vmss000000"
    cluster.slices = [node_slice(node, "Standard_NV12ads_A10_v5", **change) if s["spec"]["nodeName"] == node else s
                      for s in cluster.slices]
    doc = run(prod, cluster)
    assert words in one(doc, "slice", node, "fail")["message"]


def test_a_pool_missing_its_gpu_label_fails_on_node_plugin_and_slice(prod):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10full-12345678-vmss000000"
    del cluster.node(node)["metadata"]["labels"]["nvidia.com/gpu.present"]
    without_plugin(cluster, node)  # the plugin never went there
    doc = run(prod, cluster)
    assert "nvidia.com/gpu.present=true is missing" in one(doc, "node", node, "fail")["message"]
    plugin = one(doc, "dra-plugin", node, "fail")["message"]
    assert "does not match its node selector" in plugin and "nvidia.com/gpu.present=true" in plugin
    assert "#plugin-node-selector" in plugin
    assert "does not run there" in one(doc, "slice", node, "fail")["message"]


def test_a_taint_the_plugin_does_not_tolerate_is_named(prod):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10third-12345678-vmss000000"
    cluster.node(node)["spec"]["taints"].append({"key": "sku", "value": "gpu", "effect": "NoSchedule"})
    without_plugin(cluster, node)
    doc = run(prod, cluster)
    plugin = one(doc, "dra-plugin", node, "fail")["message"]
    assert "does not tolerate the node's taint(s) sku=gpu:NoSchedule" in plugin and "#plugin-taint-not-tolerated" in plugin
    # the declared taints (nvidia.com/gpu, spot) are tolerated: only this node is named
    assert {c["subject"] for c in bad(doc) if c["check"] == "dra-plugin"} == {node}
    assert doc["summary"]["exit"] == 4


def test_prefer_no_schedule_taints_never_block(prod):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10third-12345678-vmss000000"
    cluster.node(node)["spec"]["taints"].append({"key": "soft", "value": "x", "effect": "PreferNoSchedule"})
    without_plugin(cluster, node, slices=False)
    doc = run(prod, cluster)
    assert one(doc, "dra-plugin", node)["status"] == "warn"  # not yet created, nothing keeps it away


def test_a_pool_at_zero_warns_with_the_scale_from_zero_reason_and_exits_3(prod):
    cluster = healthy(prod, PROD_NODES)
    cluster.without_node("aks-a10full-12345678-vmss000000")  # a10full: autoscaling minCount 0
    doc = run(prod, cluster)
    check = one(doc, "pool", "a10full", "warn")
    assert SCALE_FROM_ZERO_WHY in check["message"]
    assert one(doc, "claim-template", "dra-samples/a10-vgpu-24gib", "warn")
    assert doc["summary"]["exit"] == 3 and doc["summary"]["fail"] == 0


def test_a_pool_that_should_have_nodes_and_has_none_fails(prod):
    cluster = healthy(prod, PROD_NODES)
    for i in range(2):
        cluster.without_node(f"aks-a10third-12345678-vmss00000{i}")  # minCount 1
    doc = run(prod, cluster)
    assert "expected at least 1" in one(doc, "pool", "a10third", "fail")["message"]


def test_a_plugin_pod_still_starting_warns(prod):
    cluster = healthy(prod, PROD_NODES)
    ns = "nvidia-dra-driver-gpu"
    ds = cluster.daemon_sets[ns][0]
    node = "aks-a10spot-12345678-vmss000000"
    cluster.pods[ns] = [daemon_pod(ds, node, ready=False) if p["spec"]["nodeName"] == node else p for p in cluster.pods[ns]]
    cluster.slices = [s for s in cluster.slices if s["spec"]["nodeName"] != node]
    doc = run(prod, cluster)
    assert one(doc, "dra-plugin", node, "warn") and one(doc, "slice", node, "warn")
    assert doc["summary"]["exit"] == 3


def test_a_missing_slice_under_a_plugin_pod_no_kubelet_started_fails(prod):
    cluster = healthy(prod, PROD_NODES)
    ns = "nvidia-dra-driver-gpu"
    ds = cluster.daemon_sets[ns][0]
    cluster.pods[ns] = [daemon_pod(ds, p["spec"]["nodeName"], ready=False, started=False) for p in cluster.pods[ns]]
    node = "aks-a10spot-12345678-vmss000000"
    cluster.slices = [s for s in cluster.slices if s["spec"]["nodeName"] != node]
    doc = run(prod, cluster)
    assert "never started by the node's kubelet" in one(doc, "slice", node, "fail")["message"]
    assert "not started by the node's kubelet yet" in one(doc, "dra-plugin", node, "warn")["message"]
    assert [c["subject"] for c in doc["checks"] if c["check"] == "slice" and c["status"] != "ok"] == [node]
    assert doc["summary"]["exit"] == 4


def test_a_crashing_plugin_fails(prod):
    cluster = healthy(prod, PROD_NODES)
    ns = "nvidia-dra-driver-gpu"
    pod = cluster.pods[ns][0]
    pod["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}], "containerStatuses": [
        {"name": "gpus", "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}}}]}
    doc = run(prod, cluster)
    assert "CrashLoopBackOff" in one(doc, "dra-plugin", pod["spec"]["nodeName"], "fail")["message"]


def test_a_drifted_device_class_selector_fails(prod):
    cluster = healthy(prod, PROD_NODES)
    cls = next(c for c in cluster.device_classes if c["metadata"]["name"] == "a10-vgpu")
    cls["spec"]["selectors"][0]["cel"]["expression"] = "device.driver == 'gpu.nvidia.com'"
    doc = run(prod, cluster)
    assert "#deviceclass-drift" in one(doc, "device-class", "a10-vgpu", "fail")["message"]
    assert doc["summary"]["exit"] == 4


def test_a_device_class_that_matches_no_live_device_names_the_devices(prod):
    cluster = healthy(prod, PROD_NODES)
    cls = next(c for c in cluster.device_classes if c["metadata"]["name"] == "a10-vgpu")
    cls["spec"]["selectors"][0]["cel"]["expression"] = "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L4'"
    doc = run(prod, cluster)
    failed = [c["message"] for c in bad(doc) if c["check"] == "device-class"]
    assert any("matches no GPU of these devices" in m and "aks-a10full-12345678-vmss000000/gpu-0 (NVIDIA A10-24Q)" in m
               for m in failed), failed


def test_a_missing_device_class_and_template_fail(prod):
    cluster = healthy(prod, PROD_NODES)
    cluster.device_classes = [c for c in cluster.device_classes if c["metadata"]["name"] != "a10-vgpu"]
    cluster.templates["dra-samples"] = [t for t in cluster.templates["dra-samples"] if not t["metadata"]["name"].endswith("8gib")]
    doc = run(prod, cluster)
    assert "#deviceclass-missing" in one(doc, "device-class", "a10-vgpu", "fail")["message"]
    assert one(doc, "claim-template", "dra-samples/a10-vgpu-8gib", "fail")


def test_a_drifted_claim_template_fails_and_server_defaults_do_not(prod):
    cluster = healthy(prod, PROD_NODES)
    templates = cluster.templates["dra-samples"]
    templates[0]["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"][0]["tolerations"] = []  # an added default
    templates[1]["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    doc = run(prod, cluster)
    assert one(doc, "claim-template", f"dra-samples/{templates[0]['metadata']['name']}")["status"] == "ok"
    assert "#claim-template-drift" in one(doc, "claim-template", f"dra-samples/{templates[1]['metadata']['name']}",
                                          "fail")["message"]


def test_an_old_cluster_and_no_v1_dra_fail(prod):
    cluster = healthy(prod, PROD_NODES)
    cluster.version = "v1.34.1"
    cluster.resource_versions = ["v1beta1"]
    doc = run(prod, cluster)
    assert "older than 1.35.0" in one(doc, "version", status="fail")["message"]
    assert one(doc, "dra-api", status="fail")


def test_a_forbidden_list_is_reported_not_raised(prod):
    cluster = healthy(prod, PROD_NODES)
    cluster.forbidden = {"resourceslices"}
    doc = run(prod, cluster)
    assert "forbidden" in one(doc, "access", "resourceslices", "fail")["message"]


def test_the_dcgm_exporter_missing_on_a_node_fails_only_when_monitoring_is_on(prod, dev):
    cluster = healthy(prod, PROD_NODES)
    node = "aks-a10spot-12345678-vmss000000"
    cluster.pods["gpu-metrics"] = [p for p in cluster.pods["gpu-metrics"] if p["spec"]["nodeName"] != node]
    cluster.node(node)["spec"]["taints"].append({"key": "x", "effect": "NoExecute"})
    cluster.daemon_sets["nvidia-dra-driver-gpu"][0]["spec"]["template"]["spec"]["tolerations"].append(
        {"key": "x", "operator": "Exists"})
    doc = run(prod, cluster)
    assert "x:NoExecute" in one(doc, "gpu-metrics", node, "fail")["message"]
    assert one(doc, "dra-plugin", node)["status"] == "ok"


def test_a_gpu_node_outside_the_stacks_pools_is_named(prod):
    cluster = healthy(prod, PROD_NODES)
    from tests.verify_cluster import aks_node

    cluster.nodes.append(aks_node("aks-old-1", "oldgpus", "Standard_NV6ads_A10_v5", labels={"nvidia.com/gpu.present": "true"}))
    assert one(run(prod, cluster), "node", "aks-old-1", "warn")


def test_every_troubleshooting_entry_a_finding_links_to_exists():
    import re

    from components.verify.report import FIXES
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    assert FIXES and set(re.findall(r'<a id="([a-z0-9-]+)"></a>', text)) >= FIXES
    used = set()
    for path in (ROOT / "components" / "verify").glob("*.py"):
        used |= set(re.findall(r'"([a-z]+(?:-[a-z0-9]+)+)"\)', path.read_text(encoding="utf-8")))
    assert used - {"gpu-metrics", "dra-plugin", "shared-claim", "claim-template", "device-class", "smoke-metrics"} <= FIXES


def test_expected_names_follow_the_chart_and_the_stack(prod, dev):
    exp = expected(prod)
    assert exp.plugin_daemon_set == "nvidia-dra-driver-gpu-kubelet-plugin"
    assert exp.controller_deployment is None
    assert exp.min_version == (1, 35, 0)
    assert [t.name for t in exp.templates] == ["a10-vgpu-8gib", "a10-vgpu-24gib"]
    assert expected(dev).min_version == (1, 35, 0)
    on_134 = dev.model_copy(update={"cluster": dev.cluster.model_copy(update={"kubernetes_version": "1.34"})})
    assert expected(on_134).min_version == (1, 34, 2)  # "1.34" may be any 1.34 patch; the driver needs 1.34.2


def test_wait_rechecks_until_what_was_starting_is_ready(prod, monkeypatch):
    monkeypatch.setattr(verify_run, "POLL_SECONDS", 0.01)
    cluster = healthy(prod, PROD_NODES)
    ns = "nvidia-dra-driver-gpu"
    ready = cluster.pods[ns]
    ds = cluster.daemon_sets[ns][0]
    starting = [daemon_pod(ds, p["spec"]["nodeName"], ready=False) for p in ready]

    class Starting(FakeClient):
        rounds = 0

        def list_pods(self, namespace, label_selector=None):
            if namespace == ns:
                type(self).rounds += 1
                return starting if self.rounds < 3 else ready
            return super().list_pods(namespace, label_selector)

    assert components.verify(prod, Starting(cluster))["summary"]["exit"] == 3  # no --wait: one round
    Starting.rounds = 0
    doc = components.verify(prod, Starting(cluster), wait=30)
    assert doc["summary"]["exit"] == 0 and Starting.rounds == 3


def test_an_endpoint_that_answers_no_kubernetes_version_is_not_reported_as_an_api_server():
    from tests.verify_cluster import stack

    class Stub(FakeClient):
        def version(self):
            return {}  # what a stub or a web server's JSON answers at /version

    config = stack("dev")
    doc = components.verify(config, Stub(healthy(config)))
    (api,) = [c for c in doc["checks"] if c["check"] == "api"]
    assert api["status"] == "fail" and "None" not in api["message"]
    assert api["message"].startswith("the server answered /version with no Kubernetes version (no gitVersion, major or "
                                     "minor): it is not a Kubernetes API server")
    assert doc["summary"]["exit"] == 4
