"""The real dcgm-exporter charts (4.8.3, the package's default, and 4.8.2), rendered by the real helm with GpuMetrics'
values for each stack's GPU pools.

It renders; every value sent is a key of the chart's values.yaml; the DaemonSet sets KUBERNETES_ENABLE_DRA, lands only
on GPU nodes, tolerates every GPU pool's taint (AKS's spot taint included) and nothing else; its counter list has no
profiling (DCP) field when a pool has fractional slices; the chart's own ServiceMonitor is off (the package declares the
one scrape object); the RBAC DRA attribution needs is there; every built-in object passes Kubernetes 1.34's schema.

Needs HELM (a helm binary) and DRA_CHARTS_DIR (the folder holding ``dcgm-exporter-4.8.3/`` and ``dcgm-exporter-4.8.2/``,
unmodified copies of NVIDIA's charts); skips without them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from components.catalog import DCGM_EXPORTER_CHARTS, DEFAULT_DCGM_EXPORTER_CHART
from components.config import GpuPoolConfig
from components.config.monitoring import GpuMetricsConfig
from components.observability.counters import COUNTERS
from components.observability.exporter import exporter_values
from tests.conftest import ROOT
from tests.test_chart_render import _artifact, helm_template

NAMESPACE = "gpu-metrics"
RELEASE = "dcgm-exporter"
SPOT_TAINT = "kubernetes.azure.com/scalesetpriority"


def _pools(stack: str) -> list[GpuPoolConfig]:
    data = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]["aks-dra-vgpu:gpuPools"]
    return [GpuPoolConfig.model_validate(p) for p in data]


# Maps whose keys are the user's (labels, resource names), not chart values.
_FREE_MAPS = {("nodeSelector",), ("resources", "requests"), ("resources", "limits")}


def _flatten(values: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(values, dict) and values and prefix not in _FREE_MAPS:
        return [path for key, value in values.items() for path in _flatten(value, (*prefix, key))]
    return [prefix]


@pytest.fixture(scope="module", params=[(chart, stack) for chart in (DEFAULT_DCGM_EXPORTER_CHART, "4.8.2")
                                         for stack in ("dev", "prod", "whole")], ids="-".join)
def rendered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    version, stack = request.param
    helm = _artifact("HELM", "a helm binary")
    chart = _artifact("DRA_CHARTS_DIR", "the folder holding the charts") / f"dcgm-exporter-{version}"
    if not chart.is_dir():
        pytest.skip(f"DRA_CHARTS_DIR holds no dcgm-exporter-{version}/")
    if stack == "whole":
        pools = [GpuPoolConfig(name="full", vm_size="Standard_NV36ads_A10_v5", taints=["gpu=whole:NoSchedule"])]
    else:
        pools = _pools(stack)
    # The settings a stack gets for this chart: its own image, or (4.8.2's waits for v1beta1) the default's.
    config = GpuMetricsConfig(enabled=True, chart_version=version,
                              image_tag=None if version == DEFAULT_DCGM_EXPORTER_CHART else DCGM_EXPORTER_CHARTS[
                                  DEFAULT_DCGM_EXPORTER_CHART])
    values = exporter_values(config, pools)
    result = helm_template(helm, chart, values, NAMESPACE, RELEASE, tmp_path_factory.mktemp(f"{version}-{stack}"))
    assert result.returncode == 0, result.stderr
    objects = [d for d in yaml.safe_load_all(result.stdout) if d]
    return {"name": stack, "version": version, "pools": pools, "values": values, "objects": objects, "chart": chart}


def test_the_package_defaults_to_a_chart_the_tests_render():
    assert DEFAULT_DCGM_EXPORTER_CHART == "4.8.3" and set(DCGM_EXPORTER_CHARTS) == {"4.8.2", "4.8.3"}


def _one(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [o for o in objects if o["kind"] == kind]
    assert len(found) == 1, [o["kind"] for o in objects]
    return found[0]


def test_every_value_sent_is_a_chart_value(rendered):
    chart_values = yaml.safe_load((Path(rendered["chart"]) / "values.yaml").read_text())
    known = {p for p in _flatten(chart_values)}
    prefixes = {p[:i] for p in known for i in range(1, len(p) + 1)}
    # customMetrics is documented (commented) in values.yaml and read by templates/metrics-configmap.yaml.
    for path in _flatten(rendered["values"]):
        assert path in prefixes or path == ("customMetrics",), path


def test_dra_attribution_is_on_with_its_rbac(rendered):
    pod = _one(rendered["objects"], "DaemonSet")["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["KUBERNETES_ENABLE_DRA"] == "true"
    assert pod["automountServiceAccountToken"] is True
    rule = _one(rendered["objects"], "ClusterRole")["rules"][0]
    assert set(rule["resources"]) == {"pods", "resourceslices"} and "resource.k8s.io" in rule["apiGroups"]


def test_only_on_gpu_nodes_tolerating_every_pool_taint(rendered):
    pod = _one(rendered["objects"], "DaemonSet")["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    tolerated = {(t["key"], t.get("value"), t["effect"]) for t in pod.get("tolerations", [])}
    taints = {(t.key, t.value, t.effect) for p in rendered["pools"] for t in p.parsed_taints}
    assert tolerated == taints  # every pool's taint, and no other (the chart's control-plane toleration is gone)
    if rendered["name"] == "prod":
        assert SPOT_TAINT in {key for key, _, _ in tolerated}


def test_no_profiling_counters_on_fractional_slices(rendered):
    metrics = yaml.safe_load(yaml.safe_dump(_one(rendered["objects"], "ConfigMap")["data"]))["metrics"]
    fields = {line.split(",")[0].strip() for line in metrics.splitlines() if line and not line.startswith("#")}
    assert "DCGM_FI_DEV_GPU_UTIL" in fields and "DCGM_FI_DEV_FB_USED" in fields and "DCGM_FI_DEV_XID_ERRORS" in fields
    profiling = {c.field for c in COUNTERS if c.profiling}
    fractional = any(p.size.gpu_memory_gib < 24 for p in rendered["pools"])
    assert (fields & profiling == set()) if fractional else (profiling <= fields)
    # The DaemonSet reads exactly that list: the chart mounts the ConfigMap over the exporter's default file, which
    # chart 4.8.2 names with -f and 4.8.3 leaves to the exporter's own default (`arguments: []`; the collectors flag
    # defaults to that path, NVIDIA/dcgm-exporter pkg/cmd/app.go).
    container = _one(rendered["objects"], "DaemonSet")["spec"]["template"]["spec"]["containers"][0]
    assert {(m["mountPath"], m.get("subPath")) for m in container["volumeMounts"]} >= {
        ("/etc/dcgm-exporter/default-counters.csv", "default-counters.csv")}
    wanted = ["-f", "/etc/dcgm-exporter/default-counters.csv"] if rendered["version"] == "4.8.2" else None
    assert container.get("args") == wanted


def test_pinned_image_and_resources_and_no_chart_service_monitor(rendered):
    container = _one(rendered["objects"], "DaemonSet")["spec"]["template"]["spec"]["containers"][0]
    # The default image reads resource.k8s.io/v1 (4.6.0-4.8.3, chart 4.8.3's own); with chart 4.8.2 it is set.
    assert container["image"] == "nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless"
    assert container["resources"]["requests"] == {"cpu": "100m", "memory": "128Mi"}
    assert container["resources"]["limits"] == {"cpu": "200m", "memory": "512Mi"}
    assert not [o for o in rendered["objects"] if o["kind"] == "ServiceMonitor"]


def test_built_in_objects_pass_the_strict_schema(rendered):
    for obj in rendered["objects"]:
        kubernetes_validate.validate(obj, "1.34", strict=True)
