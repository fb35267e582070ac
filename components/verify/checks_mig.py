"""Checks of a MIG node's ResourceSlice (pure): GPUs x slices devices, each of the pool's profile and memory band, and
never the GPU announced whole beside its slices.

What the driver publishes for static MIG (kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/mig.go and
deviceinfo.go): one `type: mig` device per MIG device it finds, named `gpu-<minor>-mig-<profile without dots>-<GI profile
ID>-<placement start>` from 25.12 (25.8: `gpu-<minor>-mig-<GI profile ID>-<start>-<size>`). It enumerates the MIG devices
once, when the plugin starts, so a plugin that started before AKS finished partitioning the GPUs (AgentBaker
mig-partition.sh runs at boot and may reboot the node) publishes whole GPUs or too few slices until it is restarted
(unverified on AKS: no such node was read). Charts 25.8.0 and older also announce a MIG GPU whole beside its slices
(driver #719): 0.4.0 and later carry the fix (#776), 25.8.1 its backport (#781), as does every chart this package
installs (catalog/charts.py, `announces_mig_parent`). So a whole GPU beside slices under such a chart is a GPU the
plugin found before it was in MIG mode, not that bug.
"""

from __future__ import annotations

from ..catalog.charts import DriverChart
from ..catalog.mig import MIG_SIZES
from ..config import GpuPoolConfig
from ..kubernetes.slice_kinds import devices_per_node, max_memory_mib, min_memory_mib, slice_of, slice_of_pool
from .client import Obj
from .device_fields import attribute, memory_mib
from .report import Check, fail, ok


def restart_advice(node: str, namespace: str | None) -> str:
    """How to make the plugin read the node's MIG layout again: delete its pod there (the DaemonSet makes a new one)."""
    where = f"-n {namespace} " if namespace else ""
    return (f"restart the kubelet plugin pod on {node} (kubectl {where}delete pod --field-selector spec.nodeName={node} "
            "with the plugin's labels): it reads the MIG devices once, at start")


# Where the fix for a MIG GPU announced whole beside its slices (kubernetes-sigs/dra-driver-nvidia-gpu#719) is: #776 on
# main (in 0.4.0 and later; 25.12.0 too), its backport #781 in 25.8.1. Only 25.8.0 and older lack it.
FIXED_CHARTS = "25.8.1+ or 0.4.0+"


def _whole_beside_slices(where: str, whole: list[Obj], slices: list[Obj], chart: DriverChart | None, node: str,
                         namespace: str | None) -> Check:
    """GPUs announced whole beside MIG slices: the old chart's bug (#719) where the chart may have it, otherwise GPUs
    the plugin saw before AKS put them in MIG mode (a restart reads them again)."""
    names = ", ".join(str(d.get("name")) for d in whole)
    seen = f"{where}: announces {len(whole)} GPU(s) whole ({names}) beside {len(slices)} MIG slice(s)"
    if chart is None or chart.announces_mig_parent:
        installed = f"chart {chart.version}" if chart is not None else "a driver this stack does not install"
        return fail("slice", node, f"{seen}: a claim for a whole GPU can take one that is already split; charts 25.8.0 "
                    f"and older do this (driver #719, fixed by #776, backported to 25.8.1 by #781), here "
                    f"{installed}: use {FIXED_CHARTS}", "mig-gpu-announced-whole")
    return fail("slice", node, f"{seen}: chart {chart.version} does not announce a MIG GPU whole (it carries the fix "
                f"for driver #719), so the kubelet plugin likely started before AKS put these GPU(s) in MIG mode; "
                f"{restart_advice(node, namespace)}", "mig-gpu-announced-whole")


def mig_node_check(node: str, pool: GpuPoolConfig, devices: list[Obj], margin: int, namespace: str | None,
                   chart: DriverChart | None = None) -> Check:
    """One MIG node's devices against its pool: count, profile, memory band, no whole GPU. `chart`: the driver chart
    the stack installs (None: the stack installs none), which decides what a GPU announced whole means."""
    kind = slice_of_pool(pool)
    size = MIG_SIZES[pool.vm_size]
    wanted = devices_per_node(pool.vm_size, pool.mig_profile)
    where = f"pool {pool.name} ({pool.vm_size}, {pool.mig_profile} = {kind.profile})"
    whole = [d for d in devices if attribute(d, "type") == "gpu"]
    slices = [d for d in devices if attribute(d, "type") == "mig"]
    if whole and slices:
        return _whole_beside_slices(where, whole, slices, chart, node, namespace)
    if len(slices) != wanted:
        seen = f"{len(slices)} MIG slice(s)" + (f" and {len(whole)} whole GPU(s)" if whole else "")
        return fail("slice", node, f"{where}: publishes {seen}, expected {wanted} ({size.gpus} GPU(s) x "
                    f"{kind.per_gpu} {kind.profile}): the kubelet plugin likely started before AKS finished "
                    f"partitioning the GPUs; {restart_advice(node, namespace)}", "mig-wrong-count")
    problems = []
    low, high = min_memory_mib(kind, margin), max_memory_mib(kind, margin)
    for device in slices:
        found = slice_of(device, None, margin)
        if found != kind:
            problems.append(f"{device.get('name')}: profile {attribute(device, 'profile')!r} on "
                            f"{attribute(device, 'architecture')!r}, the pool's is {kind.profile!r} on "
                            f"{kind.architecture!r} ({kind.gpu_model})")
            continue
        mib = memory_mib(device)
        if mib is None:
            problems.append(f"{device.get('name')}: it has no memory capacity")
        elif not low <= mib < high:
            problems.append(f"{device.get('name')}: memory {mib:.0f} MiB is outside the {kind.profile} band "
                            f"({low}-{high} MiB, margin {margin} %)")
    if problems:
        return fail("slice", node, f"{where}: " + "; ".join(problems), "wrong-slice")
    memory = sorted({f"{memory_mib(d):.0f}" for d in slices})
    return ok("slice", node, f"{len(slices)} x {kind.label} ({size.gpus} GPU(s) x {kind.per_gpu}), memory "
              f"{', '.join(memory)} MiB, no GPU announced whole")
