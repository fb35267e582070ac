"""The offline engine and the stack files: run a Pulumi program against an in-process engine and capture its plan.

- ``plan``: the plan document (``Plan``, ``Registration``) and the markers for secrets and unknowns; ``urns``: how the
  engine names resources (the plan's urns, read back by the review)
- ``capture``: the in-process resource monitor and engine; ``capture(program)`` runs a program as the language host does
- ``mocks``: what Azure, AKS and Kubernetes would answer (a first preview knows only the inputs)
- ``project``: Pulumi projects on disk (``Pulumi.yaml``, where each stack file is); a stack file read in one pass:
  ``stack_file`` (the file, its sections decoded), ``stack_settings`` (this package's settings in it validated); a
  project's stacks read as a pipeline that visits each step once: ``project_stacks`` (every stack file read, its
  sections decoded), ``fleet_settings`` (a fleet's stacks validated), then the rules across them (``fleet_stacks``:
  ``load_fleet``, a fleet stack and its member stacks); ``fleet_member`` (what one stack's plan needs of its fleet);
  ``stacks``: ``run_project``, on top of them all (no module imports one that imports it);
  ``safe_yaml`` (with ``yaml_loader``, ``yaml_scalars``, ``yaml_bounds``, ``yaml_values``) reads YAML as Pulumi does;
  ``files`` reads within bounds
- ``render``: the manifests a plan would apply, written into a folder of render's own (``output_dir``)

Knows how capturing works, and nothing else in the package does. May import `config` and `catalog`; runs any program
(the components come in through the program, never through an import here). The review of a plan (`review`: the diff,
its rules, the tree, the graph, the critical path) sits on top of this package and is never imported by it.
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
