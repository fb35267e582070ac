"""Where the metrics come from and how to get in: `--prometheus URL` checked before anything is sent, and the bearer
token it needs.

- A self-hosted Prometheus: no token, or the one in `$PROMETHEUS_TOKEN` (sent as `Authorization: Bearer`).
- Azure Monitor managed Prometheus: the workspace's query endpoint (`https://<workspace>.<region>.prometheus.monitor.
  azure.com`, the `prometheusQueryEndpoint` GpuPlatform exports), read with a Microsoft Entra token for
  `https://prometheus.monitor.azure.com/.default` from azure-identity (`online.credential`); the identity needs
  Monitoring Data Reader on the workspace (MicrosoftDocs azure-monitor-docs articles/azure-monitor/metrics/
  prometheus-api-promql.md: "Authentication", "Allow your app access to your workspace"). `--entra` asks for such a
  token for another host (a private endpoint's name, a proxy).
`$PROMETHEUS_TOKEN`, when set, is used whatever the host (a token `az account get-access-token` printed, say).
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..online.credential import (
    PROMETHEUS_SCOPE,
    CredentialError,
    TokenCredentialLike,
    azure_credential,
    bearer_token,
)

TOKEN_ENV = "PROMETHEUS_TOKEN"
AZURE_SUFFIX = ".prometheus.monitor.azure.com"
READER_ROLE = "Monitoring Data Reader"
# AKS cluster names: letters, digits, '-' and '_', up to 63; the agent's cluster_alias keeps letters, digits and '_'
# (Azure/prometheus-collector otelcollector/shared/configmap/mp/tomlparser-prometheus-collector-settings.go).
_CLUSTER = re.compile(r"[A-Za-z0-9][-A-Za-z0-9_]{0,62}", re.ASCII)


@dataclass(frozen=True)
class Endpoint:
    """A Prometheus query API's base URL, and how to authenticate to it: `entra`, `token` (the environment's) or
    `none`."""

    url: str
    auth: str

    @property
    def azure(self) -> bool:
        """Azure Monitor managed Prometheus, by its host name."""
        return (urllib.parse.urlsplit(self.url).hostname or "").endswith(AZURE_SUFFIX)

    def refused(self, status: int) -> str:
        """What a 401 or 403 means here, and what to do."""
        what = "refused the token" if status == 401 else "the identity may not read it"
        if self.auth == "entra" or self.azure:
            return (f"{self.url} answered {status} ({what}): the identity needs the '{READER_ROLE}' role on the Azure "
                    "Monitor workspace (az role assignment create --role 'Monitoring Data Reader' --assignee <you> "
                    "--scope <workspace id>); role assignments take a few minutes to apply")
        if self.auth == "token":
            return f"{self.url} answered {status} ({what}): check the token in {TOKEN_ENV}"
        return (f"{self.url} answered {status} ({what}): it wants a token; put it in {TOKEN_ENV}, or pass --entra for "
                f"an Azure Monitor workspace ('{READER_ROLE}' on it)")


def endpoint(url: str, entra: bool = False, env: Mapping[str, str] | None = None) -> Endpoint:
    """`--prometheus` checked (http or https, a host, no credentials, query or fragment in it) and its auth chosen;
    ValueError naming the flag."""
    env = os.environ if env is None else env
    text = url.strip()
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"--prometheus {text[:200]!r}: not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--prometheus {text[:200]!r}: expected http(s)://HOST[:PORT][/PATH], e.g. "
                         "http://localhost:9090 or the Azure Monitor workspace's query endpoint "
                         f"https://<workspace>.<region>{AZURE_SUFFIX}")
    if parts.username or parts.password:
        raise ValueError(f"--prometheus: no credentials in the URL (they would be printed and logged); put a token "
                         f"in {TOKEN_ENV}")
    if parts.query or parts.fragment:
        raise ValueError(f"--prometheus {text[:200]!r}: the API's base URL only, without ?query or #fragment "
                         "(the command adds /api/v1/query)")
    host = parts.hostname + (f":{port}" if port else "")
    base = urllib.parse.urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))
    azure = parts.hostname.endswith(AZURE_SUFFIX)
    if azure and parts.scheme != "https":
        raise ValueError(f"--prometheus {base}: Azure Monitor's query endpoint is served over https")
    auth = "token" if (env.get(TOKEN_ENV) or "").strip() else "entra" if azure or entra else "none"
    return Endpoint(base, auth)


def token_for(place: Endpoint, timeout: float, env: Mapping[str, str] | None = None,
              credential: Callable[[str], TokenCredentialLike] | None = None) -> str | None:
    """The bearer token to send (None: none), waited for at most `timeout` seconds; ValueError saying why not."""
    env = os.environ if env is None else env
    if place.auth == "token":
        return (env.get(TOKEN_ENV) or "").strip()
    if place.auth != "entra":
        return None
    try:
        found = (credential or azure_credential)(PROMETHEUS_SCOPE)
        return bearer_token(found, PROMETHEUS_SCOPE, timeout)
    except CredentialError as exc:
        raise ValueError(str(exc)) from None


def cluster_name(text: str) -> str:
    """`--cluster`: the value managed Prometheus puts in every series' `cluster` label (the AKS cluster's name, the
    last part of its resource ID, unless the agent's cluster_alias says otherwise: Azure/prometheus-collector
    otelcollector/opentelemetry-collector-builder/collector-config-default.yml, external label `cluster`)."""
    if not _CLUSTER.fullmatch(text):
        raise ValueError(f"--cluster {text[:80]!r}: a cluster's name is letters, digits, '-' and '_' (at most 63)")
    return text
