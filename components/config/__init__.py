"""Typed stack configuration and component arguments, validated before any resource is registered.

Stack files use camelCase keys (Pulumi's convention); Python uses snake_case (pydantic aliases). Every problem in a
stack is reported at once, each naming the path the user wrote (``gpuPools[0].vmSize``) and what is allowed.

The single source of every setting: the stack file's JSON Schema, docs/configuration.md, the Python ``*Args`` and the
plugin's schema are all generated from these models. Imports only `catalog` of the package (and pydantic, pulumi).

- ``syntax``: names, taints, versions, key paths (pure rules); ``azure``: ARM IDs, CIDRs, maintenance times
- ``types``, ``base``: checked types (ARM IDs, times, names) and the model base; ``limits``: Azure and Kubernetes limits
- ``cluster``, ``access``, ``upgrades``, ``monitoring``, ``pools``, ``pool_parts``, ``driver``, ``samples``, ``stack``:
  the models, one section (or part of one) each; ``fleet``: a fleet stack's section and a member's membership,
  ``fleet_loading`` reads a fleet stack, ``fleet_rules`` checks a fleet's stacks against each other
- ``errors``: ``ConfigError`` (problems with key paths), ``KeyedProblemsError`` for model-level checks; ``problems``:
  pydantic's errors as problems (``model_paths``: where they point, as the user names it); ``salvage``: the model-level
  rules on what validated; ``validation``: ``validate``, every problem at once; ``aliases``: keys as Python writes them;
  ``args``: a component's arguments as given (its Args class or a dict of them)
- ``loading``: the stack's sections from Pulumi config; ``schema``, ``reference``: the JSON Schema and the reference
- ``credentials``: what looks like a credential written in plain text (a value, a map's key) and what an error never
  quotes; ``credential_advice``: what each is told (the `pulumi config set --secret` command, quoted for a shell);
  ``redaction``: what a problem never quotes (the credentials of the stack it is about)
"""

from typing import TYPE_CHECKING

from .access import ApiServerConfig, AuthConfig, NetworkConfig
from .base import Model, PoolName, Zones
from .cluster import ClusterConfig, ResourceGroupConfig, SystemPoolConfig
from .driver import DraDriverConfig
from .errors import ConfigError, KeyedProblemsError, Problem
from .fleet_membership import FleetMembershipConfig, is_fleet_stack
from .loading import PROJECT, STACK_KEYS, load_stack_config, near_miss, stack_config_from_mapping
from .monitoring import MonitoringConfig
from .pool_parts import AutoscalingConfig, SpotConfig
from .pools import GpuPoolConfig
from .samples import SamplesConfig
from .stack import StackConfig
from .syntax import (
    MISSING,
    TAINT_EFFECTS,
    StrInput,
    Taint,
    check_label_key,
    check_label_value,
    parse_k8s_version,
    parse_taint,
    value_at,
)
from .upgrades import MaintenanceWindowConfig, UpgradesConfig
from .validation import validate

__all__ = [
    "MISSING",
    "PROJECT",
    "STACK_KEYS",
    "TAINT_EFFECTS",
    "ApiServerConfig",
    "AuthConfig",
    "AutoUpgradeConfig",
    "AutoscalingConfig",
    "ClusterConfig",
    "ConfigError",
    "DraDriverConfig",
    "FleetConfig",
    "FleetHubConfig",
    "FleetMembershipConfig",
    "GpuPoolConfig",
    "KeyedProblemsError",
    "MaintenanceWindowConfig",
    "Model",
    "MonitoringConfig",
    "NetworkConfig",
    "PoolName",
    "Problem",
    "ResourceGroupConfig",
    "SamplesConfig",
    "SpotConfig",
    "StackConfig",
    "StrInput",
    "SystemPoolConfig",
    "Taint",
    "UpdateStageConfig",
    "UpdateStrategyConfig",
    "UpgradesConfig",
    "Zones",
    "check_label_key",
    "check_label_value",
    "fleet_config_from_mapping",
    "is_fleet_stack",
    "load_fleet_config",
    "load_stack_config",
    "near_miss",
    "parse_k8s_version",
    "parse_taint",
    "stack_config_from_mapping",
    "validate",
    "value_at",
]

if TYPE_CHECKING:
    from .fleet import AutoUpgradeConfig, FleetConfig, FleetHubConfig, UpdateStageConfig, UpdateStrategyConfig
    from .fleet_loading import fleet_config_from_mapping, load_fleet_config

# A fleet stack's models and readers load on first use: a platform stack's plan never builds them.
_LAZY = {
    "AutoUpgradeConfig": ".fleet", "FleetConfig": ".fleet", "FleetHubConfig": ".fleet", "UpdateStageConfig": ".fleet",
    "UpdateStrategyConfig": ".fleet", "fleet_config_from_mapping": ".fleet_loading",
    "load_fleet_config": ".fleet_loading",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
