"""A platform's membership in a fleet: one FleetMember that joins the platform's cluster to the fleet of a fleet stack.

The fleet is found through a StackReference to the fleet stack's outputs (same organization and project; the offline
engine answers it from the fleet stack's own file). FleetMember (pulumi-azure-native's default module, Fleet API
2024-05-02-preview, Azure/azure-rest-api-specs .../fleet/preview/2024-05-02-preview/fleets.json): ``clusterResourceId``
is required and create-only (a new cluster is a new member), ``group`` is PATCH-able (``FleetMemberUpdateProperties``),
the member's name is the path's ``fleetMemberName`` (1-50).
"""

from __future__ import annotations

import pulumi
import pulumi_azure_native.containerservice as containerservice

from ..config.fleet import FleetMembershipConfig
from .cluster import AksCluster


def fleet_reference(name: str, fleet_stack: str, opts: pulumi.ResourceOptions) -> pulumi.StackReference:
    """The fleet stack's outputs, read through a StackReference in this organization and project."""
    return pulumi.StackReference(
        f"{name}-fleet", stack_name=f"{pulumi.get_organization()}/{pulumi.get_project()}/{fleet_stack}", opts=opts)


def join_fleet(
    name: str, membership: FleetMembershipConfig, cluster_name: str, cluster: AksCluster, parent: pulumi.Resource
) -> containerservice.FleetMember:
    """Declares the FleetMember of `cluster` in the fleet `membership` names; it waits for the ManagedCluster (its ID
    names the member's cluster) and for nothing else of the platform."""
    opts = pulumi.ResourceOptions(parent=parent)
    fleet = fleet_reference(name, membership.fleet_stack, opts)
    return containerservice.FleetMember(
        f"{name}-fleet-member",
        fleet_member_name=membership.member_name or cluster_name,
        fleet_name=fleet.get_output("fleetName"),
        resource_group_name=fleet.get_output("fleetResourceGroupName"),
        cluster_resource_id=cluster.cluster_id,
        group=membership.group,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[cluster.managed_cluster]),
    )
