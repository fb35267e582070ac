"""Adds A10 vGPU sharing to an AKS cluster this stack does not own: one GPU pool, the NVIDIA DRA driver, DRA samples.

The cluster, its resource group and its system pool belong to someone else (another stack, another tool). This stack
only reads their names and a kubeconfig from its own config and never registers them, so it can neither change nor
delete them. Kubernetes objects go through a provider built from that kubeconfig, never an ambient KUBECONFIG.
"""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from aks_dra_vgpu import DraSamples, DraSamplesArgs, GpuNodePool, GpuNodePoolArgs, NvidiaDraDriver, NvidiaDraDriverArgs
from aks_dra_vgpu.config import ConfigError, DraDriverConfig, GpuPoolConfig, Problem, SamplesConfig, validate

config = pulumi.Config()
cluster_name = config.require("clusterName")
resource_group_name = config.require("resourceGroupName")
# A secret of this stack (`pulumi config set --secret kubeconfig < kubeconfig`). To follow a stack of this project
# that owns the cluster instead: pulumi.StackReference("<org>/aks-dra-vgpu/<stack>").require_output("kubeconfig"), the
# non-interactive kubeconfig its own provider uses (never "deviceCodeKubeconfig", which waits for a person).
kubeconfig = config.require_secret("kubeconfig")

# Every mistake in the three settings is reported at once, each under the key written in the stack file.
problems: list[Problem] = []


def checked(model: type, data: Any, key: str) -> Any:
    """The settings under `key` validated into `model`, or None with their problems noted."""
    try:
        return validate(model, data, prefix=key)
    except ConfigError as error:
        problems.extend(error.problems)
        return None


# The pool is defined once: the same settings make the GpuNodePool and shape the driver and the samples.
pool = checked(GpuPoolConfig, config.require_object("gpuPool"), "gpuPool")
driver_settings = config.get_object("draDriver") or {}
samples_settings = config.get_object("samples") or {}
if pool is None:  # the driver and samples are shaped by the pool: check their own keys now, the rest once it is valid
    checked(DraDriverConfig, driver_settings, "draDriver")
    checked(SamplesConfig, samples_settings, "samples")
    driver_args = samples_args = None
else:
    driver_args = checked(NvidiaDraDriverArgs, {**driver_settings, "pools": [pool]}, "draDriver")
    samples_args = checked(DraSamplesArgs, {**samples_settings, "pools": [pool]}, "samples")
if problems:
    raise ConfigError(problems).to_pulumi()

provider = k8s.Provider("existing-aks", kubeconfig=kubeconfig, delete_unreachable=False)
on_cluster = pulumi.ResourceOptions(providers={"kubernetes": provider})

gpu_pool = GpuNodePool(
    f"gpu-{pool.name}",
    GpuNodePoolArgs(**pool.model_dump(), cluster_name=cluster_name, resource_group_name=resource_group_name),
)
driver = NvidiaDraDriver("dra-driver", driver_args, on_cluster)

pulumi.export("gpuPool", gpu_pool.pool_name)
pulumi.export("draDriverRelease", driver.release_name)
if samples_args.enabled:
    samples = DraSamples("dra-samples", samples_args, on_cluster)
    pulumi.export("deviceClassName", samples.device_class_name)
    pulumi.export("claimTemplateNames", samples.claim_template_names)
