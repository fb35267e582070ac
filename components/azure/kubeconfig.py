"""The kubeconfig a cluster's Kubernetes provider uses: decoded from AKS's credential API and, for Entra ID clusters,
converted to kubelogin's non-interactive login (never device code, so CI and `pulumi up` run unattended)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import yaml

from ..config import AuthConfig


def decode_kubeconfig(value: str) -> str:
    """The credential API returns each kubeconfig base64-encoded."""
    return base64.b64decode(value).decode("utf-8")


# AKS's Entra ID server application, the same in every tenant: API-server tokens are issued for it (kubelogin docs).
AKS_AAD_SERVER_ID = "6dae42f8-4368-4678-94ff-3960e28e3630"
# The exec credential API version kubelogin writes (and AKS's own kubeconfigs carry).
KUBELOGIN_EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
KUBELOGIN_INSTALL_HINT = (
    "\nkubelogin is not installed which is required to connect to AAD enabled cluster.\n\n"
    "To learn more, please go to https://azure.github.io/kubelogin/\n"
)


def _exec_arg(args: list[str], flag: str) -> str | None:
    """The value that follows `flag` in an exec argument list, as kubelogin reads its own earlier arguments."""
    for i, arg in enumerate(args[:-1]):
        if arg == flag:
            return args[i + 1]
    return None


def kubelogin_exec(current: Mapping[str, Any], auth: AuthConfig) -> dict[str, Any]:
    """The exec block `kubelogin convert-kubeconfig -l <auth.login_mode>` writes for one kubelogin user.

    Mirrors kubelogin's converter: --server-id always; azurecli takes --tenant-id only when set here (az login
    decides otherwise); spn keeps the kubeconfig's --client-id, --tenant-id and --environment unless set here (the
    AZURE_CLIENT_ID / AAD_SERVICE_PRINCIPAL_CLIENT_ID and *_CLIENT_SECRET variables override them when kubelogin runs,
    so no secret is ever written); workloadidentity takes only what is set here and reads AZURE_CLIENT_ID,
    AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE and AZURE_AUTHORITY_HOST from the environment.
    """
    old = list(current.get("args") or [])
    args = ["get-token", "--login", auth.login_mode, "--server-id", _exec_arg(old, "--server-id") or AKS_AAD_SERVER_ID]
    cache_dir = _exec_arg(old, "--cache-dir") or _exec_arg(old, "--token-cache-dir")
    if cache_dir:
        args += ["--cache-dir", cache_dir]
    if auth.login_mode == "spn":
        client_id = auth.client_id or _exec_arg(old, "--client-id")
        tenant_id = auth.tenant_id or _exec_arg(old, "--tenant-id")
        missing = [f"cluster.auth.{key}" for key, value in (("clientId", client_id), ("tenantId", tenant_id)) if not value]
        if missing:
            raise ValueError(f"kubelogin's spn login needs {' and '.join(missing)} (the kubeconfig names none)")
        args += ["--client-id", client_id, "--tenant-id", tenant_id]
        environment = auth.environment or _exec_arg(old, "--environment")
        if environment:
            args += ["--environment", environment]
        if "--legacy" in old:
            args.append("--legacy")
    else:
        if auth.login_mode == "workloadidentity" and auth.client_id:
            args += ["--client-id", auth.client_id]
        if auth.tenant_id:
            args += ["--tenant-id", auth.tenant_id]
    return {
        "apiVersion": KUBELOGIN_EXEC_API_VERSION,
        "command": "kubelogin",
        "args": args,
        "env": None,
        "installHint": current.get("installHint") or KUBELOGIN_INSTALL_HINT,
        "provideClusterInfo": False,
    }


def to_kubelogin_kubeconfig(kubeconfig: str, auth: AuthConfig) -> str:
    """Rewrites every kubelogin user of a kubeconfig (YAML text) to `auth`'s non-interactive login, as
    `kubelogin convert-kubeconfig -l <mode>` does; clusters, contexts and other users stay exactly as they were.

    AKS hands out Entra ID kubeconfigs that log in by device code, which waits for a person: a provider that CI runs
    must never use one. With local accounts (no kubelogin user) the text comes back unchanged.
    """
    if auth.mode != "entraId":
        return kubeconfig
    doc = yaml.safe_load(kubeconfig)
    for entry in doc.get("users") or []:
        user = entry.get("user") or {}
        current = user.get("exec") or {}
        if "kubelogin" not in str(current.get("command", "")).lower():
            continue
        entry["user"] = {**user, "exec": kubelogin_exec(current, auth)}
    return yaml.safe_dump(doc, sort_keys=False)
