"""The Kubernetes minor versions AKS offers, as of one date, with their status, support dates and newest known patch.

Sources (as of AKS_VERSIONS_AS_OF): the Azure/AKS CHANGELOG (release of 2026-06-19: 1.36 generally available and a
Long-Term Support version; 1.33 kept only as LTS; 1.37 announced), Azure/AKS#5948 (patches 1.36.3, 1.35.7 and 1.34.10),
and AKS's release calendar (learn.microsoft.com/azure/aks/supported-kubernetes-versions: 1.34 GA Nov 2025 with end of
standard support in Nov 2026, 1.35 GA Mar 2026, 1.36 GA Jun 2026). AKS ends a minor's standard support about a year
after its GA; the end dates below that the calendar does not state are that rule applied, marked unverified. LTS
(Premium tier, `supportPlan: AKSLongTermSupport`) adds a year. Correcting a fact here is a one-line change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

Status = Literal["preview", "ga", "lts-only"]

AKS_VERSIONS_AS_OF = "2026-12-04"
AKS_VERSIONS_SOURCE = (
    "Azure/AKS CHANGELOG (release 2026-06-19), Azure/AKS#5948, "
    "learn.microsoft.com/azure/aks/supported-kubernetes-versions"
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
    lts: bool  # AKS designates it a Long-Term Support version
    ga: str | None  # when AKS made it generally available (ISO date, or year-month)
    end_of_standard_support: date | None  # None: not announced
    newest_patch: int | None  # the newest patch AKS is known to offer; None: not known (preview)
    unverified: str = ""  # what of this entry no primary source confirms

    @property
    def text(self) -> str:
        """'1.36'."""
        return f"{self.minor[0]}.{self.minor[1]}"

    @property
    def label(self) -> str:
        """How the supported list names it: '1.36 (GA, LTS)'."""
        kinds = {"preview": "preview", "ga": "GA", "lts-only": "LTS only"}[self.status]
        return f"{self.text} ({kinds}{', LTS' if self.lts and self.status != 'lts-only' else ''})"


AKS_MINORS: dict[tuple[int, int], AksMinor] = {
    m.minor: m
    for m in (
        AksMinor((1, 33), "lts-only", True, "2025-06", None, None,
                 unverified="its LTS end date and newest patch"),
        AksMinor((1, 34), "ga", False, "2025-11", date(2026, 11, 30), 10,
                 unverified="the day in November 2026 its standard support ends"),
        AksMinor((1, 35), "ga", False, "2026-03", date(2027, 3, 31), 7,
                 unverified="its end of standard support (GA plus a year)"),
        AksMinor((1, 36), "ga", True, "2026-06-19", date(2027, 6, 30), 3,
                 unverified="its end of standard support (GA plus a year)"),
        AksMinor((1, 37), "preview", False, None, None, None, unverified="its GA date and patches"),
    )
}


def supported_list() -> str:
    """The minors AKS offers, LTS marked: what a refusal lists."""
    return ", ".join(m.label for m in AKS_MINORS.values())
