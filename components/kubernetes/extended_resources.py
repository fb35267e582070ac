"""ExtendedResources: the DeviceClasses that serve extended resource names with DRA slices (Kubernetes 1.36+).

`extended_classes` decides (pure); this component registers one DeviceClass per `ExtendedClass`. The class that maps
nvidia.com/gpu shares that name with the driver chart's `gpu.nvidia.com`, and the 1.36 scheduler keeps one class per
name in memory (config/extended_rules.py: kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/
deviceclass/extendedresourcecache/extendedresourcecache.go, updateResourceName2class and removeResourceName2class):
- the package's class is created after the driver's release (depends_on) and its name sorts before `gpu.nvidia.com`,
  so it takes the name from the chart's class;
- it is re-created whenever that release is (its identity, `<namespace>/<name>`, the only inputs that replace a
  helm.v3.Release: pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go, Diff, is an annotation with
  replaceOnChanges; delete first, since its name is fixed), and so is newer than the chart's class again;
- it carries the driver's revision (chart version and a digest of its values) in an annotation that changes with every
  apply of the release, so each apply updates it in place after the chart: if that apply deleted a class carrying the
  name (and so emptied the scheduler's slot for it), the update puts the name back.
"""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, PrivateAttr, field_validator, model_validator

from ..catalog import DRIVER_CHARTS, GPU_DEVICE_CLASS
from ..config import KeyedProblemsError
from ..config.args import component_args
from ..config.base import KubernetesVersion
from ..config.extended_resources import CHART_CLASS, NOT_SERVED, NVIDIA_GPU, NVIDIA_GPU_CLASS, ExtendedResourcesConfig
from ..config.extended_rules import (
    CHART_NAMES,
    chart_extended_names,
    cluster_version_problem,
    keeps_nvidia_gpu_class,
    nvidia_gpu_offer_problem,
    package_names,
    pool_version_problems,
    selecting_names,
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
REVISION_ANNOTATION = "aks-dra-vgpu.io/driver-revision"
"""On every class that shares a name with the chart's: the driver's revision, so each apply of the release updates it."""


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

    chart_version: str | None = Field(
        None, description="The NVIDIA DRA driver chart's version, when driverRelease is yours: on Kubernetes 1.36 a "
        "chart that maps nvidia.com/gpu (0.4.0 and newer) makes the component keep its own nvidia.com/gpu class even "
        "with nvidiaGpu unset (selecting any GPU device, as the chart's class does), so that no later change deletes "
        "a class that carries the name (the 1.36 scheduler would forget it).",
    )
    driver_revision: StrInput | None = Field(
        None, description="Text that changes whenever the driver's release is applied anew (GpuPlatform: the chart "
        "version and a digest of its values): written on the classes that share a name with the chart's, so every "
        "such apply updates them in place after the chart and the scheduler maps the name again.",
    )

    @field_validator("chart_version")
    @classmethod
    def _chart(cls, v: str | None) -> str | None:
        if v is not None and v not in DRIVER_CHARTS:
            raise ValueError(f"'{v}' is not a driver chart version this package knows; choose one of "
                             f"{', '.join(DRIVER_CHARTS)}")
        return v

    @property
    def keeps_nvidia_gpu(self) -> bool:
        """Whether the component declares the nvidia.com/gpu class (`keeps_nvidia_gpu_class`, the stack's rule)."""
        return keeps_nvidia_gpu_class(self.nvidia_gpu, None if self.driver_release is not None else False,
                                      self.chart_version, self.kubernetes_version)

    _pool_runs: tuple[str | None, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _rules(cls, data: Any, handler: Any) -> ExtendedResourcesArgs:
        # A GpuNodePool (or its args) runs its own pin, else the control plane's version it was given: read before the
        # pools become bare settings, so an unpinned pool is checked by the version it runs.
        given = data.get("pools") if isinstance(data, dict) else None
        runs = tuple(getattr(p, "orchestrator_version", None) for p in given) if isinstance(given, list) else ()
        self = handler(data)
        if runs and len(runs) == len(self.pools):
            self._pool_runs = runs
        problems = args_problems(self)
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    def runs(self, index: int) -> str:
        """The Kubernetes version pool `index` runs: its pin, else what its GpuNodePool was given, else the cluster's."""
        found = self._pool_runs[index] if index < len(self._pool_runs) else None
        return self.pools[index].kubernetes_version or found or self.kubernetes_version


def args_problems(args: ExtendedResourcesArgs) -> list[tuple[str, str]]:
    """Every rule of the component used alone, by its own keys: what a stack's checks say at extendedResources."""
    pools = list(enumerate(args.pools))
    keep = args.keeps_nvidia_gpu
    chart_names = chart_extended_names(args.chart_version, args.kubernetes_version) if args.driver_release else {}
    version = cluster_version_problem(args.kubernetes_version, "kubernetesVersion", cluster_key="kubernetesVersion")
    problems = [version] if version else [
        *pool_version_problems(pools, lambda pool: selecting_names(pool, args, keep, chart_names, None),
                               pools_key="pools", version_of=lambda pool: args.runs(args.pools.index(pool)))]
    names = package_names(args, pools, keep)
    if not names:
        problems.append(("slices", f"maps no name: set slices: true, or nvidiaGpu to a slice or '{NOT_SERVED}' (with "
                         f"no driverRelease of yours, '{CHART_CLASS}' and unset leave nvidia.com/gpu to the driver's "
                         "own class)"))
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
        for found in classes_for(args, args.pools, args.memory_margin_percent, args.keeps_nvidia_gpu):
            child = pulumi.ResourceOptions(parent=self, depends_on=waits or None)
            metadata: dict[str, object] = {"name": found.class_name}
            if found.resource_name in CHART_NAMES and args.driver_release is not None:
                annotations: dict[str, object] = {RELEASE_ANNOTATION: args.driver_release}
                if args.driver_revision is not None:
                    annotations[REVISION_ANNOTATION] = args.driver_revision
                metadata["annotations"] = annotations
                child = pulumi.ResourceOptions(
                    parent=self, depends_on=[*waits, *([driver] if driver is not None else [])] or None,
                    # the release's identity replaces the class; its revision only updates it (in place)
                    replace_on_changes=[f'metadata.annotations["{RELEASE_ANNOTATION}"]'],
                    delete_before_replace=True,
                )
            device_class = k8s.resource.v1.DeviceClass(
                f"{name}-{found.class_name}", metadata=metadata, spec=class_spec(found), opts=child,
            )
            self.device_classes[found.resource_name] = device_class.metadata.name
        register_declared(self)

