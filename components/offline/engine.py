"""The offline engine: run a Pulumi Python program under mocks and capture every registration.

One capture serves the tests (plain asserts on what was registered) and the CLI (`plan`, `render`, `diff`): no cloud
credentials, no Pulumi CLI. A custom MockMonitor sees each RegisterResource request as the engine would (type, name,
parent, provider, dependencies, camelCase inputs with secrets and unknowns marked, resource options), and the stack's
outputs as `pulumi.export` sends them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import gc
import inspect
import json
import os
import runpy
import sys
import uuid
from collections.abc import Callable, Coroutine, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pulumi
import yaml
from google.protobuf import json_format
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, resource_pb2
from pulumi.runtime.settings import SETTINGS, configure
from pulumi.runtime.sync_await import _sync_await

SECRET = "[secret]"
UNKNOWN = "[unknown]"

# Pulumi's wire sentinels (sdk/python/lib/pulumi/runtime/rpc.py).
_SIG_KEY = "4dabf18193072939515e22adb298388d"
_SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
_SIG_RESOURCE = "5cf8f73096256a8f31e491e813e4eb8e"
_SIG_OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
_UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

OPTION_KEYS = ("protect", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace", "retainOnDelete")


@dataclass
class Registration:
    """One resource as the engine was asked to register it."""

    urn: str
    type: str
    name: str
    custom: bool
    parent: str | None
    provider: str | None
    dependencies: list[str]
    inputs: dict[str, Any]
    options: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The plan document's shape of one resource."""
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "custom": self.custom,
            "parent": self.parent,
            "provider": self.provider,
            "dependencies": self.dependencies,
            "inputs": self.inputs,
            "options": self.options,
        }


@dataclass
class Invoke:
    """One provider function call (e.g. listManagedClusterUserCredentials)."""

    token: str
    args: dict[str, Any]


@dataclass
class Plan:
    """Everything a program declared: resources sorted by urn, the stack outputs, the invokes."""

    project: str
    stack: str
    resources: list[Registration]
    outputs: dict[str, Any] = field(default_factory=dict)
    invokes: list[Invoke] = field(default_factory=list)

    def all(self, type_: str) -> list[Registration]:
        """Every registration of a type token."""
        return [r for r in self.resources if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> Registration:
        """The single registration of a type (and name); fails loudly when there are none or several."""
        found = [r for r in self.all(type_) if name is None or r.name == name]
        if len(found) != 1:
            raise LookupError(f"expected one {type_}{f' named {name}' if name else ''}, found {len(found)}")
        return found[0]

    def by_urn(self, urn: str) -> Registration:
        """The registration with this urn."""
        for r in self.resources:
            if r.urn == urn:
                return r
        raise LookupError(urn)

    def to_dict(self) -> dict[str, Any]:
        """The plan document (see README: `plan --json`)."""
        return {
            "project": self.project,
            "stack": self.stack,
            "resources": [r.to_dict() for r in self.resources],
            "outputs": self.outputs,
        }

    def to_json(self) -> str:
        """Deterministic JSON: keys sorted, resources sorted by urn."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"


# --- converting what the engine receives into plain data -------------------------------------------------------------
def plain(value: Any) -> Any:
    """Turns a decoded protobuf Struct value into plain JSON data with secrets and unknowns marked."""
    if isinstance(value, dict):
        sig = value.get(_SIG_KEY)
        if sig == _SIG_SECRET:
            return SECRET
        if sig == _SIG_RESOURCE:
            return value.get("urn", UNKNOWN)
        if sig == _SIG_OUTPUT:
            if value.get("secret"):
                return SECRET
            return plain(value["value"]) if "value" in value else UNKNOWN
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if value == _UNKNOWN_VALUE:
        return UNKNOWN
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _struct(message: Any) -> dict[str, Any]:
    return plain(json_format.MessageToDict(message)) if message is not None else {}


# --- the mock engine -----------------------------------------------------------------------------------------------------
SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"

# ARM resource-id templates for the azure-native types this package declares.
_ARM_IDS = {
    "azure-native:resources:ResourceGroup": "/subscriptions/{sub}/resourceGroups/{resourceGroupName}",
    "azure-native:containerservice:ManagedCluster": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/"
        "managedClusters/{resourceName}"
    ),
    "azure-native:containerservice:AgentPool": (
        "/subscriptions/{sub}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/"
        "managedClusters/{resourceName}/agentPools/{agentPoolName}"
    ),
}

PLACEHOLDER_SERVER = "https://offline-plan.invalid:443"


def placeholder_kubeconfig(cluster: str) -> str:
    """A syntactically valid kubeconfig that points nowhere (the offline plan never talks to a cluster)."""
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": cluster, "cluster": {"server": PLACEHOLDER_SERVER}}],
            "users": [{"name": f"clusterUser_{cluster}", "user": {"token": "offline-placeholder"}}],
            "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": f"clusterUser_{cluster}"}}],
            "current-context": cluster,
        },
        sort_keys=False,
    )


def entra_id_user_kubeconfig(cluster: str, resource_group: str, tenant_id: str) -> str:
    """The shape of AKS's user kubeconfig for an Entra ID cluster: kubelogin by device code (what the provider must
    never use), so the offline plan exercises the conversion to a non-interactive login."""
    user = f"clusterUser_{resource_group}_{cluster}"
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": cluster, "cluster": {"server": PLACEHOLDER_SERVER}}],
            "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": user}}],
            "current-context": cluster,
            "preferences": {},
            "users": [{"name": user, "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "args": [
                    "get-token",
                    "--environment", "AzurePublicCloud",
                    "--server-id", "6dae42f8-4368-4678-94ff-3960e28e3630",  # AKS's Entra ID server application
                    "--client-id", "80faf920-1908-4b52-b5ef-a8e7bedfc67a",  # AKS's public client application
                    "--tenant-id", tenant_id,
                    "--login", "devicecode",
                ],
                "command": "kubelogin",
                "env": None,
                "installHint": "\nkubelogin is not installed which is required to connect to AAD enabled cluster.\n\n"
                "To learn more, please go to https://aka.ms/aks/kubelogin\n",
                "provideClusterInfo": False,
            }}}],
        },
        sort_keys=False,
    )


class OfflineMocks(pmocks.Mocks):
    """Plausible outputs: ARM-style ids, names echoed back, a placeholder kubeconfig; nothing touches a cloud."""

    def __init__(self) -> None:
        # Entra ID clusters seen so far (name -> tenant): their credentials come in AKS's kubelogin shape.
        self.entra_id_clusters: dict[str, str] = {}

    def new_resource(self, args: pmocks.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        inputs = dict(args.inputs)
        template = _ARM_IDS.get(args.typ)
        if args.typ == "azure-native:containerservice:ManagedCluster" and inputs.get("aadProfile"):
            tenant = inputs["aadProfile"].get("tenantID") or "00000000-0000-0000-0000-000000000000"
            self.entra_id_clusters[str(inputs.get("resourceName", args.name))] = tenant
        if template:
            try:
                resource_id = template.format(sub=SUBSCRIPTION, **inputs)
            except KeyError:
                resource_id = f"/subscriptions/{SUBSCRIPTION}/offline/{args.name}"
            name = resource_id.rsplit("/", 1)[-1]
            outputs = {**inputs, "name": name, "azureApiVersion": "offline"}
            if args.typ == "azure-native:containerservice:ManagedCluster":
                outputs["fqdn"] = f"{inputs.get('dnsPrefix', name)}.hcp.{inputs.get('location', 'offline')}.azmk8s.io"
                # Stable per cluster id here; in Azure a new one for every cluster created, even under the same name.
                outputs["resourceUID"] = str(uuid.uuid5(uuid.NAMESPACE_URL, resource_id))
                outputs["oidcIssuerProfile"] = {
                    **inputs.get("oidcIssuerProfile", {}),
                    "issuerURL": f"https://{inputs.get('location', 'offline')}.oic.prod-aks.azure.com/offline/",
                }
            return resource_id, outputs
        if args.typ.startswith("kubernetes:") and args.typ != "kubernetes:helm.sh/v3:Release":
            meta = inputs.get("metadata") or {}
            name = meta.get("name") or args.name
            ns = meta.get("namespace")
            return (f"{ns}/{name}" if ns else name), inputs
        return f"{args.name}-id", inputs

    def call(self, args: pmocks.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        if args.token.startswith("azure-native:containerservice:listManagedCluster") and "Credentials" in args.token:
            cluster = str(args.args.get("resourceName", "cluster"))
            if cluster in self.entra_id_clusters:
                group = str(args.args.get("resourceGroupName", "group"))
                text = entra_id_user_kubeconfig(cluster, group, self.entra_id_clusters[cluster])
            else:
                text = placeholder_kubeconfig(cluster)
            value = base64.b64encode(text.encode()).decode()
            return {"kubeconfigs": [{"name": "clusterUser", "value": value}]}, []
        return {}, []


class CaptureMonitor(pmocks.MockMonitor):
    """A MockMonitor that records every registration, invoke and stack output as plain data."""

    def __init__(self, mocks: pmocks.Mocks):
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self.invokes: list[Invoke] = []
        self.stack_urn: str | None = None
        self.outputs: dict[str, Any] = {}

    def RegisterResource(self, request):  # noqa: N802 (the engine's method name)
        response = self._mock_register(request)
        if request.type == "pulumi:pulumi:Stack":
            self.stack_urn = response.urn
            return response
        deps = set(request.dependencies)
        for prop in request.propertyDependencies.values():
            deps.update(prop.urns)
        self.registrations.append(
            Registration(
                urn=response.urn,
                type=request.type,
                name=request.name,
                custom=request.custom,
                parent=request.parent if request.parent and request.parent != self.stack_urn else None,
                provider=request.provider or None,
                dependencies=sorted(deps),
                inputs=_struct(request.object),
                options={
                    "protect": request.protect if request.HasField("protect") else False,
                    "ignoreChanges": sorted(request.ignoreChanges),
                    "replaceOnChanges": sorted(request.replaceOnChanges),
                    "deleteBeforeReplace": request.deleteBeforeReplace,
                    "retainOnDelete": request.retainOnDelete if request.HasField("retainOnDelete") else False,
                },
            )
        )
        return response

    def RegisterResourceOutputs(self, request):  # noqa: N802
        if request.urn == self.stack_urn:
            self.outputs = _struct(request.outputs)
        return super().RegisterResourceOutputs(request)

    def Invoke(self, request):  # noqa: N802
        self.invokes.append(Invoke(request.tok, _struct(request.args)))
        if request.tok == "pulumi:pulumi:getResource":
            return super().Invoke(request)
        # MockMonitor.Invoke without its re-entrant event-loop pump (see _run_inline).
        call = pmocks.MockCallArgs(token=request.tok, args=rpc.deserialize_properties(request.args), provider=request.provider)
        returned = self.mocks.call(call)
        result, failures = (returned, []) if isinstance(returned, dict) else returned
        return resource_pb2.ResourceInvokeResponse(
            failures=[provider_pb2.CheckFailure(property=prop, reason=why) for prop, why in failures or []],
            **{"return": _run_inline(rpc.serialize_properties(result, {}))},
        )

    def _mock_register(self, request) -> resource_pb2.RegisterResourceResponse:
        """MockMonitor.RegisterResource (pulumi sdk/python/lib/pulumi/runtime/mocks.py) without its re-entrant pump."""
        urn = self.make_urn(request.parent, request.type, request.name)
        if request.type == "pulumi:pulumi:Stack":
            return resource_pb2.RegisterResourceResponse(urn=urn)
        args = pmocks.MockResourceArgs(
            typ=request.type,
            name=request.name,
            inputs=rpc.deserialize_properties(request.object),
            provider=request.provider,
            resource_id=request.importId,
            custom=request.custom or False,
            transforms=pmocks._resolve_callbacks(request.transforms),
        )
        resource_id, state = self.mocks.new_resource(args)
        serialized = _run_inline(rpc.serialize_properties(state, {}))
        self.resources[urn] = pmocks.MockMonitor.ResourceRegistration(urn, resource_id, state)
        return resource_pb2.RegisterResourceResponse(urn=urn, id=resource_id, object=serialized)


_T = TypeVar("_T")


def _run_inline(coro: Coroutine[Any, Any, _T]) -> _T:
    """Runs a coroutine to its end right here, without pumping the running event loop.

    The SDK's MockMonitor serialises each mock result with `_sync_await`, which on a thread whose loop is running (ours:
    the executor runs inline) pumps that loop re-entrantly: each registration nests inside the one before, so a
    100-pool stack ran out of recursion depth, and smaller ones spent their time re-scanning the loop. Serialising plain
    mock data never waits, so it ends on its first step; should it wait (a resource reference), the SDK's pump waits.
    """
    try:
        while True:
            awaited = coro.send(None)
            if awaited is not None:
                awaited._asyncio_future_blocking = False
                with contextlib.suppress(Exception):  # the coroutine sees the failure when it resumes
                    _sync_await(awaited)
    except StopIteration as stop:
        return stop.value


class _ImmediateExecutor(futures.ThreadPoolExecutor):
    """Runs the SDK's executor work inline: deterministic order, no thread hangs (as Pulumi's own mock tests do)."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        future: futures.Future = futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


def capture(
    program: Callable[[], Any],
    *,
    project: str = "aks-dra-vgpu",
    stack: str = "test",
    config: dict[str, Any] | None = None,
    preview: bool = False,
    secret_keys: list[str] | None = None,
) -> Plan:
    """Runs `program` as the language host would (inside a Stack, with this config) under mocks; returns the Plan.

    `config` maps ``namespace:key`` to values; non-strings are sent as JSON strings, as the Pulumi CLI does.
    Exceptions raised by the program propagate unchanged.
    """
    return contextvars.copy_context().run(
        _capture, program, project, stack, dict(config or {}), preview, list(secret_keys or [])
    )


def _then_settle(program: Callable[[], Any]) -> Callable[[], Coroutine[Any, Any, None]]:
    """The program, then a linear wait for the outputs it left pending, before the SDK's own wait runs.

    The SDK's wait (`stack.wait_for_rpcs`) calls `asyncio.wait(FIRST_COMPLETED)` over every pending output until none
    is left: quadratic in their number (the SDK makes about 1,600 per GPU pool). Awaiting them one by one is linear.
    """

    async def run() -> None:
        result = program()
        if inspect.isawaitable(result):
            await result
        await _settle_outputs()

    return run


async def _settle_outputs() -> None:
    """Waits for the pending outputs one at a time; stops at the first failed output or RPC (the SDK's wait, which
    runs next, then reports it exactly as before). An RPC can fail without resolving the outputs that wait on it, so
    every wait also wakes up when any RPC fails."""
    rpcs = SETTINGS.rpc_manager
    failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    watched = 0

    def on_rpc_done(call: asyncio.Future[Any]) -> None:
        if not failed.done() and not call.cancelled() and call.exception() is not None:
            failed.set_result(None)

    def watch_new_rpcs() -> None:
        nonlocal watched
        for call in rpcs.rpcs[watched:]:
            if isinstance(call, asyncio.Future):
                call.add_done_callback(on_rpc_done)
        watched = len(rpcs.rpcs)

    while True:
        watch_new_rpcs()
        with SETTINGS.lock:
            pending = [task for task in SETTINGS.outputs if not task.done()]
        if not pending or failed.done() or rpcs.unhandled_exception is not None:
            return
        for task in pending:
            if not task.done():
                await asyncio.wait((task, failed), return_when=asyncio.FIRST_COMPLETED)
            if failed.done() or (task.done() and not task.cancelled() and task.exception() is not None):
                return
            watch_new_rpcs()


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Cyclic GC tuned for a program run: it allocates hundreds of thousands of short-lived Outputs and tasks.

    With the default thresholds, collections that re-scan every loaded module and SDK class took about two thirds of a
    100-pool plan. Freezing what exists before the run and collecting the young generation less often keeps collection
    cost proportional to the program; the settings are restored afterwards. A process that froze objects itself (a
    test session after collection, a pre-forking server) keeps its freeze: unfreezing is all or nothing.
    """
    thresholds = gc.get_threshold()
    ours = gc.get_freeze_count() == 0
    if ours:
        gc.freeze()
    gc.set_threshold(max(thresholds[0], 20_000), max(thresholds[1], 20), max(thresholds[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if ours:
            gc.unfreeze()


def _capture(program, project, stack, config, preview, secret_keys) -> Plan:
    monitor = CaptureMonitor(OfflineMocks())
    settings = pmocks.MockSettings(
        monitor=monitor,
        monitor_features=set(monitor.GetDeploymentInfo(None).supportedFeatures),
        engine=pmocks.MockEngine(None),
        project=project,
        stack=stack,
        dry_run=preview,
        organization="organization",
        callbacks=None,
        # MockSettings leaves the set of pending outputs to a process-wide default: a run that failed would leave its
        # outputs (bound to its closed loop) for the next capture to wait on. Each capture gets its own.
        outputs=set(),
    )
    configure(settings)
    wire = {k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}
    pulumi.runtime.set_all_config(wire, secret_keys)
    loop = asyncio.new_event_loop()
    loop.set_default_executor(_ImmediateExecutor())
    try:
        asyncio.set_event_loop(loop)
        with _fewer_collections():
            loop.run_until_complete(pulumi.runtime.run_in_stack(_then_settle(program)))
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        asyncio.set_event_loop(None)
    resources = sorted(monitor.registrations, key=lambda r: r.urn)
    return Plan(project, stack, resources, monitor.outputs, monitor.invokes)


# --- running a Pulumi project -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Project:
    """A Pulumi project on disk: its name, folder, program and where its stack files live."""

    name: str
    directory: Path
    main: Path
    stack_config_dir: Path

    def stack_file(self, stack: str) -> Path:
        """The stack's settings file, ``Pulumi.<stack>.yaml``."""
        return self.stack_config_dir / f"Pulumi.{stack}.yaml"

    def stacks(self) -> list[str]:
        """The stacks that have a settings file."""
        return sorted(p.name[len("Pulumi."):-len(".yaml")] for p in self.stack_config_dir.glob("Pulumi.*.yaml"))


class StackFileError(ValueError):
    """A project or stack file that cannot be read (missing, or not YAML); the message names file and line."""


def load_project(directory: str | os.PathLike[str]) -> Project:
    """Reads ``Pulumi.yaml``: project name, `main`, `stackConfigDir`."""
    directory = Path(directory).resolve()
    doc = _read_yaml(directory / "Pulumi.yaml")
    if not isinstance(doc, dict) or "name" not in doc:
        raise StackFileError(f"{directory / 'Pulumi.yaml'}: not a Pulumi project file (no 'name')")
    main = directory / str(doc.get("main", "."))
    if main.is_dir():
        main = main / "__main__.py"
    return Project(str(doc["name"]), directory, main, directory / str(doc.get("stackConfigDir", ".")))


def read_stack_config(project: Project, stack: str) -> tuple[dict[str, Any], list[str]]:
    """The stack file's config map with keys namespaced as the CLI does, and the keys that are secrets."""
    path = project.stack_file(stack)
    if not path.exists():
        known = ", ".join(project.stacks()) or "none"
        raise StackFileError(f"{path.name}: no such stack file in {path.parent}; stacks: {known}")
    doc = _read_yaml(path) or {}
    section = doc.get("config") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or not isinstance(section, (dict, type(None))):
        raise StackFileError(f"{path.name}: expected a 'config:' mapping of keys to values (see Pulumi.dev.yaml)")
    config: dict[str, Any] = {}
    secrets: list[str] = []
    for key, value in (section or {}).items():
        full = key if ":" in key else f"{project.name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            # Encrypted with the stack's secrets provider: the offline plan never decrypts; the value stays a secret.
            config[full], secrets = SECRET, [*secrets, full]
        else:
            config[full] = value
    return config, secrets


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML where a key written twice is an error (plain YAML keeps the last one: a silently lost setting)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key '{key}' is written twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _read_yaml(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.load(f, Loader=_UniqueKeyLoader)  # a SafeLoader subclass: no arbitrary objects
    except FileNotFoundError:
        raise StackFileError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise StackFileError(f"{path.name}{where}: not valid YAML: {problem}") from None


def run_project(project: Project, stack: str, *, preview: bool = True) -> Plan:
    """Runs the project's program with the stack's config under the offline engine."""
    config, secrets = read_stack_config(project, stack)

    def program() -> None:
        with _ProjectOnPath(project.directory):
            runpy.run_path(str(project.main), run_name="__main__")

    return capture(program, project=project.name, stack=stack, config=config, preview=preview, secret_keys=secrets)


class _ProjectOnPath:
    """Makes the project's folder importable while its program runs, as the language host does."""

    def __init__(self, directory: Path):
        self.directory = str(directory)

    def __enter__(self) -> None:
        sys.path.insert(0, self.directory)

    def __exit__(self, *exc: object) -> None:
        sys.path.remove(self.directory)


def walk(plan: Plan) -> Iterator[tuple[int, Registration]]:
    """Resources in tree order (children under their parents), with their depth."""
    children: dict[str | None, list[Registration]] = {}
    for r in plan.resources:
        children.setdefault(r.parent, []).append(r)

    def visit(parent: str | None, depth: int) -> Iterator[tuple[int, Registration]]:
        for r in children.get(parent, []):
            yield depth, r
            yield from visit(r.urn, depth + 1)

    yield from visit(None, 0)
