"""Checked text types, written once: each is a `str` that validates itself wherever a model uses it, with the one
message for everybody (ARM IDs, times of day, UTC offsets, DNS labels, surges, taints). Built like `PoolName` and `Zones`
in `base.py`: an `Annotated` type with its check, so a model field says what it holds and carries no validator of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from pydantic import AfterValidator

from .azure import (
    CAPACITY_RESERVATION_GROUP,
    SUBNET,
    USER_ASSIGNED_IDENTITY,
    ArmType,
    check_hh_mm,
    check_utc_offset,
    parse_arm_id,
)
from .base import matching
from .syntax import (
    DNS_LABEL,
    DNS_PREFIX,
    DNS_PREFIX_RULE,
    DRIVER_VERSION,
    ENVIRONMENT,
    HELM_RELEASE,
    RESOURCE_GROUP,
    SURGE,
    VM_SIZE,
    StrInput,
    parse_taint,
)


def checked(problem: Callable[[str], str | None]) -> AfterValidator:
    """A check from a function that says what is wrong with a text (or None): ValueError with that message."""

    def check(value: str) -> str:
        found = problem(value)
        if found:
            raise ValueError(found)
        return value

    return AfterValidator(check)


def _arm_id(kind: ArmType) -> AfterValidator:
    return checked(lambda text: parsed if isinstance(parsed := parse_arm_id(text, kind), str) else None)


SubnetId = Annotated[str, _arm_id(SUBNET)]
"""The ARM ID of a virtual network's subnet."""
CapacityReservationGroupId = Annotated[str, _arm_id(CAPACITY_RESERVATION_GROUP)]
"""The ARM ID of a capacity reservation group."""
UserAssignedIdentityId = Annotated[str, _arm_id(USER_ASSIGNED_IDENTITY)]
"""The ARM ID of a user-assigned managed identity."""

HhMm = Annotated[str, checked(check_hh_mm)]
"""A time of day, 'HH:MM' from 00:00 to 23:59."""
UtcOffset = Annotated[str, checked(check_utc_offset)]
"""A UTC offset, '+HH:MM' or '-HH:MM' from -12:00 to +14:00."""

NamespaceName = Annotated[str, matching(DNS_LABEL, "is not a namespace name; use a DNS label (lowercase, digits, '-')")]
"""A Kubernetes namespace name: a DNS label (RFC 1123)."""


def text_only(check: AfterValidator) -> AfterValidator:
    """The same check for a StrInput: its text is checked, another resource's Output passes (it has no value yet)."""
    return AfterValidator(lambda value: check.func(value) if isinstance(value, str) else value)


NamespaceInput = Annotated[StrInput, text_only(NamespaceName.__metadata__[0])]
"""A namespace name, or another resource's output that will be one (e.g. a Namespace's metadata.name)."""

Surge = Annotated[
    str,
    checked(lambda v: None if SURGE.fullmatch(v) else f"'{v}' is not a surge; write a node count like '1' or a "
            "percentage like '33%'"),
]
"""An upgrade surge: a node count or a percentage."""


def _taint(text: str) -> None:
    parse_taint(text)  # raises with its own message; one taint at a time, so a problem names its item (taints[1])


TaintText = Annotated[str, checked(lambda v: _taint(v))]
"""A node taint as AKS takes it: ``key=value:Effect`` (or ``key:Effect``)."""


ResourceGroupName = Annotated[
    str, matching(RESOURCE_GROUP, "is not a resource group name; use 1-90 letters, digits, '-', '_', '.', '(', ')'")
]
"""An Azure resource group name."""
AzureVmSize = Annotated[str, matching(VM_SIZE, "is not an Azure VM size; write it like 'Standard_D4ds_v5'")]
"""An Azure VM size name (any family: the system pool's)."""
DnsPrefix = Annotated[str, matching(DNS_PREFIX, f"is not a DNS prefix; {DNS_PREFIX_RULE}")]
"""A ManagedCluster's dnsPrefix."""
ReleaseName = Annotated[str, matching(HELM_RELEASE, "is not a Helm release name; use a DNS label of at most 53 characters")]
"""A Helm release name: a DNS label of at most 53 characters (Helm's own limit)."""
DriverVersion = Annotated[str, matching(DRIVER_VERSION, "is not a driver version; write it like '580.65.06'")]
"""An NVIDIA driver version, e.g. 580.65.06."""
CloudName = Annotated[
    str, matching(ENVIRONMENT, "is not an Azure cloud name; write it like 'AzurePublicCloud' or 'AzureChinaCloud'")
]
"""An Azure cloud name as kubelogin's --environment takes it."""
