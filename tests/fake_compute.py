"""A fake Azure Resource Manager on 127.0.0.1 for the preflight tests: the two Compute reads preflight makes, answered
per subscription from a `Scenario`.

- `GET /subscriptions/{s}/providers/Microsoft.Compute/locations/{l}/usages`: bodies shaped as Azure/azure-rest-api-specs
  `specification/compute/resource-manager/Microsoft.Compute/ComputeRP/stable/2024-11-01/examples/
  computeRPCommonExamples/Usage_List_MaximumSet_Gen.json` (`{"value": [{"unit": "Count", "currentValue", "limit",
  "name": {"value", "localizedValue"}}], "nextLink"}`), with the example's placeholders replaced by real quota names.
- `GET /subscriptions/{s}/providers/Microsoft.Compute/skus?$filter=location eq '{l}'`: bodies shaped as
  `.../Microsoft.Compute/Skus/stable/2021-07-01/examples/skus/ListAvailableResourceSkusForARegion.json` (resourceType,
  locations, capabilities, locationInfo[{location, zones}], name, tier, size, family), with `restrictions[]` added as
  that version's skus.json defines them (type Location|Zone, values, restrictionInfo{locations, zones}, reasonCode).

Errors are ARM's `{"error": {"code", "message"}}`: 401 ExpiredAuthenticationToken, 403 AuthorizationFailed, 400
NoRegisteredProviderFound for a location the subscription cannot use (the message Azure/azure-cli#2003 and
Azure/azure-sdk-for-python#21283 quote), 429 with Retry-After. A scenario can page its lists (`page`: items per page,
linked by an absolute `nextLink`) or never answer (`hang`). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

from tests.loopback import LoopbackServer

TOKEN = "preflight-test-token-7f3a9c"
USAGES, SKUS = "usages", "skus"


def usage(name: str, current: int, limit: int, localized: str = "") -> dict[str, Any]:
    """One quota as the usages API answers it."""
    return {"unit": "Count", "currentValue": current, "limit": limit,
            "name": {"value": name, "localizedValue": localized or name}}


def sku(name: str, family: str, vcpus: int, region: str, zones: tuple[str, ...] = ("1", "2", "3"),
        restrictions: tuple[dict[str, Any], ...] = (), spot: bool = True) -> dict[str, Any]:
    """One virtual-machine SKU as the SKU API answers it for `region`."""
    return {"resourceType": "virtualMachines", "locations": [region],
            "capabilities": [{"name": "MaxResourceVolumeMB", "value": "184320"}, {"name": "vCPUs", "value": str(vcpus)},
                             {"name": "HyperVGenerations", "value": "V1,V2"},
                             {"name": "LowPriorityCapable", "value": "True" if spot else "False"},
                             {"name": "vCPUsAvailable", "value": str(vcpus)}],
            "locationInfo": [{"location": region, "zones": list(zones), "zoneDetails": []}],
            "name": name, "tier": "Standard", "size": name.removeprefix("Standard_"), "family": family,
            "restrictions": list(restrictions)}


def not_for_subscription(region: str, zones: tuple[str, ...] = ()) -> dict[str, Any]:
    """A restriction closing the region (no zones) or some zones of it to the subscription."""
    if zones:
        return {"type": "Zone", "values": [region], "restrictionInfo": {"locations": [region], "zones": list(zones)},
                "reasonCode": "NotAvailableForSubscription"}
    return {"type": "Location", "values": [region], "restrictionInfo": {"locations": [region]},
            "reasonCode": "NotAvailableForSubscription"}


@dataclass
class Scenario:
    """What one subscription's ARM answers: its usages and SKUs per region, and how it misbehaves."""

    usages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # region -> usages
    skus: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # region -> SKUs
    page: int | None = None  # items per page; None: one page
    throttle: int = 0  # answer this many requests 429 before serving
    retry_after: str = "1"
    error: tuple[int, str, str] | None = None  # (status, code, message) for every request
    hang: bool = False  # never answer
    unusable: tuple[str, ...] = ()  # regions the subscription cannot use


class FakeCompute(LoopbackServer):
    """Compute usages and SKUs per subscription (`scenarios[subscription]`); `requests` records what was asked."""

    def __init__(self) -> None:
        self.scenarios: dict[str, Scenario] = {}
        self.requests: list[tuple[str, dict[str, list[str]], str]] = []  # (path, query, Authorization)
        self.released = threading.Event()
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urlparse(self.path)
                query = parse_qs(url.query)
                auth = self.headers.get("Authorization") or ""
                with fake.lock:
                    fake.requests.append((url.path, query, auth))
                code, body, headers = fake.answer(url.path, query, auth, f"http://{self.headers.get('Host')}")
                if code == 0:
                    fake.released.wait(5)  # never answers while the test runs
                    return
                self._send(code, body, headers)

        super().__init__(Handler)

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        super().__exit__(*exc)

    def answer(self, path: str, query: dict[str, list[str]], auth: str,
               base: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        """(status, body, headers) for one GET; status 0: do not answer."""
        parts = path.strip("/").split("/")
        if len(parts) < 4 or parts[0] != "subscriptions" or parts[2:4] != ["providers", "Microsoft.Compute"]:
            return 404, {"error": {"code": "NotFound", "message": path}}, {}
        scenario = self.scenarios.get(parts[1])
        if scenario is None:
            return 404, {"error": {"code": "SubscriptionNotFound", "message": f"The subscription '{parts[1]}' could not "
                                   "be found."}}, {}
        if scenario.hang:
            return 0, {}, {}
        if auth != f"Bearer {TOKEN}":
            return 401, {"error": {"code": "InvalidAuthenticationToken", "message": "The access token is invalid."}}, {}
        if scenario.error is not None:
            status, code, message = scenario.error
            return status, {"error": {"code": code, "message": message}}, {}
        with self.lock:
            if scenario.throttle > 0:
                scenario.throttle -= 1
                return 429, {"error": {"code": "TooManyRequests", "message": "throttled"}}, {
                    "Retry-After": scenario.retry_after}
        if parts[4:] == [SKUS]:
            region = (query.get("$filter") or [""])[0].removeprefix("location eq '").rstrip("'")
            kind, items = SKUS, scenario.skus.get(region, [])
        elif len(parts) == 7 and parts[4] == "locations" and parts[6] == USAGES:
            region, kind = parts[5], USAGES
            items = scenario.usages.get(region, [])
        else:
            return 404, {"error": {"code": "NotFound", "message": path}}, {}
        if region in scenario.unusable:
            return 400, {"error": {"code": "NoRegisteredProviderFound", "message": (
                f"No registered resource provider found for location '{region}' and API version "
                f"'{(query.get('api-version') or ['?'])[0]}' for type 'locations/{kind}'.")}}, {}
        start = int((query.get("$skiptoken") or ["0"])[0])
        size = scenario.page or max(1, len(items))
        body: dict[str, Any] = {"value": items[start:start + size]}
        if start + size < len(items):
            filt = f"&$filter={quote(query['$filter'][0])}" if "$filter" in query else ""
            body["nextLink"] = (f"{base}{path}?api-version={(query.get('api-version') or [''])[0]}{filt}"
                                f"&$skiptoken={start + size}")
        return 200, body, {}

    def asked(self, kind: str, subscription: str) -> list[dict[str, list[str]]]:
        """The queries of every request of `kind` (USAGES or SKUS) for a subscription."""
        return [q for p, q, _ in self.requests if p.startswith(f"/subscriptions/{subscription}/") and p.endswith(kind)]

