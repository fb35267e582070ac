"""`--workloads-out FILE`: the measurements as a `size --workloads` file (the `WorkloadSet` form `sizing.command`
reads: `workloads: [{name, memoryGiB, count, devices}]`), so `size --stack prod --workloads @FILE` plans pools and
claim templates from what was used rather than from what was said.

What each unit asks for:
- its peak, rounded up to a tenth of a GiB (`size` adds the margin itself, as it does for any stated need);
- a preallocating unit, or one with too little data, the usable memory of the slice it holds: `size` then gives it that
  same slice back (its peak shows the slice, or says too little);
- an idle unit nothing: it is left out, named in a comment.
`count` is the most devices held at once (per replica: `devices: 2` where a pod held two). Names are `namespace.workload`
(a MIG slice no pod is named on: `mig.<node>.<gpu>.<instance>`), cut to 63 characters with a hash where longer.

The file is written whole or not at all: a temporary file beside it, flushed to disk, then renamed over it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from pathlib import Path

from ..kubernetes.slice_kinds import usable_memory_gib
from .cost import Costed
from .units import MIG_SLICE
from .verdicts import IDLE, INSUFFICIENT_DATA, PREALLOCATED, slice_name

NAME_LIMIT = 63
_BAD = re.compile(r"[^-A-Za-z0-9_.]", re.ASCII)


class WorkloadsFileError(Exception):
    """The file could not be written; nothing was left half-written."""


def check_writable(path: str) -> Path:
    """The path `--workloads-out` names, checked before any query: its folder exists and takes files, and it is not a
    folder itself. ValueError naming the flag."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ValueError(f"--workloads-out {path}: is a folder; name a file, e.g. {path.rstrip('/')}/workloads.yaml")
    if not parent.is_dir():
        raise ValueError(f"--workloads-out {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--workloads-out {path}: the folder {parent} cannot be written to")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"--workloads-out {path}: the file exists and cannot be written to")
    return target


def entry_name(item: Costed) -> str:
    """`namespace.workload` as a `size` workload name (letters, digits, '-', '_', '.'; at most 63)."""
    unit = item.assessment.unit
    if unit.kind == MIG_SLICE:
        device = unit.rows[0].device
        raw = f"mig.{device.node}.{device.uuid.removeprefix('GPU-')[:8]}.{device.instance}"
    else:
        raw = f"{unit.namespace}.{unit.name}" if unit.namespace else unit.name
    if unit.cluster:
        raw = f"{unit.cluster}.{raw}"
    name = _BAD.sub("-", raw).lstrip("-_.") or "workload"
    if len(name) > NAME_LIMIT or name != raw:
        digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
        name = f"{name[:NAME_LIMIT - 9].rstrip('-_.')}-{digest}"
    return name


def _memory(item: Costed, margin_percent: int) -> float:
    found = item.assessment
    if found.verdict in (PREALLOCATED, INSUFFICIENT_DATA) and found.held is not None:
        return usable_memory_gib(found.held, margin_percent)
    return max(0.1, math.ceil(found.peak_mib / 1024 * 10) / 10)


def workloads_text(costed: list[Costed], margin_percent: int, header: str) -> str:
    """The file's text: a comment saying where it comes from, then one entry per unit (idle ones as comments)."""
    lines = [f"# {line}" for line in header.splitlines()]
    lines.append("workloads:")
    skipped: list[str] = []
    taken: set[str] = set()
    for item in costed:
        found = item.assessment
        name = entry_name(item)
        if name in taken:  # a bare pod named like a workload of its namespace: `size` wants names unique
            unit = found.unit
            which = f"{unit.cluster}/{unit.namespace}/{unit.name}/{unit.kind}".encode()
            name = f"{name[:NAME_LIMIT - 9]}-{hashlib.sha256(which).hexdigest()[:8]}"
        taken.add(name)
        if found.verdict == IDLE:
            skipped.append(name)
            continue
        devices = 2 if found.per_pod == 2 else 1
        count = max(1, math.ceil(found.devices / devices))
        why = f"{found.verdict}, held {slice_name(found.held) or 'an unknown slice'}, peak {found.peak_mib / 1024:.1f} GiB"
        lines.append(f"  - name: {json.dumps(name)}  # {why}")
        lines.append(f"    memoryGiB: {_memory(item, margin_percent):g}")
        lines.append(f"    count: {count}")
        if devices == 2:
            lines.append("    devices: 2")
    if skipped:
        lines.append(f"# idle (allocated, unused), left out: {', '.join(skipped)}")
    if not any(line.startswith("  - name:") for line in lines):
        lines[lines.index("workloads:")] = "workloads: []  # nothing measured holds a slice"
    return "\n".join(lines) + "\n"


def write_atomically(target: Path, text: str) -> None:
    """Writes `text` to `target` whole, or leaves `target` as it was (and no temporary file behind)."""
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or Path("."))
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise WorkloadsFileError(f"--workloads-out {target}: not written ({exc.strerror or exc}); the file is as it "
                                 "was") from None
