"""Values from secret config stay secret in every resource that carries them.

Pulumi marks a config key secret as a whole (``pulumi config set --secret``, or any ``secure:`` value inside it), and
the program sees the key's value in plain text. Whatever the program builds from it must be passed as a secret again,
or the value lands in the state file and in every preview. The NVIDIA driver's Helm values are marked explicitly (they
mix several sections, see `platform.py`); this module is the net for the rest: a transformation on the platform that
passes as a secret every input property of every child resource whose plain value holds a text of a secret section's
free-form maps (`FREE_FORM`: where a credential can be written), the text itself or within a longer text when it is at
least `MIN_EMBEDDED` characters long. Settings with a fixed syntax (names, versions, sizes) stay readable, so a plan
of a stack with one secret Helm value still shows, and diffs, everything else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi

from .config import StackConfig

MIN_EMBEDDED = 4
FREE_FORM = frozenset({"extraValues", "tags", "labels", "taints"})
_OPAQUE = (pulumi.Output, pulumi.Resource, pulumi.Asset, pulumi.Archive)


def secret_texts(config: StackConfig) -> frozenset[str]:
    """The text values of the free-form maps inside the stack's secret sections (numbers and booleans carry no secret
    worth hiding), and of each secret taint its key and value, which tolerations carry apart."""
    data = config.model_dump(by_alias=True, mode="json")
    texts = {text for section in config.secret_sections for text in _texts(data.get(section), False)}
    if "gpuPools" in config.secret_sections:
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


def holds_secret(value: Any, texts: frozenset[str]) -> bool:
    """Whether a plain input value (maps, lists, input types) holds one of `texts`; Outputs are left to their source."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if node in texts or any(len(t) >= MIN_EMBEDDED and t in node for t in texts):
                return True
        elif isinstance(node, _OPAQUE) or id(node) in seen:
            continue
        elif isinstance(node, dict):
            seen.add(id(node))
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            seen.add(id(node))
            stack.extend(node)
        elif hasattr(node, "__dict__") and not isinstance(node, type):
            seen.add(id(node))  # an input type (``AgentPoolArgs``...): its values are its attributes
            stack.extend(vars(node).values())
    return False


def secret_inputs(texts: frozenset[str]) -> pulumi.ResourceTransformation:
    """A transformation that passes as a secret every input property holding one of `texts`."""

    def transform(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
        marked = {k for k, v in args.props.items() if not isinstance(v, pulumi.Output) and holds_secret(v, texts)}
        if not marked:
            return None
        props = {k: pulumi.Output.secret(v) if k in marked else v for k, v in args.props.items()}
        return pulumi.ResourceTransformationResult(props, args.opts)

    return transform
