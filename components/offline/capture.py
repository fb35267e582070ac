"""Capture at the wire: run a Pulumi Python program against an in-process resource monitor and record what it asks for.

The SDK talks to its engine through two objects it is handed in its public settings (`pulumi.runtime.Settings`): a
resource monitor and an engine. Here both are plain objects in this process that answer the protocol's requests
(pulumi/pulumi `proto/pulumi/resource.proto`, `engine.proto`) the way the Pulumi engine would, with what a provider
would answer coming from `mocks.OfflineProviders`. The program runs as the Python language host runs it
(pulumi/pulumi `sdk/python/cmd/pulumi-language-python-exec`): config in through ``PULUMI_CONFIG``, settings configured,
the program run in a stack on an event loop of its own. Nothing here uses the SDK's mocks or its private modules.

A capture runs on a thread of its own with a copy of the caller's context, so the caller's event loop, Pulumi
settings and config are untouched, and a caller that is itself inside a running event loop can capture too.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
import inspect
import json
import os
import re
import threading
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
import pulumi
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import callback_pb2, callback_pb2_grpc, provider_pb2, resource_pb2

from .mocks import OfflineProviders
from .plan import UNKNOWN, UNKNOWN_VALUE, Invoke, Plan, Registration, plain
from .urns import STACK_TYPE, make_urn

ORGANIZATION = "organization"

# What this monitor supports, by the protocol's feature names (SupportsFeatureRequest.id). Output values stay off, as
# in the SDK's own test monitor: inputs then arrive as plain values with secrets marked, which is what a plan shows.
FEATURES = frozenset({"secrets", "resourceReferences", "aliasSpecs", "deletedWith", "transforms"})

class CaptureTimeoutError(TimeoutError):
    """The program (or an Output it waits on) did not finish in time."""


class _NeedsTheLoop(Exception):  # noqa: N818 (a signal between the monitor and the executor, never seen outside)
    """Raised by the monitor, before it records anything, for a call made on the loop's thread that must call back
    into the program (a transform): the program's callback server runs on that loop, so the call is run again on
    the worker thread."""


class _Unimplemented(grpc.RpcError):
    """The answer of an engine that does not implement a call: the SDK then falls back as with an older CLI."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNIMPLEMENTED

    def details(self) -> str:
        return "not implemented by the offline engine"


def _provider_reference(reference: str) -> str | None:
    """``<provider urn>::<id>``, with an ID that a preview does not know yet shown as such."""
    if not reference:
        return None
    urn, _, resource_id = reference.rpartition("::")
    return f"{urn}::{UNKNOWN}" if resource_id in ("", UNKNOWN_VALUE) else reference


def _struct(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(message) if message is not None else {}


def _to_struct(data: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(data)
    return message


class _Service:
    """A gRPC service implemented in process: a call it does not define answers UNIMPLEMENTED, as an older engine would."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name[:1].isupper():
            def unimplemented(*_: Any, **__: Any) -> Any:
                raise _Unimplemented()

            return unimplemented
        raise AttributeError(name)


class Engine(_Service):
    """The engine service: log messages go to the caller's log list (the CLI prints warnings and errors)."""

    def __init__(self) -> None:
        self.logs: list[tuple[int, str]] = []
        self.root: str = ""

    def Log(self, request: Any) -> empty_pb2.Empty:  # noqa: N802 (the protocol's method names)
        self.logs.append((int(request.severity), str(request.message)))
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any) -> Any:  # noqa: N802
        from pulumi.runtime.proto import engine_pb2

        return engine_pb2.GetRootResourceResponse(urn=self.root)

    def SetRootResource(self, request: Any) -> Any:  # noqa: N802
        from pulumi.runtime.proto import engine_pb2

        self.root = request.urn
        return engine_pb2.SetRootResourceResponse()



class Monitor(_Service):
    """The resource monitor: records each registration, invoke and the stack's outputs as plain data."""

    def __init__(self, project: str, stack: str, providers: OfflineProviders):
        self.project = project
        self.stack = stack
        self.providers = providers
        self.registrations: list[Registration] = []
        self.invokes: list[Invoke] = []
        self.outputs: dict[str, Any] = {}
        self.stack_urn = ""
        self.state: dict[str, tuple[str, dict[str, Any]]] = {}  # urn -> (id, outputs) for resource references
        self.stack_transforms: list[Any] = []  # callbacks, in the order the program registered them
        self.own_transforms: dict[str, list[Any]] = {}  # urn -> the transforms its own options declared
        self.parents: dict[str, str] = {}
        self._channels: dict[str, Any] = {}
        self.loop_thread: int | None = None  # the program's event loop thread: no callback can be served from it

    # --- feature negotiation -----------------------------------------------------------------------------------------
    def SupportsFeature(self, request: Any) -> resource_pb2.SupportsFeatureResponse:  # noqa: N802
        return resource_pb2.SupportsFeatureResponse(hasSupport=request.id in FEATURES)

    def GetDeploymentInfo(self, request: Any) -> Any:  # noqa: N802
        raise _Unimplemented()  # the SDK then asks SupportsFeature, feature by feature, as it does with older engines

    # --- resources ---------------------------------------------------------------------------------------------------
    def RegisterResource(self, request: Any) -> resource_pb2.RegisterResourceResponse:  # noqa: N802
        urn = make_urn(self.stack, self.project, request.parent, request.type, request.name)
        if request.type == STACK_TYPE:
            self.stack_urn = urn
            return resource_pb2.RegisterResourceResponse(urn=urn)
        transforms = self._transforms_for(request)
        if transforms and threading.get_ident() == self.loop_thread:
            raise _NeedsTheLoop()
        self.parents[urn] = request.parent
        self.own_transforms[urn] = list(request.transforms)
        properties, options = self._transformed(request, transforms)
        wire = _struct(properties)
        deps = set(options.depends_on)
        for prop in request.propertyDependencies.values():
            deps.update(prop.urns)
        self.registrations.append(
            Registration(
                urn=urn,
                type=request.type,
                name=request.name,
                custom=request.custom,
                parent=request.parent if request.parent and request.parent != self.stack_urn else None,
                provider=_provider_reference(options.provider),
                dependencies=sorted(deps),
                inputs=plain(wire),
                options={
                    "protect": options.protect if options.HasField("protect") else False,
                    "ignoreChanges": sorted(options.ignore_changes),
                    "replaceOnChanges": sorted(options.replace_on_changes),
                    "deleteBeforeReplace": options.delete_before_replace,
                    "retainOnDelete": options.retain_on_delete if options.HasField("retain_on_delete") else False,
                    **self._aliases(request, options),
                },
            )
        )
        if not request.custom:
            return resource_pb2.RegisterResourceResponse(urn=urn)
        resource_id, outputs = self.providers.new_resource(request.type, request.name, wire)
        self.state[urn] = (resource_id, outputs)
        return resource_pb2.RegisterResourceResponse(urn=urn, id=resource_id, object=_to_struct(outputs))

    def _aliases(self, request: Any, options: Any) -> dict[str, list[str]]:
        """The URNs a resource was known by before (its aliases), when it has any; the plan leaves the key out when not."""
        urns = []
        for alias in options.aliases:
            if alias.HasField("spec"):
                spec = alias.spec
                # An empty parentUrn means the resource's own parent (the SDKs send it so; source_eval.go notes it).
                parent = "" if spec.noParent else (spec.parentUrn or request.parent)
                urns.append(make_urn(spec.stack or self.stack, spec.project or self.project, parent,
                                     spec.type or request.type, spec.name or request.name))
            elif alias.urn:
                urns.append(alias.urn)
        return {"aliases": sorted(set(urns))} if urns else {}

    def _transforms_for(self, request: Any) -> list[Any]:
        """The transforms a registration runs through, in the engine's order: the resource's own, then each ancestor's
        own (nearest first), then the stack's in registration order (pulumi/pulumi pkg/resource/deploy/source_eval.go,
        resmon.RegisterResource)."""
        transforms = list(request.transforms)
        ancestor = request.parent
        while ancestor:
            transforms += self.own_transforms.get(ancestor, [])
            ancestor = self.parents.get(ancestor, "")
        return transforms + self.stack_transforms

    def _transformed(self, request: Any, transforms: list[Any]) -> tuple[Any, Any]:
        """The inputs and options after the transforms (an empty list: the request's own, untouched)."""
        options = resource_pb2.TransformResourceOptions(
            depends_on=request.dependencies,
            ignore_changes=request.ignoreChanges,
            replace_on_changes=request.replaceOnChanges,
            provider=request.provider,
            delete_before_replace=request.deleteBeforeReplace,
            aliases=request.aliases,
        )
        if request.HasField("protect"):
            options.protect = request.protect
        if request.HasField("retainOnDelete"):
            options.retain_on_delete = request.retainOnDelete
        properties = request.object
        for callback in transforms:
            asked = resource_pb2.TransformRequest(
                type=request.type,
                name=request.name,
                custom=request.custom,
                parent=request.parent,
                properties=properties,
                options=options,
            )
            answer = resource_pb2.TransformResponse.FromString(self._invoke_callback(callback, asked.SerializeToString()))
            if answer.HasField("properties"):
                properties = answer.properties
            if answer.HasField("options"):
                options = answer.options
        return properties, options

    def _invoke_callback(self, callback: Any, request: bytes) -> bytes:
        """Calls back into the program's callback server (on loopback), as the engine does for a transform."""
        channel = self._channels.get(callback.target)
        if channel is None:
            channel = self._channels[callback.target] = grpc.insecure_channel(callback.target)
        stub = callback_pb2_grpc.CallbacksStub(channel)
        return stub.Invoke(callback_pb2.CallbackInvokeRequest(token=callback.token, request=request)).response

    def close(self) -> None:
        """Closes the channels to the program's callback server."""
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()

    def RegisterResourceOutputs(self, request: Any) -> empty_pb2.Empty:  # noqa: N802
        if request.urn == self.stack_urn:
            self.outputs = plain(_struct(request.outputs))
        return empty_pb2.Empty()

    def ReadResource(self, request: Any) -> resource_pb2.ReadResourceResponse:  # noqa: N802
        urn = make_urn(self.stack, self.project, request.parent, request.type, request.name)
        properties = _struct(request.properties)
        self.state[urn] = (request.id, properties)
        return resource_pb2.ReadResourceResponse(urn=urn, properties=_to_struct(properties))

    # --- functions ---------------------------------------------------------------------------------------------------
    def Invoke(self, request: Any) -> resource_pb2.ResourceInvokeResponse:  # noqa: N802
        args = _struct(request.args)
        self.invokes.append(Invoke(request.tok, plain(args)))
        if request.tok == "pulumi:pulumi:getResource":
            urn = str(args.get("urn", ""))
            resource_id, outputs = self.state.get(urn, ("", {}))
            result = {"urn": urn, "id": resource_id, "state": outputs}
        else:
            result = self.providers.call(request.tok, args)
        return resource_pb2.ResourceInvokeResponse(**{"return": _to_struct(result)})

    def Call(self, request: Any) -> Any:  # noqa: N802
        return resource_pb2.CallResponse(failures=[provider_pb2.CheckFailure(reason="method calls run offline")])

    def RegisterStackTransform(self, request: Any) -> empty_pb2.Empty:  # noqa: N802
        self.stack_transforms.append(request)  # a Callback: target address and token
        return empty_pb2.Empty()

    def SignalAndWaitForShutdown(self, request: Any) -> empty_pb2.Empty:  # noqa: N802
        return empty_pb2.Empty()



# --- what an offline plan has no use for -------------------------------------------------------------------------------
_VERSIONED_TYPE = re.compile(r"(?P<package>[^:]+):(?P<module>[^:/]+)(/[^:]+)?:(?P<name>[^:]+)")


def _api_version_alias(alias: Any, type_: str) -> bool:
    """Whether an alias only names another API version (or API group) of the resource's own kind, as the Azure and
    Kubernetes SDKs add to every resource (110+ for an AgentPool). They matter only for state written by older SDKs,
    which an offline plan never has; an alias of any other form (a rename, another kind, another parent) is kept."""
    if not isinstance(alias, pulumi.Alias) or not isinstance(alias.type_, str) or alias.type_ == type_:
        return False
    unset = alias.name is ... and alias.parent is ... and alias.stack is ... and alias.project is ...
    return unset and getattr(alias, "parent_urn", ...) is ... and _same_kind(type_, alias.type_)


@functools.cache
def _same_kind(type_: str, other: str) -> bool:
    """Whether two type tokens name one kind in one package, whatever the module's version (cached: an SDK repeats the
    same hundred aliases for every resource of a type)."""
    mine, theirs = _VERSIONED_TYPE.fullmatch(type_), _VERSIONED_TYPE.fullmatch(other)
    return bool(mine and theirs) and all(mine[part] == theirs[part] for part in ("package", "name"))


def _without_version_aliases(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
    aliases = args.opts.aliases
    if not aliases:
        return None
    kept = [alias for alias in aliases if not _api_version_alias(alias, args.type_)]
    if len(kept) == len(aliases):
        return None
    opts = copy.copy(args.opts)
    opts.aliases = kept
    return pulumi.ResourceTransformationResult(args.props, opts)


# --- running a program -----------------------------------------------------------------------------------------------
class _RpcExecutor(futures.ThreadPoolExecutor):
    """Where the SDK runs its RPC calls (`loop.run_in_executor(None, ...)`): inline on the loop's thread, as the answer
    is at hand; on one worker thread when the monitor needs the loop free to serve a transform callback
    (`_NeedsTheLoop`), and after that while the worker still has calls queued, so calls reach the monitor in the order
    the program makes them. A hand-off to a thread costs two context switches per call, most of a small plan's RPC
    time."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="offline-rpc")  # asyncio takes no other kind of executor
        self.queued = 0  # calls handed to the worker that have not finished (read and written on the loop's thread)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        if self.queued:
            return self._on_worker(fn, *args, **kwargs)
        done: futures.Future[Any] = futures.Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except _NeedsTheLoop:
            return self._on_worker(fn, *args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 (the SDK awaits the future and sees the exception there)
            done.set_exception(exc)
        return done

    def _on_worker(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        self.queued += 1
        future = super().submit(fn, *args, **kwargs)
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(self._finished))
        return future

    def _finished(self) -> None:
        self.queued -= 1


def capture(
    program: Callable[[], Any],
    *,
    project: str = "aks-dra-vgpu",
    stack: str = "test",
    config: dict[str, Any] | None = None,
    preview: bool = False,
    secret_keys: list[str] | None = None,
    timeout: float | None = None,
) -> Plan:
    """Runs `program` as the language host would (inside a Stack, with this config); returns what it registered.

    `config` maps ``namespace:key`` to values; non-strings are sent as JSON strings, as the Pulumi CLI does.
    ``preview=True`` is a first `pulumi preview`; ``preview=False`` an update, with plausible provider outputs.
    Exceptions raised by the program propagate unchanged (``SystemExit`` too); a program still running after
    `timeout` seconds raises CaptureTimeoutError (it is left to finish on its own, detached).
    """
    wire = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (config or {}).items()}
    context = contextvars.copy_context()
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["plan"] = context.run(_capture, program, project, stack, wire, preview, list(secret_keys or []))
        except BaseException as exc:  # handed to the caller's thread below
            result["error"] = exc

    worker = threading.Thread(target=run, name="offline-capture", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise CaptureTimeoutError(f"the program did not finish within {timeout:g} s")
    if "error" in result:
        raise result["error"]
    return result["plan"]


def _capture(
    program: Callable[[], Any], project: str, stack: str, config: dict[str, str], preview: bool, secret_keys: list[str]
) -> Plan:
    monitor = Monitor(project, stack, OfflineProviders(preview))
    engine = Engine()
    pulumi.runtime.configure(
        pulumi.runtime.Settings(
            project=project,
            stack=stack,
            monitor=monitor,
            engine=engine,
            dry_run=preview,
            organization=ORGANIZATION,
        )
    )
    loop = asyncio.new_event_loop()
    monitor.loop_thread = threading.get_ident()
    loop.set_default_executor(_RpcExecutor())
    asyncio.set_event_loop(loop)

    async def main() -> None:
        pulumi.runtime.register_stack_transformation(_without_version_aliases)
        result = program()
        if inspect.isawaitable(result):
            await result
        await _sdk_tasks_done()

    try:
        with _language_host_config(config, secret_keys):
            # As the language host does: config from the environment it set, then the program in a stack.
            pulumi.runtime.set_all_config(pulumi.runtime.get_config_env(), pulumi.runtime.get_config_secret_keys_env())
            loop.run_until_complete(pulumi.runtime.run_in_stack(main))
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        asyncio.set_event_loop(None)
        monitor.close()
    resources = sorted(monitor.registrations, key=lambda r: r.urn)
    return Plan(project, stack, resources, monitor.outputs, monitor.invokes)


_SDK_DIR = os.path.dirname(pulumi.__file__) + os.sep


def _sdk_pending() -> list[asyncio.Task[Any]]:
    """The loop's unfinished tasks that run the SDK's own coroutines: its outputs and RPCs (a program's own tasks and
    the gRPC callback server's run until they are cancelled, and the SDK does not wait for them either)."""
    me = asyncio.current_task()
    return [
        task for task in asyncio.all_tasks()
        if task is not me and getattr(task.get_coro(), "cr_code", None) is not None
        and task.get_coro().cr_code.co_filename.startswith(_SDK_DIR)
    ]


async def _sdk_tasks_done() -> None:
    """Waits until the SDK's outputs and RPCs are done, or one failed, in one pass over them.

    The SDK's final wait (pulumi/pulumi sdk/python/lib/pulumi/runtime/stack.py, wait_for_rpcs) waits for the same
    tasks one completion at a time (`asyncio.wait(FIRST_COMPLETED)` over every pending output, ~70 times over the
    ~20 outputs per resource of a plan): most of a large plan's final wait. After this it finds nothing left, and a
    failure stops this wait at once, so the SDK still reports failures as it always has.
    """
    while pending := _sdk_pending():
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
        if any(not task.cancelled() and task.exception() is not None for task in done):
            return


class _language_host_config:  # noqa: N801 (used as a context manager, like a function)
    """``PULUMI_CONFIG`` and ``PULUMI_CONFIG_SECRET_KEYS`` set as the language host sets them, then restored."""

    KEYS = ("PULUMI_CONFIG", "PULUMI_CONFIG_SECRET_KEYS")

    def __init__(self, config: dict[str, str], secret_keys: list[str]):
        self.values = {"PULUMI_CONFIG": json.dumps(config), "PULUMI_CONFIG_SECRET_KEYS": json.dumps(secret_keys)}
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> None:
        self.saved = {key: os.environ.get(key) for key in self.KEYS}
        os.environ.update(self.values)

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
