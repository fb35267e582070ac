"""The aks-dra-vgpu program: validate this stack's config, then declare the GPU platform it describes."""

import pulumi

from components import GpuPlatform, load_stack_config
from components.config import ConfigError

try:
    config = load_stack_config()
except ConfigError as error:
    # Every problem at once, before anything is registered.
    raise error.to_pulumi() from None

platform = GpuPlatform("gpu", config)

pulumi.export("resourceGroupName", platform.cluster.resource_group_name)
pulumi.export("clusterName", platform.cluster.cluster_name)
pulumi.export("kubeconfig", platform.cluster.kubeconfig)
pulumi.export("gpuPools", [pool.pool_name for pool in platform.pools])
if platform.driver:  # draDriver.enabled: false leaves the driver to someone else (AKS's managed DRA driver)
    pulumi.export("draDriverRelease", platform.driver.release_name)
if platform.samples:
    pulumi.export("deviceClassName", platform.samples.device_class_name)
    pulumi.export("claimTemplateNames", platform.samples.claim_template_names)
