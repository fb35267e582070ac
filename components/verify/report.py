"""What `verify` reports: one entry per check (check, subject, status, message), a summary, and the exit status.

The statuses order themselves: ``fail`` (something is broken, a user must fix it) over ``warn`` (nothing broken, but
something is not there yet: a pool at zero, pods still starting) over ``ok`` and ``skip`` (not applicable here).
Each failure names the docs/troubleshooting.md entry that fixes it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "warn", "fail", "skip"]
STATUSES: tuple[Status, ...] = ("ok", "warn", "fail", "skip")
EXIT_OK, EXIT_NOT_YET, EXIT_BROKEN, EXIT_BAD_INPUT = 0, 3, 4, 2
DOCS = "docs/troubleshooting.md"
# The troubleshooting entries a verify finding links to (each an `<a id>` in docs/troubleshooting.md's verify section).
FIXES = frozenset({
    "cluster-version", "dra-api-not-served", "verify-access", "pool-at-zero", "pool-without-nodes", "node-not-ready",
    "node-labels-taints", "node-outside-stack", "driver-not-installed", "plugin-node-selector",
    "plugin-taint-not-tolerated", "plugin-not-running", "controller-not-available", "metrics-not-installed",
    "metrics-node-selector", "metrics-taint-not-tolerated", "metrics-not-running", "no-resourceslice", "wrong-slice",
    "deviceclass-missing", "deviceclass-drift", "device-not-selected", "claim-template-missing",
    "claim-template-drift", "smoke-wrong-size", "smoke-pod-failed", "smoke-timeout", "metrics-without-pod",
    "mig-wrong-count", "mig-gpu-announced-whole", "extended-class-missing", "extended-name-taken",
    "extended-name-shared", "extended-smaller-slice", "device-plugin-beside-dra", "extended-name-forgotten",
    "extended-kubelet-too-old", "not-kubernetes",
})


@dataclass(frozen=True)
class Check:
    """One finding: which check, about what (a node, a pool, an object), how it stands, and why in one sentence."""

    check: str
    subject: str
    status: Status
    message: str

    def to_dict(self) -> dict[str, str]:
        """The JSON entry: check, subject, status, message."""
        return {"check": self.check, "subject": self.subject, "status": self.status, "message": self.message}


def anchor(name: str) -> str:
    """Where a failure is explained and fixed: the troubleshooting entry's link (``docs/troubleshooting.md#name``)."""
    if name not in FIXES:
        raise ValueError(f"no troubleshooting entry {name!r}")  # a finding must never link to nothing
    return f"{DOCS}#{name}"


def ok(check: str, subject: str, message: str) -> Check:
    """A check that holds."""
    return Check(check, subject, "ok", message)


def warn(check: str, subject: str, message: str, fix: str | None = None) -> Check:
    """Not there yet (nothing broken); `fix` names the troubleshooting entry when there is one."""
    return Check(check, subject, "warn", message + (f" (see {anchor(fix)})" if fix else ""))


def fail(check: str, subject: str, message: str, fix: str) -> Check:
    """Broken: what is wrong, and the troubleshooting entry that fixes it."""
    return Check(check, subject, "fail", f"{message} (see {anchor(fix)})")


def skip(check: str, subject: str, message: str) -> Check:
    """Not applicable to this stack (e.g. monitoring off)."""
    return Check(check, subject, "skip", message)


def exit_status(checks: list[Check]) -> int:
    """0 all ok, 3 nothing broken but something not there yet, 4 something broken."""
    found = {c.status for c in checks}
    if "fail" in found:
        return EXIT_BROKEN
    if "warn" in found:
        return EXIT_NOT_YET
    return EXIT_OK


def report(checks: list[Check], **facts: Any) -> dict[str, Any]:
    """The report document: ``{"checks": [...], "summary": {ok, warn, fail, skip, status, exit, ...facts}}``."""
    counts = Counter(c.status for c in checks)
    code = exit_status(checks)
    status = {EXIT_OK: "ok", EXIT_NOT_YET: "warn", EXIT_BROKEN: "fail"}[code]
    summary: dict[str, Any] = {s: counts.get(s, 0) for s in STATUSES}
    summary.update(status=status, exit=code, **facts)
    return {"checks": [c.to_dict() for c in checks], "summary": summary}


def error_report(errors: list[str]) -> dict[str, Any]:
    """The report document of a run that could not check anything (exit 2: bad input, no kubeconfig, no reachable
    API server): no checks, the summary's status ``error`` and the errors, each one line."""
    summary: dict[str, Any] = {s: 0 for s in STATUSES}
    summary.update(status="error", exit=EXIT_BAD_INPUT, errors=list(errors))
    return {"checks": [], "summary": summary}


def text_lines(doc: dict[str, Any]) -> list[str]:
    """The report for people: one line per check, then the summary."""
    lines = [f"{c['status'].upper():4}  {c['check']:<14} {c['subject']}: {c['message']}" for c in doc["checks"]]
    s = doc["summary"]
    lines.append(f"{s['status'].upper()}: {s['ok']} ok, {s['warn']} warn, {s['fail']} fail, {s['skip']} skipped")
    return lines
