"""The rollout: create and start an update run with an approval gate after the canary stage, follow it, prove the
canary's members when the gate is Pending, and approve the gate only when they pass (else hold it, or stop the run).

Runs this command did not create (an auto-upgrade profile's) are followed the same way (`attach`). If their strategy
has no gate (the default pulumi-azure-native module speaks 2024-05-02-preview, which has none), the fallback is the
strategy's wait after the canary stage: once the canary stage is Completed its members are proven while the wait runs,
and the run is stopped when they fail. That is weaker than a gate: nothing holds the next stage if the proof takes
longer than the wait.

Exit status of a rollout: 0 proven and approved (and, when following to the end, the run Completed); 3 the command's
time ran out first (the run and its gate are left as they are); 4 the canary was not proven (broken, not there yet, or
unreachable): the gate is left Pending, or the run stopped; 5 the run ended (Failed, Stopped, Skipped, or Completed)
without this command's proof.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .arm import ArmClient, ArmError
from .updaterun import (
    API_VERSION,
    RUN_DONE,
    FleetRef,
    Stage,
    first_stage,
    has_after_gate,
    pending_gate,
    run_state,
    stage_members,
    stage_state,
    stage_status,
)

EXIT_APPROVED, EXIT_TIMED_OUT, EXIT_NOT_PROVEN, EXIT_RUN_ENDED = 0, 3, 4, 5
OnFailure = Literal["hold", "stop"]
Prove = Callable[[list[str]], tuple[bool, dict[str, Any]]]
"""Member names -> (all passed, the verify report)."""
Progress = Callable[[str], None]


@dataclass
class Outcome:
    """How a rollout ended: exit status, what the command did (approved, held, stopped, none), the run's last state."""

    exit: int
    action: str
    run: str
    state: str
    message: str
    members: list[str] = field(default_factory=list)
    report: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document the command prints."""
        return {"run": self.run, "state": self.state, "action": self.action, "exit": self.exit,
                "message": self.message, "canaryMembers": self.members, "verify": self.report}


@dataclass
class Follow:
    """How to follow a run: poll interval, the command's time limit, what to do when the canary fails, and whether to
    follow the run to its end after approving."""

    poll: float = 30.0
    timeout: float = 6 * 3600.0
    on_failure: OnFailure = "hold"
    to_the_end: bool = True
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    started: float | None = None  # on `clock`; set by the first `end()`: creating and following share one limit

    def end(self) -> float:
        """When the command's time runs out (`timeout` after the first call): one deadline for the whole rollout."""
        if self.started is None:
            self.started = self.clock()
        return self.started + self.timeout

    def pause(self) -> None:
        """Sleeps one poll interval, never past the deadline."""
        self.sleep(max(0.0, min(self.poll, self.end() - self.clock())))


def create_and_start(arm: ArmClient, fleet: FleetRef, run: str, body: dict[str, Any], follow: Follow,
                     say: Progress) -> dict[str, Any]:
    """PUT the run (it is created NotStarted), wait until it is provisioned, then POST start; the run as ARM returns it."""
    path = fleet.run_path(run)
    say(f"creating update run {run} in fleet {fleet.name} (api-version {API_VERSION})")
    end = follow.end()
    found = arm.request("PUT", path, API_VERSION, body)
    while (found.get("properties") or {}).get("provisioningState") not in ("Succeeded", None):
        state = found["properties"]["provisioningState"]
        if state in ("Failed", "Canceled"):
            raise ArmError(200, state, f"update run {run}: provisioning {state}")
        if follow.clock() >= end:
            raise ArmError(0, "Timeout", f"update run {run}: still provisioning ({state})")
        follow.pause()
        found = arm.request("GET", path, API_VERSION)
    say(f"starting update run {run}")
    arm.request("POST", f"{path}/start", API_VERSION)
    return found


def follow_run(arm: ArmClient, fleet: FleetRef, run: str, canary: Stage, prove: Prove, follow: Follow,
               say: Progress, fallback_members: list[str] | None = None) -> Outcome:
    """Polls the run until the canary is proven (then approves its gate) or not (then holds or stops), and, with
    `to_the_end`, until the run ends. `fallback_members`: the canary's members when the run's status lists none."""
    path = fleet.run_path(run)
    end = follow.end()
    proven: tuple[list[str], dict[str, Any]] | None = None
    last = ""
    while True:
        found = arm.request("GET", path, API_VERSION)
        state = run_state(found)
        if stage_status(found, canary.name) is None and first_stage(found):
            # a run someone else made from another strategy: its own first stage is its canary
            canary = Stage(str(first_stage(found)), ())
        if state != last:
            say(f"update run {run}: {state} (canary stage {canary.name}: {stage_state(found, canary.name)})")
            last = state
        if state in RUN_DONE:
            if proven is not None and state == "Completed":
                return Outcome(EXIT_APPROVED, "approved", run, state, f"update run {run} Completed after the canary "
                               f"stage {canary.name} was proven", *proven)
            return Outcome(EXIT_RUN_ENDED, "none", run, state, f"update run {run} ended {state} without this "
                           f"command's proof of the canary stage {canary.name}")
        if proven is None:
            gate = pending_gate(found, canary.name)
            gateless_done = not has_after_gate(found, canary.name) and stage_state(found, canary.name) == "Completed"
            if gate or gateless_done:
                members = stage_members(found, canary.name) or list(fallback_members or [])
                say(f"canary stage {canary.name} upgraded: verifying {', '.join(members) or 'no member'}")
                passed, report = prove(members)
                if not passed:
                    return _not_proven(arm, fleet, run, canary, gate, members, report, follow, say)
                proven = (members, report)
                if gate:
                    arm.request("PATCH", fleet.gate_path(gate), API_VERSION, {"properties": {"state": "Completed"}})
                    say(f"canary proven: gate {gate.rpartition('/')[2]} approved")
                else:
                    say("canary proven (no gate on this run: the next stage was never held)")
                if not follow.to_the_end:
                    return Outcome(EXIT_APPROVED, "approved" if gate else "none", run, state,
                                   f"canary stage {canary.name} proven" + (" and its gate approved" if gate else ""),
                                   *proven)
        if follow.clock() >= end:
            return Outcome(EXIT_TIMED_OUT, "none", run, state, f"update run {run} still {state} after "
                           f"{follow.timeout:g} s; left as it is" + ("" if proven else " (gate not approved)"))
        follow.pause()


def _not_proven(arm: ArmClient, fleet: FleetRef, run: str, canary: Stage, gate: str | None, members: list[str],
                report: dict[str, Any], follow: Follow, say: Progress) -> Outcome:
    status = report.get("summary", {}).get("status", "fail")
    if follow.on_failure == "stop" or gate is None:  # without a gate, stopping is the only way to hold the next stage
        arm.request("POST", f"{fleet.run_path(run)}/stop", API_VERSION)
        say(f"canary not proven ({status}): update run {run} stopped")
        return Outcome(EXIT_NOT_PROVEN, "stopped", run, "Stopping", f"canary stage {canary.name} not proven "
                       f"({status}): update run {run} stopped", members, report)
    say(f"canary not proven ({status}): gate {gate.rpartition('/')[2]} left Pending")
    return Outcome(EXIT_NOT_PROVEN, "held", run, "Running", f"canary stage {canary.name} not proven ({status}): its "
                   f"gate is left Pending; approve it (az fleet gate approve) or stop the run once fixed",
                   members, report)
