"""A member stack's `fleetMembership` section: which fleet stack, which update group, under which member name.

Apart from the fleet's own models (`fleet`), so that every platform stack, which may carry this section, does not build
the fleet stack's models at import. Names as Fleet's API takes them (azure-rest-api-specs fleets.json: `FleetMember`
name 1-50, `group` 1-50, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from .base import Model, matching, unset
from .syntax import FLEET_PART_NAME, PROJECT, STACK_NAME

FLEET_PART_RULE = "use 1-50 lowercase letters, digits and '-', starting and ending with a letter or digit"
GroupName = Annotated[str, matching(FLEET_PART_NAME, f"is not a fleet group name; {FLEET_PART_RULE}")]
MemberName = Annotated[str, matching(FLEET_PART_NAME, f"is not a fleet member name; {FLEET_PART_RULE}")]
StackName = Annotated[str, matching(STACK_NAME, "is not a stack name; use 1-100 letters, digits, '-', '_' or '.'")]


class FleetMembershipConfig(Model, defer_build=True):
    """A member stack's place in a fleet: which fleet stack, which update group, under which member name."""

    fleet_stack: StackName = Field(
        description="The fleet stack's name in this project (its stack file holds the `fleet` section); the member "
        "reads the fleet's outputs through a StackReference to it.",
    )
    group: GroupName = Field(description="Update group (1-50: lowercase letters, digits, '-'); a stage must name it.")
    member_name: MemberName | None = unset(
        "Fleet member name (1-50: lowercase letters, digits, '-'); unset: cluster.name, which must then fit that rule.")


def member_name_problem(membership: FleetMembershipConfig, cluster_name: str) -> tuple[str, str] | None:
    """A membership that takes the cluster's name as member name when that name is not one Fleet accepts."""
    if membership.member_name is not None or FLEET_PART_NAME.fullmatch(cluster_name):
        return None
    return ("fleetMembership.memberName", f"is unset, so the member is named after cluster.name '{cluster_name}', "
            f"which is not a fleet member name ({FLEET_PART_RULE}); set memberName")


FLEET_KEY = "fleet"
FLEET_MEMBERSHIP_KEY = "fleetMembership"


def is_fleet_stack(config: Mapping[str, Any], project: str = PROJECT) -> bool:
    """Whether a flat Pulumi config map (``project:key`` -> value) is a fleet stack's: it sets the `fleet` section."""
    return f"{project}:{FLEET_KEY}" in config


def running_fleet_stack(project: str | None = None) -> bool:
    """Whether the running Pulumi program's stack is a fleet stack (its config sets the `fleet` section)."""
    import pulumi

    namespace = project or pulumi.get_project()
    return pulumi.runtime.get_config(f"{namespace}:{FLEET_KEY}") is not None


def is_fleet_data(data: Mapping[str, Any]) -> bool:
    """Whether a stack's sections (camelCase keys) are a fleet stack's: it has the `fleet` section."""
    return FLEET_KEY in data
