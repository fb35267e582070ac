"""The offline engine and what is built on it: run a Pulumi program against an in-process engine, capture it, show it.

- ``plan``: the plan document (``Plan``, ``Registration``) and the markers for secrets and unknowns
- ``capture``: the in-process resource monitor and engine; ``capture(program)`` runs a program as the language host does
- ``mocks``: what Azure, AKS and Kubernetes would answer (a first preview knows only the inputs)
- ``project``: Pulumi projects on disk (``Pulumi.yaml``); ``stacks``: their stack files, and ``run_project``
- ``tree``, ``render``, ``diff``, ``mermaid``, ``critical_path``: what is built on a plan; ``rules/``: the diff's rule
  table, one module per provider

Knows how capturing works, and nothing else in the package does. May import `config`, `catalog` and the pure
`kubernetes.chart_upgrades` (which chart moves are refused); runs any program
(the components come in through the program, never through an import here).
"""

from .capture import capture
from .plan import SECRET, UNKNOWN, Invoke, Plan, Registration, walk
from .project import Project, StackFileError, load_project
from .stacks import read_stack_config, run_project

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
