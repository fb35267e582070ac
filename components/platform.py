"""GpuPlatform: composes cluster -> GPU pools in parallel with (provider -> NVIDIA DRA driver -> DRA samples)."""

from __future__ import annotations

import pulumi

from .cluster import AksCluster
from .config import StackConfig
from .dra_driver import NvidiaDraDriver, NvidiaDraDriverArgs
from .dra_samples import DraSamples, DraSamplesArgs
from .gpu_pool import GpuNodePool, GpuNodePoolArgs
from .secret_config import secret_inputs, secret_texts

GpuPlatformArgs = StackConfig
"""The whole platform's settings (see StackConfig)."""


class GpuPlatform(pulumi.ComponentResource):
    """AKS + NVadsA10_v5 pools + the NVIDIA DRA driver + DRA samples: the AKS team's recipe as one component.

    Only composes: cluster -> (GPU pools) in parallel with (Kubernetes provider -> driver, samples).
    """

    cluster: AksCluster
    """The cluster and its Kubernetes provider."""
    pools: list[GpuNodePool]
    """The GPU pools, in config order."""
    driver: NvidiaDraDriver
    """The NVIDIA DRA driver release."""
    samples: DraSamples | None
    """The DRA sample objects, when enabled."""

    def __init__(self, name: str, args: GpuPlatformArgs, opts: pulumi.ResourceOptions | None = None):
        texts = secret_texts(args)
        if texts:  # values from secret config stay secret in every child that carries them (secret_config.py)
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(transformations=[secret_inputs(texts)]))
        super().__init__("aks-dra-vgpu:index:GpuPlatform", name, None, opts)
        self.cluster = AksCluster(f"{name}-cluster", args.cluster, pulumi.ResourceOptions(parent=self))
        # Pools depend on the cluster only (through its name), never on each other: AKS creates them in parallel.
        self.pools = [
            GpuNodePool(
                f"{name}-{pool.name}",
                GpuNodePoolArgs(
                    **pool.model_dump(),
                    cluster_name=self.cluster.cluster_name,
                    resource_group_name=self.cluster.resource_group_name,
                ),
                pulumi.ResourceOptions(parent=self),
            )
            for pool in args.gpu_pools
        ]
        # Kubernetes objects reach the cluster through its explicit provider only; none waits for a GPU pool
        # (the driver's DaemonSet waits for GPU nodes by itself), so pools and driver are created in parallel.
        # The samples do not wait for the driver either: the API server takes DeviceClasses and claims before any
        # device is published, and the sample Job is created without waiting for its pod.
        on_cluster = pulumi.ResourceOptions(parent=self, providers={"kubernetes": self.cluster.provider})
        self.driver = NvidiaDraDriver(
            f"{name}-dra-driver",
            NvidiaDraDriverArgs(**args.dra_driver.model_dump(), pools=args.gpu_pools),
            on_cluster,
            # The values come from draDriver and from the pools' labels and taints: secret if any of them is.
            secret_values=bool(args.secret_sections & {"draDriver", "gpuPools"}),
        )
        self.samples = None
        if args.samples.enabled:
            self.samples = DraSamples(
                f"{name}-dra-samples",
                DraSamplesArgs(**args.samples.model_dump(), pools=args.gpu_pools),
                on_cluster,
            )
        outputs = {
            "clusterName": self.cluster.cluster_name,
            "resourceGroupName": self.cluster.resource_group_name,
            "kubeconfig": self.cluster.kubeconfig,
            "gpuPools": [p.pool_name for p in self.pools],
            "draDriverRelease": self.driver.release_name,
        }
        if self.samples:
            outputs["deviceClassName"] = self.samples.device_class_name
            outputs["claimTemplateNames"] = self.samples.claim_template_names
            outputs["sharedClaimName"] = self.samples.shared_claim_name
            outputs["samplesNamespace"] = self.samples.namespace
        self.register_outputs(outputs)
