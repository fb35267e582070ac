"""Which Azure Resource Manager an online command talks to: the public cloud's, another cloud's (https), or a test
double on loopback (plain http, nowhere else: the token travels with every request).

azure-core's bearer-token policy refuses plain http unless a request says `enforce_https=False` (azure-core
`azure/core/pipeline/policies/_authentication.py`, `_enforce_https`: the option moves from the request's options to its
context and is honoured on every retry); `needs_plain_http` says when to pass it.
"""

from __future__ import annotations

from urllib.parse import urlparse

from .credential import ARM_SCOPE

PUBLIC_ARM = "https://management.azure.com"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def endpoint_problem(flag: str, url: str) -> str | None:
    """Why `url` cannot be an ARM endpoint, or None: https anywhere, plain http only to a loopback address."""
    parsed = urlparse(url)
    loopback = parsed.hostname in LOOPBACK
    if parsed.hostname and (parsed.scheme == "https" or (parsed.scheme == "http" and loopback)):
        return None
    return f"{flag} {url}: give an https:// URL (the token is sent to it; plain http only to a loopback address)"


def needs_plain_http(url: str) -> bool:
    """Whether `url` is a loopback test double served over plain http (checked by `endpoint_problem` first)."""
    return urlparse(url).scheme == "http"


def arm_scope(url: str) -> str:
    """The token scope for an ARM endpoint: the public cloud's for it and for a loopback double, else `<url>/.default`
    (a sovereign cloud's ARM is its own audience)."""
    base = url.rstrip("/")
    if base == PUBLIC_ARM or urlparse(base).hostname in LOOPBACK:
        return ARM_SCOPE
    return f"{base}/.default"
