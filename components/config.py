"""Typed stack configuration and component arguments, validated before any resource is registered.

Stack files use camelCase keys (Pulumi's convention); Python uses snake_case (pydantic aliases). Every problem in a
stack is reported at once, each naming the path the user wrote (``gpuPools[0].vmSize``) and what is allowed.
"""

from __future__ import annotations

import difflib
import json
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import pulumi
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel, to_snake

from .catalog import (
    A10_SIZES,
    CHART_DEVICE_CLASSES,
    DEFAULT_CHART_VERSION,
    DRIVER_CHARTS,
    GPU_PRESENT_LABEL,
    MANAGED_VALUES,
    MIN_KUBERNETES_VERSION,
    REQUIRED_VALUES,
    RESERVED_LABEL_PREFIXES,
)

PROJECT = "aks-dra-vgpu"

# --- syntax rules (Kubernetes and AKS) -------------------------------------------------------------------------------
_POOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,11}$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_NAME = re.compile(r"^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(|(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
_CLUSTER_NAME = re.compile(r"^[A-Za-z0-9]([-_A-Za-z0-9]{0,61}[A-Za-z0-9])?$")
_RESOURCE_GROUP = re.compile(r"^[-\w._()]{0,89}[-\w_()]$")
_LOCATION = re.compile(r"^[a-z][a-z0-9]+$")
_K8S_VERSION = re.compile(r"^(\d+)\.(\d+)(\.\d+)?$")
_DRIVER_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")
_GUID = re.compile(r"^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
# kubelogin login modes that wait for a person (device code, browser): never for a provider that CI runs.
_INTERACTIVE_LOGINS = ("devicecode", "interactive")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
ZONES = ("1", "2", "3")

StrInput = str | pulumi.Output
"""A string, or a string that another resource will produce."""


def check_label_key(key: str) -> str | None:
    """Returns what is wrong with a Kubernetes label key, or None."""
    prefix, _, name = key.rpartition("/")
    if prefix and not _DNS_SUBDOMAIN.match(prefix):
        return f"label key '{key}': prefix '{prefix}' is not a DNS subdomain"
    if not _LABEL_NAME.match(name):
        return (
            f"label key '{key}': name must be 1-63 characters, alphanumeric at both ends, "
            "with '-', '_' or '.' between"
        )
    return None


def check_label_value(value: str) -> str | None:
    """Returns what is wrong with a Kubernetes label value, or None."""
    if not _LABEL_VALUE.match(value):
        return f"label value '{value}' must be empty or 1-63 characters, alphanumeric at both ends"
    return None


@dataclass(frozen=True)
class Taint:
    """A parsed node taint."""

    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def toleration(self) -> dict[str, str]:
        """The Kubernetes toleration that matches exactly this taint."""
        if self.value:
            return {"key": self.key, "operator": "Equal", "value": self.value, "effect": self.effect}
        return {"key": self.key, "operator": "Exists", "effect": self.effect}


def parse_taint(text: str) -> Taint:
    """Parses ``key=value:Effect`` (or ``key:Effect``); raises ValueError naming what is allowed."""
    body, sep, effect = text.rpartition(":")
    allowed = f"expected key=value:Effect with Effect one of {', '.join(TAINT_EFFECTS)}"
    if not sep or not body:
        raise ValueError(f"'{text}' is not a taint; {allowed}")
    if effect not in TAINT_EFFECTS:
        raise ValueError(f"'{text}' has effect '{effect}'; {allowed}")
    key, _, value = body.partition("=")
    problem = check_label_key(key) or check_label_value(value)
    if problem:
        raise ValueError(f"'{text}': {problem}")
    return Taint(key, value, effect)


def parse_k8s_version(text: str) -> tuple[int, int]:
    """Returns (major, minor) of ``1.34`` or ``1.34.2``; raises ValueError otherwise."""
    m = _K8S_VERSION.match(text)
    if not m:
        raise ValueError(f"'{text}' is not a Kubernetes version; write major.minor or major.minor.patch, e.g. '1.34'")
    return int(m.group(1)), int(m.group(2))


def at(key: str, message: str) -> str:
    """Marks a message from a model-level check with the key it is about (a camelCase path below the model)."""
    return f"@{key}: {message}"


def _as_str_list(value: Any) -> Any:
    """YAML writes zones as numbers; AKS wants strings."""
    if isinstance(value, list):
        return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    return value


def _pool_name(v: str) -> str:
    if not _POOL_NAME.match(v):
        raise ValueError(f"'{v}' is not a pool name; use 1-12 lowercase letters and digits, starting with a letter")
    return v


Zone = Literal["1", "2", "3"]
Zones = Annotated[list[Zone], BeforeValidator(_as_str_list), Field(default_factory=list)]
PoolName = Annotated[str, AfterValidator(_pool_name)]
"""An AKS pool name (Linux): lowercase alphanumeric, starting with a letter, 1-12 characters."""


class Model(BaseModel):
    """Base for every config model: camelCase keys, unknown keys rejected, validated on assignment too."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
    )


# --- cluster -------------------------------------------------------------------------------------------------------
class ResourceGroupConfig(Model):
    """Where the cluster lives: a resource group this stack creates, or an existing one it only references."""

    name: str = Field(description="Resource group name (1-90 characters: letters, digits, '-', '_', '.', '(', ')').")
    create: bool = Field(True, description="Create the group (true) or use an existing group of that name (false).")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _RESOURCE_GROUP.match(v):
            raise ValueError(f"'{v}' is not a resource group name; use 1-90 letters, digits, '-', '_', '.', '(', ')'")
        return v


class SystemPoolConfig(Model):
    """The cluster's one inline pool: System mode, for cluster add-ons (GPU pools are never inline)."""

    name: PoolName = Field("system", description="Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters.")
    vm_size: str = Field("Standard_D4ds_v5", description="VM size of the system nodes.")
    count: int = Field(1, ge=1, le=1000, description="Number of system nodes (1-1000).")
    zones: Zones = Field(description="Availability zones to spread the system nodes over ('1', '2', '3').")
    max_pods: int = Field(110, ge=10, le=250, description="Maximum pods per node (10-250); immutable.")
    os_disk_size_gb: int = Field(128, ge=30, le=2048, description="OS disk size in GB.")
    critical_addons_only: bool = Field(
        False, description="Taint the system nodes CriticalAddonsOnly=true:NoSchedule (AKS best practice for busy clusters)."
    )


class AuthConfig(Model):
    """How Kubernetes API access is authenticated."""

    mode: Literal["localAccounts", "entraId"] = Field(
        "localAccounts",
        description="localAccounts: Kubernetes RBAC with cluster-local credentials (simple, for dev); entraId: Entra ID "
        "(AAD) with Azure RBAC and local accounts disabled.",
    )
    admin_group_object_ids: list[str] = Field(
        default_factory=list, description="Entra ID group object IDs that are cluster admins (entraId only)."
    )
    login_mode: Literal["azurecli", "workloadidentity", "spn"] = Field(
        "azurecli",
        description="kubelogin's non-interactive login mode for the Kubernetes provider (entraId only); "
        "never device code, so `pulumi up` works in CI.",
    )
    tenant_id: str | None = Field(
        None,
        description="Entra ID tenant for kubelogin's --tenant-id (entraId only). Default: azurecli uses the tenant of "
        "`az login`, spn the cluster's tenant, workloadidentity AZURE_TENANT_ID.",
    )
    client_id: str | None = Field(
        None,
        description="Application (client) ID kubelogin signs in as, for spn and workloadidentity (entraId only). "
        "Default: AZURE_CLIENT_ID (or AAD_SERVICE_PRINCIPAL_CLIENT_ID for spn) at run time. Never a secret: the "
        "secret comes from AZURE_CLIENT_SECRET or AAD_SERVICE_PRINCIPAL_CLIENT_SECRET.",
    )
    environment: str | None = Field(
        None,
        description="Azure cloud for spn logins, e.g. 'AzurePublicCloud', 'AzureUSGovernmentCloud', 'AzureChinaCloud' "
        "(entraId only). Default: the cloud named in the cluster's kubeconfig.",
    )

    @field_validator("login_mode", mode="before")
    @classmethod
    def _non_interactive(cls, v: Any) -> Any:
        # A clearer word than "not allowed" for the one mistake that matters: an interactive login hangs in CI.
        if v in _INTERACTIVE_LOGINS:
            raise ValueError(
                f"'{v}' waits for a person to sign in, so `pulumi up` would hang in CI; "
                "choose 'azurecli', 'workloadidentity' or 'spn'"
            )
        return v

    @field_validator("admin_group_object_ids")
    @classmethod
    def _group_ids(cls, v: list[str]) -> list[str]:
        bad = [g for g in v if not _GUID.match(g)]
        if bad:
            verb = "is not an object ID" if len(bad) == 1 else "are not object IDs"
            raise ValueError(f"{', '.join(repr(g) for g in bad)} {verb}; write each as a GUID")
        return v

    @field_validator("tenant_id", "client_id")
    @classmethod
    def _guid(cls, v: str | None) -> str | None:
        if v is not None and not _GUID.match(v):
            raise ValueError(f"'{v}' is not a GUID; copy the ID from Entra ID, e.g. '00000000-0000-0000-0000-000000000000'")
        return v

    @model_validator(mode="after")
    def _entra_only(self) -> AuthConfig:
        if self.mode == "entraId":
            return self
        given = [key for key in ("tenantId", "clientId", "environment") if getattr(self, to_snake(key)) is not None]
        if given:
            raise ValueError("\n".join(at(key, "needs mode 'entraId'; allowed only with Entra ID") for key in given))
        return self


class ClusterConfig(Model):
    """The AKS cluster: Kubernetes version, location, resource group, system pool, access."""

    name: str = Field(description="ManagedCluster name (1-63: letters, digits, '-', '_').")
    location: str = Field(description="Azure region, e.g. 'westeurope' (must offer NVadsA10_v5).")
    resource_group: ResourceGroupConfig = Field(description="The resource group to create or use.")
    kubernetes_version: str = Field(
        "1.34", description="Kubernetes version, major.minor[.patch]; 1.34 or newer (DRA resource.k8s.io/v1 is GA)."
    )
    dns_prefix: str | None = Field(None, description="DNS prefix of the API server (immutable); defaults to name.")
    sku_tier: Literal["Free", "Standard", "Premium"] = Field("Free", description="AKS control-plane tier.")
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig, description="The inline System pool.")
    auth: AuthConfig = Field(default_factory=AuthConfig, description="Kubernetes API authentication.")
    protect: bool = Field(
        False,
        description="Protect the cluster (and a resource group this stack creates) from deletion and replacement: "
        "`pulumi up` and `pulumi destroy` stop with an error instead (losing the cluster loses every workload and its "
        "state). Turn it off in a separate update to delete on purpose. See docs/safe-changes.md.",
    )
    retain_on_delete: bool = Field(
        False,
        description="When Pulumi deletes the cluster (and a resource group this stack creates), keep them in Azure and "
        "only forget them: for handing a cluster over to another stack or tool. GPU pools are still deleted; a "
        "replacement still replaces. See docs/safe-changes.md.",
    )
    tags: dict[str, str] = Field(default_factory=dict, description="Azure tags for the resource group and cluster.")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _CLUSTER_NAME.match(v):
            raise ValueError(f"'{v}' is not a cluster name; use 1-63 letters, digits, '-' and '_'")
        return v

    @field_validator("location")
    @classmethod
    def _location(cls, v: str) -> str:
        if not _LOCATION.match(v):
            raise ValueError(f"'{v}' is not an Azure region name; write it like 'westeurope' or 'eastus2'")
        return v

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _version_is_text(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            raise ValueError(f"{v} is a number; quote the version so YAML keeps it as written, e.g. '1.34'")
        return v

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        if parse_k8s_version(v) < MIN_KUBERNETES_VERSION:
            minimum = ".".join(map(str, MIN_KUBERNETES_VERSION))
            raise ValueError(f"'{v}' is too old; DRA (resource.k8s.io/v1) needs Kubernetes {minimum} or newer")
        return v

    @field_validator("dns_prefix")
    @classmethod
    def _dns_prefix(cls, v: str | None) -> str | None:
        if v is not None and not _CLUSTER_NAME.match(v):
            raise ValueError(f"'{v}' is not a DNS prefix; use 1-54 letters, digits and '-'")
        return v

    @model_validator(mode="after")
    def _auth(self) -> ClusterConfig:
        if self.auth.mode == "localAccounts" and self.auth.admin_group_object_ids:
            raise ValueError(at("auth.adminGroupObjectIds", "needs auth.mode 'entraId'; allowed only with Entra ID"))
        return self


# --- GPU pools -----------------------------------------------------------------------------------------------------
class AutoscalingConfig(Model):
    """Cluster-autoscaler bounds; with autoscaling the node count is the autoscaler's, never drift."""

    min_count: int = Field(ge=0, le=1000, description="Fewest nodes (0-1000; 0 lets the pool scale to zero).")
    max_count: int = Field(ge=1, le=1000, description="Most nodes (1-1000), at least minCount.")

    @model_validator(mode="after")
    def _bounds(self) -> AutoscalingConfig:
        if self.min_count > self.max_count:
            raise ValueError(at("minCount", f"{self.min_count} is greater than maxCount {self.max_count}; need min <= max"))
        return self


class GpuPoolConfig(Model):
    """A GPU node pool of one NVadsA10_v5 size: every node presents fixed vGPU slices to the DRA driver."""

    name: PoolName = Field(description="Pool name: lowercase alphanumeric, starts with a letter, 1-12 characters.")
    vm_size: str = Field(description="One of the NVadsA10_v5 sizes: " + ", ".join(A10_SIZES) + ".")
    count: int | None = Field(
        None, ge=0, le=1000,
        description="Node count (0-1000). With autoscaling, the initial count only (default minCount); never diffed.",
    )
    autoscaling: AutoscalingConfig | None = Field(None, description="Turn on the cluster autoscaler with these bounds.")
    zones: Zones = Field(description="Availability zones ('1', '2', '3'); immutable (a change replaces the pool).")
    labels: dict[str, str] = Field(
        default_factory=dict, description="Extra node labels; nvidia.com/gpu.present=true is always added."
    )
    taints: list[str] = Field(
        default_factory=list, description="Node taints, 'key=value:Effect'; the DRA plugin and samples tolerate them."
    )
    max_pods: int = Field(110, ge=10, le=250, description="Maximum pods per node (10-250); immutable.")
    os_type: Literal["Linux"] = Field("Linux", description="GPU pools are Linux: the DRA driver runs only there.")
    os_sku: Literal["Ubuntu", "AzureLinux"] = Field("Ubuntu", description="Node OS image; immutable.")
    os_disk_size_gb: int = Field(128, ge=30, le=2048, description="OS disk size in GB.")
    max_surge: str = Field("1", description="Upgrade surge: extra nodes during upgrades, a number or a percentage.")

    @field_validator("vm_size")
    @classmethod
    def _vm_size(cls, v: str) -> str:
        if v not in A10_SIZES:
            close = difflib.get_close_matches(v, list(A10_SIZES), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"'{v}' is not an NVadsA10_v5 size{hint}; choose one of {', '.join(A10_SIZES)}")
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        problems = []
        for key, value in v.items():
            if key.startswith(RESERVED_LABEL_PREFIXES):
                problems.append(
                    f"label key '{key}' uses a reserved prefix; AKS reserves {', '.join(RESERVED_LABEL_PREFIXES)}"
                )
            elif key == GPU_PRESENT_LABEL[0] and value != GPU_PRESENT_LABEL[1]:
                problems.append(f"label '{key}' must be '{GPU_PRESENT_LABEL[1]}' (the DRA plugin selects nodes by it)")
            else:
                problem = check_label_key(key) or check_label_value(value)
                if problem:
                    problems.append(problem)
        if problems:
            raise ValueError("; ".join(problems))
        return v

    @field_validator("taints")
    @classmethod
    def _taints(cls, v: list[str]) -> list[str]:
        for text in v:
            parse_taint(text)
        twice = sorted({t for t in v if v.count(t) > 1})
        if twice:
            raise ValueError(f"{', '.join(repr(t) for t in twice)} listed twice; list each taint once")
        return v

    @field_validator("max_surge")
    @classmethod
    def _surge(cls, v: str) -> str:
        if not re.match(r"^([1-9]\d*|([1-9]\d?|100)%)$", v):
            raise ValueError(f"'{v}' is not a surge; write a node count like '1' or a percentage like '33%'")
        return v

    @model_validator(mode="after")
    def _count(self) -> GpuPoolConfig:
        a = self.autoscaling
        if a and self.count is not None and not a.min_count <= self.count <= a.max_count:
            raise ValueError(at("count", f"{self.count} is outside the autoscaling bounds [{a.min_count}, {a.max_count}]"))
        return self

    @property
    def size(self):
        """The catalog entry of this pool's VM size."""
        return A10_SIZES[self.vm_size]

    @property
    def node_labels(self) -> dict[str, str]:
        """The labels every node gets: the user's, plus the one the DRA plugin selects by."""
        return {**self.labels, GPU_PRESENT_LABEL[0]: GPU_PRESENT_LABEL[1]}

    @property
    def parsed_taints(self) -> list[Taint]:
        """The taints, parsed."""
        return [parse_taint(t) for t in self.taints]

    @property
    def initial_count(self) -> int:
        """The count sent to AKS at creation: the configured one, or the autoscaler's minimum, or 1."""
        if self.count is not None:
            return self.count
        return self.autoscaling.min_count if self.autoscaling else 1


# --- NVIDIA DRA driver -----------------------------------------------------------------------------------------------
class DraDriverConfig(Model):
    """The NVIDIA DRA driver Helm release."""

    chart_version: str = Field(
        DEFAULT_CHART_VERSION, description="Chart version; one of " + ", ".join(DRIVER_CHARTS) + "."
    )
    namespace: str = Field("nvidia-dra-driver-gpu", description="Namespace of the release (never 'default').")
    release_name: str = Field("nvidia-dra-driver-gpu", description="Helm release name.")
    compute_domains: bool = Field(
        False, description="Install the ComputeDomain controller (multi-node NVLink/IMEX; meaningless on A10 vGPU)."
    )
    feature_gates: dict[str, bool] = Field(
        default_factory=dict, description="Extra driver feature gates; only gates the chart version knows."
    )
    host_driver_version: str | None = Field(
        None,
        description="NVIDIA driver version the GPU nodes run, if not AKS's GRID 550/570 (e.g. '580.65.06'); "
        "charts that need a newer driver are refused without it.",
    )
    timeout_seconds: int = Field(600, ge=60, le=3600, description="How long Helm waits for the release (60-3600 s).")
    extra_values: dict[str, Any] = Field(
        default_factory=dict, description="Helm values merged in last; cannot drop the flags A10 vGPU needs."
    )

    @field_validator("chart_version")
    @classmethod
    def _chart(cls, v: str) -> str:
        if v not in DRIVER_CHARTS:
            raise ValueError(f"'{v}' is not a supported chart version; choose one of {', '.join(DRIVER_CHARTS)}")
        return v

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if v == "default" or not _DNS_LABEL.match(v):
            raise ValueError(f"'{v}' cannot hold the driver; use a DNS label other than 'default'")
        return v

    @field_validator("release_name")
    @classmethod
    def _release(cls, v: str) -> str:
        if not _DNS_LABEL.match(v) or len(v) > 53:
            raise ValueError(f"'{v}' is not a Helm release name; use a DNS label of at most 53 characters")
        return v

    @field_validator("host_driver_version")
    @classmethod
    def _host_driver(cls, v: str | None) -> str | None:
        if v is not None and not _DRIVER_VERSION.match(v):
            raise ValueError(f"'{v}' is not a driver version; write it like '580.65.06'")
        return v

    @model_validator(mode="after")
    def _chart_fits(self) -> DraDriverConfig:
        chart = DRIVER_CHARTS[self.chart_version]
        problems = []
        unknown = sorted(set(self.feature_gates) - chart.feature_gates)
        if unknown:
            problems.append(
                at("featureGates", f"{', '.join(unknown)} unknown to chart {chart.version} (an unknown gate stops the driver "
                f"at start); known gates: {', '.join(sorted(chart.feature_gates))}")
            )
        if self.feature_gates.get("IMEXDaemonsWithDNSNames"):
            problems.append(
                at("featureGates.IMEXDaemonsWithDNSNames", "must stay false on A10 vGPU (it needs GRID >= 570.158.01)")
            )
        for gate in sorted(chart.gates_requiring_imex):
            if self.feature_gates.get(gate):
                problems.append(at(
                    f"featureGates.{gate}",
                    "must stay false on A10 vGPU: it requires IMEXDaemonsWithDNSNames, which stays false "
                    "(the driver refuses to start with one on and the other off)",
                ))
        if chart.min_host_driver and not self._host_driver_at_least(chart.min_host_driver):
            problems.append(at("chartVersion", f"{chart.version} is refused: {chart.refusal}"))
        problems.extend(_extra_values_problems(self.extra_values))
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def _host_driver_at_least(self, minimum: tuple[int, ...]) -> bool:
        if self.host_driver_version is None:
            return False
        return tuple(int(p) for p in self.host_driver_version.split(".")) >= minimum

    @property
    def chart(self):
        """The catalog entry of the chart version."""
        return DRIVER_CHARTS[self.chart_version]


MISSING: Any = object()
"""What `value_at` returns for a key path that is not there (None can be a real value: a Helm null)."""


def value_at(data: Any, path: Sequence[str], stop: Callable[[Any], bool] | None = None) -> Any:
    """The value at a key path of nested mappings, or MISSING; a node on the way that `stop` accepts is returned as is."""
    node = data
    for part in path:
        if stop is not None and stop(node):
            return node
        if not isinstance(node, Mapping) or part not in node:
            return MISSING
        node = node[part]
    return node


def _extra_values_problems(extra: dict[str, Any]) -> list[str]:
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
            problems.append(at(
                "extraValues." + ".".join(parent),
                f"must be a map: {json.dumps(value, default=str)} would replace it and drop {', '.join(below)}; "
                "set keys under it instead",
            ))
    for path, required in REQUIRED_VALUES.items():
        value = value_at(extra, path)
        if value is not MISSING and value != required:
            problems.append(at(
                "extraValues." + ".".join(path),
                f"must be {json.dumps(required)} for A10 vGPU on AKS; remove it (the package sets it)",
            ))
    for path, setting in MANAGED_VALUES.items():
        if value_at(extra, path) is not MISSING:
            problems.append(at("extraValues." + ".".join(path), f"is managed by the package; use {setting}"))
    return problems


# --- DRA samples ------------------------------------------------------------------------------------------------------
class SamplesConfig(Model):
    """The resource.k8s.io/v1 objects that show and use the A10 vGPUs: DeviceClass, claim templates, a shared claim, a Job."""

    enabled: bool = Field(True, description="Create the DeviceClass, claim templates and shared claim.")
    namespace: str = Field("dra-samples", description="Namespace for the claims and the sample Job.")
    device_class_name: str = Field(
        "a10-vgpu", description="DeviceClass for A10 vGPUs; must not reuse a chart-created name."
    )
    memory_margin_percent: int = Field(
        10, ge=0, le=25,
        description="How far below nominal a slice's reported GPU memory may read and still match (0-25 %).",
    )
    shared_claim: bool = Field(True, description="Create a ResourceClaim that several pods share (one vGPU).")
    workload: bool = Field(True, description="Run the sample Job (nvidia-smi -L on a claimed vGPU).")
    workload_memory_gib: int | None = Field(
        None,
        ge=1,
        alias="workloadMemoryGiB",
        description="GPU memory the sample Job asks for; default: the smallest pool's slice.",
    )
    # A plain glibc image is enough: the DRA driver's CDI edits mount the host driver's nvidia-smi and libraries into
    # the container (the AKS walkthrough uses ubuntu:22.04 the same way); a CUDA image would add gigabytes for nothing.
    image: str = Field(
        "ubuntu:24.04",
        description="Image of the sample Job: any glibc-based image; the DRA driver injects nvidia-smi and the driver "
        "libraries from the host (CDI), so no CUDA image is needed. Pin a digest for production clusters.",
    )

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, v: str) -> str:
        if not _DNS_LABEL.match(v):
            raise ValueError(f"'{v}' is not a namespace name; use a DNS label (lowercase, digits, '-')")
        return v

    @field_validator("device_class_name")
    @classmethod
    def _device_class(cls, v: str) -> str:
        if v in CHART_DEVICE_CLASSES:
            raise ValueError(
                f"'{v}' is created by the NVIDIA chart; choose another name (taken: {', '.join(sorted(CHART_DEVICE_CLASSES))})"
            )
        if not _DNS_SUBDOMAIN.match(v):
            raise ValueError(f"'{v}' is not a DeviceClass name; use a DNS subdomain (lowercase, digits, '-', '.')")
        return v


# --- the whole stack ----------------------------------------------------------------------------------------------------
class StackConfig(Model):
    """Everything one environment declares: cluster, GPU pools, DRA driver and samples."""

    cluster: ClusterConfig = Field(description="The AKS cluster.")
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, description="GPU node pools (at least one).")
    dra_driver: DraDriverConfig = Field(default_factory=DraDriverConfig, description="The NVIDIA DRA driver release.")
    samples: SamplesConfig = Field(default_factory=SamplesConfig, description="DRA sample objects.")

    @field_validator("gpu_pools")
    @classmethod
    def _unique(cls, pools: list[GpuPoolConfig]) -> list[GpuPoolConfig]:
        seen: dict[str, int] = {}
        for index, pool in enumerate(pools):
            if pool.name in seen:
                raise ValueError(
                    f"pool name '{pool.name}' is used twice (gpuPools[{seen[pool.name]}] and gpuPools[{index}]); "
                    "pool names must be unique"
                )
            seen[pool.name] = index
        return pools

    @model_validator(mode="after")
    def _cross(self) -> StackConfig:
        system = self.cluster.system_pool.name
        for index, pool in enumerate(self.gpu_pools):
            if pool.name == system:
                raise ValueError(at(
                    f"gpuPools[{index}].name", f"'{system}' is the system pool's name (cluster.systemPool.name); "
                    "choose another: pool names are unique in a cluster"
                ))
        largest = max(p.size.gpu_memory_gib for p in self.gpu_pools)
        wanted = self.samples.workload_memory_gib
        if wanted is not None and wanted > largest:
            offered = sorted({p.size.gpu_memory_gib for p in self.gpu_pools})
            raise ValueError(at(
                "samples.workloadMemoryGiB", f"{wanted} GiB is more than any pool's slice offers "
                f"(pools offer {', '.join(map(str, offered))} GiB); choose at most {largest}"
            ))
        return self


# --- errors -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: where (the path the user wrote) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigError(ValueError):
    """Every problem found in a configuration, reported at once."""

    def __init__(self, problems: list[Problem], source: str = ""):
        self.problems = problems
        self.source = source
        super().__init__("\n".join(str(p) for p in problems))

    def to_pulumi(self) -> pulumi.InputPropertiesError:
        """The same problems as Pulumi's structured input error."""
        return pulumi.InputPropertiesError(
            "invalid configuration", [{"property_path": p.path, "reason": p.message} for p in self.problems]
        )


def _format_loc(loc: tuple[Any, ...], prefix: str) -> str:
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class a location inside `model` points at (to list allowed keys of an unknown key's parent)."""
    current: Any = model
    for part in loc:
        while True:  # peel list[...], X | None, Annotated[...]
            origin = typing.get_origin(current)
            if origin in (list, dict) and isinstance(part, (int, str)) and not _is_model(current):
                break
            if origin in (Union, types.UnionType, Annotated):
                args = [a for a in typing.get_args(current) if a is not type(None)]
                current = args[0]
                continue
            break
        if typing.get_origin(current) is list and isinstance(part, int):
            current = typing.get_args(current)[0]
            continue
        if not _is_model(current):
            return None
        field = next(
            (f for name, f in current.model_fields.items() if part in (name, f.alias)),
            None,
        )
        if field is None:
            return None
        current = field.annotation
    while typing.get_origin(current) in (Union, types.UnionType):
        current = next(a for a in typing.get_args(current) if a is not type(None))
    return current if _is_model(current) else None


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _problems(err: dict[str, Any], model: type[BaseModel], prefix: str) -> list[Problem]:
    """Turns one pydantic error into problems; a model-level check may report several keys at once (see `at`)."""
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "value_error" and message.startswith("@"):
        base = _format_loc(tuple(err["loc"]), prefix)
        found = []
        for line in message.split("\n"):
            key, _, text = line[1:].partition(": ")
            found.append(Problem(f"{base}.{key}" if base else key, text))
        return found
    return [_problem(err, model, prefix)]


def _problem(err: dict[str, Any], model: type[BaseModel], prefix: str) -> Problem:
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        allowed = sorted(f.alias or n for n, f in parent.model_fields.items()) if parent else []
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return Problem(_format_loc(loc, prefix), f"unknown key{hint}; allowed keys: {', '.join(allowed)}")
    if kind == "missing":
        return Problem(_format_loc(loc, prefix), "required key is missing")
    message = err["msg"].removeprefix("Value error, ")
    given = json.dumps(err.get("input"), default=str)
    field = _field_at(model, loc)
    # pydantic's wording names Python types and one bound at a time; say what the stack file may hold instead.
    if kind in ("literal_error", "enum"):
        message = f"{given} is not allowed; {message[0].lower()}{message[1:]}{_why(field)}"
    elif kind in _NUMBER_ERRORS and field is not None and _range(field):
        message = f"must be a whole number {_range(field)} (got {given})"
    elif kind in ("bool_parsing", "bool_type"):
        message = f"must be true or false (got {given})"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        section = _model_at(model, loc)
        shape = (
            f"a mapping with the keys {', '.join(f.alias or n for n, f in section.model_fields.items())}"
            if section else "a mapping of keys to values"
        )
        message = f"must be {shape} (got {given})"
    elif kind == "list_type":
        message = f"must be a list (got {given}){_why(field)}"
    elif kind == "too_short":
        least = err.get("ctx", {}).get("min_length", 1)
        message = f"needs at least {least} item{'' if least == 1 else 's'} (got {given}){_why(field)}"
    elif kind == "string_type":
        message = f"must be text; quote it in YAML (got {given})"
    elif kind not in ("value_error", "assertion_error") and "input" in err:
        message = f"{message} (got {given})"
    return Problem(_format_loc(loc, prefix), message)


_NUMBER_ERRORS = frozenset(
    {"greater_than_equal", "greater_than", "less_than_equal", "less_than", "int_parsing", "int_type", "int_from_float"}
)


def _field_at(model: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """The pydantic FieldInfo a location names (None for list items, map entries and unknown keys)."""
    if not loc or isinstance(loc[-1], int):
        return None
    parent = _model_at(model, loc[:-1])
    if parent is None:
        return None
    return next((f for n, f in parent.model_fields.items() if loc[-1] in (n, f.alias)), None)


def _range(field: Any) -> str:
    """The bounds a numeric field declares, as people say them ('from 1 to 1000'), or ''."""
    low = high = None
    for bound in field.metadata:
        low = getattr(bound, "ge", low)
        high = getattr(bound, "le", high)
    if low is not None and high is not None:
        return f"from {low} to {high}"
    if low is not None:
        return f"of at least {low}"
    return f"of at most {high}" if high is not None else ""


def _why(field: Any) -> str:
    """The field's description as a hint, so a refused value comes with what the key is for."""
    return f"; {field.description.rstrip('.')}" if field is not None and field.description else ""


def validate(model: type[Model], data: Any, prefix: str = "") -> Any:
    """Validates plain data (camelCase keys) into `model`; raises ConfigError listing every problem with its path."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [p for e in exc.errors(include_url=False) for p in _problems(e, model, prefix)]
        raise ConfigError(problems) from None


STACK_KEYS = tuple(f.alias for f in StackConfig.model_fields.values())


def stack_config_from_mapping(config: dict[str, Any], project: str = PROJECT) -> StackConfig:
    """Builds the StackConfig from a flat Pulumi config map (``project:key`` -> value, values JSON or plain)."""
    data: dict[str, Any] = {}
    problems: list[Problem] = []
    for full_key, raw in config.items():
        namespace, _, key = full_key.partition(":")
        if namespace != project:
            continue  # provider settings (azure-native:location, …) are the providers' business
        if key not in STACK_KEYS:
            close = difflib.get_close_matches(key, STACK_KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append(Problem(key, f"unknown key{hint}; allowed keys: {', '.join(STACK_KEYS)}"))
            continue
        data[key] = _decode(raw)
    try:
        stack = validate(StackConfig, data)
    except ConfigError as exc:
        raise ConfigError(problems + exc.problems) from None
    if problems:
        raise ConfigError(problems)
    return stack


def _decode(raw: Any) -> Any:
    """Pulumi hands object values over as JSON strings; plain strings stay as they are."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def load_stack_config() -> StackConfig:
    """Reads and validates this project's config from the running Pulumi program; raises ConfigError on bad input."""
    from pulumi.runtime.config import CONFIG, get_config_env

    # The language host passes config through PULUMI_CONFIG; set_all_config (automation, mocks) through CONFIG.
    return stack_config_from_mapping({**get_config_env(), **CONFIG.get()}, pulumi.get_project())
