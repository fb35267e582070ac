"""What a refused extendedResources.nvidiaGpu most likely meant, told by meaning rather than by spelling.

nvidiaGpu names an A10 slice size as the size classes are written ('8GiB') or a MIG slice as the DRA driver's
`profile` attribute reads it ('3g.40gb'). The usual mistakes are a size without its unit (YAML's `8`, or '8'), the
unit spelt otherwise ('8gb', '24gib'), and a MIG pool's AKS name ('MIG3g', the AgentPool's gpuInstanceProfile) or
the device plugin's resource name ('mig-3g.40gb'): each is told the value it stands for among those the pools offer,
and the message lists what this stack's pools offer (the stack's few, not every profile of every GPU).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

from ..catalog import SIZE_CLASSES

# '8', '8GB', '8 gib', '8G': a number with or without a unit of memory.
_SIZE = re.compile(r"\s*(\d{1,4})\s*(?:gi?b?)?\s*", re.IGNORECASE)
# 'MIG3g', 'mig-3g.40gb', '3g', '3G.40GB': a MIG slice's width, with or without its memory.
_MIG = re.compile(r"\s*(?:mig[-_ ]?)?(\d)g(?:\.(\d+)gb)?\s*", re.IGNORECASE)


def nvidia_gpu_meant(written: Any, sizes: Sequence[int], profiles: Sequence[str]) -> str | None:
    """The value of nvidiaGpu `written` most likely stands for, among the A10 `sizes` (GiB, smallest first) and MIG
    `profiles` offered; None when nothing is likely. A width ('3g') is a MIG slice where a pool offers one of it; a
    number is the A10 size class it names (offered or not), or else the smallest offered size that holds it (a pod
    sized for 16 GiB needs at least that), else the largest."""
    if isinstance(written, bool) or not isinstance(written, (int, float, str)):
        return None
    text = written if isinstance(written, str) else _whole(written)
    mig = _MIG.fullmatch(text)
    if mig is not None and (mig.group(2) is not None or any(p.startswith(f"{mig.group(1)}g.") for p in profiles)):
        width, memory = mig.group(1), mig.group(2)
        exact = [p for p in profiles if memory is not None and p.lower() == f"{width}g.{memory}gb"]
        same_width = [p for p in profiles if p.startswith(f"{width}g.")]
        # Of several GPUs' slices of one width none is likelier than another, and another width is another slice.
        return (exact or same_width)[0] if exact or len(same_width) == 1 else None
    size = _SIZE.fullmatch(text)
    if size is not None and (sizes or int(size.group(1)) in SIZE_CLASSES):
        wanted = int(size.group(1))
        if wanted in SIZE_CLASSES:  # the size as written, offered or not (then the message says so)
            return f"{wanted}GiB"
        holding = [s for s in sizes if s >= wanted]
        return f"{holding[0] if holding else sizes[-1]}GiB"
    choices = [*(f"{s}GiB" for s in sizes), *profiles]
    close = difflib.get_close_matches(text.lower(), [c.lower() for c in choices], n=1, cutoff=0.6)
    return next(c for c in choices if c.lower() == close[0]) if close else None


def _whole(number: float) -> str:
    """A number as a size is written ('8' for 8 and 8.0), or '' for one with a fraction (or not finite)."""
    return str(int(number)) if float(number).is_integer() else ""


def nvidia_gpu_refusal(written: Any, sizes: Sequence[int], profiles: Sequence[str], choices: Sequence[str],
                       of_the_pools: bool) -> str:
    """Why `written` is no value of nvidiaGpu, with the value it likely meant and the `choices` (the stack's pools'
    when `of_the_pools`, else every value nvidiaGpu takes)."""
    meant = nvidia_gpu_meant(written, sizes, profiles)
    if isinstance(written, str):
        said = f"'{written}' is not an A10 slice size, a MIG profile, 'none' or 'any'"
    elif isinstance(written, (int, float)) and not isinstance(written, bool):
        said = f"{written} is a number, and a slice size is written with its unit"
    else:
        said = "must be text: an A10 slice size, a MIG profile, 'none' or 'any'"
    hint = f" (did you mean '{meant}'?)" if meant else ""
    if meant and of_the_pools and meant not in choices:
        hint = f" (did you mean '{meant}'? no pool here offers it)"
    return f"{said}{hint}; choose one {'the pools offer' if of_the_pools else 'of'}: {', '.join(choices)}"
