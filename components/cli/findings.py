"""What `plan` says of a stack's plan beside the plan itself, shared by `plan --stack` and `plan --fleet`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .output import printable, write


def report_findings(plan: Any, in_document: bool, said: frozenset[str] | set[str] = frozenset(), prefix: str = "",
                    findings: bool = True, project_dir: str | None = None) -> bool:
    """Says on stderr what `plan` finds in a stack's plan: two components creating one cluster-scoped object (an
    error, refused with exit 4, each resource named by the program's line that declared it in `project_dir`) and the
    advisory policies (unless `findings` is False: a --policy report named them), and what the components logged
    (`pulumi.log.warn`, as `pulumi preview` shows it, but those `said` already; a JSON document carries them itself,
    `in_document`). True when there is an error."""
    from ..policies import plan_findings

    errors, warnings = plan_findings(plan) if findings else ([], [])
    if errors and project_dir is not None:
        from ..offline.program_lines import declared_at, with_places

        places = declared_at(plan, Path(project_dir))
        errors = [with_places(line, places) for line in errors]
    for line in errors:
        write(sys.stderr, printable(f"error: {prefix}{line}") + "\n")
    for line in ([] if in_document else [w for w in plan.warnings if w not in said]) + warnings:
        write(sys.stderr, printable(f"warning: {prefix}{line}") + "\n")
    return bool(errors)
