"""Values from secret config stay secret in every resource that carries them, and nothing else becomes secret.

Pulumi marks a config key secret as a whole (``pulumi config set --secret``, or any ``secure:`` value inside it: a key
whose value holds a secure value is a secure object, decrypted whole for the program; pulumi/pulumi
`sdk/go/common/resource/config/map.go`, Get/Set with ``NewSecureObjectValue``), and the program sees the key's value in
plain text. Whatever the program builds from it must be passed as a secret again, or the value lands in the state file
and in every preview. The NVIDIA driver's Helm values are marked explicitly (they mix several sections, see
`platform.py`); this module is the net for the rest: a transformation on the platform that passes as a secret every
secret text where it sits in a child resource's inputs, *whole* (a tag's value, a label's value, a taint), never one
that merely contains it (an identity ID ending in ``-prod`` holds the tag value ``prod`` but is not secret).

Only the leaf is secret: a tags map with one secret tag keeps its other tags readable, so the plan and `diff` still
show them. The SDK sends a secret Output nested in a map as that one value wrapped in the secret signature (pulumi/pulumi
`sdk/python/lib/pulumi/runtime/rpc.py`, serialize_property), and the Helm release takes values with secrets inside
(pulumi/pulumi-kubernetes `provider/pkg/provider/helm_release.go`: decodeRelease strips them for Helm, annotateSecrets
keeps each secret in the state). A secret text used as a map's *key* (a tag named like a connection string) makes that
map secret whole: a key cannot be a secret.

Which texts are secret: offline, a ``secure:`` value is never decrypted, so each one the user marked is the placeholder
``[secret]`` and only those are secret. In a real run Pulumi names the secret sections only, so every text of their
free-form maps (`FREE_FORM`: where a credential can be written) counts, matched whole. Settings with a fixed syntax
(names, versions, sizes, IDs) stay readable, so a plan of a stack with one secret tag still shows, and diffs,
everything else. Whatever looks like a credential written in plain text (`config.credentials`: a value, a number under
a password key, a map's key) is secret too.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pulumi
from pydantic_core import to_jsonable_python

from .config import StackConfig
from .config.credentials import plain_credentials
from .config.loading import SECRET_SHOWN

FREE_FORM = frozenset({"extraValues", "tags", "labels", "taints"})
_OPAQUE = (pulumi.Output, pulumi.Resource, pulumi.Asset, pulumi.Archive)


def _plain(config: StackConfig) -> dict[str, Any]:
    """The settings as JSON-like data; another resource's Output (a namespace from another language) as None, its text
    being unknown here and left to its source."""

    def opaque(value: Any) -> None:
        if isinstance(value, _OPAQUE):
            return None
        raise TypeError(f"{type(value).__name__} is no setting")

    # `model_dump(fallback=...)` came with pydantic 2.11; pydantic-core's serializer has taken it since the floor (2.5).
    return to_jsonable_python(config.model_dump(by_alias=True), fallback=opaque)


Secret = str | int | float
"""A secret value as it is matched: a text, or a number (a numeric password)."""


def secret_texts(config: StackConfig) -> frozenset[Secret]:
    """The texts to keep secret: those the user marked (the placeholder of each secure value where the engine never
    decrypted them, offline; else the text values of the secret sections' free-form maps, and of each secret taint its
    key and value, which tolerations carry apart), and every value that looks like a credential written in plain
    text (`config.credentials`)."""
    data = _plain(config)
    texts: set[Secret] = set()
    for section in config.secret_sections:
        found = set(_texts(data.get(section), False))
        # A section that holds the placeholder was read from a stack file offline: its secure values are known one by
        # one, and its plain texts are no secret (a tag `env: prod` beside a secure tag stays `prod`).
        texts |= {SECRET_SHOWN} if SECRET_SHOWN in found else found
    # A value that looks like a credential written in plain text is kept secret too (plan, state, diff), while
    # `load_stack_config` warns to make it secure: the stack file itself still holds it.
    for section, value in data.items():
        texts.update(c.value for c in plain_credentials(value, section))
    if "gpuPools" in config.secret_sections and SECRET_SHOWN not in texts:
        for pool in config.gpu_pools:
            texts.update(part for taint in pool.parsed_taints for part in (taint.key, taint.value) if part)
    return frozenset(texts)


def _texts(value: Any, free: bool) -> Iterator[str]:
    stack = [(value, free)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, inside or k in FREE_FORM) for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            stack.extend((v, inside) for v in node)
        elif inside and isinstance(node, str) and node:
            yield node


def _is_secret(node: Any, texts: frozenset[Secret]) -> bool:
    """Whether a plain leaf (or a map's key) is one of `texts`, whole (a boolean never is: True is no secret 1)."""
    return isinstance(node, (str, int, float)) and not isinstance(node, bool) and node in texts


def masked(value: Any, texts: frozenset[Secret]) -> Any:
    """`value` with each of `texts` it holds whole passed as a secret where it sits (a map's value, a list's item, an
    input type's attribute), and a map that has one as a key passed as a secret whole; `value` itself, unchanged,
    when it holds none. Outputs and resources are left to their source."""
    if isinstance(value, (*_OPAQUE, type)):
        return value
    if _is_secret(value, texts):
        return pulumi.Output.secret(value)
    if isinstance(value, dict):
        if any(_is_secret(key, texts) for key in value):
            return pulumi.Output.secret(value)
        items = {key: masked(item, texts) for key, item in value.items()}
        return items if any(items[key] is not value[key] for key in value) else value
    if isinstance(value, (list, tuple)):
        entries = [masked(item, texts) for item in value]
        return type(value)(entries) if any(a is not b for a, b in zip(entries, value, strict=True)) else value
    if hasattr(value, "__dict__"):  # an input type (``AgentPoolArgs``...): its values are its attributes
        changed = {name: new for name, old in vars(value).items() if (new := masked(old, texts)) is not old}
        if changed:
            value = copy.copy(value)
            vars(value).update(changed)
    return value


def secret_inputs(texts: frozenset[Secret]) -> pulumi.ResourceTransformation:
    """A transformation that passes as a secret each of `texts` in a resource's inputs, where it sits (`masked`)."""

    def transform(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
        props = {key: masked(value, texts) for key, value in args.props.items()}
        if all(props[key] is args.props[key] for key in props):
            return None
        return pulumi.ResourceTransformationResult(props, args.opts)

    return transform


def driver_values_secret(config: StackConfig) -> bool:
    """Whether the NVIDIA driver's Helm values may carry a secret: draDriver is a secret section, or gpuPools is and
    its secret may be a pool's label or taint (the values carry those, never a pool's tags). Offline the secure values
    are known one by one; in a real run any value of the section may be the secret one."""
    if "draDriver" in config.secret_sections:
        return True
    if "gpuPools" not in config.secret_sections:
        return False
    pools = _plain(config)["gpuPools"]
    if SECRET_SHOWN not in set(_texts(pools, True)):
        return True
    return SECRET_SHOWN in set(_texts([{k: p.get(k) for k in ("labels", "taints")} for p in pools], True))
