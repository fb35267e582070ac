"""Syntax rules of Kubernetes and AKS names, taints and versions, and key paths into nested data.

Every rule matches the whole text (``fullmatch``) in ASCII only: a trailing newline or a non-ASCII digit never passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi

PROJECT = "aks-dra-vgpu"
"""The package's config namespace: the Pulumi project name its stack files' keys start with."""


def _rule(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.ASCII)


POOL_NAME = _rule(r"[a-z][a-z0-9]{0,11}")
DNS_LABEL = _rule(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
HELM_RELEASE = _rule(r"(?=.{1,53}\Z)[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_SUBDOMAIN = _rule(r"(?=.{1,253}\Z)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
LABEL_NAME = _rule(r"(?=.{1,63}\Z)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
LABEL_VALUE = _rule(r"|(?=.{1,63}\Z)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
CLUSTER_NAME = _rule(r"[A-Za-z0-9]([-_A-Za-z0-9]{0,61}[A-Za-z0-9])?")
# Azure's rule for a managed cluster's dnsPrefix: 1-54 letters, digits and '-', alphanumeric at both ends.
DNS_PREFIX_RULE = "use 1-54 letters, digits and '-', starting and ending with a letter or digit"
DNS_PREFIX = _rule(r"[A-Za-z0-9]([-A-Za-z0-9]{0,52}[A-Za-z0-9])?")
RESOURCE_GROUP = _rule(r"[-\w._()]{0,89}[-\w_()]")
LOCATION = _rule(r"[a-z][a-z0-9]+")
# Fleet Manager names (azure-rest-api-specs containerservice/.../fleet/preview/2024-05-02-preview/fleets.json, also
# stable/2026-06-01): a fleet 1-63, a member, update strategy, auto-upgrade profile, stage or group 1-50 characters,
# all `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`.
FLEET_NAME = _rule(r"(?=.{1,63}\Z)[a-z0-9]([-a-z0-9]*[a-z0-9])?")
FLEET_PART_NAME = _rule(r"(?=.{1,50}\Z)[a-z0-9]([-a-z0-9]*[a-z0-9])?")
# A Pulumi stack name (pulumi/pulumi sdk/go/common/tokens/stack_name.go), as `offline.project.STACK_NAME`.
STACK_NAME = _rule(r"[A-Za-z0-9_.-]{1,100}")
# Release numbers without leading zeros (kubernetes/kubernetes: semver, as AKS lists them, e.g. 1.34 or 1.34.2).
K8S_VERSION = _rule(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})(\.(0|[1-9][0-9]{0,5}))?")
DRIVER_VERSION = _rule(r"[0-9]{1,6}(\.[0-9]{1,6}){0,2}")
GUID = _rule(r"[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
SURGE = _rule(r"[1-9][0-9]{0,3}|([1-9][0-9]?|100)%")
# Azure cloud names as kubelogin takes them (AzurePublicCloud, AzureChinaCloud, AzureUSGovernmentCloud).
ENVIRONMENT = _rule(r"[A-Za-z][A-Za-z0-9]{0,63}")
# Azure VM size names: `Standard_D4ds_v5`, `Standard_E4-2s_v3` (constrained vCPU), `Basic_A0`.
VM_SIZE = _rule(r"(Standard|Basic)_[A-Za-z0-9]+(-[0-9]+)?[A-Za-z0-9]*(_[A-Za-z0-9]+)*")
# A container image reference (distribution/reference `regexp.go`): [registry[:port]/]path[:tag][@digest], lowercase path.
_IMAGE_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE_HOST = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_IMAGE_DOMAIN = rf"(?:{_IMAGE_HOST}(?:\.{_IMAGE_HOST})*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?"
IMAGE = _rule(
    rf"(?=.{{1,512}}\Z)(?:{_IMAGE_DOMAIN}/)?{_IMAGE_COMPONENT}(?:/{_IMAGE_COMPONENT})*"
    r"(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?"
)
# kubelogin login modes that wait for a person (device code, browser): never for a provider that CI runs.
INTERACTIVE_LOGINS = ("devicecode", "interactive")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

StrInput = str | pulumi.Output
"""A string, or a string that another resource will produce."""


def json_pattern(rule: re.Pattern[str]) -> str:
    """A rule as a JSON Schema pattern (ECMA-262, which searches): anchored at both ends, as ``fullmatch`` is."""
    body = rule.pattern.replace(r"\Z", "$")
    return f"^(?:{body})$" if "|" in body else f"^{body}$"


def check_label_key(key: str) -> str | None:
    """Returns what is wrong with a Kubernetes label key, or None."""
    prefix, _, name = key.rpartition("/")
    if prefix and not DNS_SUBDOMAIN.fullmatch(prefix):
        return f"label key '{key}': prefix '{prefix}' is not a DNS subdomain"
    if not LABEL_NAME.fullmatch(name):
        return (
            f"label key '{key}': name must be 1-63 characters, alphanumeric at both ends, "
            "with '-', '_' or '.' between"
        )
    return None


def check_label_value(value: str) -> str | None:
    """Returns what is wrong with a Kubernetes label value, or None."""
    if not LABEL_VALUE.fullmatch(value):
        return f"label value '{value}' must be empty or 1-63 characters, alphanumeric at both ends"
    return None


@dataclass(frozen=True)
class Taint:
    """A parsed node taint."""

    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def toleration(self) -> dict[str, str]:
        """The Kubernetes toleration that matches exactly this taint."""
        if self.value:
            return {"key": self.key, "operator": "Equal", "value": self.value, "effect": self.effect}
        return {"key": self.key, "operator": "Exists", "effect": self.effect}


def parse_taint(text: str) -> Taint:
    """Parses ``key=value:Effect`` (or ``key:Effect``); raises ValueError naming what is allowed."""
    body, sep, effect = text.rpartition(":")
    allowed = f"expected key=value:Effect with Effect one of {', '.join(TAINT_EFFECTS)}"
    if not sep or not body:
        raise ValueError(f"'{text}' is not a taint; {allowed}")
    if effect not in TAINT_EFFECTS:
        raise ValueError(f"'{text}' has effect '{effect}'; {allowed}")
    key, _, value = body.partition("=")
    problem = check_label_key(key) or check_label_value(value)
    if problem:
        raise ValueError(f"'{text}': {problem}")
    return Taint(key, value, effect)


def parse_k8s_version(text: str) -> tuple[int, int]:
    """Returns (major, minor) of ``1.34`` or ``1.34.2``; raises ValueError otherwise."""
    m = K8S_VERSION.fullmatch(text)
    if not m:
        near = re.match(r"v?([0-9]+)\.([0-9]+)", text.strip())  # the hint starts from the user's own numbers
        example = f"{int(near[1])}.{int(near[2])}" if near else "1.34"
        raise ValueError(f"'{text}' is not a Kubernetes version; write major.minor or major.minor.patch, e.g. '{example}'")
    return int(m.group(1)), int(m.group(2))


class _Missing:
    """The value of a key that is not there (None can be a real value: a Helm null)."""

    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()
"""What `value_at` (and the diff, for a side that lacks a key) returns for a key path that is not there."""


def value_at(data: Any, path: Sequence[str], stop: Callable[[Any], bool] | None = None) -> Any:
    """The value at a key path of nested mappings, or MISSING; a node on the way that `stop` accepts is returned as is."""
    node = data
    for part in path:
        if stop is not None and stop(node):
            return node
        if not isinstance(node, Mapping) or part not in node:
            return MISSING
        node = node[part]
    return node


_PLAIN_PROPERTY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def property_path(parts: Iterable[Any], as_index: Callable[[Any], bool] = lambda part: isinstance(part, int)) -> str:
    """Pulumi's property-path syntax: a plain name after a dot, an index (what `as_index` says is one) in brackets,
    any other key quoted in brackets with its quotes escaped (pulumi/pulumi sdk/go/common/resource/properties_path.go,
    ParsePropertyPath): what `pulumi config set --path` and replaceOnChanges read."""
    text = ""
    for part in parts:
        if as_index(part):
            text += f"[{part}]"
        elif _PLAIN_PROPERTY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += '["' + part.replace('"', '\\"') + '"]'
    return text
