"""Kubernetes version rules AKS enforces between a cluster's control plane and its node pools, and across upgrades.

Sources: the AgentPool `orchestratorVersion` API reference (learn.microsoft.com, Microsoft.ContainerService
AgentPool.OrchestratorVersion): "The node pool version must have the same major version as the control plane. The node
pool minor version must be within two minor versions of the control plane version. The node pool version cannot be
greater than the control plane version."; AKS upgrade troubleshooting (learn.microsoft.com/troubleshoot/azure/
azure-kubernetes/error-codes/aks-upgrade-blocked): a control plane moves one minor version at a time
("Upgrading Kubernetes version 1.24.9 to 1.26.6 is not allowed"), and never down.
"""

from __future__ import annotations

from .syntax import K8S_VERSION

MAX_POOL_MINOR_SKEW = 2


def parse(text: str) -> tuple[int, int, int | None]:
    """(major, minor, patch or None) of ``1.34`` or ``1.34.2``; raises ValueError for anything else."""
    match = K8S_VERSION.fullmatch(text)
    if not match:
        raise ValueError(f"'{text}' is not a Kubernetes version")
    patch = match.group(3)
    return int(match.group(1)), int(match.group(2)), int(patch[1:]) if patch else None


def pool_skew_problem(pool: str, control_plane: str) -> str | None:
    """What AKS refuses about a node pool on `pool` under a control plane on `control_plane`, or None."""
    p_major, p_minor, p_patch = parse(pool)
    c_major, c_minor, c_patch = parse(control_plane)
    if p_major != c_major:
        return f"'{pool}' has another major version than the control plane ({control_plane})"
    if (p_minor, p_patch or 0) > (c_minor, c_patch if c_patch is not None else 10**6):
        return f"'{pool}' is newer than the control plane ({control_plane}); a node pool cannot run ahead of it"
    if c_minor - p_minor > MAX_POOL_MINOR_SKEW:
        return (
            f"'{pool}' is more than {MAX_POOL_MINOR_SKEW} minor versions behind the control plane ({control_plane}); "
            "AKS allows at most two"
        )
    return None


def upgrade_problem(old: str, new: str) -> str | None:
    """What AKS refuses about moving a control plane (or a pool) from `old` to `new`, or None."""
    o_major, o_minor, o_patch = parse(old)
    n_major, n_minor, n_patch = parse(new)
    if (n_major, n_minor) < (o_major, o_minor) or (
        (n_major, n_minor) == (o_major, o_minor) and None not in (o_patch, n_patch) and n_patch < o_patch  # type: ignore[operator]
    ):
        return f"{old} -> {new} is a downgrade; AKS upgrades only forward"
    if n_major != o_major or n_minor - o_minor > 1:
        return f"{old} -> {new} skips a minor version; AKS upgrades one minor version at a time"
    return None
