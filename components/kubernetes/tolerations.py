"""Pool taints to pod tolerations, written once: the driver's kubelet plugin, the exporter, the sample Job and
consumers' workloads all tolerate exactly the taints of the pools they are meant for.

The DaemonSets (kubelet plugin, dcgm-exporter) tolerate every GPU pool, spot included: they must run on every GPU node.
A workload tolerates only the pools of its size class, and a spot pool only when it opts in (``spot=True``), the same
promise the sizing planner makes (sizing/placement.py): AKS taints spot nodes
``kubernetes.azure.com/scalesetpriority=spot:NoSchedule`` so that nothing lands there without asking.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..config import GpuPoolConfig
from ..config.pools import GpuPools

_POOLS: TypeAdapter[list[GpuPoolConfig]] = TypeAdapter(GpuPools)


def pool_settings(pools: Iterable[Any]) -> list[GpuPoolConfig]:
    """The settings of these pools, each given as a `GpuNodePool` component, its args, its settings or a dict of them
    (the same rule as every component's `pools` argument); a ValueError naming the pool for anything else."""
    items = list(pools)
    if not items:
        return []
    try:
        return _POOLS.validate_python(items)
    except ValidationError as exc:
        where = "; ".join(f"pools[{'.'.join(str(p) for p in e['loc'])}]: {e['msg']}" for e in exc.errors())
        raise ValueError(f"not GPU pools (GpuNodePool components or GpuPoolConfig settings): {where}") from None


def pool_tolerations(pools: Iterable[Any]) -> list[dict[str, str]]:
    """One toleration per distinct taint of these pools (each matching exactly that taint), sorted by the taint."""
    found: dict[str, dict[str, str]] = {}
    for pool in pool_settings(pools):
        for taint in pool.parsed_taints:
            found.setdefault(str(taint), taint.toleration())
    return [found[key] for key in sorted(found)]


def tolerations_for_size(pools: Iterable[Any], gpu_memory_gib: int, spot: bool = False) -> list[dict[str, str]]:
    """The tolerations a workload of this A10 size class needs: the taints of the pools whose slices are that size, and no
    other pool's (a small workload never gets onto a tainted pool of bigger slices); spot pools' taints, AKS's spot
    taint among them, only with ``spot=True``. Pools may be `GpuNodePool` components or `GpuPoolConfig` settings."""
    of_size = [p for p in pool_settings(pools) if not p.is_mig and p.size.gpu_memory_gib == gpu_memory_gib]
    return pool_tolerations(p for p in of_size if spot or p.spot is None)
