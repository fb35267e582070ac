"""ExtendedResources: the DeviceClasses that serve extended resource names with DRA slices (Kubernetes 1.36+).

`extended_classes` decides (pure); this component registers one DeviceClass per `ExtendedClass`. The class that maps
nvidia.com/gpu shares that name with the driver chart's `gpu.nvidia.com`, and the scheduler takes the class created
last, ties by the lower name (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/deviceclass/
extendedresourcecache/extendedresourcecache.go, updateResourceName2class). So it is created after the driver's release
(depends_on), re-created whenever that release is (its identity, `<namespace>/<name>`, the only inputs that replace a
helm.v3.Release: pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go, Diff, is an annotation with
replaceOnChanges; delete first, since its name is fixed), and its name sorts before `gpu.nvidia.com`.
"""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, model_validator

from ..catalog import GPU_DEVICE_CLASS
from ..config import KeyedProblemsError
from ..config.args import component_args
from ..config.base import KubernetesVersion
from ..config.extended_resources import CHART_CLASS, NOT_SERVED, NVIDIA_GPU, NVIDIA_GPU_CLASS, ExtendedResourcesConfig
from ..config.extended_rules import (
    cluster_version_problem,
    nvidia_gpu_offer_problem,
    package_names,
    pool_version_problems,
)
from ..config.pools import GpuPools
from ..config.syntax import DNS_LABEL, HELM_RELEASE, StrInput
from ..config.types import checked, text_only
from ..outputs import output, register_declared
from .extended_classes import class_spec, classes_for
from .providers import require_kubernetes_provider, waits_for

RELEASE_ANNOTATION = "aks-dra-vgpu.io/driver-release"
"""On the nvidia.com/gpu class: the driver release it must be created after, `<namespace>/<release name>`."""
RELEASE_EXAMPLE = "nvidia-dra-driver-gpu/nvidia-dra-driver-gpu"


def release_problem(value: str) -> str | None:
    """Why `value` is not a Helm release's identity '<namespace>/<release name>', or None."""
    namespace, slash, release = value.partition("/")
    if slash and DNS_LABEL.fullmatch(namespace) and HELM_RELEASE.fullmatch(release):
        return None
    return (f"'{value}' is not '<namespace>/<release name>' (a DNS label, '/', a Helm release name of at most 53 "
            f"characters), e.g. '{RELEASE_EXAMPLE}'")


DriverRelease = Annotated[StrInput, text_only(checked(release_problem))]
"""The driver release's identity as text, or another resource's output that will be it."""


class ExtendedResourcesArgs(ExtendedResourcesConfig):
    """The extendedResources settings plus what a stack would say about the cluster: its pools, version and driver."""

    pools: GpuPools = Field(description="The GPU pools whose slices the classes map (GpuNodePool components or settings).")
    kubernetes_version: KubernetesVersion = Field(
        description="The cluster's Kubernetes version, major.minor[.patch]: 1.36 or newer (the DRAExtendedResource "
        "gate); a pool that pins its own version needs 1.36 too.",
    )
    memory_margin_percent: int = Field(
        10, ge=0, le=25, description="How far below nominal a slice's reported GPU memory may read and still match.",
    )
    driver_release: DriverRelease | None = Field(
        None, description="The NVIDIA DRA driver's Helm release, '<namespace>/<release name>' (text, or another "
        "resource's output). Required when nvidiaGpu is a slice or 'none': that class is created after the chart's "
        "gpu.nvidia.com, so also pass the driver in dependsOn, and is re-created whenever this release is.",
    )

    @model_validator(mode="after")
    def _rules(self) -> ExtendedResourcesArgs:
        problems = args_problems(self)
        if problems:
            raise KeyedProblemsError(*problems)
        return self


def args_problems(args: ExtendedResourcesArgs) -> list[tuple[str, str]]:
    """Every rule of the component used alone, by its own keys: what a stack's checks say at extendedResources."""
    pools = list(enumerate(args.pools))
    problems = pool_version_problems(pools, "ExtendedResources", pools_key="pools")
    version = cluster_version_problem(args.kubernetes_version, "kubernetesVersion", cluster_key="kubernetesVersion")
    problems += [version] if version else []
    names = package_names(args, pools)
    if not names:
        problems.append(("slices", f"maps no name with nvidiaGpu unset or '{CHART_CLASS}'; set slices: true, or "
                         f"nvidiaGpu to a slice or '{NOT_SERVED}'"))
    offer = nvidia_gpu_offer_problem(args.nvidia_gpu, pools)
    problems += [("nvidiaGpu", offer)] if offer else []
    if NVIDIA_GPU in names and args.driver_release is None:
        problems.append(("driverRelease", (
            f"required with nvidiaGpu '{args.nvidia_gpu}': the class {NVIDIA_GPU_CLASS} must be created after the NVIDIA "
            f"DRA driver's release, whose chart's class {GPU_DEVICE_CLASS} also maps {NVIDIA_GPU} (Kubernetes gives "
            f"the name to the class created last); write '<namespace>/<release name>' (e.g. '{RELEASE_EXAMPLE}') and "
            f"pass the driver in dependsOn, or set nvidiaGpu: '{CHART_CLASS}' where the driver is not yours")))
    return problems


class ExtendedResourcesOutputs:
    """What an ExtendedResources gives back, in Python and in every other language."""

    device_classes: dict[str, pulumi.Output[str]] = output(
        "The DeviceClass that serves each extended resource name, name -> class (e.g. 'nvidia.com/gpu' -> "
        "'aks-dra-vgpu-nvidia-gpu')."
    )


class ExtendedResources(ExtendedResourcesOutputs, pulumi.ComponentResource):
    """One DeviceClass per extended resource name mapped to a right-sized DRA slice; needs an explicit Kubernetes provider.

    Every class waits for what the component is told to wait for (`depends_on`); the nvidia.com/gpu class also for
    `driver`, the NvidiaDraDriver (or its Release) of `driver_release` (other languages: the driver in `dependsOn`).
    """

    def __init__(self, name: str, args: ExtendedResourcesArgs, opts: pulumi.ResourceOptions | None = None,
                 driver: pulumi.Resource | None = None):
        require_kubernetes_provider("ExtendedResources", opts)
        args = component_args(ExtendedResourcesArgs, args)
        super().__init__("aks-dra-vgpu:index:ExtendedResources", name, None, opts)
        waits: list[Any] = waits_for(opts)
        self.device_classes = {}
        for found in classes_for(args, args.pools, args.memory_margin_percent):
            child = pulumi.ResourceOptions(parent=self, depends_on=waits or None)
            metadata: dict[str, object] = {"name": found.class_name}
            if found.resource_name == NVIDIA_GPU and args.driver_release is not None:
                metadata["annotations"] = {RELEASE_ANNOTATION: args.driver_release}
                child = pulumi.ResourceOptions(
                    parent=self, depends_on=[*waits, *([driver] if driver is not None else [])] or None,
                    replace_on_changes=["metadata.annotations"], delete_before_replace=True,
                )
            device_class = k8s.resource.v1.DeviceClass(
                f"{name}-{found.class_name}", metadata=metadata, spec=class_spec(found), opts=child,
            )
            self.device_classes[found.resource_name] = device_class.metadata.name
        register_declared(self)
