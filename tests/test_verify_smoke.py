"""`verify --smoke` against a fake cluster that allocates claims and runs pods the way the scheduler and kubelet would:
what it creates (only in its own scratch namespace), what it checks, and that it always cleans up."""

from __future__ import annotations

import copy

import pytest

import components
from components.kubernetes.selectors import size_class_of
from components.kubernetes.tolerations import tolerations_for_size
from components.verify import run, smoke
from components.verify.checks_devices import memory_mib
from tests.verify_cluster import FakeClient, healthy, stack

PROD_NODES = {"a10third": 1, "a10full": 1, "a10spot": 1}


class SmokeCluster(FakeClient):
    """Allocates each smoke claim a free device of the wanted size (or `size_override`), then runs the pod to `outcome`."""

    def __init__(self, cluster, *, outcome="Succeeded", size_override=None, never_allocate=False, interrupt_on=None,
                 exporter_sees_pod=True):
        super().__init__(cluster)
        self.outcome, self.size_override, self.never_allocate = outcome, size_override, never_allocate
        self.interrupt_on, self.exporter_sees_pod = interrupt_on, exporter_sees_pod
        self.created: list[tuple[str, str | None, dict]] = []
        self.deleted: list[str] = []
        self.objects: dict[tuple[str, str], dict] = {}
        self.reads: dict[str, int] = {}
        self.taken: set[tuple[str, str]] = set()

    def create(self, kind, body, namespace=None):
        body = copy.deepcopy(body)
        meta = body["metadata"]
        meta.setdefault("name", meta.get("generateName", "") + f"z{len(self.created)}")
        self.created.append((kind, namespace, body))
        self.objects[(namespace or "", meta["name"])] = body
        return body

    def delete_namespace(self, name):
        self.deleted.append(name)

    def _device(self, size):
        for s in self.cluster.slices:
            for d in s["spec"]["devices"]:
                key = (s["spec"]["nodeName"], d["name"])
                if key not in self.taken and size_class_of(memory_mib(d), 10) == size:
                    self.taken.add(key)
                    return key
        raise AssertionError(f"no free {size} GiB device")

    def read_pod(self, namespace, name):
        if self.interrupt_on == "read_pod":
            raise KeyboardInterrupt
        pod = self.objects[(namespace, name)]
        count = self.reads[name] = self.reads.get(name, 0) + 1
        if self.never_allocate or count == 1:
            pod["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "message":
                             "0/4 nodes are available: 4 cannot allocate all claims."}]}
            return copy.deepcopy(pod)
        if "claim" not in pod:
            template = pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"]
            size = self.size_override or int(template.rsplit("-", 1)[1].removesuffix("gib"))
            node, device = self._device(size)
            pod["claim"] = f"{name}-gpu-abc12"
            self.objects[(namespace, pod["claim"])] = {"metadata": {"name": pod["claim"]}, "status": {"allocation": {
                "devices": {"results": [{"request": "gpu/x", "driver": "gpu.nvidia.com", "pool": node, "device": device}]}}}}
            pod["spec"]["nodeName"] = node
        phase = "Running" if count == 2 else self.outcome
        pod["status"] = {"phase": phase, "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": pod["claim"]}]}
        return copy.deepcopy(pod)

    def read_resource_claim(self, namespace, name):
        return copy.deepcopy(self.objects[(namespace, name)])

    def pod_log(self, namespace, name):
        return "GPU 0: NVIDIA A10-8Q (UUID: GPU-5f1c)\n" if self.outcome == "Succeeded" else "nvidia-smi: not found\n"

    def pod_proxy_get(self, namespace, name, port, path):
        pods = [n for (ns, n), o in self.objects.items() if o.get("kind") == "Pod"]
        labels = "".join(f'DCGM_FI_DEV_FB_USED{{gpu="0",pod="{p}",namespace="{ns}"}} 12\n'
                         for (ns, p), o in self.objects.items() if o.get("kind") == "Pod") if self.exporter_sees_pod else ""
        assert pods is not None and port == 9400 and path == "metrics"
        return "# TYPE DCGM_FI_DEV_FB_USED gauge\n" + labels


@pytest.fixture(autouse=True)
def fast(monkeypatch):
    monkeypatch.setattr(smoke, "POLL", 0.01)
    monkeypatch.setattr(smoke, "CLEANUP_RESERVE", 0.05)
    monkeypatch.setattr(run, "POLL_SECONDS", 0.01)


@pytest.fixture(scope="module")
def prod():
    return stack("prod")


def smoke_checks(doc):
    return [c for c in doc["checks"] if c["check"].startswith("smoke")]


def test_smoke_claims_each_size_in_its_own_namespace_and_deletes_it(prod):
    client = SmokeCluster(healthy(prod, PROD_NODES))
    doc = components.verify(prod, client, smoke=True, timeout=30)
    namespaces = [body["metadata"]["name"] for kind, _, body in client.created if kind == "Namespace"]
    assert len(namespaces) == 1 and namespaces[0].startswith("aks-dra-vgpu-verify-")
    (ns_body,) = [b for k, _, b in client.created if k == "Namespace"]
    assert ns_body["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    assert ns_body["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "aks-dra-vgpu"
    assert all(ns == namespaces[0] for kind, ns, _ in client.created if kind != "Namespace")  # nothing elsewhere
    assert client.deleted == namespaces
    by_status = {(c["subject"], c["check"], c["status"]) for c in smoke_checks(doc)}
    for key in ("8GiB", "24GiB"):
        assert (key, "smoke", "ok") in by_status and (key, "smoke-metrics", "ok") in by_status
    completed = [c["message"] for c in smoke_checks(doc) if "completed" in c["message"]]
    assert len(completed) == 2 and all("GPU 0: NVIDIA A10-8Q" in m for m in completed)
    assert doc["summary"]["exit"] == 0


def test_the_smoke_pod_is_the_sample_jobs_locked_down_pod_with_its_size_tolerations(prod):
    client = SmokeCluster(healthy(prod, PROD_NODES))
    components.verify(prod, client, smoke=True, sizes=[8], timeout=30)
    (pod,) = [b for k, _, b in client.created if k == "Pod"]
    (template,) = [b for k, _, b in client.created if k == "ResourceClaimTemplate"]
    spec = pod["spec"]
    assert spec["tolerations"] == tolerations_for_size(prod.gpu_pools, 8)
    assert spec["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": template["metadata"]["name"]}]
    assert spec["securityContext"]["runAsNonRoot"] and spec["containers"][0]["securityContext"]["capabilities"] == {
        "drop": ["ALL"]}
    assert spec["containers"][0]["image"] == smoke.DEFAULT_IMAGE
    assert spec["containers"][0]["command"][-1].startswith("nvidia-smi -L")  # prod: held a while for the metrics


def test_a_failed_pod_fails_with_its_output_and_still_cleans_up(prod):
    client = SmokeCluster(healthy(prod, PROD_NODES), outcome="Failed")
    doc = components.verify(prod, client, smoke=True, sizes=[24], timeout=30)
    failed = [c for c in smoke_checks(doc) if c["status"] == "fail"]
    assert failed and "nvidia-smi: not found" in failed[0]["message"] and "#smoke-pod-failed" in failed[0]["message"]
    assert len(client.deleted) == 1 and doc["summary"]["exit"] == 4


def test_a_claim_that_never_allocates_times_out_and_cleans_up(prod):
    client = SmokeCluster(healthy(prod, PROD_NODES), never_allocate=True)
    doc = components.verify(prod, client, smoke=True, sizes=[8], timeout=0.5)
    (check,) = [c for c in smoke_checks(doc) if c["status"] == "fail"]
    assert "did not complete in time (claim unallocated; 0/4 nodes are available" in check["message"]
    assert len(client.deleted) == 1


def test_ctrl_c_still_deletes_the_namespace(prod):
    client = SmokeCluster(healthy(prod, PROD_NODES), interrupt_on="read_pod")
    with pytest.raises(KeyboardInterrupt):
        components.verify(prod, client, smoke=True, timeout=30)
    assert len(client.deleted) == 1 and client.deleted[0].startswith("aks-dra-vgpu-verify-")


def test_a_larger_slice_is_a_warning_and_a_smaller_one_a_failure(prod):
    larger = components.verify(prod, SmokeCluster(healthy(prod, PROD_NODES), size_override=24), smoke=True, sizes=[8],
                               timeout=30)
    assert any(c["status"] == "warn" and "larger slice" in c["message"] for c in smoke_checks(larger))
    cluster = healthy(prod, PROD_NODES)
    smaller = components.verify(prod, SmokeCluster(cluster, size_override=8), smoke=True, sizes=[24], timeout=30)
    assert any(c["status"] == "fail" and "#smoke-wrong-size" in c["message"] for c in smoke_checks(smaller))


def test_a_size_whose_pools_are_at_zero_is_not_run(prod):
    cluster = healthy(prod, PROD_NODES)
    cluster.without_node("aks-a10full-12345678-vmss000000")
    client = SmokeCluster(cluster)
    doc = components.verify(prod, client, smoke=True, timeout=30)
    assert any(c["subject"] == "24GiB" and c["status"] == "warn" and "not run" in c["message"] for c in smoke_checks(doc))
    assert [b["metadata"]["generateName"] for k, _, b in client.created if k == "Pod"] == ["smoke-8gib-"]


def test_metrics_without_the_pod_warn(prod):
    client = SmokeCluster(healthy(prod, PROD_NODES), exporter_sees_pod=False)
    doc = components.verify(prod, client, smoke=True, sizes=[8], timeout=30)
    assert any(c["check"] == "smoke-metrics" and c["status"] == "warn" for c in smoke_checks(doc))
