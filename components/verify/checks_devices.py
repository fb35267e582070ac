"""Checks of what DRA allocates from: each GPU node's ResourceSlice (device count, vGPU profile, memory band), the
stack's DeviceClass and claim templates as declared, and their CEL selectors evaluated on the live devices (pure).

A device as the NVIDIA driver publishes it (kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/deviceinfo.go,
GpuInfo.GetDevice): name `gpu-<minor>`, attributes type ("gpu"), uuid, productName, brand, architecture,
cudaComputeCapability, driverVersion, cudaDriverVersion, capacity `memory`; one pool per node, named after the node.
"""

from __future__ import annotations

from typing import Any

from ..catalog import GPU_DRIVER_NAME
from ..config import GpuPoolConfig
from ..kubernetes.selectors import max_memory_mib, min_memory_mib, size_class_of
from ..kubernetes.slice_kinds import MIG_DEVICE_CLASS, slice_of_pool
from .cel import CelError, selects
from .checks_cluster import gpu_nodes
from .checks_driver import BROKEN, READY, UNSTARTED
from .checks_mig import mig_node_check
from .client import Obj
from .device_fields import attribute as attribute
from .device_fields import memory_mib as memory_mib
from .expected import Expected, Template
from .report import Check, fail, ok, warn
from .snapshot import Snapshot

# The chart's mig.nvidia.com DeviceClass selector (templates/deviceclass-mig.yaml in charts 25.8.1, 25.12.0, 0.4.x).
MIG_CLASS_CEL = f"device.driver == '{GPU_DRIVER_NAME}' && device.attributes['{GPU_DRIVER_NAME}'].type == 'mig'"


def node_devices(snap: Snapshot, node: str) -> list[Obj] | None:
    """The devices the NVIDIA driver publishes for a node (its pool's newest generation), or None without a slice."""
    mine = [s for s in snap.slices if (s.get("spec") or {}).get("driver") == GPU_DRIVER_NAME
            and (s.get("spec") or {}).get("nodeName") == node]
    if not mine:
        return None
    newest = max(((s["spec"].get("pool") or {}).get("generation") or 0) for s in mine)
    return [d for s in mine if ((s["spec"].get("pool") or {}).get("generation") or 0) == newest
            for d in s["spec"].get("devices") or []]


def _device_problems(device: Obj, size_gib: int, profile: str, margin: int) -> list[str]:
    problems = []
    if attribute(device, "type") != "gpu":
        problems.append(f"type is {attribute(device, 'type')!r}, not 'gpu'")
    product = attribute(device, "productName")
    if product != profile:
        problems.append(f"productName is {product!r}, the VM size's vGPU profile is {profile!r}")
    mib = memory_mib(device)
    if mib is None:
        problems.append("it has no memory capacity")
    elif size_class_of(mib, margin) != size_gib:
        band = f"{min_memory_mib(size_gib, margin)}-{max_memory_mib(size_gib, margin)} MiB"
        found = size_class_of(mib, margin)
        problems.append(f"memory {mib:.0f} MiB is outside the {size_gib} GiB band ({band}, margin {margin} %)"
                        + (f": it reads as a {found} GiB slice" if found else ""))
    return problems


def _empty_node(exp: Expected, name: str, plugin: dict[str, str]) -> Check:
    """Why a GPU node has no ResourceSlice: the plugin is broken there, still starting, or ready and published nothing."""
    state = plugin.get(name)
    if state == READY:
        return fail("slice", name, f"no ResourceSlice from {GPU_DRIVER_NAME}, though the kubelet plugin is ready: read "
                    "its log", "no-resourceslice")
    if state in (BROKEN, UNSTARTED) or exp.driver_namespace is None:
        # A plugin pod no kubelet has started cannot be what a slice waits for: the node is broken, not starting.
        why = {BROKEN: "the kubelet plugin does not run there: see its dra-plugin line",
               UNSTARTED: "the kubelet plugin pod there was never started by the node's kubelet"}.get(
            state or "", "no driver published one")
        return fail("slice", name, f"no ResourceSlice from {GPU_DRIVER_NAME}: {why}", "no-resourceslice")
    return warn("slice", name, f"no ResourceSlice from {GPU_DRIVER_NAME} yet: the kubelet plugin is starting",
                "no-resourceslice")


def _a10_node(name: str, pool: GpuPoolConfig, devices: list[Obj], margin: int) -> Check:
    size = pool.size
    problems = []
    if len(devices) != size.devices_per_node:
        problems.append(f"{len(devices)} device(s), {size.vm_size} presents {size.devices_per_node}")
    for device in devices:
        problems += [f"{device.get('name')}: {p}" for p in _device_problems(
            device, size.gpu_memory_gib, size.vgpu_profile, margin)]
    if problems:
        return fail("slice", name, f"pool {pool.name} ({size.vm_size}): " + "; ".join(problems), "wrong-slice")
    shown = ", ".join(f"{d.get('name')} {memory_mib(d):.0f} MiB" for d in devices)
    return ok("slice", name, f"{len(devices)} x {size.vgpu_profile} in the {size.gpu_memory_gib} GiB class ({shown})")


def check_slices(snap: Snapshot, exp: Expected, plugin: dict[str, str]) -> list[Check]:
    """Every GPU node has a gpu.nvidia.com ResourceSlice with its pool's devices: for an A10 size the count,
    productName and memory band; for a MIG pool GPUs x slices devices of the pool's profile and memory band."""
    checks = []
    for name, (_, pool) in sorted(gpu_nodes(snap, exp).items()):
        devices = node_devices(snap, name)
        if devices is None:
            checks.append(_empty_node(exp, name, plugin))
        elif pool.is_mig:
            driver = exp.stack.dra_driver
            chart = driver.chart if driver.enabled else None
            checks.append(mig_node_check(name, pool, devices, exp.margin_percent, exp.driver_namespace, chart))
        else:
            checks.append(_a10_node(name, pool, devices, exp.margin_percent))
    return checks


def selector_expressions(spec: Obj | None) -> list[str]:
    """The CEL expressions of a DeviceClass's (or a request's) selectors."""
    return [s["cel"]["expression"] for s in (spec or {}).get("selectors") or [] if (s.get("cel") or {}).get("expression")]


def contains(declared: Any, live: Any) -> bool:
    """Whether the live value holds everything declared (the API server may add defaults, never change a value)."""
    if isinstance(declared, dict):
        return isinstance(live, dict) and all(contains(v, live.get(k)) for k, v in declared.items())
    if isinstance(declared, list):
        return isinstance(live, list) and len(live) == len(declared) and all(map(contains, declared, live))
    return declared == live


def _find(items: list[Obj], name: str) -> Obj | None:
    return next((i for i in items if i["metadata"]["name"] == name), None)


def _gpu_devices(snap: Snapshot, exp: Expected, mig: bool = False) -> list[tuple[str, Obj]]:
    """The devices of the A10 pools' nodes (the stack's DeviceClass is for those), or with `mig` of the MIG pools'."""
    return [(node, d) for node, (_, pool) in sorted(gpu_nodes(snap, exp).items()) if pool.is_mig == mig
            for d in node_devices(snap, node) or []]


def check_device_class(snap: Snapshot, exp: Expected) -> list[Check]:
    """The stack's DeviceClass exists as declared, and its live CEL selects every device of the GPU nodes."""
    if exp.device_class is None:
        return []
    live = _find(snap.device_classes, exp.device_class)
    if live is None:
        return [fail("device-class", exp.device_class, "does not exist: claims naming it never allocate",
                     "deviceclass-missing")]
    checks = []
    if contains(exp.device_class_spec, live.get("spec")) and len(selector_expressions(live.get("spec"))) == len(
            selector_expressions(exp.device_class_spec)):
        checks.append(ok("device-class", exp.device_class, "exists with the selector the stack declares"))
    else:
        checks.append(fail("device-class", exp.device_class, "its selector differs from the one the stack declares "
                           f"(live: {' && '.join(selector_expressions(live.get('spec'))) or 'none'})", "deviceclass-drift"))
    expressions = selector_expressions(live.get("spec"))
    unmatched, errors = [], []
    for node, device in _gpu_devices(snap, exp):
        try:
            if not selects(expressions, GPU_DRIVER_NAME, device):
                unmatched.append(f"{node}/{device.get('name')} ({attribute(device, 'productName')})")
        except CelError as exc:
            errors.append(f"{node}/{device.get('name')}: {exc}")
    if errors:
        checks.append(fail("device-class", exp.device_class, "its selector errs on live devices (an error aborts "
                           f"allocation): {'; '.join(errors)}", "deviceclass-drift"))
    if unmatched:
        checks.append(fail("device-class", exp.device_class, f"matches no GPU of these devices: {', '.join(unmatched)}",
                           "device-not-selected"))
    elif not errors and _gpu_devices(snap, exp):
        checks.append(ok("device-class", exp.device_class, f"its selector matches all {len(_gpu_devices(snap, exp))} "
                         "GPU device(s) on the GPU nodes"))
    return checks


def own_size_selectors(template: Template) -> list[str]:
    """The CEL of a template's first choice (its own size): `exactly`, or the first `firstAvailable` entry."""
    (request,) = template.spec["devices"]["requests"]
    first = request["exactly"] if "exactly" in request else request["firstAvailable"][0]
    return selector_expressions(first)


def check_templates(snap: Snapshot, exp: Expected) -> list[Check]:
    """Each claim template (and the shared claim) exists as declared, and its own size is on offer."""
    if exp.samples_namespace is None:
        return []
    checks = []
    live_class = _find(snap.device_classes, exp.device_class or "")
    class_cel = selector_expressions((live_class or {}).get("spec") if live_class else exp.device_class_spec)
    for template in exp.templates:
        subject = f"{exp.samples_namespace}/{template.name}"
        live = _find(snap.templates, template.name)
        if live is None:
            checks.append(fail("claim-template", subject, "does not exist", "claim-template-missing"))
            continue
        if not contains(template.spec, (live.get("spec") or {}).get("spec")):
            checks.append(fail("claim-template", subject, "its spec differs from the one the stack declares",
                               "claim-template-drift"))
            continue
        checks.append(_offer(snap, exp, template, subject, class_cel))
    if exp.shared_claim:
        name, spec = exp.shared_claim
        subject = f"{exp.samples_namespace}/{name}"
        live = _find(snap.claims, name)
        if live is None:
            checks.append(fail("shared-claim", subject, "does not exist", "claim-template-missing"))
        elif not contains(spec, live.get("spec")):
            checks.append(fail("shared-claim", subject, "its spec differs from the one the stack declares",
                               "claim-template-drift"))
        else:
            checks.append(ok("shared-claim", subject, "exists as declared"))
    return checks


def _class_selectors(snap: Snapshot, template: Template, class_cel: list[str]) -> list[str]:
    """The DeviceClass CEL a template's first choice goes through: the stack's class, or for MIG the chart's
    mig.nvidia.com (live when it is there, else as the charts create it)."""
    if template.kind is None or template.kind.family == "a10":
        return class_cel
    live = _find(snap.device_classes, MIG_DEVICE_CLASS)
    return selector_expressions((live or {}).get("spec")) if live else [MIG_CLASS_CEL]


def _offer(snap: Snapshot, exp: Expected, template: Template, subject: str, class_cel: list[str]) -> Check:
    """Whether some GPU node has the devices the template's first choice admits (two slices: on one GPU)."""
    kind = template.kind
    if kind is None:
        return ok("claim-template", subject, "exists as declared")
    per_place: dict[tuple[str, str], int] = {}
    try:
        for node, device in _gpu_devices(snap, exp, mig=kind.family == "mig"):
            if selects([*_class_selectors(snap, template, class_cel), *own_size_selectors(template)], GPU_DRIVER_NAME,
                       device):
                # A pair of MIG slices must share the parent GPU (the template's matchAttribute on parentUUID).
                place = (node, str(attribute(device, "parentUUID") or "") if kind.family == "mig" else "")
                per_place[place] = per_place.get(place, 0) + 1
    except CelError as exc:
        return fail("claim-template", subject, f"its selector errs on a live device: {exc}", "claim-template-drift")
    fitting = sorted({n for (n, _), count in per_place.items() if count >= template.devices})
    if fitting:
        return ok("claim-template", subject, f"exists as declared; {len(fitting)} node(s) offer its own size "
                  f"({template.key}): {', '.join(fitting[:5])}{' ...' if len(fitting) > 5 else ''}")
    sized = [p for p in exp.pools if slice_of_pool(p) == kind and p.devices_per_node >= template.devices]
    nodes = gpu_nodes(snap, exp)
    if not any(pool.name == p.name for _, pool in nodes.values() for p in sized):
        return warn("claim-template", subject, f"exists as declared; no node of its size ({template.key}) runs now "
                    f"(pools {', '.join(p.name for p in sized) or 'none'} at zero)", "pool-at-zero")
    return fail("claim-template", subject, f"no live device matches its own size ({template.key}) though nodes of that "
                "size run: see the slice checks", "wrong-slice")
