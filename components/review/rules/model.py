"""The shape of a rule, the effects it can name, and the resource types the rules speak about."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Effect = Literal["replace", "rebuild", "refused", "note"]
Refuser = Literal["Azure", "the Kubernetes API server", "Pulumi", "this package"]  # "this package": its own policy
Mechanism = Literal["provider", "api", "engine"]
Presence = Literal["added", "removed", "changed"]  # the value at a rule's path: absent before, absent after, or neither
class Item(str):
    """A path part naming a list entry by its identity (``key="nvidia.com/gpu",effect="NoSchedule"``), not its index.

    A ``str`` so that paths stay printable, and a rule's ``*`` matches it like any list index; it keeps the entry's
    index on each side, so that a path a program writes with an index (``ignoreChanges: ["nodeTaints[0]"]``) still
    names it."""

    indices: frozenset[int]

    def __new__(cls, label: str, indices: frozenset[int] = frozenset()) -> Item:
        item = super().__new__(cls, label)
        item.indices = indices
        return item


PathPart = str | int  # a key, a list index, "*" (any list item), or an Item (a list entry by its identity)

SAFE_CHANGES_DOC = "docs/safe-changes.md"

GROUP = "azure-native:resources:ResourceGroup"
CLUSTER = "azure-native:containerservice:ManagedCluster"
POOL = "azure-native:containerservice:AgentPool"
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"
K8S_PROVIDER = "pulumi:providers:kubernetes"
RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
JOB = "kubernetes:batch/v1:Job"
DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"


@dataclass(frozen=True)
class Rule:
    """One fact about changing a resource: which inputs (or which replaced dependency) trigger what, and the source."""

    type: str  # a type token, or a glob such as "kubernetes:*"
    path: str | None  # input path in Pulumi's property-path syntax ("[*]" = any list item); None for a cascade
    effect: Effect
    mechanism: Mechanism
    why: str
    source: str
    after: str | None = None  # cascade: applies when a resource this one depends on, of this type (glob), is replaced
    shown: int | None = None  # its row among the type's settings in the plan tree (components.review.tree)
    shows: str | tuple[str, ...] | None = None  # what that row shows, when not `path` (an object above several
    # rules, or the parts of an object, one row each)
    when: Presence | None = None  # only when the value at `path` (no "*" in it) is added, removed or changed; None: any


@dataclass(frozen=True)
class InPlace:
    """An input the package sends that changes in place with nothing worth a line: said outright, with its source, so
    that a property with neither a rule nor this entry is a forgotten rule (tests/test_rule_coverage.py)."""

    type: str
    path: str
    source: str
    shown: int | None = None  # its row among the type's settings in the plan tree
    shows: str | None = None  # what that row shows, when not `path`
