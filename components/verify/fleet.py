"""`verify --fleet`: the single-stack `verify` run on every member cluster of a fleet, in parallel, one report.

Each member is checked by `run.verify` exactly as `verify --stack` checks it (nothing forked here): this module only
picks each member's kubeconfig context, runs the members on a bounded thread pool, and folds the reports into one
document keyed by member name. A member whose cluster cannot be reached (no such context, refused credentials, no
answer) is reported as unreachable, naming the member, and never stops the others.

Exit status of the fleet: 4 when any member is broken; else 2 when any member could not be reached (its checks never
ran, so "nothing broken" cannot be said); else 3 when any member is not there yet; else 0.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Unpack

from ..config import StackConfig
from .client import ClusterClient, UnreachableError
from .report import EXIT_BROKEN, EXIT_NOT_YET, EXIT_OK, text_lines
from .run import RunOptions, verify

EXIT_UNREACHABLE = 2
THREADS = "verify-member"  # the pool's thread names
MAX_PARALLEL = 8  # members checked at once: each holds one API connection and a thread, never the whole fleet at once

ClientFor = Callable[["MemberTarget"], ClusterClient]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class MemberTarget:
    """One member to verify: its member name, its stack, what should be on its cluster, and the kubeconfig context.

    `context` is the cluster's name by default: `az aks get-credentials` merges the kubeconfig AKS returns, whose
    context AKS names after the cluster (`<name>-admin` with --admin, whose context this default does not find:
    pass --context member=context then); azure-cli's own --context only renames it."""

    member: str
    stack: str
    config: StackConfig
    context: str
    smoke: bool | None = None  # None: as the run says; False: never (e.g. a stack without claim templates)


@dataclass
class MemberResult:
    """A member's report (the single-stack document), or why its cluster could not be reached."""

    target: MemberTarget
    report: dict[str, Any] | None = None
    error: str | None = None
    exit: int = field(default=EXIT_OK)

    def to_dict(self) -> dict[str, Any]:
        """The member's JSON entry: member, stack, context, then its checks and summary (or its error)."""
        found: dict[str, Any] = {"member": self.target.member, "stack": self.target.stack, "context": self.target.context}
        if self.report is not None:
            found.update(self.report)
        else:
            found.update(checks=[], error=self.error,
                         summary={"status": "unreachable", "exit": EXIT_UNREACHABLE, "error": self.error})
        return found


def targets_for(members: list[tuple[str, str, StackConfig, str]], contexts: dict[str, str]) -> list[MemberTarget]:
    """MemberTargets from (member, stack, config, cluster name) rows: context = `contexts[member]`, else the cluster's
    name. Raises ValueError naming every `contexts` key that is not a member (with the members there are)."""
    names = [m[0] for m in members]
    unknown = sorted(set(contexts) - set(names))
    if unknown:
        raise ValueError(f"--context {', '.join(unknown)}: no such member of this fleet; members: {', '.join(names)}")
    return [MemberTarget(member, stack, config, contexts.get(member, cluster)) for member, stack, config, cluster in members]


def fleet_exit(results: list[MemberResult]) -> int:
    """4 any member broken, else 2 any unreachable, else 3 any not there yet, else 0."""
    codes = {r.exit for r in results}
    for code in (EXIT_BROKEN, EXIT_UNREACHABLE, EXIT_NOT_YET):
        if code in codes:
            return code
    return EXIT_OK


def _one(target: MemberTarget, client_for: ClientFor | None, kubeconfig: str | None, say: Progress,
         options: RunOptions) -> MemberResult:
    def progress(line: str) -> None:
        say(f"[{target.member}] {line}")

    from .kube import KubeconfigError  # a context missing from the kubeconfig is this member's problem, not the run's

    try:
        client = client_for(target) if client_for else None
        smoke = options.get("smoke", False) and target.smoke is not False
        doc = verify(target.config, client, kubeconfig=kubeconfig, context=target.context, progress=progress,
                     **{**options, "smoke": smoke})
    except (UnreachableError, KubeconfigError) as exc:
        return MemberResult(target, error=f"member {target.member} (context {target.context}): {exc}",
                            exit=EXIT_UNREACHABLE)
    return MemberResult(target, report=doc, exit=int(doc["summary"]["exit"]))


def verify_fleet(
    targets: list[MemberTarget],
    *,
    fleet: str = "",
    kubeconfig: str | None = None,
    client_for: ClientFor | None = None,
    parallel: int = MAX_PARALLEL,
    progress: Progress | None = None,
    **options: Unpack[RunOptions],
) -> dict[str, Any]:
    """Verifies every member and returns ``{"fleet", "members": [...], "summary": {...}}``.

    Each member entry is the single-stack report plus ``member``, ``stack`` and ``context`` (or, for a member that
    cannot be reached, ``error`` and a summary with status ``unreachable``). `client_for` gives a member's client
    (tests); by default each member gets the official client on `kubeconfig` at its context. Members run on at most
    `parallel` threads; the report lists them in the order given. `options` (smoke, sizes, image, wait, timeout) go to
    each member's `verify` as they are."""
    say = progress or (lambda _line: None)
    workers = max(1, min(parallel, len(targets) or 1))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=THREADS) as pool:
        results = list(pool.map(lambda t: _one(t, client_for, kubeconfig, say, options), targets))
    return fleet_report(fleet, results)


def fleet_report(fleet: str, results: list[MemberResult]) -> dict[str, Any]:
    """The fleet's report document from its members' results."""
    by_status = {"ok": [], "warn": [], "fail": [], "unreachable": []}
    for r in results:
        status = "unreachable" if r.report is None else str(r.report["summary"]["status"])
        by_status[status].append(r.target.member)
    code = fleet_exit(results)
    status = {EXIT_OK: "ok", EXIT_NOT_YET: "warn", EXIT_BROKEN: "fail", EXIT_UNREACHABLE: "unreachable"}[code]
    summary = {"members": len(results), **{k: len(v) for k, v in by_status.items()}, "status": status, "exit": code,
               **{f"{k}Members": v for k, v in by_status.items() if k != "ok" and v}}
    return {"fleet": fleet, "members": [r.to_dict() for r in results], "summary": summary}


def fleet_text_lines(doc: dict[str, Any]) -> list[str]:
    """The fleet report for people: each member's checks under its name, then one line for the fleet."""
    lines: list[str] = []
    for m in doc["members"]:
        lines.append(f"== member {m['member']} (stack {m['stack']}, context {m['context']})")
        lines.extend(text_lines(m) if m.get("error") is None else [f"UNREACHABLE: {m['error']}"])
        lines.append("")
    s = doc["summary"]
    named = "; ".join(f"{k.removesuffix('Members')}: {', '.join(s[k])}" for k in ("failMembers", "unreachableMembers",
                                                                                   "warnMembers") if k in s)
    lines.append(f"FLEET {s['status'].upper()}: {s['members']} member(s), {s['ok']} ok, {s['warn']} warn, "
                 f"{s['fail']} fail, {s['unreachable']} unreachable" + (f" ({named})" if named else ""))
    return lines
