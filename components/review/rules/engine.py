"""Replacements the Pulumi engine makes beyond a provider's Diff: a new provider, a resource's own replaceOnChanges."""

from __future__ import annotations

from .model import K8S_PROVIDER, Rule

_K8S_PROVIDER_DIFF = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go"
_PROVIDER_CHANGE = "https://github.com/pulumi/pulumi/issues/10082"
_REPLACE_ON_CHANGES = "https://www.pulumi.com/docs/concepts/options/replaceonchanges/"

RULES: tuple[Rule, ...] = (
    Rule(K8S_PROVIDER, "clusterIdentifier", "replace", "provider",
         "with clusterIdentifier set, pulumi-kubernetes replaces its provider exactly when it changes (DiffConfig), "
         "and with it every object the provider manages; kubeconfig changes are updates in place",
         _K8S_PROVIDER_DIFF),
    Rule("*", None, "replace", "engine", "its provider is replaced, and a provider's resources are replaced with it",
         _PROVIDER_CHANGE, after="pulumi:providers:*"),
)

PROVIDER_CHANGED = Rule(
    "*", "provider", "replace", "engine", "it moves to another provider: Pulumi replaces a resource whose provider changes",
    _PROVIDER_CHANGE,
)
"""Applied when a resource's provider reference points to another provider than before."""


def replace_on_changes_rule(path: str) -> Rule:
    """The rule a resource's own ``replaceOnChanges`` option adds for one of its paths."""
    return Rule("*", path, "replace", "engine", "the resource's replaceOnChanges option lists it", _REPLACE_ON_CHANGES)
