"""`ClusterClient` on the official Kubernetes Python client (the `verify` extra: pip install 'aks-dra-vgpu[verify]').

The kubeconfig is loaded by the client itself (kubernetes.config: contexts, client certificates, tokens), except
that an `exec` user (kubelogin for Entra ID clusters) is run here first, bounded by the run's deadline
(exec_plugin.py). Requests go through the client's typed API methods with
`_preload_content=False`, so every object comes back as the API's own JSON (what recorded responses and a real API
server give alike), whichever way the client's generated models differ between releases.
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import warnings
from typing import Any

from .client import ApiError, Obj, UnreachableError
from .exec_plugin import EXEC_TIMEOUT, ExecPluginError, with_static_user

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0
PAGE = 500
KUBECONFIG_HINT = ("no kubeconfig: pass --kubeconfig PATH or set KUBECONFIG (for this stack's cluster: "
                   "pulumi stack output kubeconfig --show-secrets > kubeconfig.yaml)")


class KubeconfigError(Exception):
    """No kubeconfig, or one the client cannot use: one line saying what to do."""


def _one_line(exc: BaseException, limit: int = 300) -> str:
    return " ".join(str(exc).split())[:limit] or type(exc).__name__


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and what it wraps, outermost first: urllib3's MaxRetryError keeps the cause in `.reason`, the
    connection errors below it in `__cause__` / `__context__`."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        reason = getattr(current, "reason", None)
        current = reason if isinstance(reason, BaseException) else (current.__cause__ or current.__context__)
    return chain


def connection_problem(exc: BaseException) -> str:
    """Why a request got no answer, in a few words. urllib3's own text (`HTTPSConnectionPool(host=..., port=...): Max
    retries exceeded with url: ... (Caused by NewConnectionError(...))`) repeats the address and says nothing a user can
    act on; the innermost cause does."""
    chain = _causes(exc)
    for cause in chain:
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"its TLS certificate is not trusted ({cause.verify_message or _one_line(cause)})"
    for cause in chain:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused (nothing listens at that address and port)"
        if isinstance(cause, socket.gaierror) or type(cause).__name__ == "NameResolutionError":
            return "its host name does not resolve"
        if isinstance(cause, (TimeoutError, socket.timeout)) or "Timeout" in type(cause).__name__:
            return "no answer in time"
        if isinstance(cause, ssl.SSLError):
            hint = ": does it serve plain HTTP?" if cause.reason == "WRONG_VERSION_NUMBER" else ""
            return f"the TLS handshake failed ({cause.reason or _one_line(cause)}{hint})"
    for cause in reversed(chain):  # the innermost error that says something of its own
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[:1].lower() + cause.strerror[1:]
    return _one_line(chain[-1])


def kubeconfig_path(path: str | None) -> str:
    """The kubeconfig to use: PATH, else $KUBECONFIG (its first existing file); KubeconfigError naming how to get one."""
    if path:
        if not os.path.isfile(path):
            raise KubeconfigError(f"--kubeconfig {path}: no such file; {KUBECONFIG_HINT}")
        return path
    for candidate in (os.environ.get("KUBECONFIG") or "").split(os.pathsep):
        if candidate and os.path.isfile(candidate):
            return candidate
    if os.environ.get("KUBECONFIG"):
        raise KubeconfigError(f"KUBECONFIG={os.environ['KUBECONFIG']}: no such file; {KUBECONFIG_HINT}")
    raise KubeconfigError(KUBECONFIG_HINT)


class KubernetesClient:
    """The cluster through the official client (one ApiClient, bounded timeouts, no retries behind the user's back)."""

    def __init__(self, api_client: Any, deadline: Any = None):
        from kubernetes import client

        self._api = api_client
        self._deadline = deadline
        # insecure-skip-tls-verify: urllib3 warns on every request (InsecureRequestWarning); verify says it once instead
        self.tls_verified = bool(getattr(api_client.configuration, "verify_ssl", True))
        self._core = client.CoreV1Api(api_client)
        self._apps = client.AppsV1Api(api_client)
        self._resource = client.ResourceV1Api(api_client)
        self._group = client.ResourceApi(api_client)
        self._version = client.VersionApi(api_client)

    @classmethod
    def from_kubeconfig(cls, path: str | None = None, context: str | None = None, deadline: Any = None) -> KubernetesClient:
        """A client for the kubeconfig's (current or named) context; KubeconfigError / UnreachableError."""
        try:
            from kubernetes import client, config
        except ImportError:
            raise KubeconfigError("verify needs the Kubernetes client: pip install 'aks-dra-vgpu[verify]'") from None
        file = kubeconfig_path(path)
        configuration = client.Configuration()
        try:
            static = _exec_user_run(file, context, deadline)
            if static is None:
                config.load_kube_config(config_file=file, context=context, client_configuration=configuration,
                                        persist_config=False)
            else:
                config.load_kube_config_from_dict(static, context=context, client_configuration=configuration,
                                                  persist_config=False)
        except ExecPluginError as exc:
            raise KubeconfigError(str(exc)) from None
        except Exception as exc:  # ConfigException, unreadable YAML: one line each
            raise KubeconfigError(f"kubeconfig {file}: {_one_line(exc)}") from None
        configuration.retries = 0
        return cls(client.ApiClient(configuration), deadline)

    # --- plumbing -----------------------------------------------------------------------------------------------------
    def _timeout(self) -> tuple[float, float]:
        read = READ_TIMEOUT
        if self._deadline is not None:
            read = max(1.0, min(read, self._deadline.left()))
        return (min(CONNECT_TIMEOUT, read), read)

    def _call(self, method: Any, *args: Any, raw: bool = False, **kwargs: Any) -> Any:
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import InsecureRequestWarning

        try:
            with warnings.catch_warnings():
                if not self.tls_verified:  # for this client's requests only; the process's filters are restored
                    warnings.simplefilter("ignore", InsecureRequestWarning)
                response = method(*args, _preload_content=False, _request_timeout=self._timeout(), **kwargs)
        except ApiException as exc:
            status = int(exc.status or 0)
            message = _api_message(exc)
            if status in (401,) or status == 0:
                raise UnreachableError(f"{self.server()}: {status or ''} {message}".strip()) from None
            raise ApiError(status, message) from None
        except Exception as exc:  # urllib3 connection, TLS and timeout errors; an exec plugin failing on refresh
            raise UnreachableError(f"cannot reach the API server at {self.server()}: {connection_problem(exc)}") from None
        data = response.data
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        if raw:
            return text
        try:
            return json.loads(text)
        except ValueError:
            raise UnreachableError(f"{self.server()} is not a Kubernetes API server: it answered with something other "
                                   "than JSON") from None

    def _list(self, method: Any, *args: Any, **kwargs: Any) -> list[Obj]:
        items: list[Obj] = []
        token = None
        while True:
            page = self._call(method, *args, limit=PAGE, _continue=token, **kwargs)
            items += page.get("items") or []
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return items

    # --- ClusterClient ------------------------------------------------------------------------------------------------
    def server(self) -> str:
        """The API server's address."""
        return str(self._api.configuration.host)

    def version(self) -> Obj:
        """GET /version."""
        return self._call(self._version.get_code)

    def group_versions(self, group: str) -> list[str]:
        """Versions of resource.k8s.io served (only that group has a typed getter here)."""
        if group != "resource.k8s.io":
            raise ValueError(group)
        try:
            found = self._call(self._group.get_api_group)
        except ApiError as exc:
            if exc.status == 404:
                return []
            raise
        return [v.get("version") for v in found.get("versions") or [] if v.get("version")]

    def list_nodes(self) -> list[Obj]:
        """Every Node."""
        return self._list(self._core.list_node)

    def list_resource_slices(self) -> list[Obj]:
        """Every ResourceSlice."""
        return self._list(self._resource.list_resource_slice)

    def list_device_classes(self) -> list[Obj]:
        """Every DeviceClass."""
        return self._list(self._resource.list_device_class)

    def list_resource_claim_templates(self, namespace: str) -> list[Obj]:
        """ResourceClaimTemplates of a namespace."""
        return self._list(self._resource.list_namespaced_resource_claim_template, namespace)

    def list_resource_claims(self, namespace: str) -> list[Obj]:
        """ResourceClaims of a namespace."""
        return self._list(self._resource.list_namespaced_resource_claim, namespace)

    def list_pods(self, namespace: str, label_selector: str | None = None) -> list[Obj]:
        """Pods of a namespace."""
        return self._list(self._core.list_namespaced_pod, namespace, label_selector=label_selector)

    def list_all_pods(self) -> list[Obj]:
        """Pods of every namespace."""
        return self._list(self._core.list_pod_for_all_namespaces)

    def list_all_resource_claims(self) -> list[Obj]:
        """ResourceClaims of every namespace."""
        return self._list(self._resource.list_resource_claim_for_all_namespaces)

    def list_daemon_sets(self, namespace: str) -> list[Obj]:
        """DaemonSets of a namespace."""
        return self._list(self._apps.list_namespaced_daemon_set, namespace)

    def list_deployments(self, namespace: str) -> list[Obj]:
        """Deployments of a namespace."""
        return self._list(self._apps.list_namespaced_deployment, namespace)

    def create(self, kind: str, body: Obj, namespace: str | None = None) -> Obj:
        """Creates the smoke's objects: a Namespace, or a Pod / ResourceClaimTemplate in the smoke's namespace."""
        if kind == "Namespace":
            return self._call(self._core.create_namespace, body)
        if kind == "Pod":
            return self._call(self._core.create_namespaced_pod, namespace, body)
        if kind == "ResourceClaimTemplate":
            return self._call(self._resource.create_namespaced_resource_claim_template, namespace, body)
        raise ValueError(f"verify creates no {kind}")

    def delete_namespace(self, name: str) -> None:
        """Deletes a namespace; already gone is fine."""
        try:
            self._call(self._core.delete_namespace, name)
        except ApiError as exc:
            if exc.status != 404:
                raise

    def read_pod(self, namespace: str, name: str) -> Obj:
        """One pod."""
        return self._call(self._core.read_namespaced_pod, name, namespace)

    def read_resource_claim(self, namespace: str, name: str) -> Obj:
        """One ResourceClaim."""
        return self._call(self._resource.read_namespaced_resource_claim, name, namespace)

    def pod_log(self, namespace: str, name: str) -> str:
        """A pod's log."""
        return self._call(self._core.read_namespaced_pod_log, name, namespace, raw=True)

    def pod_proxy_get(self, namespace: str, name: str, port: int, path: str) -> str:
        """GET through the API server's pod proxy."""
        return self._call(self._core.connect_get_namespaced_pod_proxy_with_path, f"{name}:{port}", namespace, path,
                          raw=True)


def _exec_user_run(file: str, context: str | None, deadline: Any) -> dict[str, Any] | None:
    """The kubeconfig with the context's `exec` user run here, bounded by the deadline (exec_plugin.py says why), or
    None when it has none."""
    import yaml

    with open(file, "rb") as f:  # YAML finds its own encoding (UTF-8/16/32, as the client reads it)
        loaded = yaml.safe_load(f)
    if not isinstance(loaded, dict):
        return None  # the client says what is wrong with it
    timeout = EXEC_TIMEOUT if deadline is None else min(EXEC_TIMEOUT, deadline.left())
    return with_static_user(loaded, context, os.path.dirname(os.path.abspath(file)), timeout)


def _api_message(exc: Any) -> str:
    """The Status message the API server sent, else the HTTP reason."""
    try:
        body = json.loads(exc.body)
        if isinstance(body, dict) and body.get("message"):
            return _one_line(body["message"])
    except (TypeError, ValueError):
        pass
    return _one_line(exc.reason or "error")
