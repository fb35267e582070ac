"""The one seam between `fleet-rollout` and Azure Resource Manager: ARM's REST calls at Fleet API 2026-06-01, over plain
HTTPS (urllib), with the package's one credential.

Why not azure-mgmt-containerservicefleet, although its 4.0.0 speaks 2026-06-01 (its `_configuration.py`: api_version
"2026-06-01"; `GatesOperations`): that release "only targets the latest Api-Version" (its changelog), so each next one
moves the API under the gates and would have to be pinned below 5 and told `api_version` anyway; its update-run start
and stop and the gate approval are long-running-operation pollers that wait on the SDK's own polling interval, while
this command already follows the run itself and bounds every wait by its deadline; and the decisions here are pure
functions over ARM's JSON (`updaterun`), tested against a fake ARM on loopback. Five pinned calls stay cheaper and
stricter than that. Why not `az fleet`: its extension's version decides the API version too, and parsing a CLI's output
is a worse contract than ARM's JSON. So: `ArmClient(base_url, token)` sends JSON and returns JSON, nothing else.

The token comes from a `TokenProvider`; `CredentialToken` is the package's one credential (`online.credential`:
`$ARM_ACCESS_TOKEN` when set, else azure-identity's DefaultAzureCredential: environment, workload identity from GitHub
OIDC, managed identity, the `az login` session), asked again before the token it gave expires.

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
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from ..online.credential import CredentialError, access_token
from ..online.masking import mask

PUBLIC_CLOUD = "https://management.azure.com"
ROLE = "Azure Kubernetes Fleet Manager Contributor Role"
ROLE_ID = "63bb64ad-9799-4770-b5c3-24ed299a07bf"
TIMEOUT = 30.0
RETRIES = 3  # GETs only: a 429/5xx while polling a run that lasts hours must not end the rollout
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REFRESH_MARGIN = 300.0  # ask for a new token this many seconds before the one held expires
TOKEN_TIMEOUT = 60.0  # one wait for a token (azure-identity may probe a managed identity or run the Azure CLI)

TokenProvider = Callable[[], str]


class ArmError(Exception):
    """ARM refused or could not be reached: status (0 = no answer), ARM's error code, and one line saying why."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code


class TokenError(Exception):
    """No ARM token could be had: one line saying how to get one (the credential's CredentialError)."""


class CredentialToken:
    """A TokenProvider over the package's one credential (`online.credential`: azure-identity's DefaultAzureCredential,
    or `$ARM_ACCESS_TOKEN`), each token kept until shortly before it expires (a rollout outlives one token: update
    runs take hours) and each wait for one bounded."""

    def __init__(self, credential: Any, scope: str, timeout: float = TOKEN_TIMEOUT,
                 clock: Callable[[], float] = time.time):
        self.credential = credential
        self.scope = scope
        self.timeout = timeout
        self._clock = clock
        self._token = ""
        self._expires = 0.0

    def __call__(self) -> str:
        if self._token and self._clock() < self._expires - REFRESH_MARGIN:
            return self._token
        try:
            self._token, self._expires = access_token(self.credential, self.scope, self.timeout)
        except CredentialError as exc:
            raise TokenError(str(exc)) from None
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
