"""GpuFleet: an Azure Kubernetes Fleet Manager fleet (hubless by default), its update strategy and, optionally, an
auto-upgrade profile that starts update runs with that strategy.

pulumi-azure-native's default module (`pulumi_azure_native.containerservice`: ``Fleet``, ``FleetUpdateStrategy``,
``AutoUpgradeProfile``, and ``FleetMember`` in fleet_member.py) speaks Fleet API 2024-05-02-preview, with the same
classes and inputs at the package's floor and today (each class's docstring, "Uses Azure REST API version
2024-05-02-preview", in the 3.22.0 and 3.29.0 wheels; ``AutoUpgradeProfile`` came in v2.63.0). That API has
no approval gates (``UpdateStage`` takes name, groups, afterStageWaitInSeconds only): the proof between stages is the
wait plus `verify`, docs/fleet.md says how.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_azure_native.containerservice as containerservice
import pulumi_azure_native.resources as resources

from ..config.credentials import plain_credentials
from ..config.fleet import FleetConfig, FleetHubConfig, UpdateStrategyConfig
from ..outputs import output, register_declared

GpuFleetArgs = FleetConfig
"""The fleet's settings (see FleetConfig)."""


def hub_profile(hub: FleetHubConfig | None) -> containerservice.FleetHubProfileArgs | None:
    """The fleet's hub, or None for a hubless fleet (no ``hubProfile`` sent: fleets.json, FleetProperties)."""
    if hub is None:
        return None
    agent = containerservice.AgentProfileArgs(vm_size=hub.vm_size) if hub.vm_size else None
    return containerservice.FleetHubProfileArgs(dns_prefix=hub.dns_prefix, agent_profile=agent)


def update_run_strategy(strategy: UpdateStrategyConfig) -> containerservice.UpdateRunStrategyArgs:
    """The strategy as Fleet takes it: stages in order, each with its groups and its wait."""
    return containerservice.UpdateRunStrategyArgs(stages=[
        containerservice.UpdateStageArgs(
            name=stage.name,
            groups=[containerservice.UpdateGroupArgs(name=group) for group in stage.groups],
            after_stage_wait_in_seconds=stage.after_stage_wait_in_seconds,
        )
        for stage in strategy.stages
    ])


class GpuFleetOutputs:
    """What a GpuFleet gives back (a fleet stack exports these; member stacks read them through a StackReference)."""

    fleet_id: pulumi.Output[str] = output("The Fleet's ARM id.")
    fleet_name: pulumi.Output[str] = output("The Fleet's name.")
    fleet_resource_group_name: pulumi.Output[str] = output("The resource group the Fleet lives in.")
    update_strategy_id: pulumi.Output[str] = output("The FleetUpdateStrategy's ARM id (what update runs name).")
    update_strategy_name: pulumi.Output[str] = output("The FleetUpdateStrategy's name.")
    auto_upgrade_profile_name: pulumi.Output[str] | None = output(
        "The AutoUpgradeProfile's name, when fleet.autoUpgrade is set."
    )


class GpuFleet(GpuFleetOutputs, pulumi.ComponentResource):
    """An Azure Kubernetes Fleet Manager fleet for GPU platforms: the Fleet, its update strategy, its auto-upgrade."""

    fleet: containerservice.Fleet
    """The Fleet resource."""
    strategy: containerservice.FleetUpdateStrategy
    """The update strategy: stages of groups, with waits."""
    auto_upgrade: containerservice.AutoUpgradeProfile | None
    """The auto-upgrade profile, when fleet.autoUpgrade is set."""

    def __init__(self, name: str, args: GpuFleetArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("aks-dra-vgpu:index:GpuFleet", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags: Any = args.tags or None
        found = plain_credentials(tags, "tags") if tags else []
        if any(c.key for c in found):
            tags = pulumi.Output.secret(tags)  # a tag named like a credential: a key cannot be a secret, its map is
        elif found:
            # A tag that looks like a credential stays out of the plan, the state and the diff, and only that tag (the
            # fleet stack is warned to make it secure, `config.loading.warn_plain_credentials`).
            secret = {c.value for c in found}
            tags = {k: pulumi.Output.secret(v) if v in secret else v for k, v in tags.items()}
        if args.create_resource_group:
            group = resources.ResourceGroup(f"{name}-rg", resource_group_name=args.resource_group_name,
                                            location=args.location, tags=tags, opts=child)
            # The name as sent, ready once the group exists (known in a preview too), as AksCluster does.
            self.fleet_resource_group_name = group.urn.apply(lambda _: args.resource_group_name)
        else:
            self.fleet_resource_group_name = pulumi.Output.from_input(args.resource_group_name)
        self.fleet = containerservice.Fleet(
            f"{name}-fleet",
            fleet_name=args.name,
            resource_group_name=self.fleet_resource_group_name,
            location=args.location,
            hub_profile=hub_profile(args.hub),
            tags=tags,
            opts=child,
        )
        self.fleet_id = self.fleet.id
        self.fleet_name = self.fleet.urn.apply(lambda _: args.name)
        self.strategy = containerservice.FleetUpdateStrategy(
            f"{name}-strategy",
            fleet_name=self.fleet_name,
            resource_group_name=self.fleet_resource_group_name,
            update_strategy_name=args.update_strategy.name,
            strategy=update_run_strategy(args.update_strategy),
            opts=child,
        )
        self.update_strategy_id = self.strategy.id
        self.update_strategy_name = self.strategy.urn.apply(lambda _: args.update_strategy.name)
        self.auto_upgrade = None
        self.auto_upgrade_profile_name = None
        profile = args.auto_upgrade
        if profile is not None:
            selection = profile.node_image_selection
            self.auto_upgrade = containerservice.AutoUpgradeProfile(
                f"{name}-auto-upgrade",
                auto_upgrade_profile_name=profile.profile_name,
                fleet_name=self.fleet_name,
                resource_group_name=self.fleet_resource_group_name,
                # The API's own strings (fleets.json UpgradeChannel: Stable, Rapid, NodeImage); the SDK types the input
                # with AKS's UpgradeChannel enum (lowercase 'stable', 'rapid', 'node-image'), which Fleet refuses.
                channel=profile.channel,
                node_image_selection=containerservice.AutoUpgradeNodeImageSelectionArgs(type=selection)
                if selection else None,
                disabled=profile.disabled,
                update_strategy_id=self.update_strategy_id,
                opts=child,
            )
            self.auto_upgrade_profile_name = self.auto_upgrade.urn.apply(lambda _: profile.profile_name)
        register_declared(self)
