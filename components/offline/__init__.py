"""The offline engine and what is built on it: run a Pulumi program under mocks, capture it, show it.

- ``engine``: mocks + capture (``capture``, ``run_project``, ``Plan``)
- ``tree``: the plan for people
- ``render``: the plan as files: one manifest per Kubernetes object, Helm values and chart per release
"""

from .engine import (
    SECRET,
    UNKNOWN,
    Invoke,
    Plan,
    Project,
    Registration,
    StackFileError,
    capture,
    load_project,
    read_stack_config,
    run_project,
    walk,
)

__all__ = [
    "SECRET",
    "UNKNOWN",
    "Invoke",
    "Plan",
    "Project",
    "Registration",
    "StackFileError",
    "capture",
    "load_project",
    "read_stack_config",
    "run_project",
    "walk",
]
