"""`verify` on recorded clusters of the `serving` stack (extendedResources: aks-dra-vgpu.io/a10-8gib, a10-24gib, and
nvidia.com/gpu = an 8 GiB slice): which class serves each name (the scheduler's rule), device plugins beside DRA, the
pods that ask for such names with their claims and devices, and `--smoke` through the names themselves."""

from __future__ import annotations

import copy

import pytest

import components
from components.verify import smoke
from components.verify.cel import selects
from components.verify.checks_extended import EXTENDED_CLAIM_ANNOTATION, serving_class
from tests.test_verify_smoke import SmokeCluster
from tests.verify_cluster import FakeClient, healthy, meta, stack_fixture

serving = stack_fixture("serving")
SMALL, LARGE = "aks-small-12345678-vmss000000", "aks-large-12345678-vmss000000"
SMOKE_NODES = {"small": 3, "large": 2}  # a device for each smoke pod: the claim templates' and one per name


def cluster_of(config, nodes=None):
    cluster = healthy(config, nodes)
    cluster.version = "v1.36.2"
    return cluster


def checks(doc, check, status=None):
    return {c["subject"]: c for c in doc["checks"] if c["check"] == check and (status is None or c["status"] == status)}


def device_class(name, resource, created):
    return {"metadata": {"name": name, "creationTimestamp": created}, "spec": {"extendedResourceName": resource}}


def test_the_scheduler_takes_the_newest_class_then_the_lower_name():
    older = device_class("aks-dra-vgpu-nvidia-gpu", "nvidia.com/gpu", "2026-12-01T10:00:00Z")
    newer = device_class("gpu.nvidia.com", "nvidia.com/gpu", "2026-12-01T10:00:01Z")
    assert serving_class([older, newer], "nvidia.com/gpu") is newer
    tie = device_class("gpu.nvidia.com", "nvidia.com/gpu", "2026-12-01T10:00:00Z")
    assert serving_class([tie, older], "nvidia.com/gpu") is older  # same second: the lower name
    assert serving_class([older], "example.com/other") is None
    assert serving_class([older, newer], "deviceclass.resource.kubernetes.io/aks-dra-vgpu-nvidia-gpu") is older


def test_a_healthy_serving_cluster_names_the_class_of_each_name(serving):
    doc = components.verify(serving, FakeClient(cluster_of(serving)))
    assert doc["summary"]["exit"] == 0, [c for c in doc["checks"] if c["status"] != "ok"]
    found = checks(doc, "extended-class")
    assert set(found) == {"aks-dra-vgpu.io/a10-8gib", "aks-dra-vgpu.io/a10-24gib", "nvidia.com/gpu"}
    assert found["aks-dra-vgpu.io/a10-8gib"]["message"] == "served by the stack's aks-dra-vgpu-a10-8gib"
    assert found["nvidia.com/gpu"]["message"] == ("served by the stack's aks-dra-vgpu-nvidia-gpu; also mapped by "
                                                  "gpu.nvidia.com (created earlier or sorting later: not used)")


def test_the_charts_class_re_created_after_the_stacks_fails_naming_both(serving):
    cluster = cluster_of(serving)
    chart = next(c for c in cluster.device_classes if c["metadata"]["name"] == "gpu.nvidia.com")
    chart["metadata"]["creationTimestamp"] = "2026-12-02T08:00:00Z"  # a replaced driver release
    doc = components.verify(serving, FakeClient(cluster))
    check = checks(doc, "extended-class", "fail")["nvidia.com/gpu"]
    assert check["message"].startswith("served by gpu.nvidia.com (created 2026-12-02T08:00:00Z), not the stack's "
                                       "aks-dra-vgpu-nvidia-gpu (created 2026-12-01T10:05:00Z)")
    assert "#extended-name-taken" in check["message"] and doc["summary"]["exit"] == 4


def test_a_missing_or_edited_class_fails_and_a_foreign_duplicate_warns(serving):
    cluster = cluster_of(serving)
    cluster.device_classes = [c for c in cluster.device_classes if c["metadata"]["name"] != "aks-dra-vgpu-a10-24gib"]
    edited = next(c for c in cluster.device_classes if c["metadata"]["name"] == "aks-dra-vgpu-a10-8gib")
    edited["spec"]["selectors"] = [{"cel": {"expression": "true"}}]
    cluster.device_classes.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                   "metadata": meta("team-gpus", creationTimestamp="2026-11-01T00:00:00Z"),
                                   "spec": {"extendedResourceName": "example.com/gpu", "selectors": []}})
    cluster.device_classes.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                   "metadata": meta("team-gpus-2", creationTimestamp="2026-11-02T00:00:00Z"),
                                   "spec": {"extendedResourceName": "example.com/gpu", "selectors": []}})
    found = checks(components.verify(serving, FakeClient(cluster)), "extended-class")
    assert found["aks-dra-vgpu.io/a10-24gib"]["message"] == ("the stack's DeviceClass aks-dra-vgpu-a10-24gib is missing: "
                                                           "no class serves it (see docs/troubleshooting.md"
                                                           "#extended-class-missing)")
    assert found["aks-dra-vgpu.io/a10-8gib"]["status"] == "fail" and "#deviceclass-drift" in found[
        "aks-dra-vgpu.io/a10-8gib"]["message"]
    shared = found["example.com/gpu"]
    assert shared["status"] == "warn" and shared["message"].startswith(
        "served by team-gpus-2, but 2 classes map it (team-gpus, team-gpus-2)")


def test_a_node_with_a_device_plugin_for_a_mapped_name_fails(serving):
    cluster = cluster_of(serving)
    cluster.node(SMALL)["status"]["allocatable"]["nvidia.com/gpu"] = "1"
    cluster.node(LARGE)["status"]["allocatable"]["nvidia.com/gpu"] = "0"
    found = checks(components.verify(serving, FakeClient(cluster)), "device-plugin")
    assert list(found) == [SMALL]
    assert found[SMALL]["message"].startswith("allocatable nvidia.com/gpu: 1: a device plugin serves nvidia.com/gpu on "
                                              "this node")
    assert "#device-plugin-beside-dra" in found[SMALL]["message"]


def extended_pod(name, resource, uid, claim=None, request="container-0-request-0"):
    status = {"phase": "Running"}
    if claim:
        status["extendedResourceClaimStatus"] = {"resourceClaimName": claim, "requestMappings": [
            {"containerName": "main", "requestName": request, "resourceName": resource}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, "inference", uid=uid),
            "spec": {"containers": [{"name": "main", "image": "vllm", "resources": {
                "requests": {resource: "1"}, "limits": {resource: "1"}}}]}, "status": status}


def extended_claim(name, pod, device_class, node, annotated=True, request="container-0-request-0"):
    annotations = {EXTENDED_CLAIM_ANNOTATION: "true"} if annotated else {}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta(
        name, "inference", annotations=annotations, ownerReferences=[
            {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"],
             "controller": True}]),
        "spec": {"devices": {"requests": [{"name": request, "exactly": {"deviceClassName": device_class,
                                                                        "allocationMode": "ExactCount", "count": 1}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": request, "driver": "gpu.nvidia.com", "pool": node, "device": "gpu-0"}]}}}}


def test_pods_asking_for_mapped_names_show_their_claim_and_device_and_a_smaller_slice_warns(serving):
    cluster = cluster_of(serving)
    good = extended_pod("chat", "nvidia.com/gpu", "u1", "chat-extended-resources-x1")
    chart = extended_pod("old-chat", "nvidia.com/gpu", "u2", "old-chat-extended-resources-x2")
    small = extended_pod("llm", "aks-dra-vgpu.io/a10-24gib", "u3", "llm-extended-resources-x3")
    pending = extended_pod("waiting", "aks-dra-vgpu.io/a10-8gib", "u4")
    by_owner = extended_pod("fresh", "aks-dra-vgpu.io/a10-8gib", "u5")  # status not written yet: found by its owner
    cluster.pods["inference"] = [good, chart, small, pending, by_owner]
    cluster.claims["inference"] = [
        extended_claim("chat-extended-resources-x1", good, "aks-dra-vgpu-nvidia-gpu", SMALL),
        extended_claim("old-chat-extended-resources-x2", chart, "gpu.nvidia.com", LARGE),
        extended_claim("llm-extended-resources-x3", small, "aks-dra-vgpu-a10-24gib", SMALL),
        extended_claim("fresh-extended-resources-x5", by_owner, "aks-dra-vgpu-a10-8gib", SMALL),
    ]
    found = checks(components.verify(serving, FakeClient(cluster)), "extended-pod")
    assert found["inference/chat"]["status"] == "ok"
    assert found["inference/chat"]["message"] == (f"nvidia.com/gpu -> aks-dra-vgpu-nvidia-gpu: {SMALL}/gpu-0 "
                                                  "(8 GiB slice)")
    assert found["inference/old-chat"]["status"] == "warn"
    assert (f"nvidia.com/gpu holds 24 GiB slice at {LARGE}/gpu-0, not what the stack's aks-dra-vgpu-nvidia-gpu "
            "promises (8 GiB slice): the driver chart's class served it") in found["inference/old-chat"]["message"]
    assert found["inference/llm"]["status"] == "warn"
    assert (f"aks-dra-vgpu.io/a10-24gib holds 8 GiB slice at {SMALL}/gpu-0, smaller than what the stack's "
            "aks-dra-vgpu-a10-24gib promises (24 GiB slice): the class changed since") in found["inference/llm"]["message"]
    assert "#extended-smaller-slice" in found["inference/llm"]["message"]
    assert found["inference/waiting"]["message"] == "asks for aks-dra-vgpu.io/a10-8gib: no claim yet (not scheduled)"
    assert found["inference/fresh"]["status"] == "ok" and "?" in found["inference/fresh"]["message"]


class ExtendedSmoke(SmokeCluster):
    """Serves each smoke pod's extended resource as the scheduler does: the class `serving_class` picks, the first
    free recorded device its CEL selects, a claim owned by the pod, and the pod's extendedResourceClaimStatus."""

    def read_pod(self, namespace, name):
        pod = self.objects[(namespace, name)]
        if "resourceClaims" in pod["spec"]:  # the claim templates' smoke pods
            return super().read_pod(namespace, name)
        count = self.reads[name] = self.reads.get(name, 0) + 1
        if count == 1:
            pod["status"] = {"phase": "Pending"}
            return copy.deepcopy(pod)
        if "claim" not in pod:
            (resource,) = [n for n in pod["spec"]["containers"][0]["resources"]["limits"] if "/" in n]
            chosen = serving_class(self.cluster.device_classes, resource)
            cel = [s["cel"]["expression"] for s in chosen["spec"]["selectors"]]
            node, device = next((s["spec"]["nodeName"], d["name"]) for s in self.cluster.slices
                                for d in s["spec"]["devices"] if (s["spec"]["nodeName"], d["name"]) not in self.taken
                                and selects(cel, "gpu.nvidia.com", d))
            self.taken.add((node, device))
            pod["claim"] = f"{name}-extended-resources-q7"
            request = "container-0-request-0"
            self.objects[(namespace, pod["claim"])] = {
                "metadata": {"name": pod["claim"]},
                "spec": {"devices": {"requests": [{"name": request, "exactly": {
                    "deviceClassName": chosen["metadata"]["name"], "count": 1}}]}},
                "status": {"allocation": {"devices": {"results": [
                    {"request": request, "driver": "gpu.nvidia.com", "pool": node, "device": device}]}}}}
            pod["spec"]["nodeName"] = node
        pod["status"] = {"phase": "Running" if count == 2 else self.outcome, "extendedResourceClaimStatus": {
            "resourceClaimName": pod["claim"], "requestMappings": [
                {"containerName": "x", "requestName": "container-0-request-0", "resourceName": "?"}]}}
        return copy.deepcopy(pod)


@pytest.fixture()
def fast(monkeypatch):
    monkeypatch.setattr(smoke, "POLL", 0)


def extended_smoke(doc):
    """The allocation verdict per name (the pod's completion is a check of its own)."""
    return {c["subject"]: c for c in doc["checks"] if c["check"] == "smoke" and "/" in c["subject"]
            and "completed" not in c["message"]}


def test_smoke_runs_one_pod_per_mapped_name_through_the_name(serving, fast):
    client = ExtendedSmoke(cluster_of(serving, SMOKE_NODES))
    doc = components.verify(serving, client, smoke=True, timeout=30)
    pods = {b["metadata"]["generateName"]: b for k, _, b in client.created if k == "Pod"}
    asking = pods["smoke-nvidia-gpu-"]["spec"]
    assert "resourceClaims" not in asking
    assert asking["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert asking["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] == "1"
    assert pods["smoke-a10-24gib-"]["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    verdicts = extended_smoke(doc)
    assert verdicts["aks-dra-vgpu.io/a10-24gib"]["message"] == (
        "served by aks-dra-vgpu-a10-24gib: aks-large-12345678-vmss000001/gpu-0 (24 GiB slice)")
    assert verdicts["nvidia.com/gpu"]["status"] == "ok" and "(8 GiB slice)" in verdicts["nvidia.com/gpu"]["message"]
    completed = [c for c in doc["checks"] if c["check"] == "smoke" and "completed" in c["message"]]
    assert len(completed) == 2 + 3  # the claim templates' pods, then one per name
    assert len(client.deleted) == 2 and doc["summary"]["exit"] == 0


def test_smoke_fails_when_the_charts_class_serves_nvidia_gpu(serving, fast):
    cluster = cluster_of(serving, SMOKE_NODES)
    chart = next(c for c in cluster.device_classes if c["metadata"]["name"] == "gpu.nvidia.com")
    chart["metadata"]["creationTimestamp"] = "2026-12-02T08:00:00Z"
    doc = components.verify(serving, ExtendedSmoke(cluster), smoke=True, sizes=None, timeout=30)
    verdict = extended_smoke(doc)["nvidia.com/gpu"]
    assert verdict["status"] == "fail" and verdict["message"].startswith(
        "the scheduler's claim names gpu.nvidia.com, not the stack's aks-dra-vgpu-nvidia-gpu")


def test_a_class_whose_timestamp_does_not_read_counts_as_oldest_not_a_traceback():
    odd = device_class("aks-dra-vgpu-nvidia-gpu", "nvidia.com/gpu", "yesterday")
    naive = device_class("gpu.nvidia.com", "nvidia.com/gpu", "2026-12-01T10:00:00")
    assert serving_class([odd, naive], "nvidia.com/gpu") is naive
    assert serving_class([device_class("a", "nvidia.com/gpu", None), odd], "nvidia.com/gpu")["metadata"]["name"] == "a"


def test_a_pod_whose_recorded_claim_is_gone_is_not_said_to_be_unscheduled(serving):
    cluster = cluster_of(serving)
    mapped = extended_pod("chat", "nvidia.com/gpu", "u1", "chat-extended-resources-gone")
    unmapped = extended_pod("old", "example.com/retired", "u2", "old-extended-resources-gone")  # no class maps it now
    cluster.pods["inference"] = [mapped, unmapped]
    found = checks(components.verify(serving, FakeClient(cluster)), "extended-pod")
    assert found["inference/chat"]["status"] == "warn"
    assert found["inference/chat"]["message"] == (
        "asks for nvidia.com/gpu: the scheduler recorded claim chat-extended-resources-gone for it, which the cluster "
        "does not list (deleted, or not readable by this user)")
    assert found["inference/old"]["message"].startswith("asks for example.com/retired: the scheduler recorded claim ")


# --- what the classes do not show, and the kubelets behind the names -----------------------------------------------------
def test_a_read_only_verify_says_the_classes_do_not_show_the_schedulers_memory(serving):
    doc = components.verify(serving, FakeClient(cluster_of(serving)))
    (memory,) = checks(doc, "scheduler-memory").values()
    assert memory["status"] == "skip" and memory["message"].startswith(
        "not checked without --smoke: the classes show what a scheduler that lists them serves, but a running 1.36 "
        "scheduler forgets a name when any class that carries it is deleted")
    assert checks(doc, "extended-kubelet")["gpu nodes"]["status"] == "ok"


def test_a_gpu_node_on_a_1_35_kubelet_that_a_mapped_name_reaches_fails(serving):
    cluster = cluster_of(serving)
    cluster.node(SMALL)["status"]["nodeInfo"] = {"kubeletVersion": "v1.35.4"}
    doc = components.verify(serving, FakeClient(cluster))
    found = checks(doc, "extended-kubelet")
    assert set(found) == {SMALL} and found[SMALL]["status"] == "fail"
    # the live classes' own selectors on the node's published devices: the 8 GiB class, nvidia.com/gpu (ours, and the
    # chart's any-GPU class)
    assert found[SMALL]["message"].startswith(
        "kubelet v1.35.4 is older than 1.36, and aks-dra-vgpu.io/a10-8gib, nvidia.com/gpu can select this node's slices: "
        "a pod asking for it is admitted here but its claim is never prepared, so the container runs without the GPU")
    assert "docs/troubleshooting.md#extended-kubelet-too-old" in found[SMALL]["message"]
    assert doc["summary"]["exit"] == 4


def test_a_1_35_node_no_mapped_class_selects_passes(serving):
    cluster = cluster_of(serving)
    node = cluster.node(SMALL)
    node["status"]["nodeInfo"] = {"kubeletVersion": "v1.35.4"}
    for device_class in cluster.device_classes:  # nothing maps a name any more
        device_class.get("spec", {}).pop("extendedResourceName", None)
    doc = components.verify(serving, FakeClient(cluster))
    assert not [c for c in doc["checks"] if c["check"] == "extended-kubelet" and c["status"] == "fail"]


def test_the_smoke_names_a_forgotten_name_and_the_command_that_gives_it_back():
    from components.verify.smoke_extended import forgotten

    pending = {"status": {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/6 nodes are available: 6 Insufficient nvidia.com/gpu. preemption: 0/6 nodes are available."}]}}
    found = forgotten(pending, "nvidia.com/gpu", "aks-dra-vgpu-nvidia-gpu")
    assert found is not None and found.status == "fail"
    assert found.message.endswith(
        "run `kubectl annotate deviceclass aks-dra-vgpu-nvidia-gpu aks-dra-vgpu.io/remapped=\"$(date +%s)\" "
        "--overwrite` (new pods are served at once; pods already Pending wait for the scheduler's next retry, at most "
        "five minutes) (see docs/troubleshooting.md#extended-name-forgotten)")
    full = copy.deepcopy(pending)
    full["status"]["conditions"][0]["message"] = "0/6 nodes are available: 6 cannot allocate all claims."
    assert forgotten(full, "nvidia.com/gpu", "aks-dra-vgpu-nvidia-gpu") is None  # no free device: keep waiting
