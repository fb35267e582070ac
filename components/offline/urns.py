"""URNs and provider references: the one place that knows how Pulumi writes them.

``urn:pulumi:<stack>::<project>::<qualified type>::<name>``, where the qualified type is the parent's qualified type,
``$``, and the resource's own type (pulumi/pulumi `pkg/resource/deploy/deployment.go`, generateURN). A provider
reference is ``<provider urn>::<provider id>``.
"""

from __future__ import annotations

import re

STACK_TYPE = "pulumi:pulumi:Stack"
STACK_REFERENCE_TYPE = "pulumi:pulumi:StackReference"
_PREFIX = re.compile(r"urn:pulumi:[^:]*::[^:]*::")


def qualified_type(urn: str) -> str:
    """The qualified type of a URN (``parent$child`` types)."""
    return urn.split("::")[2]


def make_urn(stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """The URN the Pulumi engine gives a resource of `type_` named `name` under `parent` (a URN, or '' for none)."""
    if parent and qualified_type(parent) != STACK_TYPE:
        type_ = f"{qualified_type(parent)}${type_}"
    return f"urn:pulumi:{stack}::{project}::{type_}::{name}"


def local_urn(urn: str) -> str:
    """A URN without its stack and project (``aks-dra-vgpu:index:GpuNodePool$…:AgentPool::gpu-a10s-pool``), so plans of
    two stacks of one project compare resource by resource."""
    return _PREFIX.sub("", urn, count=1)


def provider_urn(reference: str | None) -> str | None:
    """The provider's URN in a provider reference; None for a resource on a default provider."""
    if not reference:
        return None
    return reference.rsplit("::", 1)[0]
