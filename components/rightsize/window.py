"""The window `rightsize` reads: its length (`--window 7d`), its end (`--at`, default now) and the step of the subqueries
that find when each series was first and last seen. Pure: a bad value is a ValueError naming the flag."""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass

UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MIN_WINDOW = 3600
# Azure Monitor's query API answers at most 32 days, range selectors included (MicrosoftDocs azure-monitor-docs
# articles/azure-monitor/metrics/prometheus-api-promql.md, "API limitations"); a self-hosted Prometheus keeps 15 days
# by default. One limit for both, so a command that works on one works on the other.
MAX_WINDOW = 32 * 86400
STEPS = 672  # subquery steps per window: 15 minutes over a week; the answer's size does not depend on it, its cost does
MIN_STEP = 60
INSUFFICIENT = 86400  # less than a day of samples says nothing about a weekly peak
_WINDOW = re.compile(r"(?P<n>[0-9]{1,6})(?P<unit>[mhdw])", re.ASCII)
WINDOW_SYNTAX = "a whole number and a unit, m, h, d or w (e.g. 7d, 36h, 2w)"


@dataclass(frozen=True)
class Window:
    """The span of time read: `seconds` long, ending at `end` (POSIX seconds), folded with subqueries of `step_s`."""

    text: str
    seconds: int
    end: float
    step_s: int

    @property
    def start(self) -> float:
        return self.end - self.seconds

    @property
    def step(self) -> str:
        """The subquery step as PromQL writes a duration."""
        return f"{self.step_s // 60}m"

    @property
    def promql(self) -> str:
        """The window as a PromQL range (`7d`): the text as given, which parsed as whole units."""
        return self.text


def parse_window(text: str, end: float) -> Window:
    """`--window` as a Window ending at `end`; ValueError naming the flag, the limits and the syntax."""
    match = _WINDOW.fullmatch(text.strip())
    if not match:
        raise ValueError(f"--window {text!r}: expected {WINDOW_SYNTAX}")
    seconds = int(match["n"]) * UNITS[match["unit"]]
    if seconds < MIN_WINDOW:
        raise ValueError(f"--window {text!r}: at least 1h ({WINDOW_SYNTAX}); a day or more tells a peak apart from "
                         "a moment")
    if seconds > MAX_WINDOW:
        raise ValueError(f"--window {text!r}: at most 32d (Azure Monitor's query API answers at most 32 days, range "
                         "selectors included); write a shorter one, e.g. 7d or 30d")
    step = max(MIN_STEP, math.ceil(seconds / STEPS / 60) * 60)
    return Window(f"{match['n']}{match['unit']}", seconds, end, step)


def parse_time(text: str) -> float:
    """`--at`: POSIX seconds or an ISO 8601 time with its offset (`2026-06-01T00:00:00Z`); ValueError naming it."""
    try:
        value = float(text)
    except ValueError:
        value = _iso_seconds(text)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"--at {text!r}: a time after 1970")
    return value


def _iso_seconds(text: str) -> float:
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--at {text!r}: expected POSIX seconds or an ISO 8601 time such as "
                         "2026-06-01T00:00:00Z") from None
    if moment.tzinfo is None:
        raise ValueError(f"--at {text!r}: give the offset too (e.g. Z or +02:00)")
    return moment.timestamp()


def iso(seconds: float) -> str:
    """A POSIX time as ISO 8601 in UTC, to the second."""
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
