"""`verify` on recorded clusters with a MIG pool (the `mig` example stack: an A10 pool beside an A100 80GB pool that AKS
lays out as 2 x 3g.40gb): the healthy set-up, each way a MIG node's slice goes wrong, and `--smoke` claiming one slice
per MIG template (allocated by evaluating the template's own CEL on the recorded devices)."""

from __future__ import annotations

import copy

import pytest
import yaml

import components
from components.config import stack_config_from_mapping
from components.verify import smoke
from components.verify.cel import selects
from components.verify.checks_devices import MIG_CLASS_CEL
from tests.conftest import ROOT
from tests.test_verify_smoke import SmokeCluster
from tests.verify_cluster import FakeClient, healthy, mig_device, mig_devices, mig_node_slice, stack, whole_gpu

MIG_NODE = "aks-a100mig-12345678-vmss000000"
A10_NODE = "aks-a10s-12345678-vmss000000"
VM, PROFILE = "Standard_NC24ads_A100_v4", "MIG3g"


@pytest.fixture(scope="module")
def mig():
    return stack("mig")


def run(config, cluster):
    return components.verify(config, FakeClient(cluster))


def slice_check(doc, node=MIG_NODE):
    return next(c for c in doc["checks"] if c["check"] == "slice" and c["subject"] == node)


def with_devices(config, devices):
    cluster = healthy(config)
    cluster.slices = [s for s in cluster.slices if s["spec"]["nodeName"] != MIG_NODE]
    cluster.slices.append(mig_node_slice(MIG_NODE, VM, PROFILE, devices=devices))
    return cluster


def test_a_healthy_mig_and_a10_cluster_is_all_ok(mig):
    doc = run(mig, healthy(mig))
    assert [c for c in doc["checks"] if c["status"] in ("warn", "fail")] == []
    assert slice_check(doc)["message"].startswith("2 x 3g.40gb on A100 80GB (1 GPU(s) x 2)")
    templates = {c["subject"]: c["message"] for c in doc["checks"] if c["check"] == "claim-template"}
    assert f"1 node(s) offer its own size (a100-80gb-3g.40gb): {MIG_NODE}" in templates["dra-samples/mig-a100-80gb-3g40gb"]
    # The A10 DeviceClass is judged on the A10 nodes' devices only: MIG slices are not A10s, and not its business.
    assert any(c["check"] == "device-class" and "matches all 1 GPU device(s)" in c["message"] for c in doc["checks"])


def test_a_gpu_announced_whole_beside_its_slices_under_a_fixed_chart_fails_with_the_restart(mig):
    # The mig stack installs 0.4.1, which carries the fix for #719: the whole GPU is one seen before MIG mode.
    doc = run(mig, with_devices(mig, [whole_gpu(0, VM), *mig_devices(VM, PROFILE)]))
    check = slice_check(doc)
    assert check["status"] == "fail" and "announces 1 GPU(s) whole (gpu-0) beside 2 MIG slice(s)" in check["message"]
    assert "chart 0.4.1 does not announce a MIG GPU whole" in check["message"]
    assert f"restart the kubelet plugin pod on {MIG_NODE}" in check["message"]
    assert "use 25" not in check["message"] and "#mig-gpu-announced-whole" in check["message"]
    assert doc["summary"]["exit"] == 4


def test_a_gpu_announced_whole_under_a_chart_without_the_fix_names_the_charts_that_have_it(mig):
    from dataclasses import replace

    from components.catalog.charts import DRIVER_CHARTS
    from components.verify.checks_mig import mig_node_check

    pool = next(p for p in mig.gpu_pools if p.is_mig)
    devices = [whole_gpu(0, VM), *mig_devices(VM, PROFILE)]
    old = replace(DRIVER_CHARTS["25.8.1"], version="25.8.0", announces_mig_parent=True)
    for chart, named in ((old, "here chart 25.8.0"), (None, "here a driver this stack does not install")):
        check = mig_node_check(MIG_NODE, pool, devices, 10, None, chart)
        assert check.status == "fail", check
        assert "charts 25.8.0 and older do this (driver #719, fixed by #776, backported to 25.8.1 by #781)" in check.message
        assert named in check.message
        assert "use 25.8.1+ or 0.4.0+ (see docs/troubleshooting.md#mig-gpu-announced-whole)" in check.message
    # Every chart the package knows carries the fix (25.8.1 the backport, 0.4.0 and later #776).
    for version in ("25.8.1", "0.4.0"):
        check = mig_node_check(MIG_NODE, pool, devices, 10, None, DRIVER_CHARTS[version])
        assert f"chart {version} does not announce a MIG GPU whole" in check.message


@pytest.mark.parametrize("devices, seen", [
    ([whole_gpu(0, VM)], "publishes 0 MIG slice(s) and 1 whole GPU(s), expected 2"),
    (mig_devices(VM, PROFILE)[:1], "publishes 1 MIG slice(s), expected 2 (1 GPU(s) x 2 3g.40gb)"),
])
def test_a_plugin_that_started_before_partitioning_shows_the_wrong_count_and_the_restart(mig, devices, seen):
    check = slice_check(run(mig, with_devices(mig, devices)))
    assert check["status"] == "fail" and seen in check["message"], check
    assert "started before AKS finished partitioning" in check["message"]
    assert f"restart the kubelet plugin pod on {MIG_NODE}" in check["message"] and "#mig-wrong-count" in check["message"]


def test_a_slice_of_another_profile_or_outside_the_memory_band_fails(mig):
    other = [mig_device(0, VM, PROFILE, 0, profile="4g.40gb"), mig_device(0, VM, PROFILE, 4)]
    check = slice_check(run(mig, with_devices(mig, other)))
    assert check["status"] == "fail" and "#wrong-slice" in check["message"]
    assert "gpu-0-mig-4g40gb-9-0: profile '4g.40gb' on 'Ampere', the pool's is '3g.40gb' on 'Ampere'" in check["message"]
    low = [mig_device(0, VM, PROFILE, 0, memory="30Gi"), mig_device(0, VM, PROFILE, 4)]
    check = slice_check(run(mig, with_devices(mig, low)))
    assert "memory 30720 MiB is outside the 3g.40gb band (36864-45057 MiB, margin 10 %)" in check["message"]
    # Hopper slices of the same profile name are another GPU's: an A100 pool must not accept them.
    hopper = [mig_device(0, VM, PROFILE, s, architecture="Hopper") for s in (0, 4)]
    assert "on 'Hopper', the pool's is '3g.40gb' on 'Ampere'" in slice_check(run(mig, with_devices(mig, hopper)))["message"]


def test_a_mig_pool_at_zero_warns_in_the_slices_words(mig):
    cluster = healthy(mig)
    cluster.without_node(MIG_NODE)
    doc = run(mig, cluster)
    pool = next(c for c in doc["checks"] if c["check"] == "pool" and c["subject"] == "a100mig")
    assert pool["status"] == "fail" and "no node labelled kubernetes.azure.com/agentpool=a100mig" in pool["message"]
    template = next(c for c in doc["checks"] if c["subject"] == "dra-samples/mig-a100-80gb-3g40gb")
    assert template["status"] == "warn" and "pools a100mig at zero" in template["message"]


class MigSmoke(SmokeCluster):
    """Allocates each smoke claim the first free recorded device its template's first choice selects (real CEL)."""

    def __init__(self, cluster, **kw):
        super().__init__(cluster, **kw)
        self.mig_gets: tuple[str, str] | None = None  # a device handed to every MIG claim instead (a wrong allocation)

    def _pick(self, spec):
        (request,) = spec["devices"]["requests"]
        choice = request["exactly"] if "exactly" in request else request["firstAvailable"][0]
        if choice["deviceClassName"] == "mig.nvidia.com" and self.mig_gets:
            return self.mig_gets
        cel = [MIG_CLASS_CEL if choice["deviceClassName"] == "mig.nvidia.com" else
               self.cluster.device_classes[0]["spec"]["selectors"][0]["cel"]["expression"],
               *(s["cel"]["expression"] for s in choice["selectors"])]
        for s in self.cluster.slices:
            for d in s["spec"]["devices"]:
                key = (s["spec"]["nodeName"], d["name"])
                if key not in self.taken and selects(cel, "gpu.nvidia.com", d):
                    self.taken.add(key)
                    return key
        raise AssertionError("no free device")

    def read_pod(self, namespace, name):
        pod = self.objects[(namespace, name)]
        if "claim" not in pod and self.reads.get(name, 0) >= 1:
            template = pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"]
            spec = self.objects[(namespace, template)]["spec"]["spec"]
            node, device = self._pick(spec)
            pod["claim"] = f"{name}-gpu-abc12"
            self.objects[(namespace, pod["claim"])] = {"metadata": {"name": pod["claim"]}, "status": {"allocation": {
                "devices": {"results": [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": node, "device": device}]}}}}
            pod["spec"]["nodeName"] = node
        return super().read_pod(namespace, name)


def _smoke(config, client):
    return components.verify(config, client, smoke=True, timeout=30)


def test_smoke_claims_one_slice_per_mig_template_with_the_mig_pools_tolerations(mig, monkeypatch):
    monkeypatch.setattr(smoke, "POLL", 0)
    client = MigSmoke(healthy(mig))
    doc = _smoke(mig, client)
    results = {c["subject"]: c for c in doc["checks"] if c["check"] == "smoke"}
    assert results["a100-80gb-3g.40gb"]["status"] == "ok", results
    assert "claim allocated its own slice (3g.40gb on A100 80GB)" in " ".join(
        c["message"] for c in doc["checks"] if c["subject"] == "a100-80gb-3g.40gb")
    pods = {b["metadata"]["generateName"]: b for k, _, b in client.created if k == "Pod"}
    mig_pod = pods["smoke-a100-80gb-3g.40gb-"]
    assert mig_pod["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert mig_pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] == "mig-a100-80gb-3g40gb"
    assert "tolerations" not in pods["smoke-8gib-"]["spec"]  # the A10 pod keeps the A10 pool's (none)


def test_smoke_fails_a_mig_claim_given_another_device_and_warns_on_a_larger_slice(mig, monkeypatch):
    monkeypatch.setattr(smoke, "POLL", 0)
    client = MigSmoke(healthy(mig))
    client.mig_gets = (A10_NODE, "gpu-0")
    verdict = next(c for c in _smoke(mig, client)["checks"]
                   if c["subject"] == "a100-80gb-3g.40gb" and "allocated" in c["message"])
    assert verdict["status"] == "fail" and "#smoke-wrong-size" in verdict["message"]
    assert f"claim allocated {A10_NODE}/gpu-0 (8 GiB slice), not a100-80gb-3g.40gb" in verdict["message"]
    # A 7g.80gb for a 3g.40gb template: best fit found none of its own free, a warning only.
    cluster = healthy(mig)
    cluster.slices.append(mig_node_slice("aks-a100mig-12345678-vmss000001", VM, "MIG7g"))
    client = MigSmoke(cluster)
    client.mig_gets = ("aks-a100mig-12345678-vmss000001", "gpu-0-mig-7g80gb-0-0")
    verdict = next(c for c in _smoke(mig, client)["checks"]
                   if c["subject"] == "a100-80gb-3g.40gb" and "allocated" in c["message"])
    assert verdict["status"] == "warn" and "larger slice (7g.80gb on A100 80GB)" in verdict["message"]


def test_smoke_skips_the_exporter_check_for_mig_slices_naming_the_gap(monkeypatch):
    monkeypatch.setattr(smoke, "POLL", 0)
    monkeypatch.setattr(smoke, "HOLD_SECONDS", 0)
    data = copy.deepcopy(yaml.safe_load((ROOT / "stacks" / "Pulumi.mig.yaml").read_text())["config"])
    data["aks-dra-vgpu:cluster"]["monitoring"] = {"managedPrometheus": True, "gpuMetrics": {"enabled": True}}
    config = stack_config_from_mapping(data)
    doc = _smoke(config, MigSmoke(healthy(config)))
    metrics = {c["subject"]: c for c in doc["checks"] if c["check"] == "smoke-metrics"}
    assert metrics["a100-80gb-3g.40gb"]["status"] == "skip"
    assert "labels no MIG slice with its pod" in metrics["a100-80gb-3g.40gb"]["message"]
    assert metrics["8GiB"]["status"] == "ok"


def test_smoke_builds_its_pod_on_a_stack_of_mig_pools_alone(mig):
    # No A10 pool, so no size for the sample Job: the smoke pod is built on the MIG template itself.
    from components.verify.expected import expected

    data = yaml.safe_load((ROOT / "stacks/Pulumi.mig.yaml").read_text(encoding="utf-8"))["config"]
    data["aks-dra-vgpu:gpuPools"] = [p for p in data["aks-dra-vgpu:gpuPools"] if p["vmSize"] == VM]
    data["aks-dra-vgpu:samples"] = {"workload": False}
    exp = expected(stack_config_from_mapping(data))
    (template,) = [t for t in exp.templates if t.devices == 1]
    pod = smoke.pod_body(exp, template, "ubuntu:24.04", hold=0)
    assert pod["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "mig-a100-80gb-3g40gb"}]
    assert pod["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert pod["spec"]["containers"][0]["command"] == ["nvidia-smi", "-L"]
