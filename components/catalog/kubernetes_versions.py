"""The Kubernetes minor versions AKS offers, as of one date, with their status, support dates and newest known patch.

Sources: the Azure/AKS CHANGELOG (release 2026-06-19: 1.36 generally available; release 2026-07-17: 1.33 available only
under Long-Term Support, patches 1.36.2, 1.35.6, 1.34.9), the release of 2026-09-04 (Azure/AKS #5948: patches 1.36.3,
1.35.7 and 1.34.10; 1.37 in preview), Azure/AKS #5008 ("Every version starting 1.27 is now LTS enabled") and AKS's
release calendar (MicrosoftDocs/azure-aks-docs articles/aks/supported-kubernetes-versions.md, "AKS Kubernetes release
calendar" and "LTS versions": GA and end of life 1.34 Nov 2025 / Nov 2026, 1.35 Mar 2026 / Mar 2027, 1.36 Jun 2026 /
Jun 2027; LTS end of life 1.33 Jul 2027, 1.34 Nov 2027, 1.35 Mar 2028, 1.36 Jun 2028). The calendar gives months: a
date below is the last day of its month. LTS (Premium tier, `supportPlan: AKSLongTermSupport`) adds a year.

What `AKS_VERSIONS_AS_OF` means: the day this table was last checked against those sources. Two kinds of message rest
on it, and they age differently once that day has passed:
- judged on today's date (`support_warning(version, date.today())`): "standard support ends/ended in ...". The support
  dates are announced in advance, so these warnings still turn on at the right time on an old table;
- true as of the table's date only: which minors AKS offers, which is in preview or LTS-only, the newest patch. AKS
  moves on after it (a minor goes GA, a new one arrives, a patch ships), and a package older than that does not know:
  those messages name the table's date (`as_of_note`), and a correction is a one-line change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

Status = Literal["preview", "ga", "lts-only"]

AKS_VERSIONS_AS_OF = date(2026, 12, 4)
AKS_VERSIONS_SOURCE = (
    "Azure/AKS CHANGELOG (releases 2026-06-19 and 2026-07-17), Azure/AKS#5948 (release 2026-09-04), Azure/AKS#5008, "
    "learn.microsoft.com/azure/aks/supported-kubernetes-versions (release calendar and LTS table)"
)
# How long before the end of standard support a minor starts to warn: AKS's own notice period for a minor's
# retirement is about 30 days plus the 30 days after removal to upgrade; 90 days leaves room to plan the one-minor-at-a-
# time upgrade the cluster and every pool need.
WARN_DAYS_BEFORE_END = 90


@dataclass(frozen=True)
class AksMinor:
    """One Kubernetes minor version as AKS offers it."""

    minor: tuple[int, int]
    status: Status  # preview: no SLA; ga: standard support; lts-only: only with the LTS support plan (Premium tier)
    lts: bool  # AKS offers it with Long-Term Support (every minor from 1.27 on, Azure/AKS #5008)
    ga: str | None  # when AKS made it generally available (ISO date, or year-month)
    end_of_standard_support: date | None  # None: not announced
    end_of_lts: date | None  # the end of its Long-Term Support; None: not announced
    newest_patch: int | None  # the newest patch AKS is known to offer; None: not known (preview, LTS-only)
    unverified: str = ""  # what of this entry no primary source confirms

    @property
    def text(self) -> str:
        """'1.36'."""
        return f"{self.minor[0]}.{self.minor[1]}"

    @property
    def label(self) -> str:
        """How the supported list names it: '1.36 (GA, LTS)'."""
        kinds = {"preview": "preview", "ga": "GA", "lts-only": "LTS only"}[self.status]
        return f"{self.text} ({kinds}{', LTS' if self.lts and self.status == 'ga' else ''})"


AKS_MINORS: dict[tuple[int, int], AksMinor] = {
    m.minor: m
    for m in (
        # LTS patches are numbered apart from the community's (the first of 1.27 LTS was 1.27.100, Azure/AKS #4621).
        AksMinor((1, 33), "lts-only", True, "2025-06", date(2026, 7, 17), date(2027, 7, 31), None,
                 unverified="its newest LTS patch"),
        AksMinor((1, 34), "ga", True, "2025-11", date(2026, 11, 30), date(2027, 11, 30), 10),
        AksMinor((1, 35), "ga", True, "2026-03", date(2027, 3, 31), date(2028, 3, 31), 7),
        AksMinor((1, 36), "ga", True, "2026-06-19", date(2027, 6, 30), date(2028, 6, 30), 3),
        # The calendar plans GA for Oct 2026; no release note of the sources says it happened.
        AksMinor((1, 37), "preview", True, None, None, None, None, unverified="its GA (planned Oct 2026) and patches"),
    )
}


def supported_list() -> str:
    """The minors AKS offers, LTS marked: what a refusal lists."""
    return ", ".join(m.label for m in AKS_MINORS.values())


def as_of_note(on: date | None = None) -> str:
    """' as of 2026-12-04' when `on` (default: today) is after the table's date, else '': what a message resting on
    the table's statuses adds once AKS may have moved on."""
    on = on or date.today()
    return f" as of {AKS_VERSIONS_AS_OF.isoformat()}" if on > AKS_VERSIONS_AS_OF else ""
