"""The plugin started exactly as Pulumi starts it: `python <repository folder> <engine address>` as its own process.

The Python language host runs a plugin folder as ``python <folder> <args>`` (pulumi/pulumi
`sdk/python/cmd/pulumi-language-python/main.go`, RunPlugin), the engine's address last. Here a small engine on
loopback stands in for Pulumi's: an Engine service (the SDK logs through it) and a ResourceMonitor (the offline
engine's, answering over real gRPC), both in this test process. The plugin must print its port, answer GetSchema and
build components on Construct; the same folder run as the stack's program stays the program.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from google.protobuf import json_format, struct_pb2
from pulumi.runtime.proto import (  # status_pb2: the SDK's own google.rpc.Status (a second copy would clash with it)
    engine_pb2_grpc,
    errors_pb2,
    provider_pb2,
    provider_pb2_grpc,
    resource_pb2_grpc,
    status_pb2,
)

from components import __version__
from components.host.hosted import HOSTED
from components.host.server import committed_schema
from components.offline import load_project, run_project
from components.offline.capture import Engine, Monitor
from components.offline.mocks import OfflineProviders
from tests.conftest import ROOT

capture_module = importlib.import_module("components.offline.capture")  # the module; the package exports its function
PACKAGE = "aks-dra-vgpu"
# How a secret travels on the wire: {SIG_KEY: SECRET_SIG, "value": ...} (pulumi/pulumi sdk/go/common/resource/sig).
SIG_KEY, SECRET_SIG = "4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"
STARTUP_SECONDS = 90


class _Served:
    """One of the offline engine's protocol objects answering real gRPC calls (one call at a time, as it expects)."""

    def __init__(self, target: Any, lock: threading.Lock):
        self.target = target
        self.lock = lock

    def __getattr__(self, name: str) -> Callable[[Any, grpc.ServicerContext], Any]:
        method = getattr(self.target, name)

        def handler(request: Any, context: grpc.ServicerContext) -> Any:
            with self.lock:
                try:
                    return method(request)
                except grpc.RpcError as error:  # the offline engine's "not implemented": the SDK falls back
                    context.abort(error.code(), error.details())

        return handler


@pytest.fixture(scope="module")
def engine() -> Iterator[tuple[str, Monitor, Engine]]:
    """A Pulumi engine stand-in on loopback: (its address, the monitor that records registrations, the log)."""
    monitor, log = Monitor("consumer", "dev", OfflineProviders(preview=False)), Engine()
    lock = threading.Lock()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    resource_pb2_grpc.add_ResourceMonitorServicer_to_server(_Served(monitor, lock), server)
    engine_pb2_grpc.add_EngineServicer_to_server(_Served(log, lock), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", monitor, log
    finally:
        server.stop(grace=None)


@contextlib.contextmanager
def started_plugin(engine_address: str, cwd: Path, folder: Path = ROOT) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`python <repository folder> <engine address>`, from a consumer's folder as the language host does; yields the
    port the plugin printed and the process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    process = subprocess.Popen(
        [sys.executable, str(folder), engine_address], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        try:
            first = lines.get(timeout=STARTUP_SECONDS)
        except queue.Empty:
            pytest.fail(f"the plugin printed no port within {STARTUP_SECONDS} s")
        if not first.strip().isdigit():
            process.kill()
            pytest.fail(f"the plugin printed {first!r} instead of a port; stderr: {process.communicate()[1].decode()}")
        yield int(first), process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        for stream in (process.stdout, process.stderr):
            if stream:
                stream.close()


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder Pulumi starts the plugin from: a consumer's project, with a `components` package of its own."""
    folder = tmp_path_factory.mktemp("consumer")
    (folder / "components").mkdir()
    (folder / "components" / "__init__.py").write_text("raise ImportError('the consumer components, not the plugin')\n")
    return folder


@pytest.fixture(scope="module")
def served(engine, consumer) -> Iterator[tuple[provider_pb2_grpc.ResourceProviderStub, str, Monitor]]:
    """One plugin process for the module (starting one takes seconds): a stub for it, the engine's address, the monitor."""
    address, monitor, _ = engine
    with started_plugin(address, consumer) as (port, _process), grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield provider_pb2_grpc.ResourceProviderStub(channel), address, monitor


@pytest.fixture
def plugin(served) -> tuple[provider_pb2_grpc.ResourceProviderStub, str, Monitor]:
    """The plugin, with the monitor's record of registrations emptied for this test."""
    served[2].registrations.clear()
    return served


def get_schema(stub: provider_pb2_grpc.ResourceProviderStub) -> dict[str, Any]:
    """The package schema, asked for as `pulumi package add` asks for it."""
    return json.loads(stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=60).schema)


def construct(stub: provider_pb2_grpc.ResourceProviderStub, monitor_address: str, type_name: str, name: str,
              inputs: dict[str, Any], **extra: Any) -> provider_pb2.ConstructResponse:
    """A Construct call as the engine makes it for a component a TypeScript program declares."""
    request = provider_pb2.ConstructRequest(
        project="consumer", stack="dev", organization="organization", dryRun=False, parallel=4,
        monitorEndpoint=monitor_address, type=f"{PACKAGE}:index:{type_name}", name=name,
        inputs=json_format.ParseDict(inputs, struct_pb2.Struct()), **extra,
    )
    return stub.Construct(request, timeout=120)


POOL = {"name": "a10s", "vmSize": "Standard_NV6ads_A10_v5", "taints": ["sku=gpu:NoSchedule"],
        "clusterName": "aks-shared", "resourceGroupName": "rg-shared"}


def test_started_as_a_plugin_it_prints_a_port_and_serves_the_schema(plugin):
    stub, _, monitor = plugin
    schema = get_schema(stub)
    # What the process serves is the committed, generated schema (with the package's version), every component in it.
    assert schema == {**committed_schema(), "version": __version__}
    assert sorted(schema["resources"]) == sorted(f"{PACKAGE}:index:{n}" for n in HOSTED)
    vm_size = schema["resources"][f"{PACKAGE}:index:GpuNodePool"]["inputProperties"]["vmSize"]
    assert vm_size["$ref"] == f"#/types/{PACKAGE}:index:VmSize"
    assert "Standard_NV6ads_A10_v5" in {e["value"] for e in schema["types"][f"{PACKAGE}:index:VmSize"]["enum"]}
    cluster = schema["resources"][f"{PACKAGE}:index:AksCluster"]["properties"]
    assert cluster["kubeconfig"]["secret"] is True and cluster["providerKubeconfig"]["secret"] is True
    assert monitor.registrations == []


def test_construct_builds_one_component_with_its_children(plugin):
    stub, address, monitor = plugin
    response = construct(stub, address, "GpuNodePool", "a10s", POOL)
    state = json_format.MessageToDict(response.state)
    assert response.urn == f"urn:pulumi:dev::consumer::{PACKAGE}:index:GpuNodePool::a10s"
    assert state["poolName"] == "a10s" and state["gpuMemoryGib"] == 4 and state["taints"] == ["sku=gpu:NoSchedule"]
    # One resource of the component's type (no wrapper of the same type around it), the agent pool inside it.
    components = [r for r in monitor.registrations if r.type.startswith(f"{PACKAGE}:")]
    assert [(r.type, r.urn) for r in components] == [(f"{PACKAGE}:index:GpuNodePool", response.urn)]
    pool = next(r for r in monitor.registrations if r.type == "azure-native:containerservice:AgentPool")
    assert pool.parent == response.urn and pool.inputs["vmSize"] == "Standard_NV6ads_A10_v5"


def test_construct_returns_secret_kubeconfigs(plugin):
    stub, address, _ = plugin
    cluster = {"name": "aks-x", "location": "westeurope", "resourceGroup": {"name": "rg-x"}}
    state = json_format.MessageToDict(construct(stub, address, "AksCluster", "x", cluster).state)
    for key in ("kubeconfig", "providerKubeconfig"):
        assert state[key][SIG_KEY] == SECRET_SIG
        assert "apiVersion" in state[key]["value"]
    assert state["clusterName"] == "aks-x" and state["resourceUid"]


def test_bad_inputs_come_back_as_one_structured_input_error_before_anything_is_registered(plugin):
    stub, address, monitor = plugin
    bad = {**POOL, "vmSize": "Standard_NV6ads", "taints": ["sku=gpu:NoSchedule", "sku=gpu"], "maxPods": 5}
    with pytest.raises(grpc.RpcError) as caught:
        construct(stub, address, "GpuNodePool", "a10s", bad)
    error = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = dict(error.trailing_metadata())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(details)
    found = errors_pb2.InputPropertiesError()
    assert status.details[0].Unpack(found)
    reasons = {e.property_path: e.reason for e in found.errors}
    assert set(reasons) == {"vmSize", "taints[1]", "maxPods"}
    assert "did you mean 'Standard_NV6ads_A10_v5'" in reasons["vmSize"]
    assert "  vmSize: " in error.details() and "  taints[1]: " in error.details()
    assert monitor.registrations == []


def test_kubernetes_components_need_the_callers_provider_over_the_wire_too(plugin):
    stub, address, monitor = plugin
    with pytest.raises(grpc.RpcError) as caught:
        construct(stub, address, "NvidiaDraDriver", "dra", {"pools": [POOL]})
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "explicit Kubernetes provider" in caught.value.details()
    assert monitor.registrations == []


def test_the_driver_uses_the_provider_the_caller_passes_over_the_wire(plugin):
    stub, address, monitor = plugin
    urn, provider_id = "urn:pulumi:dev::consumer::pulumi:providers:kubernetes::cluster", "0b6e5a1c-provider-id"
    provider = f"{urn}::{provider_id}"
    # The SDK rehydrates a provider it has the package for by asking the engine for it (pulumi:pulumi:getResource):
    # the engine knows the caller's provider.
    monitor.state[urn] = (provider_id, {"kubeconfig": "{}"})
    response = construct(stub, address, "NvidiaDraDriver", "dra", {"pools": [POOL]}, providers={"kubernetes": provider})
    state = json_format.MessageToDict(response.state)
    release = next(r for r in monitor.registrations if r.type == "kubernetes:helm.sh/v3:Release")
    assert release.provider == provider and release.parent == response.urn
    assert {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"} in (
        state["values"]["kubeletPlugin"]["tolerations"]
    )


def test_run_by_hand_without_an_engine_it_says_how_the_folder_runs(consumer):
    result = subprocess.run([sys.executable, str(ROOT)], cwd=consumer, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert "pulumi up" in result.stderr and "python -m components plan" in result.stderr


def stack_exports(monkeypatch: pytest.MonkeyPatch, project: Path, stack: str) -> dict[str, Any]:
    """The stack's outputs as the program registers them in an update, secrets opened (a plan shows only [secret])."""
    raw: dict[str, Any] = {}

    class Spy(capture_module.Monitor):
        def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802 (the protocol's name)
            if request.urn == self.stack_urn:
                raw.update(json_format.MessageToDict(request.outputs))
            return super().RegisterResourceOutputs(request)

    monkeypatch.setattr(capture_module, "Monitor", Spy)
    run_project(load_project(project), stack, preview=False)
    opened = {}
    for key, value in raw.items():
        secret = isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG
        opened[key] = (value["value"], "secret") if secret else (value, "plain")
    return opened


def login_mode(kubeconfig: str) -> str | None:
    """The kubelogin --login of a kubeconfig's user, or None for a static credential."""
    user = yaml.safe_load(kubeconfig)["users"][0]["user"]
    args = (user.get("exec") or {}).get("args") or []
    return args[args.index("--login") + 1] if "--login" in args else None


def test_run_as_the_stacks_program_it_is_the_program_and_exports_the_providers_kubeconfig(monkeypatch, project_dir):
    exports = stack_exports(monkeypatch, project_dir, "dev")
    assert {"kubeconfig", "clusterName", "clusterId", "gpuPools"} <= set(exports)
    kubeconfig, kind = exports["kubeconfig"]
    assert kind == "secret" and login_mode(kubeconfig) is None  # local accounts: a static user credential
    assert "deviceCodeKubeconfig" not in exports


def test_an_entra_id_stack_exports_the_non_interactive_kubeconfig_under_the_plain_name(monkeypatch, tmp_path):
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    doc["config"]["aks-dra-vgpu:cluster"]["auth"] = {"mode": "entraId"}
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.entra.yaml").write_text(yaml.safe_dump(doc))
    exports = stack_exports(monkeypatch, tmp_path, "entra")
    assert exports["kubeconfig"][1] == exports["deviceCodeKubeconfig"][1] == "secret"
    assert login_mode(exports["kubeconfig"][0]) == "azurecli"  # what the provider uses: runs unattended
    assert login_mode(exports["deviceCodeKubeconfig"][0]) == "devicecode"  # AKS's own: for a person only
