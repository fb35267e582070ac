"""`size` for workloads written as extended resources (`resources.limits: {nvidia.com/gpu: 1}`): the slices the name
gives them, exactly those its DeviceClass selects, as a workload the planner places there and only there
(`Workload.served_by`).

- The package's classes (`kubernetes.extended_classes.classes_for`): `<domain>/a10-<N>gib` selects that A10 size,
  `nvidia.com/mig-<profile>` that profile on every GPU model the pools lay it out on, and `nvidia.com/gpu` what
  `extendedResources.nvidiaGpu` names. Without a stack, a name means what its class would select on pools of every kind
  the catalog knows.
- The driver chart's `gpu.nvidia.com` (what serves `nvidia.com/gpu` when nvidiaGpu is unset or 'any'): CEL
  `device.attributes['gpu.nvidia.com'].type == 'gpu'` (the chart's templates/deviceclass-gpu.yaml), so every A10 slice of
  any size and never a MIG device, which the driver publishes as `type: mig`.

Syntax of `--workload` for such a workload: `NAME=[GiB@]RESOURCE[xCOUNT]`, e.g. `infer=nvidia.com/gpu`,
`a=aks-dra-vgpu.io/a10-8gibx3`, `llm=20GiB@nvidia.com/gpu` (20 GiB of GPU memory needed, asked for as nvidia.com/gpu);
in a `--workloads` file, `resource:` beside the name (`memoryGiB` optional). A name that names nothing is bad input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..catalog import A10_SIZES, MIG_PROFILES, MIG_SIZES, SIZE_CLASSES
from ..config import StackConfig
from ..config.extended_resources import CHART_CLASS, NVIDIA_GPU, ExtendedResourcesConfig, extended_resource_name_problem
from ..kubernetes.extended_classes import ExtendedClass, chart_extended_names, classes_for, extended_classes
from ..kubernetes.slice_kinds import Slice, a10_slice, order, usable_memory_gib
from .model import MAX_COUNT, MAX_GIB, WORKLOAD_DIGITS, WORKLOAD_LIMITS, Finding, Workload
from .placement import a_slice

# The numbers are read whole and checked against the limits after, so a count too long is not taken for part of the
# resource name ('nvidia.com/gpux99999999999').
_EXTENDED = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]{0,62})=(?:(?P<gib>[0-9]+(\.[0-9]+)?)(?:GiB|Gi)?@)?"
                       r"(?P<resource>[^\s/@=]+/[^\s/@=]+?)(?:x(?P<count>[0-9]+))?", re.ASCII)
# What is left of a count that is no whole number ('x-1', 'x1.5') once the resource took it: refused, never a name.
_NOT_A_COUNT = re.compile(r"x(?P<count>[-+]?[0-9.]*[0-9][0-9.]*)$", re.ASCII)
EXTENDED_SYNTAX = ("NAME=[GiB@]RESOURCE[xCOUNT], e.g. 'infer=nvidia.com/gpu', 'a=aks-dra-vgpu.io/a10-8gibx3' or "
                   "'llm=20GiB@nvidia.com/gpu'")
ANY_A10 = tuple(a10_slice(size) for size in SIZE_CLASSES)
"""What the chart's gpu.nvidia.com selects (`type == 'gpu'`): every A10 slice, whatever its size; no MIG slice."""
_ANY_A10_SAID = "any A10 slice, whatever its size; never a MIG slice"


class UnknownNameError(ValueError):
    """A resource name that names nothing here (no class would serve it): bad input, with the names that would."""


class NotServedError(ValueError):
    """A name the package knows that this stack maps to no class: such pods stay Pending (the stack lacks it)."""


@dataclass(frozen=True)
class ExtendedAsk:
    """A workload asking for an extended resource: its name, the resource, the memory it needs (if stated), replicas,
    whether it may run on spot pools, and the key its findings name (`--workload NAME` unless a file's)."""

    name: str
    resource: str
    memory_gib: float | None
    count: int
    spot: bool = False
    key: str | None = None


def is_extended(text: str) -> bool:
    """Whether a --workload value names an extended resource (it has a '/', or the '@' of `GiB@RESOURCE`)."""
    value = text.partition("=")[2]
    return "/" in value or "@" in value


def extended_name(text: str) -> str:
    """The workload name a `NAME=...RESOURCE` value gives (for --spot and names given twice, before it is parsed)."""
    return text.partition("=")[0].strip()


def parse_extended(text: str) -> ExtendedAsk:
    """`NAME=[GiB@]RESOURCE[xCOUNT]` -> ExtendedAsk; ValueError saying the syntax or why the name is no resource name."""
    m = _EXTENDED.fullmatch(text.strip())
    if not m:
        raise ValueError(f"--workload '{text}': expected {EXTENDED_SYNTAX}")
    not_a_count = _NOT_A_COUNT.search(m["resource"])
    if not_a_count:
        raise ValueError(f"--workload '{text}': COUNT (after 'x') is a whole number of replicas, at least 1 and at most "
                         f"{MAX_COUNT}; '{not_a_count['count']}' is not")
    problem = extended_resource_name_problem(m["resource"])
    if problem:
        raise ValueError(f"--workload '{text}': {problem}")
    if any(len(m[group] or "") > most for group, most in WORKLOAD_DIGITS.items()):
        raise ValueError(f"--workload '{text[:60]}': too many digits; {WORKLOAD_LIMITS}")
    count = int(m["count"] or 1)
    gib = float(m["gib"]) if m["gib"] else None
    if not 1 <= count <= MAX_COUNT or (gib is not None and not 0 < gib <= MAX_GIB):
        raise ValueError(f"--workload '{text}': {WORKLOAD_LIMITS}")
    return ExtendedAsk(m["name"], m["resource"], gib, count)


@dataclass(frozen=True)
class _CatalogPool:
    """A pool of one kind the catalog knows, as `classes_for` reads a pool: its VM size and MIG profile."""

    vm_size: str
    mig_profile: str | None


_CATALOG_POOLS = [*(_CatalogPool(vm, None) for vm in A10_SIZES),
                  *(_CatalogPool(vm, profile) for vm in MIG_SIZES for profile in MIG_PROFILES)]


def package_class(resource: str, margin_percent: int) -> ExtendedClass | None:
    """The package's class for `resource` as it is on pools of every kind the catalog knows (an A10 name in any domain
    a stack may set), or None when the package makes no class of that name."""
    domain = resource.partition("/")[0]
    try:
        extended = ExtendedResourcesConfig.model_validate({"domain": domain})
    except ValueError:  # not a domain a stack may set (nvidia.com among them): only a MIG name, the same in any
        extended = ExtendedResourcesConfig()
    return next((c for c in classes_for(extended, _CATALOG_POOLS, margin_percent, False) if c.resource_name == resource),
                None)


def _any_gpu_class(resource: str, stack: StackConfig) -> str | None:
    """Who serves nvidia.com/gpu with the chart's meaning (any A10 slice) on this stack, in words, or None when the
    stack gives it another meaning (nvidiaGpu a size, a profile, or 'none')."""
    extended = stack.extended_resources
    if resource != NVIDIA_GPU or (extended is not None and extended.nvidia_gpu not in (None, CHART_CLASS)):
        return None
    mapped = {c.resource_name: c.class_name for c in extended_classes(stack)}
    if resource in mapped:  # a class of the package's with the chart's any-GPU selector
        return f"the stack's class {mapped[resource]} ({_ANY_A10_SAID})"
    chart = chart_extended_names(stack.dra_driver.chart_version, stack.cluster.kubernetes_version)
    if resource in chart and stack.dra_driver.enabled:
        return f"the driver chart's class {chart[resource]} ({_ANY_A10_SAID})"
    return None


def served_slices(resource: str, stack: StackConfig | None, margin_percent: int = 10) -> tuple[tuple[Slice, ...], str]:
    """(the slices a pod asking `resource` may get, () for none, and who serves it, in words); UnknownNameError when
    the name names nothing here, NotServedError when it is a package name this stack maps to no class."""
    if stack is None:
        if resource == NVIDIA_GPU:
            raise UnknownNameError(f"what {NVIDIA_GPU} gives depends on the stack (extendedResources.nvidiaGpu): add "
                                   "--stack")
        found = package_class(resource, margin_percent)
        if found is None:
            raise UnknownNameError(f"{resource} names no slice the package knows (<domain>/a10-<N>gib with N one of "
                                   f"{', '.join(map(str, SIZE_CLASSES))}, or nvidia.com/mig-<profile>); add --stack to "
                                   "read what a stack maps")
        return found.slices, f"the package's class {found.class_name} (without --stack: on pools of every kind)"
    chart_meaning = _any_gpu_class(resource, stack)
    if chart_meaning is not None:
        return ANY_A10, chart_meaning
    if stack.samples.enabled and resource == stack.samples.extended_resource_name:  # deprecated, kept served
        return ANY_A10, f"the samples' DeviceClass {stack.samples.device_class_name} ({_ANY_A10_SAID})"
    mapped = {c.resource_name: c for c in extended_classes(stack)}
    if resource in mapped:
        return mapped[resource].slices, f"the stack's class {mapped[resource].class_name}"
    chart = chart_extended_names(stack.dra_driver.chart_version, stack.cluster.kubernetes_version)
    names = ", ".join(sorted(mapped) + sorted(set(chart) - set(mapped))) or "none"
    said = f"the stack maps no class to {resource} (it maps: {names}); see docs/extended-resources.md"
    known = resource == NVIDIA_GPU or package_class(resource, stack.samples.memory_margin_percent) is not None
    raise (NotServedError if known else UnknownNameError)(said)


def resolve(ask: ExtendedAsk, stack: StackConfig | None, margin: int) -> tuple[Workload | None, list[Finding], str]:
    """The planner's workload for an extended-resource ask (only the slices its name selects may serve it), the
    findings about it, and a note saying which slices the name gives; UnknownNameError for a name that names nothing."""
    key = ask.key or f"--workload {ask.name}"
    try:
        slices, who = served_slices(ask.resource, stack, margin)
    except NotServedError as exc:
        return None, [Finding("error", "extended-resource", f"{ask.name}: {exc}", key)], ""
    if not slices:
        return None, [Finding("error", "extended-resource", f"{ask.name}: {ask.resource} is not served by this stack "
                              "(extendedResources.nvidiaGpu: none): such pods stay Pending", key)], ""
    workload = Workload(ask.name, ask.memory_gib or 0.0, ask.count, spot=ask.spot, resource=ask.resource,
                        served_by=slices)
    if slices == ANY_A10:
        fix = ("set extendedResources.nvidiaGpu to a slice size" if ask.resource == NVIDIA_GPU
               else "ask for a slice size's own name (extendedResources.slices)")
        warning = Finding("warning", "extended-resource", f"{ask.name}: {ask.resource} is served by {who}: a pod may "
                          f"get a slice smaller than it needs; {fix}", key)
        return workload, [warning], f"{ask.name}: {ask.resource} -> {who}"
    return workload, [], f"{ask.name}: {ask.resource} -> {who}: {' or '.join(k.label for k in slices)}"


def named_no_fit(index: int, w: Workload, margin: int, families: tuple[str, ...], family_flag: str | None,
                 on_stack: bool) -> Finding:
    """The error for a workload asked for by name that no slice its name selects holds: the memory it states is more
    than they hold (the pod would be scheduled there and fail at load), or the families open leave them out."""
    key = f"workloads[{index}]"
    open_ = sorted((k for k in w.served_by if k.family in families), key=order)
    if not open_:
        kinds = " or ".join(k.label for k in sorted(w.served_by, key=order))
        which = "A10" if w.served_by[0].family == "a10" else "MIG"
        out = f"--family {family_flag} leaves them out" if family_flag else "no pool of the stack offers them"
        return Finding("error", "no-fit", f"{w.name}: {w.resource} is served by {which} slices alone ({kinds}), and "
                       f"{out}: such pods stay Pending; it is not placed", key)
    largest = open_[-1]
    said = (a_slice(largest.memory_gib) if len(open_) == 1 and largest.family == "a10"
            else " or ".join(k.label for k in open_))
    most = "" if len(open_) == 1 else ", the largest"
    return Finding("error", "extended-too-small", f"{w.name}: {w.resource} gives {said}{' in this stack' if on_stack else ''}"
                   f" ({usable_memory_gib(largest, margin):.1f} GiB usable at the {margin} % margin{most}), less than "
                   f"the {w.memory_gib:g} GiB it needs: such a pod is scheduled there and fails at load; ask for a larger "
                   "slice's name, or change what the name maps; it is not placed", key)

