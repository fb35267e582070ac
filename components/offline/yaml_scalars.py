"""Pulumi's scalars in YAML: the implicit types gopkg.in/yaml.v3 resolves, not YAML 1.1's.

Pulumi reads stack files with gopkg.in/yaml.v3 (pulumi/pulumi `sdk/go/common/encoding/marshal.go`), which resolves only
``true``/``false`` as booleans (``yes``, ``on``, ``n`` stay text), has no base-60 numbers, and reads ``0o17`` as octal
and ``1e3`` as a number (go-yaml/yaml `resolve.go`). PyYAML is YAML 1.1 and differs in each of these, so its resolver
table is replaced here; a plain scalar the two read differently gets a tag of its own, refused where it is built.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import ScalarNode

from .yaml_values import yaml11_ambiguity

_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
# YAML 1.1's "=" (yaml.org/type/value.html) is text for yaml.v3, which has no such type.
_VALUE = "tag:yaml.org,2002:value"
_STR, _AMBIGUOUS = "tag:yaml.org,2002:str", "tag:aks-dra-vgpu,2026:yaml11-ambiguous"


class _Resolver(yaml.resolver.Resolver):
    """yaml.v3's implicit scalar types instead of YAML 1.1's (see the module docstring); a plain scalar the two read
    differently (`yaml_values.yaml11_ambiguity`) gets a tag of its own, refused with its key path when it is built."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        tag = super().resolve(kind, value, implicit)
        if kind is ScalarNode and implicit[0] and tag == _STR and yaml11_ambiguity(value):
            return _AMBIGUOUS
        return tag


_Resolver.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT, _FLOAT, _VALUE)]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}
_Resolver.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)\Z"), list("tTfF"))
_Resolver.add_implicit_resolver(
    _INT,
    re.compile(r"^(?:[-+]?0b[01_]+|[-+]?0o[0-7_]+|[-+]?0x[0-9a-fA-F_]+|[-+]?[0-9][0-9_]*)\Z"),
    list("-+0123456789"),
)
_Resolver.add_implicit_resolver(
    _FLOAT,
    re.compile(r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"),
    list("-+0123456789."),
)
