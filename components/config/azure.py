"""Syntax rules of Azure values a stack writes: ARM resource IDs, CIDR ranges, maintenance-window times.

Each check returns what is wrong (a message that says what is allowed) or None, so models can report one line per
problem. Sources: Azure/azure-rest-api-specs, Microsoft.ContainerService/aks/stable/2025-09-01/managedClusters.json
(``vnetSubnetID``, ``CapacityReservationGroupID``: ``format: arm-id`` with their allowed resource types;
``ManagedClusterIdentity.userAssignedIdentities``: keys of the form .../Microsoft.ManagedIdentity/userAssignedIdentities/...;
``MaintenanceWindow.startTime`` ``^\\d{2}:\\d{2}$``, ``utcOffset`` ``^(-|\\+)[0-9]{2}:[0-9]{2}$``).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from .syntax import GUID, RESOURCE_GROUP


def _rule(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.ASCII)


# Names of Azure resources below a resource group: letters, digits, '-', '_', '.', starting with a letter or digit
# (virtual networks 2-64, subnets 1-80, capacity reservation groups 1-80: the longest is the bound here).
_RESOURCE_NAME = _rule(r"[A-Za-z0-9][-\w.]{0,79}")
_HH_MM = _rule(r"(\d{2}):(\d{2})")
_UTC_OFFSET = _rule(r"([-+])(\d{2}):(\d{2})")


def _singular(plural: str) -> str:
    """virtualNetworks -> virtualNetwork, userAssignedIdentities -> userAssignedIdentity."""
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    return plural[:-1] if plural.endswith("s") else plural


@dataclass(frozen=True)
class ArmType:
    """A resource type as it appears in an ARM ID: provider namespace, then (type, name) pairs."""

    namespace: str  # e.g. "Microsoft.Network"
    types: tuple[str, ...]  # e.g. ("virtualNetworks", "subnets")

    @property
    def noun(self) -> str:
        """What one is called in messages, e.g. 'subnet'."""
        return _singular(self.types[-1])

    @property
    def template(self) -> str:
        """The ID's form, for messages."""
        names = "".join(f"/{t}/{{{_singular(t)}Name}}" for t in self.types)
        return f"/subscriptions/{{subscriptionId}}/resourceGroups/{{resourceGroupName}}/providers/{self.namespace}{names}"


SUBNET = ArmType("Microsoft.Network", ("virtualNetworks", "subnets"))
CAPACITY_RESERVATION_GROUP = ArmType("Microsoft.Compute", ("capacityReservationGroups",))
USER_ASSIGNED_IDENTITY = ArmType("Microsoft.ManagedIdentity", ("userAssignedIdentities",))
AZURE_MONITOR_WORKSPACE = ArmType("Microsoft.Monitor", ("accounts",))


@dataclass(frozen=True)
class ArmId:
    """A parsed ARM resource ID (segment names compared case-insensitively, as ARM does)."""

    subscription: str
    resource_group: str
    names: tuple[str, ...]  # one per type of the ArmType, e.g. (vnet, subnet)

    def parent(self) -> tuple[str, str, tuple[str, ...]]:
        """The ID of the resource one level up, normalised for comparison (e.g. a subnet's virtual network)."""
        return self.subscription.lower(), self.resource_group.lower(), tuple(n.lower() for n in self.names[:-1])


def parse_arm_id(text: str, kind: ArmType) -> ArmId | str:
    """The parsed ID, or a message saying what is wrong and the form expected."""
    expected = f"write a full ARM ID: {kind.template}"
    parts = text.split("/")
    # ['', 'subscriptions', sub, 'resourceGroups', rg, 'providers', namespace, type1, name1, ...]
    if len(parts) != 7 + 2 * len(kind.types) or parts[0] != "":
        return f"'{text}' is not a {kind.noun} ID; {expected}"
    fixed = [(1, "subscriptions"), (3, "resourceGroups"), (5, "providers"), (6, kind.namespace)]
    fixed += [(7 + 2 * i, t) for i, t in enumerate(kind.types)]
    for index, word in fixed:
        if parts[index].lower() != word.lower():
            return f"'{text}' is not a {kind.noun} ID (expected '{word}' where it says '{parts[index]}'); {expected}"
    subscription, group = parts[2], parts[4]
    if not GUID.fullmatch(subscription):
        return f"'{text}': subscription '{subscription}' is not a GUID; {expected}"
    if not RESOURCE_GROUP.fullmatch(group):
        return f"'{text}': '{group}' is not a resource group name; {expected}"
    names = tuple(parts[8 + 2 * i] for i in range(len(kind.types)))
    for name in names:
        if not _RESOURCE_NAME.fullmatch(name):
            return f"'{text}': '{name}' is not a resource name (1-80 letters, digits, '-', '_', '.'); {expected}"
    return ArmId(subscription, group, names)


def arm_id_or_error(text: str | None, kind: ArmType) -> str | None:
    """A field validator's body: the ID unchanged when it is one of `kind` (or unset), else ValueError saying why."""
    if text is not None:
        parsed = parse_arm_id(text, kind)
        if isinstance(parsed, str):
            raise ValueError(parsed)
    return text


# A subnet ID's parent: everything before "/subnets/<name>" (the form is checked where the ID is configured).
_SUBNET_PARENT = re.compile(r"(.*/virtualnetworks/[^/]+)/subnets/[^/]+/?", re.ASCII | re.IGNORECASE)


def virtual_network_of(subnet_id: str | None) -> str | None:
    """The virtual network a subnet ID belongs to (its parent, `.../virtualNetworks/<vnet>`), lower case because ARM
    compares IDs case-insensitively; None for no subnet or a text that names no subnet of a virtual network."""
    m = _SUBNET_PARENT.fullmatch(subnet_id or "")
    return m.group(1).lower() if m else None


def check_cidr(text: str) -> str | None:
    """What is wrong with an IPv4 or IPv6 range in CIDR notation (network address, prefix length), or None."""
    if "/" not in text:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            return f"'{text}' is not a CIDR range; write an address with its prefix length, e.g. '203.0.113.0/24'"
        # The advice never repeats the text: a secret's is shown as '[secret]', and '[secret]/32' is no advice.
        bits, example = (32, "203.0.113.7") if address.version == 4 else (128, "2001:db8::7")
        return f"'{text}' is not a CIDR range, only an address; add /{bits} for this one address, as in '{example}/{bits}'"
    try:
        ipaddress.ip_network(text, strict=True)
    except ValueError as exc:
        try:
            network = ipaddress.ip_network(text, strict=False)
        except ValueError:
            return f"'{text}' is not a CIDR range ({exc}); write e.g. '203.0.113.0/24'"
        return f"'{text}' has host bits set; the range it names is '{network}'"
    return None


# AKS's cluster network (ContainerServiceNetworkProfile in Azure/azure-rest-api-specs managedClusters.json: podCidr,
# serviceCidr, dnsServiceIP, IPv4 in single-stack; defaults 10.244.0.0/16, 10.0.0.0/16, 10.0.0.10, which
# pulumi-azure-native's SDK sends when they are unset).
# Ranges AKS does not allow for the service address range (learn.microsoft.com/azure/aks/configure-azure-cni,
# "Prerequisites": "AKS clusters may not use 169.254.0.0/16, 172.30.0.0/16, 172.31.0.0/16, or 192.0.2.0/24").
AKS_RESERVED_RANGES = tuple(ipaddress.ip_network(r) for r in ("169.254.0.0/16", "172.30.0.0/16", "172.31.0.0/16",
                                                              "192.0.2.0/24"))
# kube-apiserver refuses an IPv4 service range of more than 2^20 addresses (cmd/kube-apiserver/app/options/
# validation.go: the mask must be >= 12).
MIN_SERVICE_PREFIX = 12
# Azure CNI Overlay gives every node a /24 of the pod range (learn.microsoft.com/azure/aks/azure-cni-overlay).
NODE_POD_PREFIX = 24


def _ipv4_range(text: str) -> ipaddress.IPv4Network | str:
    """The range, or what is wrong with it (IPv4 only: the single-stack profile takes one IPv4 range)."""
    problem = check_cidr(text)
    if problem:
        return problem
    network = ipaddress.ip_network(text)
    if not isinstance(network, ipaddress.IPv4Network):
        return f"'{text}' is IPv6; AKS takes an IPv4 range here (dual-stack is not offered by this package)"
    return network


def network_problems(pod_cidr: str, service_cidr: str, dns_service_ip: str) -> list[tuple[str, str]]:
    """What is wrong with a cluster's pod range, service range and DNS service IP, one (key, message) per problem."""
    problems: list[tuple[str, str]] = []
    pods, services = _ipv4_range(pod_cidr), _ipv4_range(service_cidr)
    if isinstance(pods, str):
        problems.append(("podCidr", pods))
    elif pods.prefixlen > NODE_POD_PREFIX:
        problems.append(("podCidr", f"'{pod_cidr}' is smaller than one node's share: Azure CNI Overlay gives each node "
                                    f"a /{NODE_POD_PREFIX}; use /{NODE_POD_PREFIX} or larger (e.g. /16)"))
    if isinstance(services, str):
        problems.append(("serviceCidr", services))
    else:
        if services.prefixlen < MIN_SERVICE_PREFIX:
            problems.append(("serviceCidr", f"'{service_cidr}' is too large: Kubernetes takes at most a "
                                            f"/{MIN_SERVICE_PREFIX} for services"))
        reserved = [str(r) for r in AKS_RESERVED_RANGES if services.overlaps(r)]
        if reserved:
            problems.append(("serviceCidr", f"'{service_cidr}' overlaps {', '.join(reserved)}, which AKS does not "
                                            "allow for the service address range"))
        if not isinstance(pods, str) and pods.overlaps(services):
            problems.append(("serviceCidr", f"'{service_cidr}' overlaps podCidr '{pod_cidr}': a pod and a service "
                                            "could get the same address; choose ranges that do not overlap"))
    try:
        dns = ipaddress.ip_address(dns_service_ip)
    except ValueError:
        problems.append(("dnsServiceIp", f"'{dns_service_ip}' is not an IP address; write e.g. '10.0.0.10'"))
        return problems
    if not isinstance(services, str):
        if dns not in services:
            problems.append(("dnsServiceIp", f"'{dns_service_ip}' is outside serviceCidr '{service_cidr}'; CoreDNS's "
                                             "service address comes from the service range (e.g. its .10)"))
        elif dns in (services.network_address, services.network_address + 1, services.broadcast_address):
            problems.append(("dnsServiceIp", f"'{dns_service_ip}' is reserved in '{service_cidr}' (the network address, "
                                             "the first address (the kubernetes service) or the broadcast address); "
                                             f"use e.g. '{services.network_address + 10}'"))
    return problems


def check_hh_mm(text: str) -> str | None:
    """What is wrong with a time of day written 'HH:MM' (00:00 to 23:59), or None."""
    m = _HH_MM.fullmatch(text)
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        return f"'{text}' is not a time of day; write 'HH:MM' from '00:00' to '23:59', e.g. '02:00'"
    return None


def check_utc_offset(text: str) -> str | None:
    """What is wrong with a UTC offset written '+HH:MM' or '-HH:MM' (-12:00 to +14:00), or None."""
    m = _UTC_OFFSET.fullmatch(text)
    if m:
        hours, minutes = int(m.group(2)), int(m.group(3))
        limit = 14 if m.group(1) == "+" else 12
        if minutes < 60 and (hours, minutes) <= (limit, 0):
            return None
    return f"'{text}' is not a UTC offset; write '+HH:MM' or '-HH:MM' from '-12:00' to '+14:00', e.g. '+01:00'"
