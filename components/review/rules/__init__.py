"""The diff's rules, one module per provider or area: what each input change (or a replaced dependency) does, each
rule with its source, and the inputs said outright to change in place.

Owns the rule data only; imports nothing of the package outside this folder. To add rules for a new provider or
resource family, add a module with ``RULES`` (and ``IN_PLACE`` where a mapping emits inputs) and list it in MODULES.
"""

from __future__ import annotations

from . import azure_cluster, azure_fleet, azure_monitoring, azure_pool, engine, kubernetes
from .model import InPlace, Rule

MODULES = (azure_cluster, azure_pool, azure_monitoring, azure_fleet, kubernetes, engine)
RULES: tuple[Rule, ...] = tuple(rule for module in MODULES for rule in module.RULES)
IN_PLACE: tuple[InPlace, ...] = tuple(entry for module in MODULES for entry in getattr(module, "IN_PLACE", ()))

__all__ = ["IN_PLACE", "MODULES", "RULES"]
