"""The one seam between `fleet-rollout` and Azure Resource Manager: plain HTTPS (urllib) with a bearer token.

Why not the Azure SDK: the SDK's `azure-mgmt-containerservicefleet` would be a new dependency tree (azure-core,
azure-identity, msal ...) for five calls, and the release a user has installed decides which API version it speaks;
gates need 2026-06-01 exactly. Why not `az fleet`: its extension's version decides the API version too, and parsing a
CLI's output is a worse contract than ARM's JSON. So: `ArmClient(base_url, token)` sends JSON and returns JSON, nothing
else. The token comes from a `TokenProvider`: `$ARM_ACCESS_TOKEN` when set (any CI that already holds one), else
`az account get-access-token` (the session `az login` / azure/login left), refreshed before it expires.

Errors are one line each: ARM's own `{"error": {"code", "message"}}`; a 403 names the role that grants update runs and
gates (MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/concepts-rbac.md: "Azure Kubernetes Fleet Manager
Contributor" grants read and write on fleets, members, update strategies and update runs; the RBAC Reader/Writer/
Admin/Cluster Admin roles are data-plane roles on the hub's Kubernetes objects only and grant none of this).

Every text made of an answer or an exception passes `mask` on its way out of `ArmClient`: ARM's messages may repeat
the request's `Authorization` header or the token itself (an InvalidAuthenticationToken message quoting it). Every
socket wait is bounded by what is left of the command's deadline, so an ARM that never answers cannot outlast it.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from ..online.masking import mask

PUBLIC_CLOUD = "https://management.azure.com"
TOKEN_ENV = "ARM_ACCESS_TOKEN"
ROLE = "Azure Kubernetes Fleet Manager Contributor Role"
ROLE_ID = "63bb64ad-9799-4770-b5c3-24ed299a07bf"
TIMEOUT = 30.0
RETRIES = 3  # GETs only: a 429/5xx while polling a run that lasts hours must not end the rollout
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REFRESH_MARGIN = 300.0  # refresh an az token this many seconds before it expires

TokenProvider = Callable[[], str]


class ArmError(Exception):
    """ARM refused or could not be reached: status (0 = no answer), ARM's error code, and one line saying why."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code


class TokenError(Exception):
    """No ARM token could be had: one line saying how to get one."""


def env_token(name: str = TOKEN_ENV) -> TokenProvider | None:
    """A provider returning `$name`, or None when it is unset."""
    value = os.environ.get(name, "").strip()
    return (lambda: value) if value else None


class AzCliToken:
    """`az account get-access-token --resource <ARM>`, cached until shortly before it expires (a rollout outlives one
    token: update runs take hours)."""

    def __init__(self, resource: str = PUBLIC_CLOUD, run: Callable[..., Any] = subprocess.run,
                 clock: Callable[[], float] = time.time):
        self.resource = resource.rstrip("/") + "/"
        self._run = run
        self._clock = clock
        self._token = ""
        self._expires = 0.0

    def __call__(self) -> str:
        if self._token and self._clock() < self._expires - REFRESH_MARGIN:
            return self._token
        try:
            done = self._run(["az", "account", "get-access-token", "--resource", self.resource, "--output", "json"],
                             capture_output=True, text=True, timeout=60)
        except FileNotFoundError:
            raise TokenError(f"no ARM token: the Azure CLI (az) is not installed; run `az login` with it, or set "
                             f"{TOKEN_ENV}") from None
        except subprocess.TimeoutExpired:
            raise TokenError("no ARM token: `az account get-access-token` did not answer within 60 s") from None
        if done.returncode != 0:
            why = " ".join((done.stderr or "").split())[:300] or f"exit {done.returncode}"
            raise TokenError(f"no ARM token: `az account get-access-token` failed ({why}); run `az login` or set "
                             f"{TOKEN_ENV}")
        try:
            found = json.loads(done.stdout)
            self._token = str(found["accessToken"])
        except (ValueError, KeyError, TypeError):
            raise TokenError("no ARM token: `az account get-access-token` printed no accessToken") from None
        # `expires_on` (POSIX seconds) is in az's output from 2.54; without it, ask again in half an hour.
        expires = found.get("expires_on")
        self._expires = float(expires) if isinstance(expires, (int, float, str)) and str(expires).isdigit() else (
            self._clock() + 1800 + REFRESH_MARGIN)
        return self._token


def _error_of(status: int, raw: bytes, method: str, path: str) -> ArmError:
    try:
        err = json.loads(raw or b"{}").get("error") or {}
    except (ValueError, AttributeError):
        err = {}
    code = str(err.get("code") or status)
    message = " ".join(str(err.get("message") or raw[:300].decode("utf-8", "replace") or "no message").split())[:400]
    if status == 403 or code in ("AuthorizationFailed", "LinkedAuthorizationFailed"):
        return ArmError(status, code, f"ARM refused {method} {path.split('?')[0]} ({code}): the identity needs the "
                        f"'{ROLE}' ({ROLE_ID}) on the fleet or its resource group; Fleet Manager RBAC roles do not "
                        "cover update runs or gates")
    return ArmError(status, code, f"ARM {method} {path.split('?')[0]}: {status} {code}: {message}")


class ArmClient:
    """JSON over HTTPS to ARM: `request(method, path, api_version, body)`; ArmError on any refusal."""

    def __init__(self, token: TokenProvider, base_url: str = PUBLIC_CLOUD, timeout: float = TIMEOUT,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 deadline: float | None = None):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.sleep = sleep
        self.clock = clock
        self.deadline = deadline  # on `clock`: no socket wait, no retry pause goes past it
        self._secrets: set[str] = set()

    def mask(self, text: str) -> str:
        """`text` with every token this client has sent (and anything shaped like one) masked."""
        return mask(text, self._secrets)

    def request(self, method: str, path: str, api_version: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Sends one request (a GET is retried on 429/5xx); the response's JSON, {} for an empty body. An ArmError's
        message never holds the token; code Timeout when the deadline ran out first."""
        try:
            return self._request(method, path, api_version, body)
        except ArmError as exc:
            raise ArmError(exc.status, self.mask(exc.code), self.mask(str(exc))) from None

    def _left(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock()

    def _timed_out(self, method: str, path: str) -> ArmError:
        return ArmError(0, "Timeout", f"ARM {method} {path.split('?')[0]}: no answer from {self.base_url} before the "
                        "command's time limit")

    def _pause(self, seconds: float, method: str, path: str) -> None:
        left = self._left()
        if left is not None and left <= seconds:
            raise self._timed_out(method, path)  # a retry after the deadline could not be waited for anyway
        self.sleep(seconds)

    def _request(self, method: str, path: str, api_version: str, body: dict[str, Any] | None) -> dict[str, Any]:
        url = f"{self.base_url}{path}{'&' if '?' in path else '?'}api-version={api_version}"
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(1, RETRIES + 1):
            try:
                token = self.token()
            except TokenError as exc:
                raise ArmError(401, "NoToken", str(exc)) from None
            self._secrets.add(token)
            left = self._left()
            if left is not None and left <= 0:
                raise self._timed_out(method, path)
            wait = self.timeout if left is None else min(self.timeout, left)
            request = urllib.request.Request(url, data=data, method=method, headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=wait) as response:
                    raw = response.read()
                    return json.loads(raw) if raw.strip() else {}
            except urllib.error.HTTPError as exc:
                raw = exc.read()
                if method == "GET" and exc.code in RETRY_STATUSES and attempt < RETRIES:
                    self._pause(min(_seconds(exc.headers.get("Retry-After"), 5.0 * attempt), 60.0), method, path)
                    continue
                raise _error_of(exc.code, raw, method, path) from None
            except (urllib.error.URLError, OSError) as exc:
                left = self._left()
                if left is not None and left <= 0:
                    raise self._timed_out(method, path) from None
                if method == "GET" and attempt < RETRIES:
                    self._pause(5.0 * attempt, method, path)
                    continue
                reason = getattr(exc, "reason", exc)
                raise ArmError(0, "Unreachable", f"ARM {method} {path.split('?')[0]}: no answer from {self.base_url} "
                               f"({reason})") from None
            except ValueError:
                raise ArmError(200, "NotJson", f"ARM {method} {path.split('?')[0]}: the answer is not JSON") from None
        raise AssertionError("unreachable")  # the loop returns or raises


def _seconds(header: str | None, default: float) -> float:
    """A Retry-After header's seconds (an HTTP date or garbage counts as absent)."""
    try:
        return max(0.0, float(header)) if header else default
    except ValueError:
        return default
