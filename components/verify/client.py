"""The one seam between `verify` and a live cluster: what it asks of the Kubernetes API, as a Protocol.

Every object comes back as the API's own JSON (camelCase dicts, as `kubectl get -o json` shows them), so the checks
read recorded responses, a fake API and a real API server the same way. The adapter over the official `kubernetes`
client is `kube.KubernetesClient`; tests pass their own.
"""

from __future__ import annotations

from typing import Any, Protocol

Obj = dict[str, Any]


class UnreachableError(Exception):
    """The API server cannot be reached or refuses the credentials: one line saying which and why."""


class ApiError(Exception):
    """The API server answered with an error status (403, 404, 422 ...)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class ClusterClient(Protocol):
    """What `verify` reads and (only with --smoke) writes. Lists return items; ApiError/UnreachableError on failure."""

    def server(self) -> str:
        """The API server's address, for the report."""
        ...

    def version(self) -> Obj:
        """GET /version: gitVersion, major, minor."""
        ...

    def group_versions(self, group: str) -> list[str]:
        """The versions of an API group the server serves (GET /apis/<group>); empty when the group is not served."""
        ...

    def list_nodes(self) -> list[Obj]:
        """Every Node."""
        ...

    def list_resource_slices(self) -> list[Obj]:
        """Every resource.k8s.io/v1 ResourceSlice."""
        ...

    def list_device_classes(self) -> list[Obj]:
        """Every resource.k8s.io/v1 DeviceClass."""
        ...

    def list_resource_claim_templates(self, namespace: str) -> list[Obj]:
        """The ResourceClaimTemplates of one namespace."""
        ...

    def list_resource_claims(self, namespace: str) -> list[Obj]:
        """The ResourceClaims of one namespace."""
        ...

    def list_pods(self, namespace: str, label_selector: str | None = None) -> list[Obj]:
        """The pods of one namespace (optionally by label selector)."""
        ...

    def list_all_pods(self) -> list[Obj]:
        """The pods of every namespace (those asking for extended resources are looked for among them)."""
        ...

    def list_all_resource_claims(self) -> list[Obj]:
        """The ResourceClaims of every namespace (the claims the scheduler made for extended resources)."""
        ...

    def list_daemon_sets(self, namespace: str) -> list[Obj]:
        """The DaemonSets of one namespace."""
        ...

    def list_deployments(self, namespace: str) -> list[Obj]:
        """The Deployments of one namespace."""
        ...

    def create(self, kind: str, body: Obj, namespace: str | None = None) -> Obj:
        """Creates a Namespace, Pod or ResourceClaimTemplate (the smoke's objects only); returns it as created."""
        ...

    def delete_namespace(self, name: str) -> None:
        """Deletes a namespace (and everything in it); a namespace already gone is fine."""
        ...

    def read_pod(self, namespace: str, name: str) -> Obj:
        """One pod."""
        ...

    def read_resource_claim(self, namespace: str, name: str) -> Obj:
        """One ResourceClaim."""
        ...

    def pod_log(self, namespace: str, name: str) -> str:
        """A pod's (only container's) log."""
        ...

    def pod_proxy_get(self, namespace: str, name: str, port: int, path: str) -> str:
        """GET through the API server's pod proxy (/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/<path>)."""
        ...
