"""The aks-dra-vgpu program, and the plugin that serves its components to other languages.

Pulumi starts this folder both ways (components/host/plugin.py says how the two are told apart). As the plugin
(`pulumi package add <this repository>`), it serves the components over gRPC. As the stack's program, it validates
the stack's config, declares the GPU platform it describes (or, for a fleet stack, the fleet) and exports what
other stacks use.
"""

import sys

import pulumi

from components import GpuPlatform, StackConfig, load_stack_config
from components.config import ConfigError
from components.config.fleet_membership import running_fleet_stack
from components.host.plugin import serve, started_as_plugin

if started_as_plugin():
    serve()  # until the engine shuts the plugin down
    sys.exit()


def declare_fleet() -> None:
    """A fleet stack (docs/fleet.md): the Fleet, its update strategy and auto-upgrade profile; its member stacks read
    these outputs through a StackReference."""
    # The fleet's models load here, for a fleet stack alone: a platform stack's run never builds them.
    from components import GpuFleet
    from components.config.fleet_loading import load_fleet_config

    try:
        fleet_config = load_fleet_config()
    except ConfigError as error:
        raise error.to_pulumi() from None
    fleet = GpuFleet("fleet", fleet_config)
    pulumi.export("fleetId", fleet.fleet_id)
    pulumi.export("fleetName", fleet.fleet_name)
    pulumi.export("fleetResourceGroupName", fleet.fleet_resource_group_name)
    pulumi.export("updateStrategyId", fleet.update_strategy_id)
    pulumi.export("updateStrategyName", fleet.update_strategy_name)
    if fleet.auto_upgrade_profile_name is not None:
        pulumi.export("autoUpgradeProfileName", fleet.auto_upgrade_profile_name)


def declare_platform() -> tuple[StackConfig, GpuPlatform]:
    """A platform stack: the GPU platform its config describes, and what other stacks use."""
    try:
        config = load_stack_config()
    except ConfigError as error:
        # Every problem at once, before anything is registered.
        raise error.to_pulumi() from None

    platform = GpuPlatform("gpu", config)

    pulumi.export("resourceGroupName", platform.cluster.resource_group_name)
    pulumi.export("clusterName", platform.cluster.cluster_name)
    pulumi.export("clusterId", platform.cluster.cluster_id)
    # The kubeconfig the stack's own Kubernetes provider uses: never interactive (with Entra ID, a non-interactive
    # kubelogin login), so other stacks (StackReference "kubeconfig"), tools and CI can use it as it is.
    pulumi.export("kubeconfig", platform.cluster.provider_kubeconfig)
    if config.cluster.auth.mode == "entraId":
        # AKS's own Entra ID kubeconfig logs in by device code, which waits for a person: named so, for people only.
        pulumi.export("deviceCodeKubeconfig", platform.cluster.kubeconfig)
    pulumi.export("gpuPools", [pool.pool_name for pool in platform.pools])
    if platform.driver:  # draDriver.enabled: false leaves the driver to someone else (AKS's managed DRA driver)
        pulumi.export("draDriverRelease", platform.driver.release_name)
    if platform.samples:
        pulumi.export("deviceClassName", platform.samples.device_class_name)
        pulumi.export("claimTemplateNames", platform.samples.claim_template_names)
    # Which DeviceClass serves each extended resource name (docs/extended-resources.md).
    if platform.extended_resource_classes is not None:
        pulumi.export("extendedResourceClasses", platform.extended_resource_classes)
    # What importing the GPU dashboard needs (docs/observability.md): the workspace it reads and the Grafana to import into.
    if platform.monitor_workspace_id is not None:
        pulumi.export("monitorWorkspaceId", platform.monitor_workspace_id)
    if platform.prometheus_query_endpoint is not None:  # what `rightsize --prometheus` reads (docs/rightsizing.md)
        pulumi.export("prometheusQueryEndpoint", platform.prometheus_query_endpoint)
    if platform.grafana_endpoint is not None:
        pulumi.export("grafanaEndpoint", platform.grafana_endpoint)
    if platform.fleet_member_name is not None:
        pulumi.export("fleetMemberName", platform.fleet_member_name)
    return config, platform


if running_fleet_stack():
    declare_fleet()
else:
    # Module-level names, as before fleets: code added below this program can use the config and the platform.
    config, platform = declare_platform()
