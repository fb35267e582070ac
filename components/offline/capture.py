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
import contextlib
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

import pulumi

from .mocks import OfflineProviders
from .monitor import Engine, Monitor, _NeedsTheLoop
from .plan import Plan

ORGANIZATION = "organization"

class CaptureTimeoutError(TimeoutError):
    """The program (or an Output it waits on) did not finish in time."""


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
        except BaseException as exc:
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
    stack_outputs: dict[str, dict[str, Any]] | None = None,
) -> Plan:
    """Runs `program` as the language host would (inside a Stack, with this config); returns what it registered.

    `config` maps ``namespace:key`` to values; non-strings are sent as JSON strings, as the Pulumi CLI does.
    ``preview=True`` is a first `pulumi preview`; ``preview=False`` an update, with plausible provider outputs.
    Exceptions raised by the program propagate unchanged (``SystemExit`` too); a program still running after
    `timeout` seconds raises CaptureTimeoutError (it is left to finish on its own, detached). `stack_outputs`: other
    stacks' outputs by ``organization/project/stack``, what a StackReference to one of them reads.
    """
    wire = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (config or {}).items()}
    context = contextvars.copy_context()
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["plan"] = context.run(_capture, program, project, stack, wire, preview, list(secret_keys or []),
                                         stack_outputs or {})
        except BaseException as exc:  # handed to the caller's thread below
            result["error"] = exc

    worker = threading.Thread(target=run, name="offline-capture", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        _stop(worker)
        raise CaptureTimeoutError(f"the program did not finish within {timeout:g} s")
    if "error" in result:
        raise result["error"]
    return result["plan"]


def _capture(
    program: Callable[[], Any], project: str, stack: str, config: dict[str, str], preview: bool, secret_keys: list[str],
    stack_outputs: dict[str, dict[str, Any]],
) -> Plan:
    monitor = Monitor(project, stack, OfflineProviders(preview, stack_outputs))
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
    _LOOPS[threading.get_ident()] = loop
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
        # Cancelling can start more tasks: a program that raised leaves the SDK's stack to register its outputs in a
        # `finally` (pulumi/pulumi sdk/python/lib/pulumi/runtime/stack.py run_in_stack -> Stack._finish ->
        # runtime/resource.py register_resource_outputs, an `asyncio.ensure_future`). A task the loop never starts is
        # a coroutine never awaited (a RuntimeWarning when it is collected), so cancel until none is left.
        stray: BaseException | None = None  # a task's SystemExit leaves the loop at once: finish first, raise it after
        for _ in range(10):
            pending = asyncio.all_tasks(loop)
            if not pending:
                break
            for task in pending:
                task.cancel()
            try:
                loop.run_until_complete(asyncio.sleep(0))
            except BaseException as exc:
                stray = stray or exc
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        asyncio.set_event_loop(None)
        monitor.close()
        _LOOPS.pop(threading.get_ident(), None)
        if stray is not None:
            raise stray
    resources = sorted(monitor.registrations, key=lambda r: r.urn)
    return Plan(project, stack, resources, monitor.outputs, monitor.invokes, engine.warnings(), monitor.stack_frames)


# --- stopping a program that runs past its time limit ------------------------------------------------------------------
_LOOPS: dict[int, asyncio.AbstractEventLoop] = {}  # capture thread -> its event loop, while it runs


def _stop(worker: threading.Thread) -> None:
    """Asks a capture thread that outlived its time limit to stop: TimeoutError raised in it at its next Python
    instruction (CPython's PyThreadState_SetAsyncExc), and its loop woken in case it waits for an Output that never
    resolves. A thread blocked inside a C call (``time.sleep``) stops only when that call returns."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident or 0), ctypes.py_object(TimeoutError))
    loop = _LOOPS.get(worker.ident or 0)
    if loop is not None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(lambda: None)


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
            if os.environ.get(key) != self.values[key]:
                continue  # a later run set its own: this one outlived its time limit and must not undo it
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
