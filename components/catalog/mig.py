"""The MIG-capable sizes AKS partitions, the GPUs in them, and the slices each AKS ``gpuInstanceProfile`` lays out.

Data only. Sources:
- sizes: MicrosoftDocs azure-compute-docs ``articles/virtual-machines/sizes/gpu-accelerated/`` (nca100v4-series.md,
  ndasra100v4-series.md, ndma100v4-series.md, ncadsh100v5-series.md, ndh100v5-series.md, nd-h200-v5-series.md: the
  Basics, Local Storage and Accelerators tabs);
- slice names and counts per GPU: NVIDIA/gpu-operator ``assets/state-mig-manager/0400_configmap.yaml`` (the
  ``all-<profile>`` layouts and their GPU comments);
- which GPU-instance profile each AKS ``MIGng`` lays out, and how many per GPU: Azure/AgentBaker
  ``parts/linux/cloud-init/artifacts/mig-partition.sh`` (on main at 06836ee, 2026-08-21: a ``case`` on the profile
  running ``nvidia-smi mig -cgi 19,19,19,19,19,19,19`` for MIG1g, ``14,14,14``, ``9,9``, ``5``, ``0``; the functions
  ``mig_profile_id`` and ``uniform_mig_profile_layout`` with the same layouts come with AgentBaker PR #9129, not on
  main at that commit), the profile
  names the AgentPool API accepts (Azure/azure-rest-api-specs containerservice ``GPUInstanceProfile``).
A profile ID names the smallest-memory ``ng`` GPU instance on every MIG GPU NVIDIA documents, so MIG1g on an A100 80GB is
1g.10gb (never 1g.20gb) and MIG3g on an H100 NVL is 3g.47gb. That the IDs mean the same on H100 NVL and H200 is
unverified (no AKS node read): each such row says so in ``unverified``. Imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MigSlice:
    """One MIG slice as AKS lays it out: ``per_gpu`` identical GPU instances of ``profile`` on every GPU of the node."""

    aks_profile: str  # the AgentPool's gpuInstanceProfile, "MIG1g"
    profile: str  # the slice name, as the DRA driver's `profile` attribute reads it: "1g.10gb"
    per_gpu: int  # slices AKS lays out on each GPU (AgentBaker mig-partition.sh)
    memory_gib: int  # nominal, from the profile name; the driver reports less (a 1g.10gb showed 9728Mi, driver #719)
    compute_units: int  # the "g" number: sevenths of the GPU's compute
    gi_profile_id: int  # the GPU-instance profile ID AgentBaker passes to `nvidia-smi mig -cgi`
    unverified: str = ""  # empty when every field above rests on a cited source


@dataclass(frozen=True)
class MigGpu:
    """One MIG-capable GPU model and the slice each AKS profile gives on it."""

    model: str  # how people name the GPU, "A100 80GB"; the PCIe and SXM A100 80GB share it (same profiles)
    memory_gib: int  # nominal, per GPU (the size tables' Accelerator-Memory / count)
    product_name: str  # the NVML product name the driver publishes as `productName`
    slices: dict[str, MigSlice] = field(hash=False)  # by AKS profile
    unverified: str = ""


@dataclass(frozen=True)
class MigSize:
    """One Azure VM size whose GPUs AKS can partition with MIG."""

    vm_size: str
    vcpus: int
    ram_gib: int  # the size table's Memory column
    gpu: MigGpu
    gpus: int  # physical GPUs per VM (Accelerators tab)
    temp_disk_gib: int | None = None  # Local Storage tab; where an ephemeral OS disk lives

    @property
    def short_name(self) -> str:
        """A DNS-safe short name, e.g. ``nc24adsa100``; the GPU part is kept (ND96isr comes as H100 and H200)."""
        parts = self.vm_size.split("_")[1:]
        return "".join(p for p in parts if not p.startswith("v")).lower()

    @property
    def slices_per_node(self) -> dict[str, int]:
        """Slices a node publishes for each AKS profile: GPUs x slices per GPU."""
        return {name: self.gpus * s.per_gpu for name, s in self.gpu.slices.items()}


MIG_PROFILES: tuple[str, ...] = ("MIG1g", "MIG2g", "MIG3g", "MIG4g", "MIG7g")
"""The AgentPool's ``gpuInstanceProfile`` values (azure-rest-api-specs containerservice ``GPUInstanceProfile``)."""

# AgentBaker mig-partition.sh: profile ID and count per GPU for each AKS profile.
_LAYOUT: dict[str, tuple[int, int]] = {"MIG1g": (19, 7), "MIG2g": (14, 3), "MIG3g": (9, 2), "MIG4g": (5, 1), "MIG7g": (0, 1)}

_IDS_UNVERIFIED = "profile IDs 19/14/9/5/0 naming these slices on this GPU: from NVIDIA's naming pattern, not read on AKS"
_NAME_UNVERIFIED = "NVML product name: not read from an Azure node"


def _slices(names: tuple[str, str, str, str, str], unverified: str = "") -> dict[str, MigSlice]:
    """The five slices of one GPU model, in MIG_PROFILES order, from their gpu-operator names."""
    out: dict[str, MigSlice] = {}
    for aks, name in zip(MIG_PROFILES, names, strict=True):
        g, mem = name.split(".")
        gi_id, per_gpu = _LAYOUT[aks]
        out[aks] = MigSlice(aks, name, per_gpu, int(mem.removesuffix("gb")), int(g.removesuffix("g")), gi_id, unverified)
    return out


# gpu-operator 0400_configmap.yaml: "A100-40GB" all-1g.5gb x7, all-2g.10gb x3, all-3g.20gb x2, all-4g.20gb, all-7g.40gb.
_A100_40GB = _slices(("1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"))
# "H100-80GB, A100-80GB": all-1g.10gb x7, all-2g.20gb x3, all-3g.40gb x2, all-4g.40gb, all-7g.80gb.
_A100_80GB = _slices(("1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"))
# "H100 NVL": all-1g.12gb x7, all-2g.24gb x3, all-3g.47gb x2, all-4g.47gb, all-7g.94gb.
_H100_NVL = _slices(("1g.12gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"), _IDS_UNVERIFIED)
# "H200-141GB": all-1g.18gb x7, all-2g.35gb x3, all-3g.71gb x2, all-4g.71gb, all-7g.141gb.
_H200 = _slices(("1g.18gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"), _IDS_UNVERIFIED)

A100_40GB = MigGpu("A100 40GB", 40, "NVIDIA A100-SXM4-40GB", _A100_40GB, _NAME_UNVERIFIED)
A100_80GB_PCIE = MigGpu("A100 80GB", 80, "NVIDIA A100 80GB PCIe", _A100_80GB, _NAME_UNVERIFIED)
A100_80GB_SXM = MigGpu("A100 80GB", 80, "NVIDIA A100-SXM4-80GB", _A100_80GB, _NAME_UNVERIFIED)
# gpu-operator lists H100-80GB with A100-80GB for every all-<profile> layout: the same slices.
H100_80GB = MigGpu("H100 80GB", 80, "NVIDIA H100 80GB HBM3", _A100_80GB, _NAME_UNVERIFIED)
H100_NVL = MigGpu("H100 NVL 94GB", 94, "NVIDIA H100 NVL", _H100_NVL, _NAME_UNVERIFIED)
H200 = MigGpu("H200 141GB", 141, "NVIDIA H200", _H200, _NAME_UNVERIFIED)

MIG_GPUS: dict[str, MigGpu] = {g.product_name: g for g in (A100_40GB, A100_80GB_PCIE, A100_80GB_SXM, H100_80GB, H100_NVL, H200)}
"""Every MIG GPU here, by NVML product name (unique; ``model`` is shared by the two A100 80GB forms)."""

MIG_SIZES: dict[str, MigSize] = {
    s.vm_size: s
    for s in (
        # nca100v4-series.md: 24/48/96 vCPU, 220/440/880 GB, temp disk 64/128/256 GiB, 1/2/4 x 80 GB (A100 PCIe).
        MigSize("Standard_NC24ads_A100_v4", 24, 220, A100_80GB_PCIE, 1, 64),
        MigSize("Standard_NC48ads_A100_v4", 48, 440, A100_80GB_PCIE, 2, 128),
        MigSize("Standard_NC96ads_A100_v4", 96, 880, A100_80GB_PCIE, 4, 256),
        # ndasra100v4-series.md: 96 vCPU, 900 GiB, temp disk 6,000 GiB, 8 accelerators, 320 GB in all (A100 40GB SXM).
        MigSize("Standard_ND96asr_v4", 96, 900, A100_40GB, 8, 6000),
        # ndma100v4-series.md: 96 vCPU, 1900 GB, temp disk 6400 GiB, 8 x 80 GB (A100 80GB SXM).
        MigSize("Standard_ND96amsr_A100_v4", 96, 1900, A100_80GB_SXM, 8, 6400),
        # ncadsh100v5-series.md: 40/80 vCPU, 320/640 GB, temp disk 3576/7152 GiB, 1/2 x 94 GB (H100 NVL).
        MigSize("Standard_NC40ads_H100_v5", 40, 320, H100_NVL, 1, 3576),
        MigSize("Standard_NC80adis_H100_v5", 80, 640, H100_NVL, 2, 7152),
        # ndh100v5-series.md: 96 vCPU, 1900 GB, temp disk 1024 GiB, 8 accelerators, 640 GB in all (H100 80GB).
        MigSize("Standard_ND96isr_H100_v5", 96, 1900, H100_80GB, 8, 1024),
        # nd-h200-v5-series.md: 96 vCPU, 1850 GB, temp disk 1024 GiB, 8 accelerators, 1128 GB in all (H200 141GB).
        MigSize("Standard_ND96isr_H200_v5", 96, 1850, H200, 8, 1024),
    )
}


def mig_slice(vm_size: str, aks_profile: str) -> MigSlice:
    """The slice ``aks_profile`` (``MIG3g``) lays out on each GPU of ``vm_size``; KeyError names what is unknown."""
    if vm_size not in MIG_SIZES:
        raise KeyError(f"{vm_size} is not a MIG size here (known: {', '.join(MIG_SIZES)})")
    slices = MIG_SIZES[vm_size].gpu.slices
    if aks_profile not in slices:
        raise KeyError(f"{aks_profile} is not a gpuInstanceProfile (allowed: {', '.join(MIG_PROFILES)})")
    return slices[aks_profile]


def slice_profile_to_aks(vm_size: str, written: str) -> str | None:
    """The AKS profile for what a user wrote: ``3g.40gb`` on an A100 80GB size gives ``MIG3g``; ``MIG3g`` stays itself.

    None when ``written`` names no slice of that size's GPU (a ``3g.40gb`` on an A100 40GB, or an unknown size).
    """
    if vm_size not in MIG_SIZES:
        return None
    slices = MIG_SIZES[vm_size].gpu.slices
    if written in slices:
        return written
    return next((aks for aks, s in slices.items() if s.profile == written), None)
