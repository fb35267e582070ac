"""The in-process resource monitor and engine: the two services the Pulumi SDK talks to, answered as the Pulumi engine
would (pulumi/pulumi `proto/pulumi/resource.proto`, `engine.proto`; transforms as `pkg/resource/deploy/source_eval.go`
runs them), with what a provider would answer coming from `mocks.OfflineProviders`. Every request is recorded as
plain data for the plan.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import callback_pb2, callback_pb2_grpc, provider_pb2, resource_pb2

from .mocks import OfflineProviders
from .plan import UNKNOWN, UNKNOWN_VALUE, Invoke, Registration, plain
from .urns import STACK_REFERENCE_TYPE, STACK_TYPE, make_urn

# What this monitor supports, by the protocol's feature names (SupportsFeatureRequest.id). Output values stay off, as
# in the SDK's own test monitor: inputs then arrive as plain values with secrets marked, which is what a plan shows.
FEATURES = frozenset({"secrets", "resourceReferences", "aliasSpecs", "deletedWith", "transforms"})

# The monitor's Invoke answers with `ResourceInvokeResponse` (resource.proto) from pulumi 3.256.0, which adds `unknown`
# and is what newer SDKs read; older SDKs define only the provider's `InvokeResponse` (return, failures) there
# (pulumi/pulumi `sdk/python/lib/pulumi/runtime/proto/resource_pb2_grpc.pyi`, ResourceMonitorServicer.Invoke).
_INVOKE_RESPONSE = getattr(resource_pb2, "ResourceInvokeResponse", provider_pb2.InvokeResponse)


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

    def warnings(self) -> list[str]:
        """The warnings logged (severity WARNING, pulumi/pulumi `proto/pulumi/engine.proto` LogSeverity), each once and
        sorted: a message said twice is one thing to fix, and the SDK sends a resource's logs once its urn resolves, so
        the order they arrive in is not the program's (sorted, a plan is the same on every run; the components start
        their messages with the resource's name, so they group by resource, as `pulumi preview` shows them)."""
        from pulumi.runtime.proto import engine_pb2

        return sorted({message for severity, message in self.logs if severity == engine_pb2.WARNING})

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
        # urn -> the program's stack when it declared the resource ((file URI, line), innermost first), as the SDK
        # sends it (RegisterResourceRequest.stackTrace): where `plan` says a resource was declared.
        self.stack_frames: dict[str, tuple[tuple[str, int], ...]] = {}
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
        self.stack_frames[urn] = tuple((f.pc.uri, f.pc.line) for f in request.stackTrace.frames if f.HasField("pc"))
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
        if request.type == STACK_REFERENCE_TYPE:
            properties = self.providers.read_stack_reference(request.id, properties)
        self.state[urn] = (request.id, properties)
        return resource_pb2.ReadResourceResponse(urn=urn, properties=_to_struct(properties))

    # --- functions ---------------------------------------------------------------------------------------------------
    def Invoke(self, request: Any) -> Any:  # noqa: N802
        args = _struct(request.args)
        self.invokes.append(Invoke(request.tok, plain(args)))
        if request.tok == "pulumi:pulumi:getResource":
            urn = str(args.get("urn", ""))
            resource_id, outputs = self.state.get(urn, ("", {}))
            result = {"urn": urn, "id": resource_id, "state": outputs}
        else:
            result = self.providers.call(request.tok, args)
        return _INVOKE_RESPONSE(**{"return": _to_struct(result)})

    def Call(self, request: Any) -> Any:  # noqa: N802
        # The monitor's Call answers with the provider's CallResponse (resource.proto has none), in every SDK version.
        return provider_pb2.CallResponse(failures=[provider_pb2.CheckFailure(reason="method calls run offline")])

    def RegisterStackTransform(self, request: Any) -> empty_pb2.Empty:  # noqa: N802
        self.stack_transforms.append(request)  # a Callback: target address and token
        return empty_pb2.Empty()

    def SignalAndWaitForShutdown(self, request: Any) -> empty_pb2.Empty:  # noqa: N802
        return empty_pb2.Empty()
