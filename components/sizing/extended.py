"""`size` for workloads written as extended resources (`resources.limits: {nvidia.com/gpu: 1}`): which slice the name
gives them on the stack (the class `kubernetes.extended_classes` declares for it, or the driver chart's), as a workload
the planner places and costs like any other, and a warning where that slice is smaller than the memory stated.

Syntax of `--workload` for such a workload: `NAME=[GiB@]RESOURCE[xCOUNT]`, e.g. `infer=nvidia.com/gpu`,
`a=aks-dra-vgpu.io/a10-8gibx3`, `llm=20GiB@nvidia.com/gpu` (20 GiB of GPU memory needed, asked for as nvidia.com/gpu).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..catalog import SIZE_CLASSES
from ..config import StackConfig
from ..config.extended_resources import NVIDIA_GPU, extended_resource_name_problem
from ..kubernetes.extended_classes import chart_extended_names, extended_classes
from ..kubernetes.slice_kinds import Slice, a10_slice, mig_kinds, order, usable_memory_gib
from .model import MAX_COUNT, MAX_GIB, WORKLOAD_DIGITS, WORKLOAD_LIMITS, Finding, Workload
from .placement import a_slice

# The numbers are read whole and checked against the limits after, so a count too long is not taken for part of the
# resource name ('nvidia.com/gpux99999999999').
_EXTENDED = re.compile(r"(?P<name>[A-Za-z0-9][-A-Za-z0-9_.]{0,62})=(?:(?P<gib>[0-9]+(\.[0-9]+)?)(?:GiB|Gi)?@)?"
                       r"(?P<resource>[^\s/@=]+/[^\s/@=]+?)(?:x(?P<count>[0-9]+))?", re.ASCII)
EXTENDED_SYNTAX = ("NAME=[GiB@]RESOURCE[xCOUNT], e.g. 'infer=nvidia.com/gpu', 'a=aks-dra-vgpu.io/a10-8gibx3' or "
                   "'llm=20GiB@nvidia.com/gpu'")
_A10_NAME = re.compile(r"a10-(?P<gib>[0-9]+)gib")


@dataclass(frozen=True)
class ExtendedAsk:
    """A workload asking for an extended resource: its name, the resource, the memory it needs (if stated), replicas."""

    name: str
    resource: str
    memory_gib: float | None
    count: int


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


def served_slices(resource: str, stack: StackConfig | None) -> tuple[tuple[Slice, ...] | None, str]:
    """(the slices `resource` gives a pod, or None for any GPU device, or () for none) and who serves it, in words;
    ValueError when nothing would serve it."""
    if stack is not None:
        mapped = {c.resource_name: c for c in extended_classes(stack)}
        if resource in mapped:
            found = mapped[resource]
            return found.slices, f"the stack's class {found.class_name}"
        chart = chart_extended_names(stack.dra_driver.chart_version, stack.cluster.kubernetes_version)
        if resource in chart and stack.dra_driver.enabled:
            return None, f"the driver chart's class {chart[resource]} (any GPU device, whatever its size)"
        names = ", ".join(sorted(mapped) + sorted(set(chart) - set(mapped))) or "none"
        raise ValueError(f"the stack maps no class to {resource} (it maps: {names}); see docs/extended-resources.md")
    if resource == NVIDIA_GPU:
        raise ValueError(f"what {NVIDIA_GPU} gives depends on the stack (extendedResources.nvidiaGpu): add --stack")
    short = resource.partition("/")[2]
    a10 = _A10_NAME.fullmatch(short)
    if a10 and int(a10["gib"]) in SIZE_CLASSES:
        return (a10_slice(int(a10["gib"])),), "its name (an A10 slice size)"
    kinds = tuple(k for k in mig_kinds() if resource == f"nvidia.com/mig-{k.profile}".replace("+", "."))
    if kinds:
        return kinds, "its name (the GPU Operator's MIG profile name)"
    raise ValueError(f"{resource} names no slice the package knows; add --stack to read what the stack maps")


def resolve(ask: ExtendedAsk, stack: StackConfig | None, margin: int) -> tuple[Workload | None, list[Finding], str]:
    """The planner's workload for an extended-resource ask, the findings about it, and a note saying which slice the
    name gives it."""
    key = f"--workload {ask.name}"
    try:
        slices, who = served_slices(ask.resource, stack)
    except ValueError as exc:
        return None, [Finding("error", "extended-resource", f"{ask.name}: {exc}", key)], ""
    if slices is None:  # the chart's class: any device, so plan for the memory stated (or the smallest slice)
        gib = ask.memory_gib or float(min(SIZE_CLASSES))
        warning = Finding("warning", "extended-resource", f"{ask.name}: {ask.resource} is served by {who}: a pod may "
                          "get a slice smaller than it needs; set extendedResources.nvidiaGpu to a slice size", key)
        return Workload(ask.name, gib, ask.count), [warning], f"{ask.name}: {ask.resource} -> {who}"
    if not slices:
        return None, [Finding("error", "extended-resource", f"{ask.name}: {ask.resource} is not served by this stack "
                              "(extendedResources.nvidiaGpu: none): such pods stay Pending", key)], ""
    best = min(slices, key=order)
    usable = usable_memory_gib(best, margin)
    said = a_slice(best.memory_gib) if best.family == "a10" else best.label
    note = f"{ask.name}: {ask.resource} -> {who}: {' or '.join(k.label for k in slices)}"
    findings = []
    if ask.memory_gib is not None and ask.memory_gib > usable:
        findings.append(Finding("warning", "extended-too-small", f"{ask.name}: {ask.resource} gives {said} in "
                                f"this stack ({usable:.1f} GiB usable at the {margin} % margin), less than the "
                                f"{ask.memory_gib:g} GiB it needs: the pod is scheduled and fails at load; ask for a "
                                "larger slice's name, or change what the name maps", key))
    if best.family == "a10":
        return Workload(ask.name, ask.memory_gib or float(best.memory_gib), ask.count, 1, best.memory_gib), findings, note
    return Workload(ask.name, round(usable, 2), ask.count), findings, note
