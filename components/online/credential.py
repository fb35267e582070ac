"""One Azure credential for every online command: azure-identity's `DefaultAzureCredential` (environment credentials,
workload identity from GitHub OIDC, managed identity, `az login`, in that order: azure-identity's
`_credentials/default.py`), or, for Azure Resource Manager only, a token a CI run already holds in `$ARM_ACCESS_TOKEN`.

A token is asked for with a deadline: `DefaultAzureCredential` may probe a managed-identity endpoint or wait on the
Azure CLI, and a command's `--timeout` bounds that wait as it bounds every other. Every failure is one line, masked,
naming what to do (`az login`, the environment variables, the package's `azure` extra when azure-identity is missing).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol

from .masking import mask

ARM_SCOPE = "https://management.azure.com/.default"
"""Azure Resource Manager (Compute usages and SKUs, Fleet update runs and gates)."""
PROMETHEUS_SCOPE = "https://prometheus.monitor.azure.com/.default"
"""Azure Monitor managed Prometheus's query API (MicrosoftDocs azure-monitor prometheus-api-promql: the token's audience)."""
TOKEN_ENV = "ARM_ACCESS_TOKEN"
"""An ARM access token a CI run already holds (`az account get-access-token`'s accessToken): used as it is, ARM only."""
INSTALL_HINT = "pip install 'aks-dra-vgpu[azure]'"
TOKEN_LIFETIME = 3600  # what an Entra access token lasts by default; a held token's true expiry is ARM's to judge


class TokenCredentialLike(Protocol):
    """azure-core's TokenCredential protocol, as far as the package uses it."""

    def get_token(self, *scopes: str, **kwargs: Any) -> Any: ...


class CredentialError(Exception):
    """No token could be had: one line saying why and what to do (never the token)."""


class HeldToken:
    """A TokenCredential over a token someone else obtained (`$ARM_ACCESS_TOKEN`): the same token for every request."""

    def __init__(self, token: str):
        self._token = token

    def __repr__(self) -> str:
        return "HeldToken(***)"

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        from azure.core.credentials import AccessToken

        return AccessToken(self._token, int(time.time()) + TOKEN_LIFETIME)


def azure_credential(scope: str, env: Mapping[str, str] | None = None) -> TokenCredentialLike:
    """The credential an online command uses for `scope`: `$ARM_ACCESS_TOKEN` for ARM when set, else
    DefaultAzureCredential (never interactive: a browser prompt in CI would wait forever)."""
    env = os.environ if env is None else env
    held = (env.get(TOKEN_ENV) or "").strip()
    if held and scope == ARM_SCOPE:
        return HeldToken(held)
    try:
        from azure.identity import DefaultAzureCredential
    except ImportError:
        raise CredentialError(f"azure-identity is not installed: {INSTALL_HINT}") from None
    return DefaultAzureCredential(exclude_interactive_browser_credential=True)


def bearer_token(credential: TokenCredentialLike, scope: str, timeout: float) -> str:
    """A token for `scope` from `credential`, waited for at most `timeout` seconds; CredentialError otherwise."""
    return access_token(credential, scope, timeout)[0]


def access_token(credential: TokenCredentialLike, scope: str, timeout: float) -> tuple[str, float]:
    """(a token for `scope`, when it expires in POSIX seconds) from `credential`, waited for at most `timeout` seconds;
    CredentialError otherwise. A command that outlives a token (fleet-rollout) asks again before it expires.

    The wait runs in a daemon thread: azure-identity offers no deadline of its own across its chain of credentials."""
    found: dict[str, Any] = {}
    # azure-identity logs each credential it tried at WARNING on the root handler; the one line below says it instead
    logging.getLogger("azure.identity").setLevel(logging.ERROR)

    def ask() -> None:
        try:
            found["token"] = credential.get_token(scope)
        except BaseException as exc:  # reported below, as one line
            found["error"] = exc

    worker = threading.Thread(target=ask, name="azure-token", daemon=True)
    worker.start()
    worker.join(max(0.0, timeout))
    if worker.is_alive():
        raise CredentialError(f"no Azure token for {scope} within {timeout:g} s: run `az login`, or set "
                              "AZURE_CLIENT_ID/AZURE_TENANT_ID with a secret or a federated token")
    if "error" in found:
        exc = found["error"]
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        why = " ".join(first.split())[:300].rstrip(".") or type(exc).__name__
        raise CredentialError(mask(
            f"no Azure token for {scope}: {type(exc).__name__}: {why}. Run `az login`, or set AZURE_CLIENT_ID/"
            f"AZURE_TENANT_ID with a secret or a federated token (workload identity), or {TOKEN_ENV} for ARM"))
    token = getattr(found.get("token"), "token", None)
    if not isinstance(token, str) or not token:
        raise CredentialError(f"no Azure token for {scope}: the credential returned none")
    expires = getattr(found["token"], "expires_on", None)
    return token, float(expires) if isinstance(expires, (int, float)) else time.time() + TOKEN_LIFETIME
