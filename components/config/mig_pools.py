"""MIG pools: what a pool's `gpuInstanceProfile` may be on its size, and what the driver section must be beside one.

A MIG pool is a GPU pool on an A100, H100 or H200 size whose GPUs AKS partitions at boot into one layout of identical
slices (Azure/AgentBaker parts/linux/cloud-init/artifacts/mig-partition.sh). Each rule names its source; the checks
are pure functions of (key, message) pairs so the stack, the Python components and the tests share them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..catalog import (
    A10_SIZES,
    DRIVER_CHARTS,
    MIG_PROFILES,
    MIG_SIZES,
    A10Size,
    MigSize,
    MigSlice,
    mig_slice,
    slice_profile_to_aks,
)

# AgentBaker parts/linux/cloud-init/artifacts/cse_main.sh: partitioning runs inside
# `if [[ "${GPU_NODE}" = true ]] && [[ "${skip_nvidia_driver_install}" != "true" ]]`, next to the driver install, and
# only `if [[ "${MIG_NODE}" == "true" ]]` ("for multi-instance capable VM sizes for which the user has specified a
# partitioning profile. it is valid to use mig-capable gpus without a partitioning profile").
PARTITIONING_SOURCE = "Azure/AgentBaker parts/linux/cloud-init/artifacts/cse_main.sh"
# kubernetes-sigs/dra-driver-nvidia-gpu: the DynamicMIG gate (alpha, 25.12+) makes the plugin own MIG layout and tear
# down GPU instances it did not create (pkg/featuregates/featuregates.go, cmd/gpu-kubelet-plugin).
DYNAMIC_MIG_GATE = "DynamicMIG"


class MigPoolParts:
    """What a GPU pool's settings tell about MIG: mixed into GpuPoolConfig (its `vm_size`, `gpu_instance_profile` and
    `size` are the pool's)."""

    if TYPE_CHECKING:  # the pool's own; declared here for type checkers only, never as fields
        vm_size: str
        gpu_instance_profile: str | None

        @property
        def size(self) -> A10Size: ...

    @property
    def is_mig(self) -> bool:
        """Whether AKS partitions this pool's GPUs with MIG (a MIG size; validation requires its profile)."""
        return self.vm_size in MIG_SIZES

    @property
    def catalog_size(self) -> A10Size | MigSize:
        """The catalog entry of this pool's VM size, of either family."""
        return MIG_SIZES[self.vm_size] if self.is_mig else A10_SIZES[self.vm_size]

    @property
    def mig_size(self) -> MigSize | None:
        """The MIG catalog entry of this pool's size; None for an A10 pool."""
        return MIG_SIZES.get(self.vm_size)

    @property
    def mig_profile(self) -> str | None:
        """The gpuInstanceProfile sent to AKS (MIG1g...MIG7g), a slice name translated; None for an A10 pool."""
        if not self.is_mig or self.gpu_instance_profile is None:
            return None
        return slice_profile_to_aks(self.vm_size, self.gpu_instance_profile)

    @property
    def mig_slice(self) -> MigSlice | None:
        """The slice AKS lays out on each GPU of this MIG pool (profile, memory, slices per GPU); None for an A10 pool."""
        profile = self.mig_profile
        return mig_slice(self.vm_size, profile) if profile else None

    @property
    def slice_memory_gib(self) -> int:
        """Nominal GPU memory (GiB) of each device the driver publishes: the vGPU slice, or the MIG slice."""
        found = self.mig_slice
        return found.memory_gib if found else self.size.gpu_memory_gib

    @property
    def devices_per_node(self) -> int:
        """Devices each node publishes: the vGPU devices, or GPUs x slices per GPU."""
        found, size = self.mig_slice, self.mig_size
        return size.gpus * found.per_gpu if found and size else self.size.devices_per_node


def _choices(size: MigSize) -> str:
    """The profiles a size takes, in both spellings: 'MIG1g (1g.10gb), MIG2g (2g.20gb), ...'."""
    return ", ".join(f"{aks} ({s.profile})" for aks, s in size.gpu.slices.items())


def pool_profile_problems(vm_size: str, written: str | None) -> list[tuple[str, str]]:
    """What is wrong with this pool's `gpuInstanceProfile` on its size (keys relative to the pool), or nothing."""
    if vm_size in A10_SIZES:
        if written is None:
            return []
        return [("gpuInstanceProfile", (
            f"'{written}' partitions GPUs with MIG, but {vm_size} is an NVadsA10_v5 size: its vGPU slices come from "
            "the hypervisor, and AKS offers MIG on A100, H100 and H200 sizes only (MicrosoftDocs/azure-aks-docs "
            f"gpu-multi-instance.md); remove gpuInstanceProfile, or choose one of {', '.join(MIG_SIZES)}"
        ))]
    size = MIG_SIZES.get(vm_size)
    if size is None:  # not a size of either family: the vmSize check says so
        return []
    if written is None:
        return [("gpuInstanceProfile", (
            f"{vm_size} is a MIG size: set how AKS partitions its GPUs, one of {_choices(size)}. Without it AKS leaves "
            f"the GPUs whole ({PARTITIONING_SOURCE}: \"it is valid to use mig-capable gpus without a partitioning "
            "profile\") and the driver publishes whole GPUs, which neither A10 slice claims nor MIG claims of this "
            "package are made for; MIG7g gives one slice of the whole GPU"
        ))]
    if slice_profile_to_aks(vm_size, written) is not None:
        return []
    known = {s.profile for s in size.gpu.slices.values()}
    same_width = [s for s in size.gpu.slices.values() if written.split(".")[0] == s.profile.split(".")[0]]
    if written not in MIG_PROFILES and same_width and written not in known:
        why = (
            f"'{written}' is not what AKS lays out on {size.gpu.model}: each gpuInstanceProfile gives the smallest-memory "
            f"slice of its width (Azure/AgentBaker mig-partition.sh), here {same_width[0].aks_profile} = "
            f"{same_width[0].profile}"
        )
    else:
        why = f"'{written}' is not a MIG profile of {vm_size} ({size.gpus} x {size.gpu.model})"
    return [("gpuInstanceProfile", f"{why}; choose one of {_choices(size)}")]


def driver_mig_problems(
    chart_version: str | None, feature_gates: dict[str, bool] | None, pools: Iterable[tuple[int, Any]],
    chart_key: str, gates_key: str, pools_key: str = "gpuPools",
) -> list[tuple[str, str]]:
    """The driver section beside MIG pools: no DynamicMIG gate (AKS partitions these GPUs), and a chart whose plugin
    does not announce a MIG GPU whole beside its slices. `None` for what did not validate: only what is known is judged."""
    mig = [(index, pool) for index, pool in pools if getattr(pool, "is_mig", False)]
    if not mig:
        return []
    names = ", ".join(f"{pools_key}[{index}] ({pool.vm_size}, {pool.mig_profile})" for index, pool in mig)
    problems = []
    if feature_gates and feature_gates.get(DYNAMIC_MIG_GATE):
        problems.append((f"{gates_key}.{DYNAMIC_MIG_GATE}", (
            f"must stay false beside pools AKS partitions ({names}): with it the driver lays out MIG slices itself and "
            "destroys the GPU instances it did not create, AKS's included; AKS partitions these pools at boot "
            f"({PARTITIONING_SOURCE}, mig-partition.sh)"
        )))
    chart = DRIVER_CHARTS.get(chart_version) if chart_version is not None else None
    if chart is not None and chart.announces_mig_parent:
        fixed = ", ".join(v for v, c in DRIVER_CHARTS.items() if not c.announces_mig_parent and c.withdrawn is None)
        problems.append((chart_key, (
            f"'{chart_version}' announces a MIG-enabled GPU whole beside its slices, so a claim can take a GPU that is "
            f"already split (kubernetes-sigs/dra-driver-nvidia-gpu#719, fixed by #776); MIG pools ({names}) need one "
            f"of {fixed}"
        )))
    return problems
