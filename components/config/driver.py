"""The NVIDIA DRA driver section: chart version, feature gates, extra Helm values that cannot drop required flags."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator, model_validator

from ..catalog import (
    A10_SIZES,
    CONSUMABLE_SHARES_FROM,
    DEFAULT_CHART_VERSION,
    DRIVER_CHARTS,
    MANAGED_GATES,
    MANAGED_VALUES,
    MIG_SIZES,
    OFFERED_CHART_VERSIONS,
    REQUIRED_VALUES,
    DriverChart,
)
from ..catalog.host_drivers import (
    AKS_GRID_DEADLINE,
    AKS_MIG_CUDA_DRIVER,
    AKS_MIN_SUPPORTED_GRID_DRIVER,
    AKS_MIN_SUPPORTED_NODE_IMAGE,
    driver_version,
    grid_driver_named,
)
from .base import Model, unset
from .errors import KeyedProblemsError
from .syntax import DNS_LABEL, MISSING, StrInput, parse_k8s_version, value_at
from .types import DriverVersion, ReleaseName

# Kubernetes' DRAConsumableCapacity (ResourceSlice allowMultipleAllocations, capacity requestPolicy, claims' capacity
# requests) is alpha and off before 1.36 and beta, on by default, from 1.36 (kubernetes/kubernetes pkg/features/
# versioned_kube_features.go); AKS turns on no alpha gates, so an older API server drops the fields.
CONSUMABLE_CAPACITY_FROM = (1, 36)

# Every gate some chart knows: a schema cannot tie the gates to the chartVersion beside them; the model check does.
_ANY_CHART_GATES = sorted(set().union(*(chart.feature_gates for chart in DRIVER_CHARTS.values())))


class DraDriverConfig(Model):
    """The NVIDIA DRA driver Helm release."""

    enabled: bool = Field(
        True,
        description="Install this package's driver release; false leaves the driver to someone else (AKS's managed "
        "DRA driver) and keeps the DeviceClass and claims.",
    )
    # The enums and key lists below are for the JSON schema (editors); the validators keep their friendlier words.
    chart_version: str = Field(
        DEFAULT_CHART_VERSION,
        description=f"Chart version of the NVIDIA DRA driver (default {DEFAULT_CHART_VERSION}, the maintained "
        "kubernetes-sigs chart; docs/upgrading.md says what each one changes).",
        json_schema_extra={"enum": list(OFFERED_CHART_VERSIONS)},
    )
    # A namespace the caller manages (another resource's output) is checked by Kubernetes and the chart, not here.
    namespace: StrInput = Field("nvidia-dra-driver-gpu", description="Namespace of the release (never 'default').")
    release_name: ReleaseName = Field("nvidia-dra-driver-gpu", description="Helm release name.")
    compute_domains: bool = Field(
        False, description="Install the ComputeDomain controller (multi-node NVLink/IMEX; meaningless on A10 vGPU)."
    )
    feature_gates: dict[str, bool] = Field(
        default_factory=dict,
        description="Extra driver feature gates; only gates the chart version knows.",
        json_schema_extra={"propertyNames": {"enum": _ANY_CHART_GATES}},
    )
    host_driver_version: DriverVersion | None = unset(
        f"NVIDIA driver version the GPU nodes run; unset means AKS's GRID driver for A10 "
        f"({AKS_MIN_SUPPORTED_GRID_DRIVER} or newer on node images {AKS_MIN_SUPPORTED_NODE_IMAGE}+). Checked against "
        "the chart version's minimum.",
    )
    timeout_seconds: int = Field(600, ge=60, le=3600, description="How long Helm waits for the release (60-3600 s).")
    extra_values: dict[str, Any] = Field(
        default_factory=dict, description="Helm values merged in last; cannot drop the flags A10 vGPU needs."
    )

    @field_validator("chart_version")
    @classmethod
    def _chart(cls, v: str) -> str:
        # Only versions this stack could take as written: never a withdrawn one, nor one AKS's GRID driver is refused
        # by (hostDriverVersion, checked later, can still allow more).
        offered = ", ".join(usable_chart_versions(None))
        if v not in DRIVER_CHARTS:
            raise ValueError(f"'{v}' is not a supported chart version; choose one of {offered}{_refused_note()}")
        withdrawn = DRIVER_CHARTS[v].withdrawn
        if withdrawn:
            raise ValueError(f"{v} is refused: {withdrawn}; choose one of {offered}")
        return v

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: StrInput) -> StrInput:
        if isinstance(v, str) and (v == "default" or not DNS_LABEL.fullmatch(v)):
            raise ValueError(f"'{v}' cannot hold the driver; use a DNS label other than 'default'")
        return v

    @model_validator(mode="after")
    def _chart_fits(self) -> DraDriverConfig:
        chart = DRIVER_CHARTS[self.chart_version]
        problems = []
        unknown = sorted(set(self.feature_gates) - chart.feature_gates)
        if unknown:
            problems.append(
                ("featureGates", f"{', '.join(unknown)} unknown to chart {chart.version} (an unknown gate stops the driver "
                f"at start); known gates: {', '.join(sorted(chart.feature_gates))}")
            )
        if self.feature_gates.get("IMEXDaemonsWithDNSNames"):
            problems.append(
                ("featureGates.IMEXDaemonsWithDNSNames", "must stay false on A10 vGPU (it needs GRID >= 570.158.01)")
            )
        for gate, why in MANAGED_GATES.items():
            if gate in self.feature_gates:
                problems.append((f"featureGates.{gate}", why))
        for gate, why in chart.refused_gates:
            if self.feature_gates.get(gate):
                problems.append((f"featureGates.{gate}", f"must stay false on AKS: it {why}"))
        for gate in sorted(chart.gates_requiring_imex):
            if self.feature_gates.get(gate):
                problems.append((
                    f"featureGates.{gate}",
                    "must stay false on A10 vGPU: it requires IMEXDaemonsWithDNSNames, which stays false "
                    "(the driver refuses to start with one on and the other off)",
                ))
        # A driver left unstated is the one AKS installs, which depends on the pools' sizes: `nodes_driver_problems`.
        problems.extend(_host_driver_problems(chart, self.host_driver_version) if self.host_driver_version else [])
        problems.extend(_extra_values_problems(self.extra_values))
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @property
    def chart(self) -> DriverChart:
        """The catalog entry of the chart version."""
        return DRIVER_CHARTS[self.chart_version]


def _refused_note() -> str:
    """What the versions the package knows but does not offer lack, a few words each (writing one gives the whole
    reason), and where the table of every version is; with the default first, as the likeliest fix."""
    offered = set(usable_chart_versions(None))
    notes = []
    for version, chart in DRIVER_CHARTS.items():
        if version in offered:
            continue
        why = "withdrawn" if chart.withdrawn else (f"it needs an NVIDIA driver >= {chart.min_host_driver}, above AKS's "
                                                   f"GRID driver for A10 ({AKS_MIN_SUPPORTED_GRID_DRIVER})")
        notes.append(f"{version} is refused: {why}")
    return f" (default {DEFAULT_CHART_VERSION}; {'; '.join(notes)}; docs/upgrading.md has the table)"


def usable_chart_versions(host_driver: str | None) -> list[str]:
    """The chart versions on offer whose minimum NVIDIA driver the nodes meet: the stated driver, else AKS's GRID driver
    for A10; what the error messages offer as choices, so a refused version is never among them."""
    driver = driver_version(host_driver or AKS_MIN_SUPPORTED_GRID_DRIVER)
    return [v for v in OFFERED_CHART_VERSIONS
            if DRIVER_CHARTS[v].min_host_driver is None or driver >= driver_version(DRIVER_CHARTS[v].min_host_driver)]


def nodes_driver_problems(chart_version: str | None, stated: str | None, vm_sizes: list[Any],
                          chart_key: str) -> list[tuple[str, str]]:
    """With no hostDriverVersion stated, the chart's minimum host driver against the drivers AKS installs on the pools'
    sizes (`vm_sizes`, as written): its GRID driver on A10 sizes, its CUDA LTS driver (R580) on the MIG sizes
    (Azure/AgentBaker pkg/agent/baker.go GetGPUDriverType). Judged only when known: an A10 pool, or every pool of a
    size the catalog knows. A stated driver is judged by the driver section alone."""
    chart = DRIVER_CHARTS.get(chart_version) if chart_version is not None else None
    if stated is not None or chart is None or chart.min_host_driver is None:
        return []
    minimum = chart.min_host_driver
    known = [size for size in vm_sizes if isinstance(size, str) and (size in A10_SIZES or size in MIG_SIZES)]
    a10 = any(size in A10_SIZES for size in known)
    if not a10 and (not known or len(known) < len(vm_sizes)):
        return []  # no pool, or a size that did not validate: the driver its nodes get is not known yet
    runs = AKS_MIN_SUPPORTED_GRID_DRIVER if a10 else AKS_MIG_CUDA_DRIVER
    if driver_version(runs) >= driver_version(minimum):
        return []
    return [(
        chart_key,
        f"{chart.version} is refused: it needs an NVIDIA driver >= {minimum} on the nodes: {chart.host_driver_reason}; "
        f"AKS's GRID driver for A10 is {AKS_MIN_SUPPORTED_GRID_DRIVER} or another 570 release; use "
        f"{DEFAULT_CHART_VERSION} (or 25.8.1), or set draDriver.hostDriverVersion if your nodes run a driver >= {minimum}",
    )]


def _host_driver_problems(chart: DriverChart, stated: str) -> list[tuple[str, str]]:
    """The chart's minimum host driver against the one the stack states."""
    if chart.min_host_driver is None:
        return []
    minimum = chart.min_host_driver
    if driver_version(stated) >= driver_version(minimum):
        return []
    message = f"'{stated}' is below what chart {chart.version} needs: NVIDIA driver >= {minimum}, {chart.host_driver_reason}"
    aks = grid_driver_named(stated)
    if aks is not None and driver_version(stated) < driver_version(AKS_MIN_SUPPORTED_GRID_DRIVER):
        message += (
            f"; {stated} is AKS's old GRID driver ({aks.since}): A10 pools must run node image "
            f"{AKS_MIN_SUPPORTED_NODE_IMAGE} or later by {AKS_GRID_DEADLINE} ({AKS_MIN_SUPPORTED_GRID_DRIVER}, "
            "Azure/AKS#5875); upgrade the node image and state the new driver"
        )
    else:
        choices = ", ".join(usable_chart_versions(stated)) or "none"
        message += f"; choose a chart version your nodes' driver meets ({choices}), or state the driver they really run"
    return [("hostDriverVersion", message)]


def _extra_values_problems(extra: dict[str, Any]) -> list[tuple[str, str]]:
    """extraValues may add and tune, never drop a required flag or bypass a dedicated setting."""
    problems = []
    # A non-map (null, a list, a scalar) at a parent key replaces the whole map in Helm's merge, and with it the
    # required or managed values below it (`resources: null` would drop resources.gpus.enabled).
    protected = {*REQUIRED_VALUES, *MANAGED_VALUES}
    parents = sorted({path[:i] for path in protected for i in range(1, len(path))})
    for parent in parents:
        value = value_at(extra, parent)
        if value is not MISSING and not isinstance(value, dict):
            below = sorted(".".join(p) for p in protected if p[: len(parent)] == parent)
            problems.append((
                "extraValues." + ".".join(parent),
                f"must be a map: {json.dumps(value, default=str)} would replace it and drop {', '.join(below)}; "
                "set keys under it instead",
            ))
    for path, required in REQUIRED_VALUES.items():
        value = value_at(extra, path)
        # Exactly the value, type included: in Python 1 == True, but Helm's `1` is not `true` for the chart.
        if value is not MISSING and (type(value) is not type(required) or value != required):
            problems.append((
                "extraValues." + ".".join(path),
                f"must be {json.dumps(required)} for A10 vGPU on AKS; remove it (the package sets it)",
            ))
    for path, setting in MANAGED_VALUES.items():
        if value_at(extra, path) is not MISSING:
            problems.append(("extraValues." + ".".join(path), f"is managed by the package; use {setting}"))
    return problems




def sharing_problems(
    chart_version: str | None, kubernetes_version: str | None, pools: list[tuple[int, Any]], chart_key: str,
    version_key: str | None,
) -> list[tuple[str, str]]:
    """For each pool with `sharing: memory`: what the driver's chart version and the Kubernetes versions (the cluster's,
    and a pool's own pin) lack for slices shared by memory, naming the keys and the values they hold. `None` for a
    version that is unknown here (it did not validate, or is not given), so only what is known is judged."""
    minimum_k8s = ".".join(map(str, CONSUMABLE_CAPACITY_FROM))
    found = []
    for index, pool in pools:
        if getattr(pool, "sharing", "none") != "memory":
            continue
        lacking = []
        chart = DRIVER_CHARTS.get(chart_version) if chart_version is not None else None
        if chart is not None and not chart.has_consumable_shares:
            lacking.append(f"{chart_key} is '{chart_version}'")
        versions = [(version_key, kubernetes_version), (f"gpuPools[{index}].kubernetesVersion", pool.kubernetes_version)]
        for key, version in versions:
            if key is not None and version is not None and parse_k8s_version(version) < CONSUMABLE_CAPACITY_FROM:
                lacking.append(f"{key} is '{version}'")
        if lacking:
            found.append((
                f"gpuPools[{index}].sharing",
                f"'memory' needs draDriver.chartVersion {CONSUMABLE_SHARES_FROM} or newer (the driver's ConsumableShares) "
                f"and Kubernetes {minimum_k8s} or newer (DRAConsumableCapacity, on by default from {minimum_k8s}); "
                f"{' and '.join(lacking)}: raise them, or set sharing: none",
            ))
    return found
