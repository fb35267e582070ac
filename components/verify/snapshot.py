"""What `verify` reads from the cluster, read once per round through the client: a Snapshot the checks look at.

A read the API server refuses (403, 404 ...) is kept as an error for the checks to report; an unreachable server or
refused credentials end the run (UnreachableError).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .client import ApiError, ClusterClient, Obj, UnreachableError
from .expected import Expected


@dataclass
class Snapshot:
    """The cluster as one round of reads found it."""

    server: str
    version: Obj
    resource_versions: list[str]
    nodes: list[Obj] = field(default_factory=list)
    slices: list[Obj] = field(default_factory=list)
    device_classes: list[Obj] = field(default_factory=list)
    templates: list[Obj] = field(default_factory=list)
    claims: list[Obj] = field(default_factory=list)
    driver_daemon_sets: list[Obj] = field(default_factory=list)
    driver_deployments: list[Obj] = field(default_factory=list)
    driver_pods: list[Obj] = field(default_factory=list)
    metrics_daemon_sets: list[Obj] = field(default_factory=list)
    metrics_pods: list[Obj] = field(default_factory=list)
    all_pods: list[Obj] = field(default_factory=list)  # read only where some class maps an extended resource name
    all_claims: list[Obj] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # what could not be read -> why


def take(client: ClusterClient, exp: Expected) -> Snapshot:
    """Reads everything the checks need (UnreachableError propagates: nothing else is worth trying then)."""
    try:
        version = client.version()
    except ApiError as exc:
        # Every kube-apiserver serves GET /version, to anyone signed in or not (the system:public-info-viewer role,
        # kubernetes/enhancements KEP-789): a 404 there comes from some other server (a web server, a wrong path).
        if exc.status == 404:
            raise UnreachableError(f"{client.server()} is not a Kubernetes API server: GET /version answered 404 "
                                   f"{exc.message}") from None
        raise UnreachableError(f"{client.server()}: GET /version answered {exc}") from None
    try:
        groups = client.group_versions("resource.k8s.io")
    except ApiError as exc:  # not even discovery: the credentials may not list API groups
        raise UnreachableError(f"{client.server()}: GET /apis/resource.k8s.io answered {exc}") from None
    snap = Snapshot(server=client.server(), version=version, resource_versions=groups)
    served = "v1" in snap.resource_versions

    def read(name: str, call: Callable[[], list[Any]]) -> list[Any]:
        try:
            return call()
        except ApiError as exc:
            snap.errors[name] = str(exc)
            return []

    snap.nodes = read("nodes", client.list_nodes)
    if served:
        snap.slices = read("resourceslices", client.list_resource_slices)
        snap.device_classes = read("deviceclasses", client.list_device_classes)
        if exp.samples_namespace:
            ns = exp.samples_namespace
            snap.templates = read("resourceclaimtemplates", lambda: client.list_resource_claim_templates(ns))
            if exp.shared_claim:
                snap.claims = read("resourceclaims", lambda: client.list_resource_claims(ns))
        if exp.extended or any((c.get("spec") or {}).get("extendedResourceName") for c in snap.device_classes):
            snap.all_pods = read("pods (all namespaces)", client.list_all_pods)
            snap.all_claims = read("resourceclaims (all namespaces)", client.list_all_resource_claims)
    def daemon_sets_and_pods(what: str, ns: str) -> tuple[list[Any], list[Any]]:
        """The DaemonSets and pods of one namespace (the driver's, the exporter's), each read on its own."""
        return (read(f"{what} daemonsets", lambda: client.list_daemon_sets(ns)),
                read(f"{what} pods", lambda: client.list_pods(ns)))

    if exp.driver_namespace:
        ns = exp.driver_namespace
        snap.driver_daemon_sets, snap.driver_pods = daemon_sets_and_pods("driver", ns)
        if exp.controller_deployment:
            snap.driver_deployments = read("driver deployments", lambda: client.list_deployments(ns))
    if exp.metrics_namespace:
        snap.metrics_daemon_sets, snap.metrics_pods = daemon_sets_and_pods("metrics", exp.metrics_namespace)
    return snap
