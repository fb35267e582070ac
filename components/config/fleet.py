"""Azure Kubernetes Fleet Manager: a fleet stack's `fleet` section, and a member stack's `fleetMembership` section.

Shapes, names and limits as Fleet's API takes them (Azure/azure-rest-api-specs, specification/containerservice/
resource-manager/Microsoft.ContainerService/fleet/preview/2024-05-02-preview/fleets.json, the API version of
pulumi-azure-native's default module, and stable/2026-06-01/fleets.json):
- ``Fleet``: name 1-63 ``^[a-z0-9]([-a-z0-9]*[a-z0-9])?$``; ``hubProfile``'s fields (``dnsPrefix`` 1-54,
  ``agentProfile.vmSize``) are ``x-ms-mutability: [read, create]``: a hub's settings are fixed once it exists (a hubless
  fleet can be upgraded to one in place, never the reverse: MicrosoftDocs/azure-aks-docs
  articles/kubernetes-fleet/upgrade-hub-cluster-type.md).
- ``UpdateRunStrategy``: at least one stage ("Min size: 1"); ``UpdateStage.name`` 1-50 and "unique within the
  UpdateRun"; ``groups`` "Duplicate groups are not allowed. Min size: 1", and "A valid strategy contains no duplicate
  groups within or across stages"; ``UpdateGroup.name`` 1-50 "must match a group name of an existing fleet member";
  ``afterStageWaitInSeconds`` int32, "Defaults to 0 seconds". "The maximum number of Update Groups in each Update
  Stage is 50" (MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/concepts-update-orchestration.md).
- ``AutoUpgradeProfile``: ``channel`` ``Stable|Rapid|NodeImage`` (the API's ``UpgradeChannel``, not AKS's lowercase one
  the SDK types it with), ``nodeImageSelection.type`` ``Latest|Consistent``, ``disabled``, ``updateStrategyId``; every
  property create-only.
- ``FleetMember``: name 1-50; ``group`` 1-50, same pattern, PATCH-able; ``clusterResourceId`` create-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import Field, model_validator

from ..catalog.regions import region_problem
from .base import Model, matching, unset
from .errors import KeyedProblemsError
from .fleet_membership import (  # the member's section, kept apart so a platform stack does not build the fleet's models
    FLEET_KEY,
    FLEET_MEMBERSHIP_KEY,
    FLEET_PART_RULE,
    FleetMembershipConfig,
    GroupName,
    MemberName,
    StackName,
    is_fleet_data,
    member_name_problem,
)
from .limits import Tags
from .syntax import FLEET_NAME, FLEET_PART_NAME
from .types import AzureVmSize, DnsPrefix, ResourceGroupName, checked

MAX_GROUPS_PER_STAGE = 50
MAX_WAIT_SECONDS = 2**31 - 1  # afterStageWaitInSeconds is an int32

FleetName = Annotated[str, matching(FLEET_NAME, "is not a fleet name; use 1-63 lowercase letters, digits and '-', "
                                    "starting and ending with a letter or digit")]
StageName = Annotated[str, matching(FLEET_PART_NAME, f"is not an update stage name; {FLEET_PART_RULE}")]
StrategyName = Annotated[str, matching(FLEET_PART_NAME, f"is not an update strategy name; {FLEET_PART_RULE}")]
FleetChannel = Literal["Stable", "Rapid", "NodeImage"]
NodeImageSelection = Literal["Latest", "Consistent"]


class FleetHubConfig(Model, defer_build=True):
    """A hub cluster for the fleet (its settings are fixed once the hub exists, and it is never removed)."""

    dns_prefix: DnsPrefix | None = unset("DNS prefix of the hub's API server (1-54: letters, digits, '-'); create-only.")
    vm_size: AzureVmSize | None = unset("VM size of the hub's one node (agentProfile.vmSize); create-only.")


class UpdateStageConfig(Model, defer_build=True):
    """One stage of the update strategy: its groups are upgraded in parallel, then the stage waits."""

    name: StageName = Field(description="Stage name (1-50: lowercase letters, digits, '-'), unique in the strategy.")
    groups: list[GroupName] = Field(
        min_length=1, max_length=MAX_GROUPS_PER_STAGE,
        description="Groups upgraded in parallel in this stage (1-50); each must be a group of some member stack "
        "(fleetMembership.group), and no group may appear twice in the strategy.",
    )
    after_stage_wait_in_seconds: int = Field(
        0, ge=0, le=MAX_WAIT_SECONDS,
        description="Seconds to wait after this stage before the next one starts (default 0): time to prove the "
        "stage's clusters (docs/fleet.md).",
    )


class UpdateStrategyConfig(Model, defer_build=True):
    """The order in which update runs upgrade the fleet's members: stages one after another."""

    name: StrategyName = Field(description="Update strategy name (1-50: lowercase letters, digits, '-').")
    stages: list[UpdateStageConfig] = Field(min_length=1, description="Stages, run one after another (at least one).")

    @model_validator(mode="after")
    def _unique(self) -> UpdateStrategyConfig:
        problems = duplicate_problems([(stage.name, list(stage.groups)) for stage in self.stages])
        if problems:
            raise KeyedProblemsError(*problems)
        return self

    @property
    def groups(self) -> list[str]:
        """Every group the strategy names, in stage order."""
        return [group for stage in self.stages for group in stage.groups]


def duplicate_problems(stages: list[tuple[object, list[object]]]) -> list[tuple[str, str]]:
    """A stage name or a group written twice in a strategy's stages (name, groups), at keys below the strategy; also
    run on raw data whose other keys failed (`raw_duplicate_problems`), so one run says every mistake."""
    problems: list[tuple[str, str]] = []
    names: dict[str, int] = {}
    groups: dict[str, str] = {}
    for i, (name, stage_groups) in enumerate(stages):
        if isinstance(name, str):
            if name in names:
                problems.append((f"stages[{i}].name", f"stage name '{name}' is used twice (stages[{names[name]}] and "
                                 f"stages[{i}]); stage names must be unique in a strategy"))
            names.setdefault(name, i)
        for j, group in enumerate(stage_groups):
            if not isinstance(group, str):
                continue
            where = f"stages[{i}].groups[{j}]"
            if group in groups:
                problems.append((where, f"group '{group}' is already in {groups[group]}; Fleet allows no group twice "
                                 "within or across stages"))
            groups.setdefault(group, where)
    return problems


def raw_duplicate_problems(strategy: object) -> list[tuple[str, str]]:
    """`duplicate_problems` on a strategy as written, whatever else in it is wrong."""
    stages = strategy.get("stages") if isinstance(strategy, Mapping) else None
    if not isinstance(stages, list):
        return []
    return duplicate_problems([
        (stage.get("name"), stage.get("groups") if isinstance(stage.get("groups"), list) else [])
        if isinstance(stage, Mapping) else (None, [])
        for stage in stages
    ])


class AutoUpgradeConfig(Model, defer_build=True):
    """A Fleet auto-upgrade profile: Fleet starts an update run with the strategy whenever AKS ships a new version."""

    channel: FleetChannel = Field(
        description="Stable (newest patch of minor N-1), Rapid (newest patch of the newest minor N) or NodeImage (node "
        "images only). Create-only. Members must turn their own AKS auto-upgrade off (docs/fleet.md).",
    )
    node_image_selection: NodeImageSelection | None = unset(
        "Latest (the newest image in each member's region) or Consistent (the newest image available in every region of "
        "the run); create-only. Unset: Fleet's default, Latest.",
    )
    disabled: bool = Field(False, description="Keep the profile but start no update runs (true).")

    @property
    def profile_name(self) -> str:
        """The profile's resource name: its channel, so a new channel is a new profile (every property is create-only)."""
        return self.channel.lower()


class FleetConfig(Model, defer_build=True):
    """A fleet stack: the Fleet, its update strategy and, optionally, an auto-upgrade profile."""

    name: FleetName = Field(description="Fleet name (1-63: lowercase letters, digits, '-').")
    resource_group_name: ResourceGroupName = Field(description="Resource group of the fleet.")
    create_resource_group: bool = Field(
        True, description="Create the resource group (true) or use an existing group of that name (false).")
    # Any region ARM names (catalog/regions.py): the fleet resource needs no GPU sizes there.
    location: Annotated[str, checked(region_problem)] = Field(
        description="Azure region of the fleet resource, as ARM names it (e.g. 'westeurope'); members may be anywhere.")
    hub: FleetHubConfig | None = unset(
        "A hub cluster (unset: a hubless fleet, the default). Adding a hub to a hubless fleet is an update in place "
        "(then run `az fleet member reconcile` for each member); Azure refuses removing or changing a hub.",
    )
    update_strategy: UpdateStrategyConfig = Field(description="The stages update runs follow.")
    auto_upgrade: AutoUpgradeConfig | None = unset("An auto-upgrade profile that uses the update strategy.")
    tags: Tags = Field(default_factory=dict, description="Azure tags of the fleet's resources.")


class FleetStackConfig(Model, defer_build=True):
    """A fleet stack's settings: the `fleet` section and no platform (its clusters are member stacks of their own)."""

    fleet: FleetConfig = Field(description="The Fleet, its update strategy and auto-upgrade profile (docs/fleet.md).")


__all__ = [
    "FLEET_KEY", "FLEET_MEMBERSHIP_KEY", "FLEET_PART_RULE", "MAX_GROUPS_PER_STAGE", "MAX_WAIT_SECONDS", "AutoUpgradeConfig",
    "FleetConfig", "FleetHubConfig", "FleetMembershipConfig", "FleetStackConfig", "GroupName", "MemberName", "StackName",
    "UpdateStageConfig", "UpdateStrategyConfig", "duplicate_problems", "is_fleet_data", "member_name_problem",
    "raw_duplicate_problems",
]
