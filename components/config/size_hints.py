"""What a VM size that is not in the catalog most likely meant, told by meaning rather than by spelling.

Spelling alone misleads: 'Standard_NV24ads_A10_v5' is one letter from 'Standard_NV72ads_A10_v5', a size with three
times the vCPUs and two whole A10s. A size's number is its vCPU count (learn.microsoft.com/azure/virtual-machines/
vm-naming-conventions: "# of vCPUs"), so a known number with a misspelt rest is a typo of that size, and an unknown
number is told the sizes on either side of it, with what each holds, so the user picks by what they need.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping

from ..catalog import A10Size

# The family letters and the vCPU count: Standard_NV36adms_A10_v5 -> ("NV", 36).
_NUMBER = re.compile(r"(?:standard_)?(NV)(\d+)", re.IGNORECASE)


def _shown(size: A10Size) -> str:
    share = "one A10" if size.gpu_share == "1" else f"{size.gpu_share} A10" + ("s" if size.devices_per_node > 1 else "")
    return f"{size.vm_size} ({size.vcpus} vCPUs, {share}, {size.gpu_memory_gib} GiB GPU memory per device)"


def size_hint(written: str, sizes: Mapping[str, A10Size], others: Iterable[str] = ()) -> str:
    """A parenthesised hint for a VM size not in `sizes` (with its leading space), or '' when nothing is likely;
    `others`: sizes of other families (MIG), offered by spelling only, to a name outside the NV family."""
    found = _NUMBER.match(written.strip())
    if found is None:
        close = difflib.get_close_matches(written, [*sizes, *others], n=1)
        return f" (did you mean '{close[0]}'?)" if close else ""
    vcpus = int(found.group(2))
    same = [name for name, size in sizes.items() if size.vcpus == vcpus]
    if same:  # the number is right: a typo in the rest of the name
        best = difflib.get_close_matches(written, same, n=1, cutoff=0) or same
        return f" (did you mean '{best[0]}'?)"
    below = max((s for s in sizes.values() if s.vcpus < vcpus), key=lambda s: s.vcpus, default=None)
    above = min((s for s in sizes.values() if s.vcpus > vcpus), key=lambda s: s.vcpus, default=None)
    nearest = " and ".join(_shown(s) for s in (below, above) if s is not None)
    return f" (there is no {vcpus}-vCPU size; the nearest: {nearest})"
