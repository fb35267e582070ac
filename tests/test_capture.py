"""The capture itself: public SDK contracts only, an honest first preview, transforms as the engine runs them, and no
trace left in the caller's process (event loop, GC, environment, config)."""

from __future__ import annotations

import ast
import asyncio
import gc
import json
import os
import re
import threading

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.catalog.roles import ROLE_NAMES
from components.offline import UNKNOWN, capture
from components.offline.capture import CaptureTimeoutError
from components.offline.mocks import SUBSCRIPTION
from components.offline.urns import make_urn
from tests.conftest import ROOT, parsed

# Names that belong to the SDK's private machinery or its test doubles: code under components/ must not use them.
FORBIDDEN = {
    "pulumi.runtime.mocks", "pulumi.runtime.rpc", "pulumi.runtime.sync_await", "pulumi.runtime.settings",
    "pulumi.runtime.config", "set_mocks", "MockMonitor", "MockEngine", "MockSettings", "_sync_await", "sync_await",
    "_resolve_callbacks", "serialize_properties", "deserialize_properties", "SETTINGS", "rpc_manager",
    "_asyncio_future_blocking", "CONFIG",
}


def _names_used(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
    return found


def test_no_sdk_internals_are_named_in_the_package():
    offenders = {}
    for path in sorted((ROOT / "components").rglob("*.py")):
        used = _names_used(parsed(path)) & FORBIDDEN
        if used:
            offenders[str(path.relative_to(ROOT))] = sorted(used)
    assert offenders == {}


def test_the_check_would_catch_an_internal():
    assert _names_used(ast.parse("from pulumi.runtime.sync_await import _sync_await")) & FORBIDDEN


def one_config_map(name: str = "cm"):
    def program() -> None:
        k8s.core.v1.ConfigMap(name, metadata={"name": name}, data={"k": "v"})

    return program


def test_urns_carry_the_parents_full_qualified_type():
    # pulumi/pulumi pkg/resource/deploy/deployment.go, generateURN: parent.QualifiedType() + "$" + type
    parent = make_urn("s", "p", "", "a:b:Outer", "o")
    child = make_urn("s", "p", parent, "a:b:Middle", "m")
    assert make_urn("s", "p", child, "x:y:Leaf", "l") == "urn:pulumi:s::p::a:b:Outer$a:b:Middle$x:y:Leaf::l"


def test_a_first_preview_invents_nothing(shipped_plan):
    for stack in ("dev", "prod"):
        text = shipped_plan(stack, preview=True).to_json()
        written = (ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8")
        # ARM IDs and GUIDs only where the stack file wrote them: none of a resource not created yet, no resourceUID,
        # principal or tenant made up. A role's ID is no resource: the role is a catalog constant, and its subscription
        # the provider's (known to a real first preview; offline, the placeholder the update runs use too).
        roles = {f"/subscriptions/{SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/{role}"
                 for role in ROLE_NAMES}
        for arm_id in re.findall(r"/subscriptions/[^\"]+", text):
            assert arm_id in written or arm_id in roles, arm_id
        for guid in re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text):
            assert guid in written or guid in ROLE_NAMES, guid
        assert ".azmk8s.io" not in text and "issuerURL" not in text  # no FQDN, no OIDC issuer
        assert "offline-plan.invalid" not in text  # no made-up kubeconfig
        assert UNKNOWN in text  # and it is a preview: what only a provider knows is unknown


def test_an_update_run_gets_provider_outputs_for_tests():
    holder: dict[str, pulumi.Output] = {}

    def program() -> None:
        cm = k8s.core.v1.ConfigMap("cm", metadata={"name": "cm"})
        holder["id"] = cm.id
        pulumi.export("id", cm.id)

    assert capture(program, preview=False).outputs["id"] == "cm"
    assert capture(program, preview=True).outputs["id"] == UNKNOWN


def test_the_callers_event_loop_is_kept():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        capture(one_config_map())
        assert asyncio.get_event_loop() is loop and not loop.is_closed()
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def test_capture_works_inside_a_running_event_loop():
    async def caller() -> int:
        return len(capture(one_config_map()).resources)

    assert asyncio.run(caller()) == 1


def test_no_process_wide_setting_is_left_changed():
    before = (gc.get_threshold(), gc.get_freeze_count(), os.environ.get("PULUMI_CONFIG"), gc.isenabled())
    capture(one_config_map(), config={"aks-dra-vgpu:x": {"a": 1}})
    with pytest.raises(ValueError):
        capture(lambda: (_ for _ in ()).throw(ValueError("boom")))
    assert (gc.get_threshold(), gc.get_freeze_count(), os.environ.get("PULUMI_CONFIG"), gc.isenabled()) == before
    assert threading.active_count() < 20  # no threads piling up either


def test_ambient_pulumi_config_does_not_leak_into_a_capture(monkeypatch):
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps({"aks-dra-vgpu:cluster": "from the environment"}))

    def program() -> None:
        pulumi.export("cluster", pulumi.Config("aks-dra-vgpu").get("cluster"))

    assert capture(program, config={"aks-dra-vgpu:cluster": "given"}).outputs["cluster"] == "given"
    assert capture(program).outputs.get("cluster") is None
    assert json.loads(os.environ["PULUMI_CONFIG"]) == {"aks-dra-vgpu:cluster": "from the environment"}


def test_a_program_that_never_finishes_times_out():
    never: asyncio.Future | None = None

    async def program() -> None:
        nonlocal never
        never = asyncio.get_running_loop().create_future()
        await never

    with pytest.raises(CaptureTimeoutError, match=r"did not finish within 0\.2 s"):
        capture(program, timeout=0.2)  # it waits on a future nobody sets: any limit is reached


def test_system_exit_in_a_program_is_not_success():
    with pytest.raises(SystemExit):
        capture(lambda: (_ for _ in ()).throw(SystemExit(0)))


# --- transforms, as the engine runs them -------------------------------------------------------------------------------
def _label(value: str):
    def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if args.type_ != "kubernetes:core/v1:ConfigMap":
            return None
        data = dict(args.props.get("data") or {})
        data["order"] = data.get("order", "") + value
        return pulumi.ResourceTransformResult({**args.props, "data": data}, args.opts)

    return transform


def test_transforms_run_own_then_parents_then_stack(preview):
    class Holder(pulumi.ComponentResource):
        def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None):
            super().__init__("test:index:Holder", name, None, opts)
            k8s.core.v1.ConfigMap(
                "cm", metadata={"name": "cm"}, data={},
                opts=pulumi.ResourceOptions(parent=self, transforms=[_label("own")]),
            )

    def program() -> None:
        pulumi.runtime.register_resource_transform(_label("-stack"))
        Holder("h", pulumi.ResourceOptions(transforms=[_label("-parent")]))

    plan = capture(program, preview=preview)
    assert plan.one("kubernetes:core/v1:ConfigMap").inputs["data"] == {"order": "own-parent-stack"}


def test_a_transform_can_set_options_and_unmodelled_properties(preview):
    def protect_and_tag(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult:
        opts = pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(protect=True, ignore_changes=["data"]))
        return pulumi.ResourceTransformResult({**args.props, "immutable": True}, opts)

    def program() -> None:
        k8s.core.v1.ConfigMap("cm", metadata={"name": "cm"}, opts=pulumi.ResourceOptions(transforms=[protect_and_tag]))

    cm = capture(program, preview=preview).one("kubernetes:core/v1:ConfigMap")
    assert cm.inputs["immutable"] is True
    assert cm.options["protect"] is True and cm.options["ignoreChanges"] == ["data"]


def test_sdk_generated_api_version_aliases_are_not_expanded_but_a_users_alias_is_kept():
    from components.offline.capture import _api_version_alias

    assert _api_version_alias(pulumi.Alias(type_="azure-native:containerservice/v20190201:AgentPool"),
                              "azure-native:containerservice:AgentPool")
    assert _api_version_alias(pulumi.Alias(type_="kubernetes:resource.k8s.io/v1beta1:DeviceClass"),
                              "kubernetes:resource.k8s.io/v1:DeviceClass")
    assert _api_version_alias(pulumi.Alias(type_="kubernetes:extensions/v1beta1:NetworkPolicy"),
                              "kubernetes:networking.k8s.io/v1:NetworkPolicy")
    assert not _api_version_alias(pulumi.Alias(name="old-name"), "azure-native:containerservice:AgentPool")
    assert not _api_version_alias(pulumi.Alias(type_="azure-native:containerservice:ManagedCluster"),
                                  "azure-native:containerservice:AgentPool")
    assert not _api_version_alias(
        pulumi.Alias(type_="azure-native:containerservice/v20190201:AgentPool", name="renamed"),
        "azure-native:containerservice:AgentPool",
    )
    assert not _api_version_alias("urn:pulumi:s::p::a:b:C::x", "azure-native:containerservice:AgentPool")



def test_a_users_alias_is_recorded_as_the_urn_it_stood_for(preview):
    def program() -> None:
        moved = pulumi.ResourceOptions(aliases=[pulumi.Alias(name="old-name")])
        k8s.core.v1.ConfigMap("new-name", metadata={"name": "cm"}, opts=moved)
        k8s.core.v1.ConfigMap("plain", metadata={"name": "p"})

    class Holder(pulumi.ComponentResource):
        def __init__(self) -> None:
            super().__init__("test:index:Holder", "h")
            moved = pulumi.ResourceOptions(parent=self, aliases=[pulumi.Alias(name="old-child")])
            k8s.core.v1.ConfigMap("new-child", metadata={"name": "c"}, opts=moved)

    def both() -> None:
        program()
        Holder()

    plan = capture(both, preview=preview, stack="s", project="p")
    moved = plan.one("kubernetes:core/v1:ConfigMap", "new-name")
    assert moved.options["aliases"] == ["urn:pulumi:s::p::kubernetes:core/v1:ConfigMap::old-name"]
    child = plan.one("kubernetes:core/v1:ConfigMap", "new-child")
    assert child.options["aliases"] == ["urn:pulumi:s::p::test:index:Holder$kubernetes:core/v1:ConfigMap::old-child"]
    assert "aliases" not in plan.one("kubernetes:core/v1:ConfigMap", "plain").options
