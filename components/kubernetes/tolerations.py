"""Pool taints to pod tolerations, written once: the driver's kubelet plugin, the sample Job and consumers' workloads
all tolerate exactly the taints of the pools they are meant for."""

from __future__ import annotations

from collections.abc import Iterable

from ..config import GpuPoolConfig


def pool_tolerations(pools: Iterable[GpuPoolConfig]) -> list[dict[str, str]]:
    """One toleration per distinct taint of these pools (each matching exactly that taint), sorted by the taint."""
    found: dict[str, dict[str, str]] = {}
    for pool in pools:
        for taint in pool.parsed_taints:
            found.setdefault(str(taint), taint.toleration())
    return [found[key] for key in sorted(found)]


def tolerations_for_size(pools: Iterable[GpuPoolConfig], gpu_memory_gib: int) -> list[dict[str, str]]:
    """The tolerations a workload of this size class needs: the taints of the pools whose slices are that size, and no
    other pool's, so that a small workload is never let onto a tainted pool of bigger slices."""
    return pool_tolerations(p for p in pools if p.size.gpu_memory_gib == gpu_memory_gib)
