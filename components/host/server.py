"""Multi-language use: the package's own components served to TypeScript, Go, C#, Java and YAML stacks.

`pulumi package add <this repository>` makes Pulumi start this folder as a plugin (see `plugin.py`); `main()` then
serves the schema declared in `provider_schema.py` and answers each Construct by building the package's component of
that name, exactly as a Python program would: one resource per component, the same children, the same type tokens.

A thin layer, not a second implementation: the inputs the engine sends (schema names, mapped to Python names by the
SDK) are validated into the package's pydantic args, every problem reported at once as one structured
`InputPropertiesError` (schema paths, e.g. ``gpuPools[0].vmSize``) before anything is registered. Kubernetes objects
go through the provider the caller passes (``providers: {kubernetes: ...}``), never an ambient KUBECONFIG.
"""

from __future__ import annotations

import json
import sys
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

import pulumi
from pulumi.provider import ConstructResult
from pulumi.provider import main as serve
from pulumi.provider.experimental.analyzer import Analyzer, ComponentDefinition
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError
from pydantic import BaseModel

from .. import __version__
from .. import platform as _platform
from ..azure import cluster as _cluster
from ..azure import gpu_pool as _gpu_pool
from ..config import ConfigError, validate
from ..kubernetes import dra_driver as _dra_driver
from ..kubernetes import dra_samples as _dra_samples
from ..kubernetes.providers import require_kubernetes_provider
from .schema import DECLARATIONS, PACKAGE, SECRET_OUTPUTS


# --- from the host's plain dicts to the package's pydantic args ---------------------------------------------------------
def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a field holds (directly, optionally, or as list items), if any."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
        inner = typing.get_args(candidate)
        if typing.get_origin(candidate) is list and inner and isinstance(inner[0], type) and issubclass(inner[0], BaseModel):
            return inner[0]
    return None


def _plain(value: Any) -> Any:
    """An enum member as its text (the package's checks, not the SDK's enum conversion, decide what is allowed)."""
    return value.value if isinstance(value, Enum) else value


def to_config_keys(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """Renames the host's snake_case keys to the model's camelCase aliases, model by model.

    Only keys of the models themselves are renamed: user maps (labels, tags, featureGates, extraValues) keep their keys.
    Validating by alias makes every error name the key as a multi-language user writes it (``gpuPools[0].vmSize``).
    """
    out: dict[str, Any] = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            out[key] = value  # unknown: pydantic reports it, with the keys that are allowed
            continue
        sub = _nested_model(field.annotation)
        if sub is not None and isinstance(value, Mapping):
            value = to_config_keys(sub, value)
        elif sub is not None and isinstance(value, list):
            value = [to_config_keys(sub, v) if isinstance(v, Mapping) else v for v in value]
        out[field.alias or key] = _plain(value)
    return out


def validated(model: type[BaseModel], args: Mapping[str, Any], component: str) -> Any:
    """The pydantic args for a hosted component, or one ConfigError (an InputPropertiesError) listing every problem.

    The engine shows the property errors; the message carries them too, one line each, for callers that show only it.
    """
    try:
        return validate(model, to_config_keys(model, args))
    except ConfigError as error:
        raise ConfigError(error.problems, title=f"invalid {component} inputs") from None


# --- building each component: the package's own class, and its outputs under their schema names -------------------------
Built = tuple[pulumi.ComponentResource, dict[str, Any]]


def _build_aks_cluster(name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions | None) -> Built:
    cluster = _cluster.AksCluster(name, validated(_cluster.AksClusterArgs, args, "AksCluster"), opts)
    return cluster, {
        "resourceGroupName": cluster.resource_group_name,
        "clusterName": cluster.cluster_name,
        "clusterId": cluster.cluster_id,
        "resourceUid": cluster.resource_uid,
        "oidcIssuerUrl": cluster.oidc_issuer_url,
        "kubeconfig": cluster.kubeconfig,
        "providerKubeconfig": cluster.provider_kubeconfig,
    }


def _build_gpu_node_pool(name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions | None) -> Built:
    pool = _gpu_pool.GpuNodePool(name, validated(_gpu_pool.GpuNodePoolArgs, args, "GpuNodePool"), opts)
    return pool, {
        "poolName": pool.pool_name,
        "nodeLabels": dict(pool.node_labels),
        "taints": [str(t) for t in pool.taints],
        "gpuMemoryGib": pool.gpu_memory_gib,
        "devicesPerNode": pool.devices_per_node,
    }


def _build_nvidia_dra_driver(name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions | None) -> Built:
    config = validated(_dra_driver.NvidiaDraDriverArgs, args, "NvidiaDraDriver")
    require_kubernetes_provider("NvidiaDraDriver", opts)
    driver = _dra_driver.NvidiaDraDriver(name, config, opts)
    return driver, {
        "releaseName": driver.release_name,
        "namespace": driver.namespace,
        "chartVersion": driver.chart_version,
        "values": driver.values,
    }


def _build_dra_samples(name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions | None) -> Built:
    config = validated(_dra_samples.DraSamplesArgs, args, "DraSamples")
    require_kubernetes_provider("DraSamples", opts)
    samples = _dra_samples.DraSamples(name, config, opts)
    return samples, {
        "deviceClassName": samples.device_class_name,
        "claimTemplateNames": dict(samples.claim_template_names),
        "sharedClaimName": samples.shared_claim_name,
        "jobName": samples.job_name,
        "namespace": samples.namespace,
    }


def _build_gpu_platform(name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions | None) -> Built:
    platform = _platform.GpuPlatform(name, validated(_platform.GpuPlatformArgs, args, "GpuPlatform"), opts)
    cluster, samples = platform.cluster, platform.samples
    return platform, {
        "clusterName": cluster.cluster_name,
        "resourceGroupName": cluster.resource_group_name,
        "clusterId": cluster.cluster_id,
        "resourceUid": cluster.resource_uid,
        "kubeconfig": cluster.kubeconfig,
        "providerKubeconfig": cluster.provider_kubeconfig,
        "gpuPools": [pool.pool_name for pool in platform.pools],
        "draDriverRelease": platform.driver.release_name,
        "deviceClassName": samples.device_class_name if samples else None,
        "claimTemplateNames": dict(samples.claim_template_names) if samples else None,
        "sharedClaimName": samples.shared_claim_name if samples else None,
        "samplesNamespace": samples.namespace if samples else None,
    }


BUILDERS: dict[str, Callable[[str, Mapping[str, Any], pulumi.ResourceOptions | None], Built]] = {
    "AksCluster": _build_aks_cluster,
    "GpuNodePool": _build_gpu_node_pool,
    "NvidiaDraDriver": _build_nvidia_dra_driver,
    "DraSamples": _build_dra_samples,
    "GpuPlatform": _build_gpu_platform,
}
"""How each declared component is built, by its name in the schema."""


# --- the provider the engine talks to -----------------------------------------------------------------------------------
def with_secrets(schema: str, secrets: Mapping[str, tuple[str, ...]] = SECRET_OUTPUTS) -> str:
    """The schema with `secrets` marked ``secret: true`` (the SDK's analyzer has no way to say so)."""
    doc = json.loads(schema)
    for component, names in secrets.items():
        properties = doc["resources"][f"{PACKAGE}:index:{component}"]["properties"]
        for name in names:
            properties[name]["secret"] = True
    return json.dumps(doc)


class ComponentHost(ComponentProvider):
    """The SDK's component provider, serving the declared schema and building the package's own components."""

    def __init__(self) -> None:
        super().__init__(DECLARATIONS, PACKAGE, version=__version__)
        self.schema = with_secrets(self.schema or "{}")
        self.definitions: dict[str, ComponentDefinition] = Analyzer(PACKAGE).analyze(DECLARATIONS)["component_definitions"]

    def construct(
        self, name: str, resource_type: str, inputs: pulumi.Inputs, options: pulumi.ResourceOptions | None = None
    ) -> ConstructResult:
        """Builds the component of that type; bad inputs come back as one structured InputPropertiesError."""
        self.validate_resource_type(PACKAGE, resource_type)
        component = resource_type.rsplit(":", 1)[-1]
        args = self.map_inputs(inputs, self.definitions[component])
        try:
            built, state = BUILDERS[component](name, args, options)
        except pulumi.InputPropertiesError:
            raise  # the server sends its property errors to the engine, which shows each
        except Exception as error:  # as the SDK's own host does: the caller sees the message and the stack
            raise ComponentInitError(error) from error
        return ConstructResult(built.urn, {key: value for key, value in state.items() if value is not None})


def main() -> None:
    """Serves the components to the Pulumi engine whose address is in argv (prints the port, then answers gRPC)."""
    serve(ComponentHost(), sys.argv[1:])
