"""The live cluster: `verify` checks a deployed stack through a Kubernetes client and, with smoke, claims a slice of
each size. Its checks and the Kubernetes client load only for the `verify` command and on the first call of
`aks_dra_vgpu.verify`, never for the offline commands: `import aks_dra_vgpu` loads this file, the client seam and the
report's types, and nothing else of the subpackage.

One seam, `client.ClusterClient` (a Protocol: what verify reads and writes); `kube.KubernetesClient` implements it on
the official `kubernetes` package (the `verify` extra), loading the kubeconfig the way kubectl does (exec users such as
kubelogin included). The checks are pure functions over what the client returned (`checks_*`), reported by `report`.
`expected` derives what should be there from the StackConfig through the package's own functions; `cel` evaluates
DRA selectors as Kubernetes does (cel-python). `run` is one run: read, check, wait, smoke.

`aks_dra_vgpu.verify` is the function below, not this subpackage (the package binds the name after importing it): import
the modules with `from aks_dra_vgpu.verify import kube` or `from aks_dra_vgpu.verify.kube import KubernetesClient`.

May import `config`, `catalog`, `signals` and `kubernetes` (its selectors, size classes, claim specs and tolerations); never
`offline` (the engine), `azure` or the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import ApiError, ClusterClient, UnreachableError
from .report import Check

if TYPE_CHECKING:
    from ..config import StackConfig

__all__ = ["ApiError", "Check", "ClusterClient", "UnreachableError", "verify"]


def verify(stack: StackConfig, client: ClusterClient | None = None, **options: Any) -> dict[str, Any]:
    """Checks a deployed stack's cluster and returns the report, ``{"checks": [...], "summary": {...}}``: `run.verify`,
    whose docstring tells the options (kubeconfig, context, smoke, sizes, image, wait, timeout, progress). The checks
    load on the first call."""
    from .run import verify as run

    return run(stack, client, **options)
