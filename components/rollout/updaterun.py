"""Fleet update runs and gates at API version 2026-06-01, as pure functions: resource paths, the run's body, and what a
run's status says (pure: tested without ARM).

Every path, body and state here is in azure-rest-api-specs
`specification/containerservice/resource-manager/Microsoft.ContainerService/fleet/stable/2026-06-01/fleets.json`:
- `PUT  .../fleets/{fleetName}/updateRuns/{updateRunName}` (UpdateRuns_CreateOrUpdate): `properties.strategy`
  (UpdateRunStrategy: `stages[]` of UpdateStage `{name, groups: [{name}], afterStageWaitInSeconds, beforeGates,
  afterGates}`; GateConfiguration `{displayName (1-100 chars), type: "Approval"}`) and `properties.managedClusterUpdate`
  (`upgrade: {type: Full | NodeImageOnly | ControlPlaneOnly, kubernetesVersion}`; Full and ControlPlaneOnly require the
  version, NodeImageOnly forbids it; `nodeImageSelection: {type: Latest | Consistent | Custom}`). A run is created
  NotStarted; `strategy` and `updateStrategyId` are exclusive, and a run made from `updateStrategyId` copies the
  strategy, so the gate is added to an inline copy of the fleet stack's stages.
- `POST .../updateRuns/{name}/start` (UpdateRuns_Start), `POST .../updateRuns/{name}/stop` (UpdateRuns_Stop).
- `GET .../updateRuns/{name}`: `properties.status` (UpdateRunStatus) = `{status: {state}, stages: [{name, status,
  groups: [{name, members: [{name, clusterResourceId, status}]}], beforeGates, afterGates, afterStageWaitStatus}]}`;
  UpdateState: NotStarted, Running, Stopping, Stopped, Skipped, Failed, Pending, Completed. A gate in the run
  (UpdateRunGateStatus) is `{displayName, gateId, status: {state}}`; `gateId` is set once the run reaches it.
- `PATCH .../fleets/{fleetName}/gates/{gateName}` (Gates_Update, GatePatch) `{"properties": {"state": "Completed"}}`;
  GateState: Pending, Skipped, Completed; a gate's name is a GUID.
Gate states as the docs describe them: MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/
update-strategies-gates-approvals.md ("Understanding approval states": NotStarted until the run reaches the gate,
Pending while it waits for approval, Skipped with its stage or group, Completed once approved).
Names of stages, groups and runs: 1-50 characters, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

API_VERSION = "2026-06-01"
NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
MAX_NAME = 50
GATE_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
GATE_DISPLAY_NAME = "aks-dra-vgpu: verify the canary stage"
RUN_DONE = frozenset({"Completed", "Failed", "Stopped", "Skipped"})
UpgradeType = Literal["Full", "NodeImageOnly", "ControlPlaneOnly"]
NodeImageSelection = Literal["Latest", "Consistent"]


@dataclass(frozen=True)
class Stage:
    """One stage of the fleet stack's update strategy: its name, its groups, and the wait after it."""

    name: str
    groups: tuple[str, ...]
    after_stage_wait_in_seconds: int = 0


@dataclass(frozen=True)
class FleetRef:
    """Where the fleet is: subscription, resource group, name."""

    subscription: str
    resource_group: str
    name: str

    @property
    def path(self) -> str:
        """The fleet's resource path."""
        return (f"/subscriptions/{self.subscription}/resourceGroups/{self.resource_group}/providers/"
                f"Microsoft.ContainerService/fleets/{self.name}")

    def run_path(self, run: str) -> str:
        """An update run's resource path."""
        return f"{self.path}/updateRuns/{run}"

    def gate_path(self, gate_id: str) -> str:
        """The path of a gate the run names (its `gateId`); ValueError when it is not a gate of this fleet."""
        prefix, _, name = gate_id.rpartition("/gates/")
        if prefix.lower() != self.path.lower() or not GATE_NAME.match(name):
            raise ValueError(f"gate {gate_id!r} is not a gate of fleet {self.path}")
        return f"{self.path}/gates/{name}"


def run_name_problem(name: str) -> str | None:
    """Why `name` cannot name an update run, or None."""
    if not (1 <= len(name) <= MAX_NAME and NAME.match(name)):
        return (f"{name!r} cannot name an update run: 1-{MAX_NAME} lowercase letters, digits and '-', starting and "
                "ending with a letter or digit")
    return None


def upgrade(kubernetes_version: str | None, node_image: bool, control_plane_only: bool = False) -> dict[str, Any]:
    """ManagedClusterUpgradeSpec: Full (or ControlPlaneOnly) to a version, or NodeImageOnly without one."""
    if node_image:
        return {"type": "NodeImageOnly"}
    if not kubernetes_version:
        raise ValueError("a Kubernetes upgrade needs its version")
    return {"type": "ControlPlaneOnly" if control_plane_only else "Full", "kubernetesVersion": kubernetes_version}


def run_body(stages: list[Stage], spec: dict[str, Any], selection: NodeImageSelection = "Latest") -> dict[str, Any]:
    """The UpdateRun's body: the fleet's stages inline, an Approval gate after the first (canary) stage."""
    if not stages:
        raise ValueError("the update strategy has no stage")
    body_stages = []
    for i, stage in enumerate(stages):
        entry: dict[str, Any] = {"name": stage.name, "groups": [{"name": g} for g in stage.groups],
                                 "afterStageWaitInSeconds": stage.after_stage_wait_in_seconds}
        if i == 0:
            entry["afterGates"] = [{"displayName": GATE_DISPLAY_NAME, "type": "Approval"}]
        body_stages.append(entry)
    return {"properties": {"strategy": {"stages": body_stages},
                           "managedClusterUpdate": {"upgrade": spec, "nodeImageSelection": {"type": selection}}}}


def _status(run: dict[str, Any]) -> dict[str, Any]:
    return (run.get("properties") or {}).get("status") or {}


def _state(entry: dict[str, Any] | None) -> str:
    return str(((entry or {}).get("status") or {}).get("state") or "NotStarted")


def run_state(run: dict[str, Any]) -> str:
    """The run's UpdateState (NotStarted before the status is written)."""
    return _state(_status(run))


def stage_status(run: dict[str, Any], stage: str) -> dict[str, Any] | None:
    """A stage's UpdateStageStatus by name, or None."""
    return next((s for s in _status(run).get("stages") or [] if s.get("name") == stage), None)


def stage_members(run: dict[str, Any], stage: str) -> list[str]:
    """The names of the fleet members the run updates in that stage (from its groups' status)."""
    found = stage_status(run, stage) or {}
    return [m["name"] for g in found.get("groups") or [] for m in g.get("members") or [] if m.get("name")]


def pending_gate(run: dict[str, Any], stage: str) -> str | None:
    """The `gateId` of an after-gate of that stage waiting for approval, or None."""
    for gate in (stage_status(run, stage) or {}).get("afterGates") or []:
        if _state(gate) == "Pending" and gate.get("gateId"):
            return str(gate["gateId"])
    return None


def has_after_gate(run: dict[str, Any], stage: str) -> bool:
    """Whether the run's stage carries an after-gate at all (from its strategy or its status)."""
    strategy = (run.get("properties") or {}).get("strategy") or {}
    declared = next((s for s in strategy.get("stages") or [] if s.get("name") == stage), {})
    return bool(declared.get("afterGates") or (stage_status(run, stage) or {}).get("afterGates"))


def stage_state(run: dict[str, Any], stage: str) -> str:
    """A stage's UpdateState."""
    return _state(stage_status(run, stage))


def first_stage(run: dict[str, Any]) -> str | None:
    """The name of the run's first stage (its canary), from its strategy or its status; None before either is known."""
    strategy = ((run.get("properties") or {}).get("strategy") or {}).get("stages") or []
    stages = strategy or _status(run).get("stages") or []
    return str(stages[0]["name"]) if stages and stages[0].get("name") else None
