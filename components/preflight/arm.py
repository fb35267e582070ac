"""The one seam between `preflight` and Azure: azure-mgmt-compute's `ComputeManagementClient`, read-only, with the
package's one credential (`online.credential`), every wait bounded by the command's deadline.

Two calls per subscription and region (Azure/azure-rest-api-specs, specification/compute/resource-manager/
Microsoft.Compute): `usage.list(location)` (`GET .../providers/Microsoft.Compute/locations/{l}/usages`) and
`resource_skus.list(filter="location eq '{l}'")` (`GET .../providers/Microsoft.Compute/skus`, "Only **location**
filter is supported"). Both page with `nextLink`, followed by the SDK's pager (`ItemPaged`).

The deadline reaches every wait through public azure-core extension points: a policy in the client's
`custom_hook_policy` slot (it runs once per attempt, after the retry policy) gives each socket at most what is left
(`connection_timeout`, `read_timeout`: azure-core's RequestsTransport options), and the retry policy's `sleep` (429 and
5xx are retried, honouring Retry-After: azure-core `pipeline/policies/_retry.py`) never pauses past the deadline. Its
clock and sleep are injectable, so tests of the backoff do not wait.

Every failure is one line (`ArmReadError`), masked (`online.masking`): a 401 says the token expired or is not an ARM
token, a 403 names the Reader role, a region the subscription cannot use says so, an ARM that never answers says the
`--timeout` ran out.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from azure.core.exceptions import HttpResponseError, ServiceRequestError, ServiceResponseError
from azure.core.pipeline.policies import RetryPolicy, SansIOHTTPPolicy

from ..online.endpoints import needs_plain_http
from ..online.masking import mask
from .facts import RegionFacts, Restriction, Sku, Usage, usages_by_name

READER_ROLE = "Reader"
READER_ROLE_ID = "acdd72a7-3385-48ef-bd42-f606fba81ae7"  # built-in "Reader": */read (usages and SKUs are reads)
RETRIES = 6  # 429 and 5xx; each pause bounded by the deadline
REGION_CODES = ("NoRegisteredProviderFound", "LocationNotAvailableForResourceType", "InvalidLocation", "LocationRequired")


class ArmReadError(Exception):
    """ARM could not be read: one line saying why and what to do (never a token); `region_only` when it concerns one
    region (the subscription cannot use it), not the credential, the role or ARM itself."""

    def __init__(self, line: str, region_only: bool = False):
        super().__init__(line)
        self.region_only = region_only


class DeadlineError(Exception):
    """The command's deadline came before an answer (raised inside the pipeline, outside azure-core's own errors so
    that its retry policy does not retry it)."""


class DeadlinePolicy(SansIOHTTPPolicy):
    """Gives each attempt's sockets at most the time left before the deadline; none left, no attempt."""

    def __init__(self, deadline: float, clock: Callable[[], float]):
        super().__init__()
        self.deadline = deadline
        self.clock = clock

    def on_request(self, request: Any) -> None:
        left = self.deadline - self.clock()
        if left <= 0:
            raise DeadlineError()
        request.context.options["connection_timeout"] = left
        request.context.options["read_timeout"] = left


class DeadlineRetryPolicy(RetryPolicy):
    """azure-core's retry policy (429, 5xx, Retry-After, exponential backoff) whose pauses stop at the deadline."""

    def __init__(self, deadline: float, clock: Callable[[], float], sleep: Callable[[float], None], **kwargs: Any):
        super().__init__(retry_total=RETRIES, **kwargs)
        self.deadline = deadline
        self.clock = clock
        self.pause = sleep

    def sleep(self, settings: dict[str, Any], transport: Any, response: Any = None) -> None:
        wait = (self.get_retry_after(response) if response is not None else None) or self.get_backoff_time(settings)
        if self.clock() + wait >= self.deadline:
            raise DeadlineError()  # a retry after the deadline could not be waited for anyway
        if wait > 0:
            self.pause(wait)


def _error_of(exc: HttpResponseError) -> tuple[int, str, str]:
    """(status, ARM's error code, its message) of a refusal, read from ARM's `{"error": {code, message}}` body."""
    status = exc.status_code or 0
    code, message = "", ""
    try:
        body = json.loads(exc.response.text()) if exc.response is not None else {}
        err = body.get("error") or {}
        code, message = str(err.get("code") or ""), str(err.get("message") or "")
    except (ValueError, AttributeError, TypeError):
        pass
    if not code and exc.error is not None:
        code, message = str(exc.error.code or ""), str(exc.error.message or "")
    return status, code or str(status), " ".join((message or exc.reason or "no message").split())[:300]


def _sku_of(raw: Any, region: str) -> Sku | None:
    """A virtual-machine SKU from the SDK's ResourceSku (None for another resource type or a SKU without a name)."""
    if (raw.resource_type or "").casefold() != "virtualmachines" or not raw.name:
        return None
    capabilities = {c.name: c.value for c in raw.capabilities or [] if c.name}
    vcpus = capabilities.get("vCPUs")
    spot = capabilities.get("LowPriorityCapable")
    zones: list[str] = []
    for info in raw.location_info or []:
        if (info.location or "").casefold() == region.casefold():
            zones += list(info.zones or [])
    restrictions = []
    for r in raw.restrictions or []:
        kind = str(getattr(r.type, "value", r.type) or "")
        reason = str(getattr(r.reason_code, "value", r.reason_code) or "unknown reason")
        info = r.restriction_info
        # restrictionInfo.locations, not `values`: the newest SDK models name that field values_property (a model is a
        # mapping there, and .values its method), older ones values; the list asked for is this region's anyway.
        places = [p.casefold() for p in (info.locations if info else None) or []]
        if kind == "Location" and places and region.casefold() not in places:
            continue  # restricted elsewhere, not here
        restrictions.append(Restriction(kind, reason, tuple(sorted((info.zones if info else None) or []))))
    return Sku(raw.name, raw.family or "", int(vcpus) if vcpus and str(vcpus).isdigit() else None,
               tuple(sorted(set(zones))), tuple(restrictions),
               None if spot is None else str(spot).casefold() == "true")


class ComputeReader:
    """Usages and SKUs of a subscription's regions through azure-mgmt-compute; ArmReadError (one line) on failure."""

    def __init__(self, credential: Any, base_url: str, deadline: float, timeout: float,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 secrets: tuple[str, ...] = ()):
        self.credential = credential
        self.base_url = base_url.rstrip("/")
        self.deadline = deadline
        self.timeout = timeout  # what --timeout said, for the message
        self.clock = clock
        self.sleep = sleep
        self.secrets = secrets
        self._clients: dict[str, Any] = {}
        # The bearer policy refuses plain http unless each request says so (online.endpoints): loopback doubles only.
        self._options = {"enforce_https": False} if needs_plain_http(self.base_url) else {}

    def _client(self, subscription: str) -> Any:
        if subscription not in self._clients:
            from azure.mgmt.compute import ComputeManagementClient

            self._clients[subscription] = ComputeManagementClient(
                self.credential, subscription, base_url=self.base_url,
                retry_policy=DeadlineRetryPolicy(self.deadline, self.clock, self.sleep),
                custom_hook_policy=DeadlinePolicy(self.deadline, self.clock))
        return self._clients[subscription]

    def read(self, subscription: str, region: str) -> RegionFacts:
        """The region's usages and VM SKUs for this subscription, every page of each."""
        client = self._client(subscription)
        usages = self._all(lambda: client.usage.list(region, **self._options), "Compute usages", subscription, region)
        skus = self._all(lambda: client.resource_skus.list(filter=f"location eq '{region}'", **self._options),
                         "Compute SKUs", subscription, region)
        found = [Usage(u.name.value, int(u.current_value or 0), int(u.limit or 0))
                 for u in usages if u.name is not None and u.name.value]
        by_name = {s.name: s for s in (_sku_of(raw, region) for raw in skus) if s is not None}
        return RegionFacts(subscription, region, usages_by_name(found), by_name)

    def _all(self, pages: Callable[[], Any], what: str, subscription: str, region: str) -> list[Any]:
        try:
            return list(pages())
        except DeadlineError:
            raise self._failed(f"no answer from ARM ({self.base_url}) for the {what} of {region} within --timeout "
                               f"{self.timeout:g} s") from None
        except HttpResponseError as exc:
            line, region_only = self._refusal(exc, what, subscription, region)
            raise self._failed(line, region_only) from None
        except (ServiceRequestError, ServiceResponseError) as exc:
            why = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise self._failed(f"ARM ({self.base_url}) unreachable for the {what} of {region}: {why}") from None

    def _refusal(self, exc: HttpResponseError, what: str, subscription: str, region: str) -> tuple[str, bool]:
        """(the line for a refusal, whether it concerns this region only)."""
        status, code, message = _error_of(exc)
        if code in REGION_CODES or (status in (400, 404) and region.casefold() in message.casefold()):
            return (f"region {region}: subscription {subscription} cannot use it ({status} {code}: {message}); deploy "
                    "to a region it can use, or ask for access to this one"), True
        return self._general(status, code, message, what, subscription, region), False

    def _general(self, status: int, code: str, message: str, what: str, subscription: str, region: str) -> str:
        if status == 401:
            return (f"ARM refused the token ({status} {code}: {message}): it has expired or is not a token for ARM; run "
                    "`az login` again, or refresh $ARM_ACCESS_TOKEN")
        if status == 403 or code in ("AuthorizationFailed", "LinkedAuthorizationFailed"):
            return (f"ARM refused reading the {what} of subscription {subscription} ({status} {code}): the identity "
                    f"needs the '{READER_ROLE}' role ({READER_ROLE_ID}) on the subscription; Reader is enough")
        if code == "SubscriptionNotFound":
            return (f"subscription {subscription} not found ({status} {code}): check --subscription or the stack's "
                    "azure-native:subscriptionId")
        if status == 429:
            return f"ARM kept throttling the {what} of {region} (429 {code}) until retries ran out: try again later"
        return f"ARM refused the {what} of {region} ({status} {code}: {message})"

    def mask(self, text: str) -> str:
        """`text` with the token (and anything shaped like one) masked."""
        return mask(text, self.secrets)

    def _failed(self, line: str, region_only: bool = False) -> ArmReadError:
        return ArmReadError(mask(line, self.secrets), region_only)
