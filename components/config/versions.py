"""Kubernetes version rules AKS enforces between a cluster's control plane and its node pools, and across upgrades.

Sources: the AgentPool `orchestratorVersion` API reference (learn.microsoft.com, Microsoft.ContainerService
AgentPool.OrchestratorVersion): "The node pool version must have the same major version as the control plane. The node
pool minor version must be within two minor versions of the control plane version. The node pool version cannot be
greater than the control plane version."; AKS upgrade troubleshooting (learn.microsoft.com/troubleshoot/azure/
azure-kubernetes/error-codes/aks-upgrade-blocked): a control plane moves one minor version at a time
("Upgrading Kubernetes version 1.24.9 to 1.26.6 is not allowed"), and never down.
"""

from __future__ import annotations

from datetime import date

from ..catalog.kubernetes_versions import (
    AKS_MINORS,
    AKS_VERSIONS_AS_OF,
    WARN_DAYS_BEFORE_END,
    AksMinor,
    as_of_note,
    supported_list,
)
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
    offered = offered_problem(new)  # the target must be one AKS offers (components/catalog/kubernetes_versions.py)
    if offered:
        return f"{old} -> {new}: {offered}"
    return None


def offered_problem(text: str) -> str | None:
    """Why AKS would not run this version (a minor it does not offer, or a patch newer than any it is known to offer),
    or None. The supported list comes with it, LTS marked, and the table's date: AKS may offer more since."""
    major, minor, patch = parse(text)
    entry = AKS_MINORS.get((major, minor))
    as_of = AKS_VERSIONS_AS_OF.isoformat()
    if entry is None:
        return f"'{text}' is not a Kubernetes version AKS offers (as of {as_of}); supported: {supported_list()}"
    if patch is not None and entry.newest_patch is not None and patch > entry.newest_patch:
        return (
            f"'{text}' is not a patch AKS offers (the newest {entry.text} patch known on {as_of} is "
            f"{entry.text}.{entry.newest_patch}); write '{entry.text}' to let AKS pick its newest patch, or "
            f"{entry.text}.{entry.newest_patch} or older; supported: {supported_list()}"
        )
    return None


def _keep_with_lts(entry: AksMinor, on: date) -> str:
    """', or keep 1.34 with Long-Term Support (...) until November 2027', or what says that LTS has ended too."""
    if not entry.lts:
        return ""
    if entry.end_of_lts is not None and on > entry.end_of_lts:
        return f" (its Long-Term Support ended in {entry.end_of_lts.strftime('%B %Y')} too)"
    until = f" until {entry.end_of_lts.strftime('%B %Y')}" if entry.end_of_lts else ""
    return f", or keep {entry.text} with Long-Term Support (Premium tier, supportPlan AKSLongTermSupport){until}"


def support_warning(text: str, on: date) -> str | None:
    """A warning when the version's minor is in preview, offered only as LTS, or near or past its end of standard
    support on date `on` (with the LTS way out, and its end); None otherwise. The dates are judged on `on`; what rests
    on the table alone (preview, LTS-only) names the table's date once `on` is past it."""
    major, minor, _ = parse(text)
    entry = AKS_MINORS.get((major, minor))
    if entry is None:
        return None
    newer = [m.text for m in AKS_MINORS.values() if m.status == "ga" and m.minor > entry.minor]
    upgrade = f"upgrade one minor at a time to {' or '.join(newer) or 'a GA minor'}"
    if entry.status == "preview":
        ga = [m for m in AKS_MINORS.values() if m.status == "ga"]
        newest = f"{ga[-1].text} is the newest GA minor{' (LTS too)' if ga[-1].lts else ''}" if ga else "no minor is GA"
        return f"Kubernetes {entry.text} is in preview on AKS{as_of_note(on)} (no SLA, not for production); {newest}"
    if entry.status == "lts-only":
        until = f" until {entry.end_of_lts.strftime('%B %Y')}" if entry.end_of_lts else ""
        return (f"Kubernetes {entry.text} is offered only with AKS Long-Term Support{as_of_note(on)} (Premium tier, "
                f"supportPlan AKSLongTermSupport){until}; {upgrade}")
    end = entry.end_of_standard_support
    if end is None:
        return None
    when = end.strftime("%B %Y")
    if on > end:
        return f"Kubernetes {entry.text}'s standard support on AKS ended in {when}: {upgrade}{_keep_with_lts(entry, on)}"
    if (end - on).days <= WARN_DAYS_BEFORE_END:
        return (f"Kubernetes {entry.text}'s standard support on AKS ends in {when}: plan the upgrade ({upgrade})"
                f"{_keep_with_lts(entry, on)}")
    return None
