"""The live cluster: `verify` checks a deployed stack through a Kubernetes client and, with smoke, claims a slice of
each size. Imported only by the `verify` command and by callers of `aks_dra_vgpu.verify`, never by the offline commands.

One seam, `client.ClusterClient` (a Protocol: what verify reads and writes); `kube.KubernetesClient` implements it on
the official `kubernetes` package (the `verify` extra), loading the kubeconfig the way kubectl does (exec users such as
kubelogin included). The checks are pure functions over what the client returned (`checks_*`), reported by `report`.
`expected` derives what should be there from the StackConfig through the package's own functions; `cel` evaluates
DRA selectors as Kubernetes does (cel-python).

May import `config`, `catalog` and `kubernetes` (its selectors, size classes, claim specs and tolerations); never
`offline` (the engine), `azure` or the CLI.
"""

import sys
import types
from typing import Any

from .client import ApiError, ClusterClient, UnreachableError
from .report import Check
from .run import verify

__all__ = ["ApiError", "Check", "ClusterClient", "UnreachableError", "verify"]


class _VerifyModule(types.ModuleType):
    """This subpackage, callable as `verify(...)`.

    Python binds an imported subpackage to its parent's attribute of the same name, so once anything imports
    `aks_dra_vgpu.verify.<module>`, `aks_dra_vgpu.verify` is this module and no longer the function: calling the module
    calls the function, so `aks_dra_vgpu.verify(stack, ...)` works either way."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return verify(*args, **kwargs)


sys.modules[__name__].__class__ = _VerifyModule
