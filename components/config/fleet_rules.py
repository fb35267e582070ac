"""Rules that span a fleet's stacks: the fleet stack's strategy against its member stacks' groups, names and upgrades.

Pure functions over what validated, each problem naming the stack file and key it is about, so that `load_fleet` can
report every mistake of every stack at once. Sources:
- groups: Azure/azure-rest-api-specs containerservice/.../fleet/preview/2024-05-02-preview/fleets.json ``UpdateGroup.name``
  "It must match a group name of an existing fleet member"; a member with a group no stage names is never upgraded by
  runs that use the strategy (MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/concepts-update-orchestration.md).
- member names: a member is a child resource ``fleets/{fleet}/members/{name}``: two stacks with one name would be one
  member, each `pulumi up` taking it from the other.
- auto-upgrade: articles/kubernetes-fleet/faq.md, "What happens if I leave AKS cluster auto-upgrades enabled?": "either
  Fleet Manager or AKS cluster auto-upgrade performs the update, depending on which one runs first ... disable
  auto-upgrade on each member AKS cluster"; AKS's nodeOSUpgradeChannel defaults to NodeImage (managedClusters.json),
  which moves node images by itself just as Fleet's runs do (every Fleet channel moves node images: NodeImage, and
  Stable/Rapid as "Full" upgrades of "the control plane and all agent pools", fleets.json ``ManagedClusterUpgradeType``).
- at most 1,000 members per fleet (articles/kubernetes-fleet/faq.md: "supports joining up to 1,000 Kubernetes clusters").
- one Azure resource in two stack files (`twice_declared`): a Fleet or an AKS cluster that two stack files of one project
  both declare, each `pulumi up` undoing the other's (and a cluster joined to a fleet twice is counted twice). A
  resource is its ARM ID: subscription, resource group, provider type and name (Azure/azure-rest-api-specs
  containerservice/.../managedClusters.json ``managedClusters/{resourceName}``, fleets.json ``fleets/{fleetName}``), and
  "resource and resource group names are case-insensitive unless noted" (learn.microsoft.com, Azure Resource Manager,
  resource-name-rules). A stack that sets no ``azure-native:subscriptionId`` deploys to the caller's subscription: two
  such stacks are taken to share it.
- waits (warnings, `fleet_warnings`): ARM takes any int32 of seconds (68 years); a wait past a week holds the later
  stages longer than a canary needs proving. The NodeImage channel's runs come "on a weekly cadence"
  (articles/kubernetes-fleet/concepts-update-orchestration.md, "NodeImage channel": member nodes are updated with a
  newly patched VHD "on a weekly cadence"; update-automation.md: a profile creates an update run when a new node image
  is published), so a strategy that waits longer in total than a week is still waiting when the next image comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import Problem
from .fleet import AutoUpgradeConfig, UpdateStrategyConfig
from .upgrades import DEFAULT_NODE_OS_CHANNEL, UpgradesConfig

MAX_MEMBERS = 1000
WEEK_SECONDS = 7 * 24 * 3600
CADENCE_SECONDS = {"NodeImage": WEEK_SECONDS}  # the channels whose cadence Fleet's docs state


@dataclass(frozen=True)
class MemberView:
    """What the fleet rules read of one member stack (None where that part did not validate)."""

    file: str
    group: str | None
    member_name: str | None
    member_key: str  # where the name comes from: fleetMembership.memberName, or cluster.name by default
    upgrades: UpgradesConfig | None


@dataclass(frozen=True)
class Declared:
    """One Azure resource a stack file declares, as ARM names it (lowercased), and where the file names it."""

    file: str
    key: str  # the config key path that names it: fleet.name, cluster.name
    identity: tuple[str, str, str]  # (subscription or '', resource group, name), casefolded
    shown: tuple[str, str]  # (name, resource group) as written


def at(file: str, key: str, message: str) -> Problem:
    """A problem of one stack file at one key."""
    return Problem(f"{file}: {key}" if key else file, message)


def fleet_problems(
    fleet_file: str, strategy: UpdateStrategyConfig | None, auto_upgrade: AutoUpgradeConfig | None,
    members: list[MemberView],
) -> list[Problem]:
    """Every problem between the fleet stack (its strategy and auto-upgrade profile) and its member stacks."""
    problems: list[Problem] = []
    if strategy is not None:
        problems += _groups(fleet_file, strategy, members)
    problems += _names(members)
    if auto_upgrade is not None and not auto_upgrade.disabled:
        problems += [p for m in members for p in _upgrade_conflicts(fleet_file, auto_upgrade, m)]
    if len(members) > MAX_MEMBERS:
        problems.append(at(fleet_file, "fleet", f"{len(members)} member stacks; a fleet holds at most {MAX_MEMBERS}"))
    return problems


def _groups(fleet_file: str, strategy: UpdateStrategyConfig, members: list[MemberView]) -> list[Problem]:
    named = strategy.groups
    had = {m.group for m in members if m.group is not None}
    problems = [
        at(m.file, "fleetMembership.group", f"group '{m.group}' is in no stage of {fleet_file} "
           f"(fleet.updateStrategy '{strategy.name}'): update runs with that strategy would never upgrade this member; "
           f"choose one of: {', '.join(dict.fromkeys(named))}, or add it to a stage")
        for m in members if m.group is not None and m.group not in named
    ]
    known_members = all(m.group is not None for m in members)  # a member whose group failed could hold any group
    for i, stage in enumerate(strategy.stages):
        for j, group in enumerate(stage.groups):
            if group not in had and known_members:
                problems.append(at(fleet_file, f"fleet.updateStrategy.stages[{i}].groups[{j}]", (
                    f"group '{group}' has no member: no member stack of this fleet sets fleetMembership.group "
                    f"'{group}', and Fleet refuses a stage group that \"must match a group name of an existing fleet "
                    f"member\"; members' groups: {', '.join(sorted(had)) or 'none'}")))
    first = strategy.stages[0]
    if len(strategy.stages) > 1 and len(members) > 1 and known_members and had <= set(first.groups):
        problems.append(at(fleet_file, "fleet.updateStrategy.stages[0].groups", (
            f"the first stage '{first.name}' holds every member ({len(members)}): a canary that upgrades everything "
            "proves nothing before the rest; keep some members' groups for later stages")))
    elif len(strategy.stages) == 1 and len(members) > 1 and known_members:
        problems.append(at(fleet_file, "fleet.updateStrategy.stages", (
            f"one stage '{first.name}' upgrades all {len(members)} members at once; add a canary stage first "
            "(its groups upgraded, waited on and proven before the next stage starts)")))
    return problems


def _names(members: list[MemberView]) -> list[Problem]:
    seen: dict[str, MemberView] = {}
    problems = []
    for member in members:
        if member.member_name is None:
            continue
        first = seen.setdefault(member.member_name, member)
        if first is not member:
            problems.append(at(member.file, member.member_key, (
                f"member name '{member.member_name}' is also {first.file}'s ({first.member_key}); a fleet's member "
                "names are unique (one name is one member, each stack would take it from the other): set "
                "fleetMembership.memberName")))
    return problems


def _upgrade_conflicts(fleet_file: str, profile: AutoUpgradeConfig, member: MemberView) -> list[Problem]:
    if member.upgrades is None:
        return []
    problems = []
    why = (f"{fleet_file} has an auto-upgrade profile (fleet.autoUpgrade.channel {profile.channel}), and with both, "
           "\"either Fleet Manager or AKS cluster auto-upgrade performs the update, depending on which one runs first\" "
           "(Fleet FAQ); Fleet changes no cluster setting")
    channel = member.upgrades.channel
    if channel not in (None, "none"):
        problems.append(at(member.file, "cluster.upgrades.channel",
                           f"'{channel}' lets AKS upgrade this member by itself, but {why}: set 'none'"))
    node_os = member.upgrades.node_os_channel
    if (node_os or DEFAULT_NODE_OS_CHANNEL) == "NodeImage":
        shown = f"'{node_os}'" if node_os else "unset (AKS's default, NodeImage)"
        problems.append(at(member.file, "cluster.upgrades.nodeOsChannel",
                           f"{shown} lets AKS move this member's node images by itself, but {why}: set 'None', or "
                           "'SecurityPatch' for security patches only"))
    return problems


def twice_declared(declared: list[Declared], what: str, concerned: set[str] | None = None,
                   members: Mapping[str, str] | None = None) -> list[Problem]:
    """Each resource declared by more than one stack file, said at every later file naming the first (only those where
    one of the files is in `concerned`, when given); `members` (file -> member name) says a cluster joined twice."""
    first: dict[tuple[str, str, str], Declared] = {}
    problems = []
    for item in declared:
        seen = first.setdefault(item.identity, item)
        if seen is item or (concerned is not None and not {seen.file, item.file} & concerned):
            continue
        if concerned is not None and item.file not in concerned:  # said at the file this review is about
            seen, item = item, seen
        name, group = item.shown
        joined = ""
        if members and seen.file in members and item.file in members:
            joined = (f"; the fleet would join it twice (as members '{members[seen.file]}' and '{members[item.file]}') "
                      "and count its cost twice")
        problems.append(at(item.file, item.key, (
            f"{what} '{name}' in resource group '{group}' is also declared by {seen.file} ({seen.key}): both stacks "
            f"would manage one Azure resource (ARM names are case-insensitive), each `pulumi up` undoing the other's"
            f"{joined}; give each stack its own, or keep one of them")))
    return problems


def fleet_warnings(fleet_file: str, strategy: UpdateStrategyConfig | None,
                   auto_upgrade: AutoUpgradeConfig | None) -> list[str]:
    """What is allowed but likely a mistake in a fleet's waits: a stage waiting past a week, and a strategy whose
    waits add up to more than its auto-upgrade channel's cadence."""
    if strategy is None:
        return []
    warnings = [
        f"{fleet_file}: fleet.updateStrategy.stages[{i}].afterStageWaitInSeconds: {stage.after_stage_wait_in_seconds} "
        f"s is {_days(stage.after_stage_wait_in_seconds)}: the stages after '{stage.name}' would wait that long for "
        "their upgrades; a canary is proven in hours to days (86400 is one day)"
        for i, stage in enumerate(strategy.stages) if stage.after_stage_wait_in_seconds > WEEK_SECONDS
    ]
    total = sum(stage.after_stage_wait_in_seconds for stage in strategy.stages)
    cadence = CADENCE_SECONDS.get(auto_upgrade.channel) if auto_upgrade and not auto_upgrade.disabled else None
    if cadence is not None and total > cadence:
        warnings.append(
            f"{fleet_file}: fleet.updateStrategy: its stages wait {_days(total)} in total, longer than the "
            f"{auto_upgrade.channel} channel's weekly cadence (fleet.autoUpgrade.channel): a newer node image is "
            "published before a run reaches its last stage; shorten the waits")
    return warnings


def _days(seconds: int) -> str:
    days = seconds / 86400
    return f"{days:.1f} days" if days < 365 else f"{days / 365.25:.1f} years"
