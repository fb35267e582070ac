"""Explicit providers only: the Kubernetes provider a component was given, and the refusal when it was given none;
and what a component was told to wait for, which its objects wait for too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi


def explicit_kubernetes_provider(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    """The Kubernetes provider these options give a component (its own `provider`/`providers`, or its parent's), or None."""
    if opts is None:
        return None
    if opts.provider is not None and opts.provider.package == "kubernetes":
        return opts.provider
    providers = opts.providers
    if isinstance(providers, Mapping):
        if providers.get("kubernetes") is not None:
            return providers["kubernetes"]
    elif providers:
        found = next((p for p in providers if p.package == "kubernetes"), None)
        if found is not None:
            return found
    if opts.parent is not None:
        return opts.parent.get_provider("kubernetes:core/v1:Namespace")
    return None


def require_kubernetes_provider(component: str, opts: pulumi.ResourceOptions | None) -> None:
    """Refuses before anything is registered when no Kubernetes provider was passed: Pulumi would otherwise use
    whatever cluster an ambient KUBECONFIG points at."""
    if explicit_kubernetes_provider(opts) is None:
        raise pulumi.InputPropertiesError(
            f"{component} needs an explicit Kubernetes provider; it never falls back to an ambient KUBECONFIG",
            [{"property_path": "opts.providers", "reason": "pass providers={'kubernetes': provider}"}],
        )


def waits_for(opts: pulumi.ResourceOptions | None) -> list[Any]:
    """What these options make a component wait for, as a list, for the component to hand on to its objects: the SDK
    sends each resource's own `depends_on` only (pulumi/pulumi sdk/python/lib/pulumi/runtime/resource.py,
    prepare_resource), not its parent's."""
    found = opts.depends_on if opts is not None else None
    if found is None:
        return []
    return list(found) if isinstance(found, (list, tuple)) else [found]
