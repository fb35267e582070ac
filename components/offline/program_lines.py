"""Where the program declared each resource: its file and line, and the component that line builds, so `plan` names a
resource as the program's author wrote it (``__main__.py:9 (ExtendedResources 'first')``) rather than by its URN.

The Python SDK sends every registration with the program's stack at that moment (RegisterResourceRequest.stackTrace,
innermost frame first: pulumi/pulumi sdk/python/lib/pulumi/runtime/resource.py, `_get_stack_trace`); the capture keeps
it (`Plan.stack_frames`). The line is the innermost frame in the project's own code (`running._users_code`: not a
library, not this package), and the component is the outermost ancestor declared from that same line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlparse

from .plan import Plan
from .running import _users_code


def _program_line(frames: tuple[tuple[str, int], ...], directory: Path) -> tuple[str, int] | None:
    """The innermost frame in the project's own code, as (file relative to the project, line)."""
    for uri, line in frames:
        parsed = urlparse(uri)
        if parsed.scheme != "file" or not line:
            continue
        path = Path(unquote(parsed.path))
        if _users_code(path, directory):
            return path.relative_to(directory).as_posix(), line
    return None


def declared_at(plan: Plan, directory: Path) -> dict[str, str]:
    """urn -> ``file:line (Kind 'name')``: the program's line that declared each resource and the component that line
    builds (the resource itself when the line declares it directly); resources with no such line are left out."""
    lines = {urn: found for urn, frames in plan.stack_frames.items()
             if (found := _program_line(frames, directory.resolve())) is not None}
    by_urn = {r.urn: r for r in plan.resources}
    placed = {}
    for urn, line in lines.items():
        shown = by_urn.get(urn)
        if shown is None:
            continue
        ancestor = shown
        while ancestor.parent in by_urn:
            ancestor = by_urn[ancestor.parent]
            if lines.get(ancestor.urn) == line:
                shown = ancestor
        kind = shown.type.rsplit(":", 1)[-1]
        placed[urn] = f"{line[0]}:{line[1]} ({kind} '{shown.name}')"
    return placed


def with_places(text: str, places: Mapping[str, str]) -> str:
    """`text` with each URN it names (of `places`) written as the program's line instead; a URN is matched whole, never
    as the start of a longer one (`...::gpu` in `...::gpu-2`)."""
    named = [urn for urn in places if urn in text]
    if not named:
        return text
    pattern = re.compile("|".join(re.escape(u) for u in sorted(named, key=len, reverse=True)) + r"(?![\w.-])")
    return pattern.sub(lambda found: places[found.group(0)], text)
