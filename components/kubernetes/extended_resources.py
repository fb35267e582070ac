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

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, model_validator

from ..config import KeyedProblemsError
from ..config.args import component_args
from ..config.extended_resources import NVIDIA_GPU, ExtendedResourcesConfig
from ..config.extended_rules import extended_problems
from ..config.pools import GpuPools
from ..outputs import output, register_declared
from .extended_classes import class_spec, classes_for
from .providers import require_kubernetes_provider

RELEASE_ANNOTATION = "aks-dra-vgpu.io/driver-release"
"""On the nvidia.com/gpu class: the driver release it must be created after, `<namespace>/<release name>`."""


class ExtendedResourcesArgs(ExtendedResourcesConfig):
    """The extendedResources settings plus the pools whose slices the classes select."""

    pools: GpuPools = Field(description="The GPU pools whose slices the classes map (GpuNodePool components or settings).")
    memory_margin_percent: int = Field(
        10, ge=0, le=25, description="How far below nominal a slice's reported GPU memory may read and still match.",
    )
    kubernetes_version: str | None = Field(None, description="The cluster's Kubernetes version (1.36 or newer).")
    driver_release: str | None = Field(
        None, description="The NVIDIA DRA driver's Helm release as '<namespace>/<name>'; required with nvidiaGpu set to "
        "a slice or 'none', whose class must be created after the chart's gpu.nvidia.com.",
    )

    @model_validator(mode="after")
    def _rules(self) -> ExtendedResourcesArgs:
        problems = extended_problems(self, None, self.kubernetes_version, list(enumerate(self.pools)), True,
                                     self.driver_release is not None, None)
        problems = [(key.removeprefix("extendedResources").lstrip(".") or "nvidiaGpu", text)
                    for key, text in problems]
        if problems:
            raise KeyedProblemsError(*problems)
        return self


class ExtendedResourcesOutputs:
    """What an ExtendedResources gives back, in Python and in every other language."""

    device_classes: dict[str, pulumi.Output[str]] = output(
        "The DeviceClass that serves each extended resource name, name -> class (e.g. 'nvidia.com/gpu' -> "
        "'aks-dra-vgpu-nvidia-gpu')."
    )


class ExtendedResources(ExtendedResourcesOutputs, pulumi.ComponentResource):
    """One DeviceClass per extended resource name the stack maps; needs an explicit Kubernetes provider.

    `driver` is what the nvidia.com/gpu class waits for: the NvidiaDraDriver (or its Release) of `driver_release`.
    """

    def __init__(self, name: str, args: ExtendedResourcesArgs, opts: pulumi.ResourceOptions | None = None,
                 driver: pulumi.Resource | None = None):
        require_kubernetes_provider("ExtendedResources", opts)
        args = component_args(ExtendedResourcesArgs, args)
        super().__init__("aks-dra-vgpu:index:ExtendedResources", name, None, opts)
        self.device_classes = {}
        for found in classes_for(args, args.pools, args.memory_margin_percent):
            child = pulumi.ResourceOptions(parent=self)
            metadata: dict[str, object] = {"name": found.class_name}
            if found.resource_name == NVIDIA_GPU and args.driver_release is not None:
                metadata["annotations"] = {RELEASE_ANNOTATION: args.driver_release}
                child = pulumi.ResourceOptions(
                    parent=self, depends_on=[driver] if driver is not None else None,
                    replace_on_changes=["metadata.annotations"], delete_before_replace=True,
                )
            device_class = k8s.resource.v1.DeviceClass(
                f"{name}-{found.class_name}", metadata=metadata, spec=class_spec(found), opts=child,
            )
            self.device_classes[found.resource_name] = device_class.metadata.name
        register_declared(self)
