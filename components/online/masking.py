"""The one filter between what an online service answered and what is printed: known tokens, `Bearer <credential>`
(an Authorization header repeated in a message) and anything shaped like a JWT (an Entra ID access token) become ***."""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
MIN_SECRET = 6  # a shorter "token" (a test's) is not masked: every occurrence of a common word would be
_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20)[A-Za-z0-9\-._~+/]+=*")
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")


def mask(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret, every `Bearer <credential>` and every JWT replaced by ***."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return _JWT.sub(MASK, text)
