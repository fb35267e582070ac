"""A fake Azure Resource Manager on 127.0.0.1 for the fleet-rollout tests: update runs and gates at api-version
2026-06-01, shaped as azure-rest-api-specs `.../Microsoft.ContainerService/fleet/stable/2026-06-01/fleets.json` and its
examples (UpdateRuns_Stop.json: a run's `status.stages[].groups[].members[]`, `afterStageWaitStatus`).

The run moves one step per GET once started: the first stage Running, then Completed with its after-gate Pending
(a gate resource is created then, as Fleet creates gates when the run reaches them), and, once the gate is Completed,
the next stages and the run Completed. A stop makes the run Stopping, then Stopped. Every request is recorded.
"""

from __future__ import annotations

import copy
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.loopback import LoopbackServer

TOKEN = "arm-test-token"
SUB, RG, FLEET = "00000000-0000-0000-0000-000000000000", "rg-fleet", "gpu-fleet"
FLEET_PATH = f"/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.ContainerService/fleets/{FLEET}"
FORBIDDEN = {"error": {"code": "AuthorizationFailed", "message": (
    "The client 'ci' with object id '11111111-1111-1111-1111-111111111111' does not have authorization to perform "
    "action 'Microsoft.ContainerService/fleets/updateRuns/write' over scope "
    f"'{FLEET_PATH}/updateRuns/x' or the scope is invalid.")}}


def _status(state: str) -> dict[str, Any]:
    return {"status": {"state": state}}


class FakeArm(LoopbackServer):
    """Update runs and gates of one fleet; `groups` maps each group to its members' names."""

    def __init__(self, groups: dict[str, list[str]], *, forbidden: bool = False, fleet_path: str = FLEET_PATH,
                 echo_token: bool = False):
        self.groups = groups
        self.echo_token = echo_token  # every answer an error repeating the request's Authorization header and token
        self.fleet_path = fleet_path
        self.forbidden = forbidden
        self.runs: dict[str, dict[str, Any]] = {}
        self.gates: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, dict[str, Any] | None]] = []
        arm = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code: int, body: dict[str, Any] | None = None) -> None:
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                arm.requests.append((method, url.path, body))
                if arm.echo_token:
                    auth = self.headers.get("Authorization") or ""
                    return self._send(400, {"error": {"code": "InvalidRequest", "message": (
                        f"request with Authorization: {auth} rejected; token {auth.partition(' ')[2]} is not valid "
                        "for this request")}})
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self._send(401, {"error": {"code": "InvalidAuthenticationToken", "message": "bad token"}})
                if parse_qs(url.query).get("api-version") != ["2026-06-01"]:
                    return self._send(400, {"error": {"code": "InvalidApiVersion", "message": url.query}})
                if arm.forbidden:
                    return self._send(403, FORBIDDEN)
                code, answer = arm.answer(method, url.path, body)
                return self._send(code, answer)

            def do_GET(self):
                self._handle("GET")

            def do_PUT(self):
                self._handle("PUT")

            def do_POST(self):
                self._handle("POST")

            def do_PATCH(self):
                self._handle("PATCH")

        super().__init__(Handler)
        self.lock = threading.Lock()

    # --- the resources ------------------------------------------------------------------------------------------------
    def add_run(self, name: str, strategy: dict[str, Any], started: bool = True) -> dict[str, Any]:
        """A run as Fleet keeps it (e.g. one an auto-upgrade profile started)."""
        stages = []
        for s in strategy["stages"]:
            stages.append({"name": s["name"], **_status("NotStarted"),
                           "groups": [{"name": g["name"], **_status("NotStarted"), "members": [
                               {"name": m, **_status("NotStarted"), "clusterResourceId": f"/x/managedClusters/{m}"}
                               for m in self.groups.get(g["name"], [])]} for g in s["groups"]],
                           "afterGates": [{"displayName": g.get("displayName"), "gateId": None, **_status("NotStarted")}
                                          for g in s.get("afterGates") or []],
                           "afterStageWaitStatus": {**_status("NotStarted"),
                                                    "waitDurationInSeconds": s.get("afterStageWaitInSeconds", 0)}})
        run = {"id": f"{self.fleet_path}/updateRuns/{name}", "name": name, "type": "Microsoft.ContainerService/fleets/updateRuns",
               "properties": {"provisioningState": "Succeeded", "strategy": copy.deepcopy(strategy),
                              "managedClusterUpdate": {"upgrade": {"type": "NodeImageOnly"}},
                              "status": {**_status("Running" if started else "NotStarted"), "stages": stages}}}
        self.runs[name] = run
        return run

    def _advance(self, run: dict[str, Any]) -> None:
        status = run["properties"]["status"]
        state = status["status"]["state"]
        if state == "Stopping":
            status["status"]["state"] = "Stopped"
            return
        if state != "Running":
            return
        for stage in status["stages"]:
            s = stage["status"]["state"]
            if s == "NotStarted":
                stage["status"]["state"] = "Running"
                for g in stage["groups"]:
                    g["status"]["state"] = "Running"
                return
            if s == "Running":
                stage["status"]["state"] = "Completed"
                for g in stage["groups"]:
                    g["status"]["state"] = "Completed"
                    for m in g["members"]:
                        m["status"]["state"] = "Completed"
                for gate in stage["afterGates"]:
                    gate_id = f"{self.fleet_path}/gates/{uuid.uuid4()}"
                    gate.update(gateId=gate_id, status={"state": "Pending"})
                    self.gates[gate_id.rpartition("/")[2]] = {"id": gate_id, "run": run["name"], "stage": stage["name"],
                                                             "properties": {"gateType": "Approval", "state": "Pending"}}
                stage["afterStageWaitStatus"]["status"]["state"] = "Running"
                return
            if s == "Completed":
                pending = [g for g in stage["afterGates"] if g["status"]["state"] != "Completed"]
                if pending:
                    return  # held by the gate
                if stage["afterStageWaitStatus"]["status"]["state"] == "Running":
                    stage["afterStageWaitStatus"]["status"]["state"] = "Completed"
                    return
        status["status"]["state"] = "Completed"

    def answer(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any] | None]:
        """(status, body) for one request."""
        with self.lock:
            if path.startswith(f"{self.fleet_path}/gates/") and method == "PATCH":
                gate = self.gates.get(path.rpartition("/")[2])
                if gate is None:
                    return 404, {"error": {"code": "NotFound", "message": path}}
                gate["properties"]["state"] = body["properties"]["state"]
                run = self.runs[gate["run"]]
                for stage in run["properties"]["status"]["stages"]:
                    for g in stage["afterGates"]:
                        if g["gateId"] == gate["id"]:
                            g["status"]["state"] = gate["properties"]["state"]
                return 200, gate
            prefix = f"{self.fleet_path}/updateRuns/"
            if not path.startswith(prefix):
                return 404, {"error": {"code": "NotFound", "message": path}}
            name, _, action = path[len(prefix):].partition("/")
            if method == "PUT" and not action:
                run = self.add_run(name, body["properties"]["strategy"], started=False)
                run["properties"]["managedClusterUpdate"] = body["properties"]["managedClusterUpdate"]
                return 201, run
            run = self.runs.get(name)
            if run is None:
                return 404, {"error": {"code": "NotFound", "message": f"update run {name} not found"}}
            if method == "POST" and action == "start":
                run["properties"]["status"]["status"]["state"] = "Running"
                return 202, None
            if method == "POST" and action == "stop":
                run["properties"]["status"]["status"]["state"] = "Stopping"
                return 202, None
            if method == "GET" and not action:
                self._advance(run)
                return 200, run
            return 405, {"error": {"code": "MethodNotAllowed", "message": f"{method} {path}"}}

    def calls(self, method: str, suffix: str = "") -> list[tuple[str, str, dict[str, Any] | None]]:
        """The requests of a method whose path ends with `suffix`."""
        return [r for r in self.requests if r[0] == method and r[1].endswith(suffix)]
