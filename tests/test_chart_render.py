"""The real NVIDIA DRA driver chart, rendered by the real helm with the component's values.

For every offered chart version (0.4.1, the default, and 0.5.0 included) and both stacks (plus compute domains on,
for the controller, and a pool shared by memory on 0.5.0): the chart renders; every value sent exists in the chart's
values.yaml; the kubelet plugin selects the GPU pools' nodes and tolerates their taints; every driver container's
FEATURE_GATES holds only gates that version's binaries know, with IMEXDaemonsWithDNSNames=false; every object validates
against Kubernetes 1.34's schemas in strict mode (and 1.36's for shared slices); and the upgrades 25.8.1 -> 0.4.1,
0.4.1 -> 0.5.0 and 25.8.1 -> 0.5.0 delete no object. Each case is rendered once per session and shared.

Needs two artifacts, named by environment variables: HELM (a helm binary) and DRA_CHARTS_DIR (a folder holding
``<chart>-<version>/`` as ``helm pull <chart> --version <version> --untar`` leaves it). Without them the tests skip;
with AKS_DRA_REQUIRE_ARTIFACTS=1 (CI) they fail instead.

0.5.0: where the folder ``dra-driver-nvidia-gpu-0.5.0`` (the released chart, as ``.ci/chart-tests`` pulls it) is not
there, the tests render ``dra-driver-nvidia-gpu-0.5.0-dev`` instead: upstream's chart from main at 9593204 (2026-08-07),
twelve days before v0.5.0 was tagged. It stands for 0.5.0: upstream's 0.4.1 -> 0.5.0 notes (site/content/docs/
upgrade.md) say the release only adds values keys (consumableShares, resources.computeDomains.imex.*) and gates
(ConsumableShares, HostManagedIMEXDaemon, DRAListTypeAttributes), all present in that chart.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from components.catalog import (
    CHART_DEVICE_CLASSES,
    DRIVER_CHARTS,
    GPU_PRESENT_LABEL,
    OFFERED_CHART_VERSIONS,
    RESOURCE_API_VERSION,
    DriverChart,
)
from components.catalog.host_drivers import AKS_MIN_SUPPORTED_GRID_DRIVER, driver_version
from components.config import DraDriverConfig, GpuPoolConfig, StackConfig, Taint, parse_taint, stack_config_from_mapping
from components.kubernetes.dra_driver import LEGACY_NAME, driver_values, feature_gates
from components.offline import load_project, read_stack_config
from tests.conftest import ROOT

KUBE_VERSION = "1.34.0"
STACKS = ("dev", "prod")
# 25.12.0 is refused unless the stack states a host driver >= 580 (its kubelet plugin needs a newer NVML).
HOST_DRIVER_FOR_REFUSED = "580.65.06"
IMEX = "IMEXDaemonsWithDNSNames"

# Kinds the driver's charts may render that kubernetes-validate has no schema for (not built into Kubernetes): they
# are skipped, with this reason. Anything else without a schema fails (e.g. a built-in kind at a version 1.34 lacks).
CUSTOM_GROUPS = {
    "cert-manager.io": "cert-manager's kinds (webhook TLS) are not Kubernetes built-ins",
    "resource.nvidia.com": "the driver's own kinds are defined by its CRDs, not by Kubernetes",
}
CLUSTER_SCOPED = {
    "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "DeviceClass",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration",
}
# 0.4.0 writes the pod template label `nvidia-dra-driver-gpu-component` twice when nameOverride is
# `nvidia-dra-driver-gpu` (upstream kubernetes-sigs/dra-driver-nvidia-gpu#1184, fixed in 0.4.1). Helm keeps the last of
# duplicate keys; strict YAML consumers (Flux, Argo CD post-renderers) reject the manifest. The package refuses 0.4.0, so
# no offered version may render a duplicate key; a test below shows the real 0.4.0 chart does.
DUPLICATED_LABEL_0_4_0 = "nvidia-dra-driver-gpu-component"


# --- artifacts -----------------------------------------------------------------------------------------------------
def _artifact(env: str, what: str) -> Path:
    """The path an environment variable names; skips (or, when artifacts are required, fails) without it."""
    value = os.environ.get(env)
    if value and Path(value).exists():
        return Path(value)
    reason = f"{env} is not set to {what}" if not value else f"{env}={value} does not exist ({what})"
    if os.environ.get("AKS_DRA_REQUIRE_ARTIFACTS") == "1":
        pytest.fail(f"{reason}; AKS_DRA_REQUIRE_ARTIFACTS=1 requires the real chart tests to run")
    pytest.skip(f"{reason}; set it to run the real chart tests")


@pytest.fixture(scope="session")
def helm() -> Path:
    """The real helm binary."""
    return _artifact("HELM", "a helm binary")


@pytest.fixture(scope="session")
def charts_dir() -> Path:
    """The folder holding the NVIDIA charts, one ``<chart>-<version>`` folder each."""
    return _artifact("DRA_CHARTS_DIR", "the folder holding the NVIDIA DRA driver charts")


# Pre-release stand-ins for a released chart that is not in DRA_CHARTS_DIR (see the module docstring): 0.5.0 is
# rendered from upstream main 12 days before its tag.
STAND_INS = {"0.5.0": "0.5.0-dev"}


def chart_dir(charts: Path, chart: DriverChart) -> Path:
    """A chart version's folder (or its pre-release stand-in); fails naming what is there when it is missing."""
    path = charts / f"{chart.chart}-{chart.version}"
    if not (path / "Chart.yaml").exists() and chart.version in STAND_INS:
        path = charts / f"{chart.chart}-{STAND_INS[chart.version]}"
    if not (path / "Chart.yaml").exists():
        pytest.fail(f"no chart {chart.chart} {chart.version} at {path}; found {sorted(p.name for p in charts.iterdir())}")
    return path


# --- the cases: every chart version x both stacks, and compute domains on -------------------------------------------
@dataclass(frozen=True)
class Case:
    """One rendering: a chart version, a stack, and whether the ComputeDomain controller is on."""

    version: str
    stack: str
    compute_domains: bool = False
    shared: bool = False  # the stack's first GPU pool shares its slices by memory

    def __str__(self) -> str:
        return (f"{self.version}-{self.stack}" + ("-computeDomains" if self.compute_domains else "")
                + ("-sharedMemory" if self.shared else ""))


SHARING_CHARTS = [v for v in OFFERED_CHART_VERSIONS if DRIVER_CHARTS[v].has_consumable_shares]
CASES = ([Case(v, s) for v in OFFERED_CHART_VERSIONS for s in STACKS] + [Case(v, "prod", True) for v in OFFERED_CHART_VERSIONS]
         + [Case(v, s, shared=True) for v in SHARING_CHARTS for s in STACKS])
STACK_CASES = [c for c in CASES if not c.compute_domains]


def stack_config(stack: str) -> StackConfig:
    """A stack file of this repository, validated as `pulumi up` would see it."""
    project = load_project(ROOT)
    config, _ = read_stack_config(project, stack)
    return stack_config_from_mapping(config, project.name)


def case_config(case: Case) -> tuple[DraDriverConfig, list[GpuPoolConfig], StackConfig]:
    """The stack's driver settings moved to the case's chart version (and compute-domain setting)."""
    stack = stack_config(case.stack)
    data = stack.dra_driver.model_dump(by_alias=True)
    data.update(chartVersion=case.version, computeDomains=case.compute_domains)
    minimum = DRIVER_CHARTS[case.version].min_host_driver
    if minimum and driver_version(minimum) > driver_version(AKS_MIN_SUPPORTED_GRID_DRIVER):
        data["hostDriverVersion"] = HOST_DRIVER_FOR_REFUSED
    pools = list(stack.gpu_pools)
    if case.shared:
        pools[0] = pools[0].model_copy(update={"sharing": "memory"})
    return DraDriverConfig.model_validate(data), pools, stack


# --- rendering ----------------------------------------------------------------------------------------------------
class _DuplicateKeyLoader(yaml.SafeLoader):
    """A YAML loader that records duplicate mapping keys (PyYAML, like Helm, silently keeps the last)."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.duplicates: list[tuple[str, Any, Any]] = []

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            value = self.construct_object(value_node, deep=True)
            if key in seen:
                self.duplicates.append((key, seen[key], value))
            seen[key] = value
        return super().construct_mapping(node, deep=deep)


def load_manifests(text: str) -> tuple[list[dict[str, Any]], list[tuple[str, Any, Any]]]:
    """The objects of a multi-document manifest, and every duplicate key found as (key, first value, second value)."""
    loader = _DuplicateKeyLoader(text)
    docs = []
    try:
        while loader.check_data():
            doc = loader.get_data()
            if doc:
                docs.append(doc)
    finally:
        loader.dispose()
    return docs, loader.duplicates


def helm_template(helm: Path, chart: Path, values: dict[str, Any], namespace: str, release: str, workdir: Path
                  ) -> subprocess.CompletedProcess[str]:
    """`helm template` as the release would install it (CRDs included), offline, against Kubernetes 1.34."""
    workdir.mkdir(parents=True, exist_ok=True)
    values_file = workdir / "values.yaml"
    values_file.write_text(yaml.safe_dump(values, sort_keys=True))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(workdir),
        "KUBECONFIG": os.devnull,  # client-only rendering: never a real cluster
        "HELM_CACHE_HOME": str(workdir / "cache"),
        "HELM_CONFIG_HOME": str(workdir / "config"),
        "HELM_DATA_HOME": str(workdir / "data"),
    }
    cmd = [str(helm), "template", release, str(chart), "-n", namespace, "-f", str(values_file),
           "--kube-version", KUBE_VERSION, "--include-crds"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60, check=False)


@dataclass
class Rendered:
    """One case rendered: the inputs, and the objects helm produced."""

    case: Case
    chart: DriverChart
    config: DraDriverConfig
    pools: list[GpuPoolConfig]
    stack: StackConfig
    values: dict[str, Any]
    objects: list[dict[str, Any]]
    duplicates: list[tuple[str, Any, Any]] = field(default_factory=list)

    def all(self, kind: str) -> list[dict[str, Any]]:
        """Every object of a kind."""
        return [o for o in self.objects if o.get("kind") == kind]

    def one(self, kind: str, suffix: str) -> dict[str, Any]:
        """The single object of a kind whose name ends with `suffix`."""
        found = [o for o in self.all(kind) if o["metadata"]["name"].endswith(suffix)]
        assert len(found) == 1, f"{self.case}: expected one {kind} *{suffix}, found {[o['metadata']['name'] for o in found]}"
        return found[0]


@pytest.fixture(scope="session")
def rendered(helm: Path, charts_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[Case], Rendered]:
    """Renders each case the first time a test asks for it, then hands out the same result (one helm run per case)."""
    cache: dict[Case, Rendered] = {}

    def get(case: Case) -> Rendered:
        if case not in cache:
            config, pools, stack = case_config(case)
            values = driver_values(config, pools)
            result = helm_template(helm, chart_dir(charts_dir, config.chart), values, config.namespace,
                                   config.release_name, tmp_path_factory.mktemp(str(case)))
            assert result.returncode == 0, f"{case}: helm template failed:\n{result.stderr}"
            objects, duplicates = load_manifests(result.stdout)
            cache[case] = Rendered(case, config.chart, config, pools, stack, values, objects, duplicates)
        return cache[case]

    return get


# --- checkers (pure: also tested below on hand-made objects, so they are known to fail) -------------------------------
def tolerates(toleration: dict[str, Any], taint: Taint) -> bool:
    """Kubernetes' rule: does this toleration match this taint (key, operator Equal/Exists, value, effect)?"""
    effect = toleration.get("effect")
    if effect and effect != taint.effect:
        return False
    operator = toleration.get("operator", "Equal")
    key = toleration.get("key")
    if not key:
        return operator == "Exists"  # an empty key with Exists tolerates every taint
    if key != taint.key:
        return False
    return operator == "Exists" or (operator == "Equal" and toleration.get("value", "") == taint.value)


def untolerated(pod_spec: dict[str, Any], taints: list[Taint]) -> list[str]:
    """The taints no toleration of the pod spec matches."""
    tolerations = pod_spec.get("tolerations") or []
    return [str(t) for t in taints if not any(tolerates(tol, t) for tol in tolerations)]


def _expression_holds(expr: dict[str, Any], labels: dict[str, str]) -> bool:
    key, operator, values = expr["key"], expr["operator"], expr.get("values") or []
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return labels.get(key) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt") and key in labels:
        number, bound = int(labels[key]), int(values[0])
        return number > bound if operator == "Gt" else number < bound
    return False


def selects(pod_spec: dict[str, Any], labels: dict[str, str]) -> bool:
    """Would the scheduler consider a node with these labels: nodeSelector AND (any required node-affinity term)?"""
    if any(labels.get(k) != v for k, v in (pod_spec.get("nodeSelector") or {}).items()):
        return False
    required = (((pod_spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = required.get("nodeSelectorTerms")
    if not terms:
        return True
    return any(all(_expression_holds(e, labels) for e in term.get("matchExpressions") or []) for term in terms)


def parse_feature_gates(value: str) -> dict[str, str]:
    """FEATURE_GATES as the chart writes it (`Name=bool,` pairs, trailing comma) -> {name: 'true'|'false'}."""
    pairs = [p for p in value.split(",") if p.strip()]
    return dict(p.strip().split("=", 1) for p in pairs)


def gate_problems(container: dict[str, Any], chart: DriverChart) -> list[str]:
    """What is wrong with a container's FEATURE_GATES for this chart version (unknown gates, IMEX not off, ...)."""
    env = {e["name"]: e.get("value") for e in container.get("env") or []}
    if "FEATURE_GATES" not in env:
        return [f"container {container['name']}: no FEATURE_GATES (IMEXDaemonsWithDNSNames would stay at its default)"]
    gates = parse_feature_gates(env["FEATURE_GATES"])
    problems = [f"container {container['name']}: {g} is unknown to {chart.version}"
                for g in sorted(set(gates) - chart.feature_gates)]
    problems += [f"container {container['name']}: {g}={v}, not true/false" for g, v in gates.items()
                 if v not in ("true", "false")]
    for gate in sorted({IMEX} | chart.gates_requiring_imex):
        if gates.get(gate) != "false":
            problems.append(f"container {container['name']}: {gate}={gates.get(gate)}, must be false on A10 vGPU")
    return problems


def driver_containers(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The containers of a workload that run a driver binary (init containers only prepare the host)."""
    yield from obj["spec"]["template"]["spec"]["containers"]


def schema_check(obj: dict[str, Any]) -> str | None:
    """None when the object validates against Kubernetes 1.34 in strict mode; raises when it does not.

    Returns the reason when the kind is a custom one kubernetes-validate has no schema for.
    """
    try:
        kubernetes_validate.validate(obj, KUBE_VERSION, strict=True)
    except kubernetes_validate.SchemaNotFoundError:
        group = obj["apiVersion"].rpartition("/")[0]
        if group in CUSTOM_GROUPS:
            return CUSTOM_GROUPS[group]
        raise
    return None


def aks_node_labels(pool: str, mode: str, extra: dict[str, str]) -> dict[str, str]:
    """The labels AKS gives a node of a pool, plus the pool's own labels."""
    return {"kubernetes.io/os": "linux", "kubernetes.azure.com/agentpool": pool, "kubernetes.azure.com/mode": mode,
            **extra}


def value_paths_unknown_to_chart(values: dict[str, Any], defaults: dict[str, Any], prefix: str = "") -> list[str]:
    """Keys of our values the chart does not have (the chart has no schema: an unknown key is silently ignored).

    Descends only where the chart's default is a non-empty map; below an empty map (featureGates, nodeSelector) keys
    are free-form.
    """
    unknown = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if not isinstance(defaults, dict) or key not in defaults:
            unknown.append(path)
        elif isinstance(value, dict) and isinstance(defaults[key], dict) and defaults[key]:
            unknown += value_paths_unknown_to_chart(value, defaults[key], path + ".")
    return unknown


# --- the real chart -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("version", list(DRIVER_CHARTS))
def test_catalog_names_the_real_chart(charts_dir, version):
    chart = DRIVER_CHARTS[version]
    meta = yaml.safe_load((chart_dir(charts_dir, chart) / "Chart.yaml").read_text())
    # The released chart, or its named pre-release stand-in (0.5.0-dev for 0.5.0).
    assert (meta["name"], str(meta["version"])) in {(chart.chart, chart.version),
                                                     (chart.chart, STAND_INS.get(chart.version, chart.version))}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_values_use_only_keys_the_chart_has(charts_dir, case):
    config, pools, _ = case_config(case)
    defaults = yaml.safe_load((chart_dir(charts_dir, config.chart) / "values.yaml").read_text())
    assert value_paths_unknown_to_chart(driver_values(config, pools), defaults) == []


@pytest.fixture(scope="session")
def checked_schema() -> Callable[[dict[str, Any]], str | None]:
    """schema_check, once per distinct object: most objects (RBAC, CRDs, DeviceClasses) repeat across cases."""
    seen: dict[str, str | None] = {}

    def check(obj: dict[str, Any]) -> str | None:
        key = json.dumps(obj, sort_keys=True)
        if key not in seen:
            seen[key] = schema_check(obj)  # raises (uncached) when invalid
        return seen[key]

    return check


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_object_validates_against_kubernetes_1_34_strict(rendered, checked_schema, case):
    r = rendered(case)
    kinds = {o["kind"] for o in r.objects}
    assert {"DaemonSet", "DeviceClass", "CustomResourceDefinition", "ClusterRole"} <= kinds
    skipped = {}
    for obj in r.objects:
        where = f"{case}: {obj['kind']}/{obj['metadata']['name']}"
        try:
            reason = checked_schema(obj)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{where} is invalid for Kubernetes {KUBE_VERSION}: {exc.message} at {list(exc.absolute_path)}")
        except kubernetes_validate.SchemaNotFoundError as exc:
            pytest.fail(f"{where}: {exc.message}")
        if reason:
            skipped[where] = reason
    validated = [o for o in r.objects if f"{case}: {o['kind']}/{o['metadata']['name']}" not in skipped]
    assert any(o["kind"] == "DaemonSet" for o in validated)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_manifest_has_no_duplicate_keys(rendered, case):
    r = rendered(case)
    assert r.duplicates == [], f"{case}: duplicate keys {r.duplicates}"


@pytest.mark.parametrize("compute_domains", [False, True])
def test_the_refused_0_4_0_really_renders_the_duplicated_label(helm, charts_dir, tmp_path, compute_domains):
    # 0.4.0 and 0.4.1 have the same values.yaml, so 0.4.1's values are what 0.4.0 would get.
    config, pools, _ = case_config(Case("0.4.1", "prod", compute_domains))
    old, fixed = DRIVER_CHARTS["0.4.0"], DRIVER_CHARTS["0.4.1"]
    assert (chart_dir(charts_dir, old) / "values.yaml").read_text() == (chart_dir(charts_dir, fixed) / "values.yaml").read_text()
    result = helm_template(helm, chart_dir(charts_dir, old), driver_values(config, pools), config.namespace,
                           config.release_name, tmp_path)
    assert result.returncode == 0, result.stderr  # plain Helm accepts it: only strict YAML readers fail
    _, duplicates = load_manifests(result.stdout)
    expected = {"kubelet-plugin", "controller"} if compute_domains else {"kubelet-plugin"}
    assert {(key, first) for key, first, _ in duplicates} == {(DUPLICATED_LABEL_0_4_0, c) for c in expected}
    assert DUPLICATED_LABEL_0_4_0 in (old.withdrawn or "")


@pytest.mark.parametrize("case", STACK_CASES, ids=str)
def test_kubelet_plugin_tolerates_every_pool_taint_and_selects_pool_nodes(rendered, case):
    r = rendered(case)
    spec = r.one("DaemonSet", "-kubelet-plugin")["spec"]["template"]["spec"]
    for pool in r.pools:
        assert untolerated(spec, pool.parsed_taints) == [], f"{case}: pool {pool.name}"
        assert selects(spec, aks_node_labels(pool.name, "user", pool.node_labels)), f"{case}: pool {pool.name}"
    # Selection is by label: a node without nvidia.com/gpu.present=true (the system pool) gets no plugin.
    assert not selects(spec, aks_node_labels(r.stack.cluster.system_pool.name, "system", {}))
    assert spec["nodeSelector"][GPU_PRESENT_LABEL[0]] == GPU_PRESENT_LABEL[1]


def test_prod_stack_has_tainted_pools_so_the_toleration_check_bites(rendered):
    r = rendered(Case("25.8.1", "prod"))
    taints = {str(t) for p in r.pools for t in p.parsed_taints}
    assert len(taints) >= 2
    spec = r.one("DaemonSet", "-kubelet-plugin")["spec"]["template"]["spec"]
    assert len(spec["tolerations"]) == len(taints)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_feature_gates_are_known_to_the_version_and_imex_is_off(rendered, case):
    r = rendered(case)
    workloads = r.all("DaemonSet") + r.all("Deployment")
    containers = [c for w in workloads for c in driver_containers(w)]
    assert "gpus" in {c["name"] for c in containers}
    for container in containers:
        assert gate_problems(container, r.chart) == [], f"{case}"
        env = {e["name"]: e.get("value") for e in container["env"]}
        expected = {k: str(v).lower() for k, v in feature_gates(r.config, r.pools).items()}
        assert parse_feature_gates(env["FEATURE_GATES"]) == expected


@pytest.mark.parametrize("case", CASES, ids=str)
def test_objects_live_in_the_release_namespace_never_default(rendered, case):
    r = rendered(case)
    assert r.config.namespace != "default"
    for obj in r.objects:
        namespace = obj["metadata"].get("namespace")
        if obj["kind"] in CLUSTER_SCOPED:
            assert namespace is None, f"{obj['kind']}/{obj['metadata']['name']}"
        else:
            assert namespace == r.config.namespace, f"{obj['kind']}/{obj['metadata']['name']}"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_chart_device_classes_are_the_ones_the_catalog_reserves(rendered, case):
    r = rendered(case)
    classes = {o["metadata"]["name"]: o for o in r.all("DeviceClass")}
    assert "gpu.nvidia.com" in classes
    assert classes["gpu.nvidia.com"]["apiVersion"] == "resource.k8s.io/v1"
    assert set(classes) <= CHART_DEVICE_CLASSES  # the samples may not reuse any of these names


@pytest.mark.parametrize("case", CASES, ids=str)
def test_controller_exists_only_with_compute_domains_and_can_schedule_on_aks(rendered, case):
    r = rendered(case)
    controllers = [d for d in r.all("Deployment") if d["metadata"]["name"].endswith("-controller")]
    if not case.compute_domains:
        assert controllers == []
        return
    assert len(controllers) == 1
    spec = controllers[0]["spec"]["template"]["spec"]
    system = r.stack.cluster.system_pool
    system_taints = [parse_taint("CriticalAddonsOnly=true:NoSchedule")]
    assert system.critical_addons_only  # prod's system pool is tainted: the toleration is really needed
    assert untolerated(spec, system_taints) == []
    assert selects(spec, aks_node_labels(system.name, "system", {}))
    assert "nodeSelector" not in spec
    assert "node-role.kubernetes.io/control-plane" not in yaml.safe_dump(spec.get("affinity") or {})


@pytest.mark.parametrize("stack", STACKS)
def test_every_version_keeps_the_same_kubelet_plugin_object(rendered, stack):
    # 0.4.x renamed the chart; with nameOverride an upgrade from 25.x updates the same DaemonSet (immutable selector).
    plugins = {v: rendered(Case(v, stack)).one("DaemonSet", "-kubelet-plugin") for v in OFFERED_CHART_VERSIONS}
    names = {v: p["metadata"]["name"] for v, p in plugins.items()}
    selectors = {v: p["spec"]["selector"] for v, p in plugins.items()}
    assert set(names.values()) == {f"{LEGACY_NAME}-kubelet-plugin"}, names
    assert len({yaml.safe_dump(s) for s in selectors.values()}) == 1, selectors


def _identity(obj: dict[str, Any]) -> tuple[str, str, str]:
    return obj["kind"], obj["metadata"]["name"], obj["metadata"].get("namespace", "")


@pytest.mark.parametrize("case", [Case("0.4.1", s) for s in STACKS] + [Case("0.4.1", "prod", True)], ids=str)
def test_upgrading_25_8_1_to_0_4_1_deletes_no_object(rendered, case):
    # What `helm upgrade` deletes is what the old release has and the new one does not: nothing, thanks to nameOverride.
    old = rendered(Case("25.8.1", case.stack, case.compute_domains))
    new = rendered(case)
    gone = {_identity(o) for o in old.objects} - {_identity(o) for o in new.objects}
    assert gone == set(), f"{case}: helm upgrade would delete {sorted(gone)}"
    for kind in ("DaemonSet", "Deployment"):  # workload selectors are immutable: they must not change either
        old_selectors = {o["metadata"]["name"]: o["spec"]["selector"] for o in old.all(kind)}
        new_selectors = {o["metadata"]["name"]: o["spec"]["selector"] for o in new.all(kind)}
        assert new_selectors == old_selectors, kind
    added = {_identity(o) for o in new.objects} - {_identity(o) for o in old.objects}
    assert ("DeviceClass", "vfio.gpu.nvidia.com", "") in added


@pytest.mark.parametrize("version", list(DRIVER_CHARTS))
def test_catalog_crd_files_are_the_charts_crds(charts_dir, version):
    chart = DRIVER_CHARTS[version]
    on_disk = sorted(p.name for p in (chart_dir(charts_dir, chart) / "crds").iterdir())
    assert list(chart.crd_files) == on_disk
    assert all(url.endswith(f"/{chart.chart_path}/crds/{name}") for url, name in zip(chart.crd_urls, on_disk, strict=True))
    assert chart.chart_path.endswith("/" + chart.chart)


@pytest.mark.parametrize("version", list(DRIVER_CHARTS))
def test_catalog_knows_which_charts_have_resource_api_version(charts_dir, version):
    chart = DRIVER_CHARTS[version]
    defaults = yaml.safe_load((chart_dir(charts_dir, chart) / "values.yaml").read_text())
    assert ("resourceApiVersion" in defaults) == chart.has_resource_api_version


@pytest.mark.parametrize("case", [c for c in CASES if DRIVER_CHARTS[c.version].has_resource_api_version], ids=str)
def test_pinned_dra_api_reaches_every_dra_object(rendered, case):
    r = rendered(case)
    assert r.values["resourceApiVersion"] == RESOURCE_API_VERSION
    dra = [o for o in r.objects if o["kind"] in ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate")]
    assert dra and {o["apiVersion"] for o in dra} == {RESOURCE_API_VERSION}


# --- the tests can fail: the real chart and the checkers refuse what is wrong ---------------------------------------------
@pytest.mark.parametrize("version", OFFERED_CHART_VERSIONS)
def test_real_chart_refuses_gpu_mode_without_the_override(helm, charts_dir, tmp_path, version):
    config, pools, _ = case_config(Case(version, "dev"))
    values = driver_values(config, pools)
    del values["gpuResourcesEnabledOverride"]
    result = helm_template(helm, chart_dir(charts_dir, config.chart), values, config.namespace, config.release_name,
                           tmp_path)
    assert result.returncode != 0
    assert "gpuResourcesEnabledOverride" in result.stderr


def test_real_chart_refuses_the_default_namespace(helm, charts_dir, tmp_path):
    config, pools, _ = case_config(Case("25.8.1", "dev"))
    result = helm_template(helm, chart_dir(charts_dir, config.chart), driver_values(config, pools), "default",
                           config.release_name, tmp_path)
    assert result.returncode != 0
    assert "'default' namespace" in result.stderr


def _daemonset(tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    return {"spec": {"template": {"spec": {"nodeSelector": {"nvidia.com/gpu.present": "true"},
                                           "tolerations": tolerations, "containers": []}}}}


def test_toleration_checker_catches_a_pool_taint_without_a_matching_toleration():
    taints = [parse_taint("nvidia.com/gpu=present:NoSchedule"), parse_taint("workload-class=training:NoSchedule")]
    spec = _daemonset([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}])
    assert untolerated(spec["spec"]["template"]["spec"], taints) == ["workload-class=training:NoSchedule"]
    near_misses = [
        {"key": "workload-class", "operator": "Equal", "value": "inference", "effect": "NoSchedule"},  # other value
        {"key": "workload-class", "operator": "Exists", "effect": "NoExecute"},  # other effect
        {"key": "workload", "operator": "Exists"},  # other key
        {"operator": "Equal", "value": "training"},  # an empty key matches only with Exists
    ]
    for toleration in near_misses:
        assert not tolerates(toleration, taints[1]), toleration
    assert tolerates({"operator": "Exists"}, taints[1])  # tolerates everything
    assert tolerates({"key": "workload-class", "operator": "Exists"}, taints[1])


def test_node_selection_checker_follows_selector_and_affinity():
    spec = {"nodeSelector": {"nvidia.com/gpu.present": "true"},
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "nfd", "operator": "In", "values": ["true"]}]},
                {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]},
            ]}}}}
    assert selects(spec, {"nvidia.com/gpu.present": "true"})
    assert not selects(spec, {"nfd": "true"})  # the nodeSelector is ANDed with the affinity
    assert not selects({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "node-role.kubernetes.io/control-plane",
                                                     "operator": "Exists"}]}]}}}}, aks_node_labels("system", "system", {}))


def test_feature_gate_checker_catches_unknown_gates_and_imex_left_on():
    chart = DRIVER_CHARTS["25.8.1"]

    def container(value: str) -> dict[str, Any]:
        return {"name": "gpus", "env": [{"name": "FEATURE_GATES", "value": value}]}

    assert gate_problems(container("IMEXDaemonsWithDNSNames=false,"), chart) == []
    assert gate_problems(container("IMEXDaemonsWithDNSNames=false,ComputeDomainCliques=false,"), chart) == [
        "container gpus: ComputeDomainCliques is unknown to 25.8.1"
    ]
    assert gate_problems(container("IMEXDaemonsWithDNSNames=true,"), chart) == [
        "container gpus: IMEXDaemonsWithDNSNames=true, must be false on A10 vGPU"
    ]
    assert gate_problems({"name": "gpus", "env": []}, chart)
    assert gate_problems(container("IMEXDaemonsWithDNSNames=false,"), DRIVER_CHARTS["0.4.0"]) == [
        "container gpus: ComputeDomainCliques=None, must be false on A10 vGPU"
    ]


def test_schema_check_is_strict():
    daemonset = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "x", "namespace": "n"},
                 "spec": {"selector": {"matchLabels": {"a": "b"}},
                          "template": {"metadata": {"labels": {"a": "b"}},
                                       "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    assert schema_check(daemonset) is None
    typo = copy.deepcopy(daemonset)
    typo["spec"]["template"]["spec"]["toleration"] = []  # unknown field: silently dropped by the API server
    with pytest.raises(kubernetes_validate.ValidationError):
        schema_check(typo)
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        schema_check({**daemonset, "apiVersion": "apps/v1beta9"})
    assert schema_check({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain", "metadata": {}})


def test_duplicate_key_loader_sees_what_yaml_hides():
    docs, duplicates = load_manifests("a: 1\nb:\n  c: x\n  c: y\n---\n---\nd: 2\n")
    assert docs == [{"a": 1, "b": {"c": "y"}}, {"d": 2}]
    assert duplicates == [("c", "x", "y")]


def test_unknown_value_keys_are_found():
    defaults = {"resources": {"gpus": {"enabled": True}}, "featureGates": {}, "kubeletPlugin": {"tolerations": []}}
    values = {"resources": {"gpus": {"enabled": True}, "computeDomain": {"enabled": False}},
              "featureGates": {"Anything": False}, "kubeletPlugin": {"toleration": []}, "nameOverrides": "x"}
    assert value_paths_unknown_to_chart(values, defaults) == [
        "resources.computeDomain", "kubeletPlugin.toleration", "nameOverrides",
    ]


# --- 0.5.0 (rendered from the 0.5.0-dev stand-in, see the module docstring) ---------------------------------------------
def _plugin_env(r: Rendered) -> dict[str, str | None]:
    (gpus,) = [c for c in r.one("DaemonSet", "-kubelet-plugin")["spec"]["template"]["spec"]["containers"] if c["name"] == "gpus"]
    return {e["name"]: e.get("value") for e in gpus.get("env") or []}


@pytest.mark.parametrize("old", ["0.4.1", "25.8.1"])
@pytest.mark.parametrize("case", [Case("0.5.0", s) for s in STACKS] + [Case("0.5.0", "prod", True)], ids=str)
def test_upgrading_to_0_5_0_deletes_no_object_and_keeps_selectors(rendered, case, old):
    # From 0.4.1 and straight from 25.8.1 (nameOverride keeps the 25.x names): helm upgrade deletes nothing.
    before = rendered(Case(old, case.stack, case.compute_domains))
    after = rendered(case)
    gone = {_identity(o) for o in before.objects} - {_identity(o) for o in after.objects}
    assert gone == set(), f"{old} -> {case}: helm upgrade would delete {sorted(gone)}"
    for kind in ("DaemonSet", "Deployment"):
        assert ({o["metadata"]["name"]: o["spec"]["selector"] for o in after.all(kind)}
                == {o["metadata"]["name"]: o["spec"]["selector"] for o in before.all(kind)}), kind


@pytest.mark.parametrize("stack", STACKS)
def test_0_5_0_runs_the_image_pinned_by_digest(rendered, stack):
    r = rendered(Case("0.5.0", stack))
    images = {c["image"] for o in r.objects if o["kind"] in ("DaemonSet", "Deployment")
              for c in o["spec"]["template"]["spec"]["containers"]}
    assert images == {f"registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:{DRIVER_CHARTS['0.5.0'].image_tag}"}
    assert "@sha256:" in DRIVER_CHARTS["0.5.0"].image_tag


@pytest.mark.parametrize("stack", STACKS)
def test_a_shared_pool_turns_on_consumable_shares_with_its_gate(rendered, stack):
    shared, plain = rendered(Case("0.5.0", stack, shared=True)), rendered(Case("0.5.0", stack))
    env = _plugin_env(shared)
    assert env["CONSUMABLE_SHARES"] == "memory"
    assert parse_feature_gates(env["FEATURE_GATES"])["ConsumableShares"] == "true"  # main.go refuses the flag without it
    assert "CONSUMABLE_SHARES" not in _plugin_env(plain)  # no shared pool: the devices stay as before
    assert "ConsumableShares" not in parse_feature_gates(_plugin_env(plain)["FEATURE_GATES"])


@pytest.mark.parametrize("case", [Case("0.5.0", s, shared=True) for s in STACKS], ids=str)
def test_0_5_0_objects_validate_against_kubernetes_1_36_strict(rendered, case):
    # The Kubernetes version shared slices need (DRAConsumableCapacity on by default from 1.36).
    for obj in rendered(case).objects:
        try:
            kubernetes_validate.validate(obj, "1.36.0", strict=True)
        except kubernetes_validate.SchemaNotFoundError:
            assert obj["apiVersion"].rpartition("/")[0] in CUSTOM_GROUPS, obj["kind"]
