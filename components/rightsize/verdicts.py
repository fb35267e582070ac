"""What each unit holds, what it used, what it needs, and the verdict. Pure.

- The slice held: a MIG slice by its `GPU_I_PROFILE` on its parent GPU (`modelName`); an A10 slice by the device's
  framebuffer (used + free: the guest's framebuffer, which reads a little under nominal, as the driver's published
  memory does), sorted into a size class with the same bands and margin the claim templates select devices by
  (`selectors.size_class_of`). Where a unit held several kinds
  of slice in the window, the one it held last counts.
- The peak: the most framebuffer any of its devices showed. The base is the peak, not a percentile (VPA's
  recommender takes a percentile of CPU): a framebuffer that overflows kills the process instead of slowing it.
- The slice it needs: the smallest whose usable memory (nominal less the stack's `memoryMarginPercent`) holds the peak
  (`slice_kinds.smallest_holding`, the rule `size` places by), in the family and on the GPU model it runs on.
- Devices held at once: each device's time in use (first to last sample, to the subquery step), swept per unit; only
  what is held together for an hour or more counts (a rolling update's surge does not).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import MIG_GPUS
from ..kubernetes.selectors import size_class_of
from ..kubernetes.slice_kinds import Slice, a10_kinds, a10_slice, mig_kinds, smallest_holding, usable_memory_gib
from .units import Unit
from .usage import DeviceKey, Measurements, UsageRow
from .window import INSUFFICIENT

KEEP, DOWNSIZE, UPSIZE, IDLE, INSUFFICIENT_DATA, PREALLOCATED = (
    "keep", "downsize", "upsize", "idle", "insufficient-data", "preallocated")
VERDICTS = (KEEP, DOWNSIZE, UPSIZE, IDLE, INSUFFICIENT_DATA, PREALLOCATED)
CHANGES = frozenset({DOWNSIZE, UPSIZE, IDLE, PREALLOCATED})
"""Verdicts that ask for a change (exit 3)."""
IDLE_FRACTION = 0.01  # below 1 % of the framebuffer no process ever made a CUDA context (that alone takes ~300 MiB)
PREALLOCATED_LOW = 0.80  # the low end of use (5th percentile) at 80 % of the framebuffer or more ...
PREALLOCATED_SPREAD = 0.05  # ... and the peak within 5 % of it: use is flat and high from the first minutes


@dataclass(frozen=True)
class Assessment:
    """One unit's figures and verdict."""

    unit: Unit
    held: Slice | None
    framebuffer_mib: float | None  # of the slice held (used + free)
    devices: int  # the most devices it held at once
    per_pod: int  # the most devices one pod held
    peak_mib: float
    utilisation: float | None  # average GPU utilisation, percent (A10 only: a MIG row's is its parent GPU's)
    hours: float  # device-hours held in the window
    span_hours: float  # first sample to last
    recommended: Slice | None
    verdict: str
    reason: str


def slice_name(kind: Slice | None) -> str | None:
    """How reports name a slice: ``8GiB`` (A10) or ``3g.40gb`` (MIG, its profile)."""
    if kind is None:
        return None
    return kind.key if kind.family == "a10" else kind.profile


def mig_slice_of(profile: str, model: str) -> Slice | None:
    """The MIG slice a row's `GPU_I_PROFILE` names on its parent GPU (`modelName`, NVML's product name)."""
    found = [k for k in mig_kinds() if k.profile == profile]
    gpu = MIG_GPUS.get(model)
    family = [k for k in found if (k.gpu_model == gpu.model if gpu else k.gpu_model.split()[0] in model)]
    return (family or found or [None])[0]


def slice_of(row: UsageRow, framebuffer_mib: float | None, margin_percent: int) -> Slice | None:
    """Which slice a row's device is, or None (an A10 framebuffer in no size class's band, an unknown profile)."""
    if row.mig:
        return mig_slice_of(row.profile, row.model)
    if framebuffer_mib is None:
        return None
    size = size_class_of(framebuffer_mib, margin_percent)
    return a10_slice(size) if size is not None else None


def intervals(rows: tuple[UsageRow, ...], step_s: int) -> dict[DeviceKey, list[tuple[float, float]]]:
    """Each device's time in use as merged [start, end) intervals; a sample stands for the step after it."""
    spans: dict[DeviceKey, list[tuple[float, float]]] = {}
    for row in rows:
        if row.first is not None and row.last is not None:
            spans.setdefault(row.device, []).append((row.first, row.last + step_s))
    merged: dict[DeviceKey, list[tuple[float, float]]] = {}
    for device, found in spans.items():
        out: list[tuple[float, float]] = []
        for start, end in sorted(found):
            if out and start <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], end))
            else:
                out.append((start, end))
        merged[device] = out
    return merged


def most_at_once(spans: dict[DeviceKey, list[tuple[float, float]]], sustain: float = 0.0) -> int:
    """The most devices in use together for at least `sustain` seconds (an interval's end before another's start at the
    same moment): a rolling update's surge, the new pod up before the old one ends, is not a need. Where nothing lasted
    that long (a unit seen for less), the most at any moment."""
    events = sorted((t, delta) for found in spans.values() for start, end in found for t, delta in ((start, 1), (end, -1)))
    segments: list[tuple[float, float, int]] = []  # (start, end, devices in use)
    now = 0
    for (t, delta), following in zip(events, [*events[1:], None], strict=True):
        now += delta
        if following is not None and following[0] > t:
            segments.append((t, following[0], now))
    most = max((count for _, _, count in segments), default=0)
    for level in range(most, 0, -1):
        start = end = None
        for a, b, count in segments:
            if count < level:
                start = None
                continue
            start = a if start is None or a != end else start
            end = b
            if end - start >= sustain:
                return level
    return most


def sustained(step_s: int) -> float:
    """How long devices must be held together to count as held at once: an hour, or two steps where a step is longer
    (a pod is seen to the step, so one step's overlap may be a moment's)."""
    return max(3600.0, 2.0 * step_s)


def assess(unit: Unit, found: Measurements, margin_percent: int, step_s: int) -> Assessment:
    """The unit's figures, recommendation and verdict."""
    rows = unit.rows
    latest = max(rows, key=lambda r: (r.last or 0.0, found.framebuffer.get(r.device, 0.0)))
    framebuffer = found.framebuffer.get(latest.device)
    held = slice_of(latest, framebuffer, margin_percent)
    spans = intervals(rows, step_s)
    firsts = [r.first for r in rows if r.first is not None]
    lasts = [r.last for r in rows if r.last is not None]
    span = (max(lasts) + step_s - min(firsts)) if firsts and lasts else 0.0
    pods: dict[str, set[DeviceKey]] = {}
    for row in rows:
        pods.setdefault(f"{row.namespace}/{row.pod}", set()).add(row.device)
    utils = [r.utilisation for r in rows if r.utilisation is not None and not r.mig]
    peak = max(r.peak_mib for r in rows)
    verdict, recommended, reason = _verdict(unit, found, held, framebuffer, peak, span, margin_percent)
    at_once = most_at_once(spans, sustained(step_s))
    return Assessment(unit, held, framebuffer, max(1, at_once), max(len(d) for d in pods.values()), peak,
                      sum(utils) / len(utils) if utils else None,
                      sum(end - start for found_spans in spans.values() for start, end in found_spans) / 3600,
                      span / 3600, recommended, verdict, reason)


def _family(held: Slice | None) -> tuple[Slice, ...]:
    """The slices a recommendation chooses from: the A10 size classes, or the MIG slices of the same GPU model."""
    if held is None or held.family == "a10":
        return a10_kinds()
    return tuple(k for k in mig_kinds() if k.gpu_model == held.gpu_model)


def _preallocated(rows: tuple[UsageRow, ...], found: Measurements) -> bool:
    known = [(r, found.framebuffer.get(r.device)) for r in rows if r.low_mib is not None]
    return bool(known) and all(
        fb is not None and r.low_mib >= PREALLOCATED_LOW * fb and r.peak_mib - r.low_mib <= PREALLOCATED_SPREAD * fb
        for r, fb in known if r.low_mib is not None)


def _verdict(unit: Unit, found: Measurements, held: Slice | None, framebuffer: float | None, peak: float, span: float,
             margin_percent: int) -> tuple[str, Slice | None, str]:
    gib = peak / 1024
    if span < INSUFFICIENT:
        return INSUFFICIENT_DATA, None, f"{span / 3600:.1f} h of samples, less than a day: run it longer"
    if framebuffer is not None and peak < IDLE_FRACTION * framebuffer:
        return IDLE, None, f"allocated, and at most {peak:.0f} MiB of its framebuffer used: release the slice"
    if _preallocated(unit.rows, found):
        return PREALLOCATED, None, (
            "use sits flat at the slice's size from the start (an engine that preallocates, e.g. vLLM's "
            "gpu_memory_utilization, default 0.9): it shows the slice, not the need; set the engine's preallocation "
            "to what the model needs (vLLM: --gpu-memory-utilization, or --kv-cache-memory), or measure the need "
            "once without it, and size that with `size --workload NAME=GiB`")
    needed = smallest_holding(_family(held), margin_percent, gib)
    if held is None:
        return KEEP, needed, (f"the slice is unknown (framebuffer {framebuffer or 0:.0f} MiB is in no size class at the "
                              f"{margin_percent} % margin); the peak needs {slice_name(needed) or 'more than any slice'}")
    usable = usable_memory_gib(held, margin_percent)
    if gib >= usable:
        where = slice_name(needed) if needed else f"no {'A10' if held.family == 'a10' else held.gpu_model} slice"
        return UPSIZE, needed, (f"peak {gib:.1f} GiB reached the {usable:.1f} GiB usable of {slice_name(held)}: one "
                                f"more allocation away from out-of-memory; {where} holds it")
    if needed is not None and needed != held and needed.memory_gib < held.memory_gib:
        return DOWNSIZE, needed, (f"peak {gib:.1f} GiB fits the {usable_memory_gib(needed, margin_percent):.1f} GiB "
                                  f"usable of {slice_name(needed)}")
    return KEEP, held, f"peak {gib:.1f} GiB of {usable:.1f} GiB usable"
