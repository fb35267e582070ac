"""The whole stack: cluster, GPU pools, DRA driver and samples, with the checks that span sections."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field, PrivateAttr, field_validator, model_validator

from .base import Model
from .cluster import ClusterConfig
from .driver import DraDriverConfig
from .errors import KeyedProblemsError
from .pools import GpuPoolConfig
from .samples import SamplesConfig


class StackConfig(Model):
    """Everything one environment declares: cluster, GPU pools, DRA driver and samples."""

    cluster: ClusterConfig = Field(description="The AKS cluster.")
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1, description="GPU node pools (at least one).")
    dra_driver: DraDriverConfig = Field(default_factory=DraDriverConfig, description="The NVIDIA DRA driver release.")
    samples: SamplesConfig = Field(default_factory=SamplesConfig, description="DRA sample objects.")
    # Which sections came from secret config (not a setting: Pulumi says it, see `loading.load_stack_config`).
    _secret_sections: frozenset[str] = PrivateAttr(default_factory=frozenset)

    @property
    def secret_sections(self) -> frozenset[str]:
        """The top-level keys (camelCase) set as secrets: what is built from them must be passed as a secret."""
        return self._secret_sections

    def with_secret_sections(self, keys: Iterable[str]) -> StackConfig:
        """This config with `keys` marked as secret sections."""
        copy = self.model_copy()
        copy._secret_sections = frozenset(keys)
        return copy

    @field_validator("gpu_pools")
    @classmethod
    def _unique(cls, pools: list[GpuPoolConfig]) -> list[GpuPoolConfig]:
        seen: dict[str, int] = {}
        for index, pool in enumerate(pools):
            if pool.name in seen:
                raise ValueError(
                    f"pool name '{pool.name}' is used twice (gpuPools[{seen[pool.name]}] and gpuPools[{index}]); "
                    "pool names must be unique"
                )
            seen[pool.name] = index
        return pools

    @model_validator(mode="after")
    def _cross(self) -> StackConfig:
        system = self.cluster.system_pool.name
        for index, pool in enumerate(self.gpu_pools):
            if pool.name == system:
                raise KeyedProblemsError((
                    f"gpuPools[{index}].name", f"'{system}' is the system pool's name (cluster.systemPool.name); "
                    "choose another: pool names are unique in a cluster"
                ))
        largest = max(p.size.gpu_memory_gib for p in self.gpu_pools)
        wanted = self.samples.workload_memory_gib
        if wanted is not None and wanted > largest:
            offered = sorted({p.size.gpu_memory_gib for p in self.gpu_pools})
            raise KeyedProblemsError((
                "samples.workloadMemoryGiB", f"{wanted} GiB is more than any pool's slice offers "
                f"(pools offer {', '.join(map(str, offered))} GiB); choose at most {largest}"
            ))
        return self


