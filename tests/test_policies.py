"""The product's invariants: each policy passes what the components declare and catches what breaks it; the CLI's
`plan --policy` and the Pulumi policy pack (policy/) run the same checks."""

from __future__ import annotations

import copy
import json
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from components.catalog import CHART_DEVICE_CLASSES
from components.cli import EXIT_OK, EXIT_POLICY, main
from components.kubernetes.dra_samples import scanner_skips
from components.policies import (
    POLICIES,
    Violation,
    check_autoscaler_gpu_label,
    check_device_class_name,
    check_dra_driver_release,
    check_gpu_pool,
    check_kubernetes_version,
    check_plan,
    check_scale_from_zero,
    check_unique_device_classes,
    format_violations,
)
from tests.conftest import ROOT

POOL = "azure-native:containerservice:AgentPool"
RELEASE = "kubernetes:helm.sh/v3:Release"
DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
CLUSTER = "azure-native:containerservice:ManagedCluster"


@pytest.fixture(scope="module")
def dev_plan(shipped_plan):
    """The dev stack's offline plan, made once: what the components really declare (prod runs through the CLI below)."""
    return shipped_plan("dev")


@pytest.fixture
def good(dev_plan):
    """Fresh copies of the dev stack's inputs per type: each test breaks one thing."""
    return {t: copy.deepcopy(dev_plan.one(t).inputs) for t in (POOL, RELEASE, DEVICE_CLASS, CLUSTER)}


# --- GPU pools ---------------------------------------------------------------------------------------------------------
def test_gpu_pool_as_declared_passes(good):
    assert check_gpu_pool(POOL, good[POOL]) == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"vmSize": "Standard_NC6s_v3"}, "vmSize 'Standard_NC6s_v3' is not an NVadsA10_v5 size"),
        ({"nodeLabels": {"workload-class": "x"}}, "nodeLabels['nvidia.com/gpu.present'] is missing"),
        ({"nodeLabels": {"nvidia.com/gpu.present": "false"}}, "nodeLabels['nvidia.com/gpu.present'] is 'false'"),
        ({"gpuProfile": {"driver": "None"}}, "gpuProfile.driver is 'None', must be 'Install'"),
        ({"gpuProfile": None}, "gpuProfile.driver is missing"),
    ],
)
def test_gpu_pool_violations(good, change, words):
    inputs = {**good[POOL], **change}
    (message,) = check_gpu_pool(POOL, inputs)
    assert words in message


def test_gpu_pool_that_lost_everything_still_counts_as_a_gpu_pool(good):
    inputs = {k: v for k, v in good[POOL].items() if k not in ("nodeLabels", "gpuProfile")}
    inputs["vmSize"] = "Standard_NV36ads_A10_v5"
    assert len(check_gpu_pool(POOL, inputs)) == 2  # no label, no driver: caught by its N-series size
    assert len(check_gpu_pool("azure-native:containerservice/v20240901:AgentPool", inputs)) == 2


def test_cpu_pools_and_hidden_values_are_no_violation(good):
    cpu = {"agentPoolName": "cpu", "vmSize": "Standard_D4ds_v5", "mode": "User"}
    assert check_gpu_pool(POOL, cpu) == []
    assert check_gpu_pool(POOL, {**good[POOL], "vmSize": "[unknown]"}) == []
    assert check_gpu_pool(POOL, {**good[POOL], "nodeLabels": "[secret]"}) == []


# --- the DRA driver release ---------------------------------------------------------------------------------------------
def test_driver_release_as_declared_passes(good):
    assert check_dra_driver_release(RELEASE, good[RELEASE]) == []


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("resources", "gpus", "enabled"), False, "values.resources.gpus.enabled is False, must be True"),
        (("resources", "gpus", "enabled"), None, "values.resources.gpus.enabled is None"),
        (("gpuResourcesEnabledOverride",), "true", "values.gpuResourcesEnabledOverride is 'true', must be True"),
        (("featureGates", "IMEXDaemonsWithDNSNames"), True, "values.featureGates.IMEXDaemonsWithDNSNames is True"),
        (("nvidiaDriverRoot",), "/run/nvidia/driver", "values.nvidiaDriverRoot is '/run/nvidia/driver', must be '/'"),
    ],
)
def test_driver_release_required_values(good, path, value, words):
    node = good[RELEASE]["values"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    (message,) = check_dra_driver_release(RELEASE, good[RELEASE])
    assert words in message


def test_driver_release_missing_flags_are_violations(good):
    del good[RELEASE]["values"]["gpuResourcesEnabledOverride"]
    del good[RELEASE]["values"]["featureGates"]
    messages = check_dra_driver_release(RELEASE, good[RELEASE])
    assert [m.split(" is ")[0] for m in messages] == [
        "values.gpuResourcesEnabledOverride",
        "values.featureGates.IMEXDaemonsWithDNSNames",
    ]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        *(("version", v, "pin an exact chart version") for v in (None, "", ">=25.8.1", "25.8", "25.8.x", "~25.8.1")),
        *(("namespace", v, "default namespace") for v in (None, "default")),
    ],
)
def test_driver_release_pins_its_version_and_has_its_own_namespace(good, key, value, words):
    inputs = {**good[RELEASE], key: value}
    if value is None:
        del inputs[key]
    (message,) = check_dra_driver_release(RELEASE, inputs)
    assert message.startswith(f"{key} is") and words in message


def test_only_the_driver_chart_is_checked(good):
    assert check_dra_driver_release(RELEASE, {"chart": "cert-manager", "namespace": "default"}) == []
    oci = {**good[RELEASE], "chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", "version": "0.4"}
    assert len(check_dra_driver_release(RELEASE, oci)) == 1


# --- DeviceClass names and the cluster version -----------------------------------------------------------------------------
def test_device_class_names(good):
    assert check_device_class_name(DEVICE_CLASS, good[DEVICE_CLASS]) == []
    for name in sorted(CHART_DEVICE_CLASSES):
        for token in (DEVICE_CLASS, "kubernetes:resource.k8s.io/v1beta2:DeviceClass"):
            (message,) = check_device_class_name(token, {"metadata": {"name": name}})
            assert f"'{name}' is a DeviceClass the NVIDIA chart creates" in message
    assert check_device_class_name("kubernetes:resource.k8s.io/v1:ResourceClaim", {"metadata": {"name": "gpu.nvidia.com"}}) == []


@pytest.mark.parametrize(("version", "ok"), [("1.34", True), ("1.34.2", True), ("1.35", True), ("[unknown]", True),
                                             ("1.33", False), ("1.9", False), ("latest", False), (None, False)])
def test_kubernetes_version(good, version, ok):
    inputs = {**good[CLUSTER], "kubernetesVersion": version}
    if version is None:
        del inputs["kubernetesVersion"]
    assert (check_kubernetes_version(CLUSTER, inputs) == []) is ok


# --- the sample Job's checkov exceptions --------------------------------------------------------------------------------------
def test_sample_job_skips_only_what_it_knowingly_leaves_to_the_owner(dev_plan):
    skipped = {v.split("=", 1)[0]: v.split("=", 1)[1] for v in scanner_skips("ubuntu:24.04").values()}
    assert sorted(skipped) == ["CKV_K8S_43"] and all(skipped.values())  # with its reason
    assert scanner_skips("ubuntu@sha256:" + "0" * 64) == {}  # a digest-pinned image needs no exception
    # CKV2_K8S_6 (no NetworkPolicy) is met, not skipped: the samples namespace denies all traffic.
    policy = dev_plan.one("kubernetes:networking.k8s.io/v1:NetworkPolicy")
    assert policy.inputs["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    # ...and they sit on the Job's own metadata, the only place checkov reads them from.
    annotations = dev_plan.one("kubernetes:batch/v1:Job").inputs["metadata"]["annotations"]
    assert {k: v for k, v in annotations.items() if k.startswith("checkov.io/")} == scanner_skips("ubuntu:24.04")


# --- whole plans and the CLI ---------------------------------------------------------------------------------------------------
def test_check_plan_reads_plans_and_plan_documents(dev_plan):
    # dev's GPU pool autoscales, from 0: the two (advisory) findings.
    assert [(v.policy, v.mandatory) for v in check_plan(dev_plan)] == [("dra-pool-scale-from-zero", False),
                                                                       ("dra-pool-autoscaler-gpu-label", False)]
    assert check_plan(dev_plan.to_dict()) == check_plan(dev_plan)  # the `plan --json` document too
    document = copy.deepcopy(dev_plan.to_dict())
    (pool,) = [r for r in document["resources"] if r["type"] == POOL]
    pool["inputs"]["vmSize"] = "Standard_NC6s_v3"
    pool["inputs"]["minCount"] = 1
    (violation,) = [v for v in check_plan(document) if v.mandatory]
    assert (violation.policy, violation.urn, violation.mandatory) == ("a10-gpu-pool", pool["urn"], True)


def test_format_violations():
    assert format_violations([]).strip() == f"policy: no violations ({len(POLICIES) + 4} policies: " + ", ".join(
        p.name for p in POLICIES) + ", unique-device-class, gpu-metrics-in-prod, entra-id-access, no-plain-credentials)"
    text = format_violations([Violation("a10-gpu-pool", "urn:x", "vmSize is wrong", True)])
    assert "policy: 1 violation (1 mandatory)" in text and "[mandatory] a10-gpu-pool: urn:x" in text
    assert "vmSize is wrong" in text


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_plan_policy_passes_on_both_stacks_with_one_advisory(capsys, stack):
    assert main(["plan", "--stack", stack, "--project-dir", str(ROOT), "--policy"]) == EXIT_OK
    out = capsys.readouterr().out
    # GPU pools at minCount 0 (dev's only pool; prod's whole-A10 and spot pools): advisory, never mandatory.
    assert re.search(r"policy: \d+ violations? \(0 mandatory\)", out) and "[advisory] dra-pool-scale-from-zero:" in out


ROGUE = '''
# Someone adds a DeviceClass by hand, with the name the NVIDIA chart already owns.
import pulumi_kubernetes as k8s

k8s.resource.v1.DeviceClass(
    "rogue",
    metadata={"name": "gpu.nvidia.com"},
    spec={"selectors": [{"cel": {"expression": "true"}}]},
    opts=pulumi.ResourceOptions(provider=platform.cluster.provider),
)
'''


def test_plan_policy_exits_4_on_a_stack_that_breaks_a_policy(capsys, tmp_path: Path):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text() + ROGUE)
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    status = main(["plan", "--stack", "dev", "--project-dir", str(tmp_path), "--policy"])
    out = capsys.readouterr().out
    assert status == EXIT_POLICY
    # The rogue class takes a chart's name, and so is also a second owner of the class the driver's release creates.
    assert "policy: 4 violations (2 mandatory)" in out
    assert "[mandatory] no-chart-device-class:" in out and "DeviceClass::rogue" in out
    assert "[mandatory] unique-device-class:" in out


# --- the policy pack, through the policy SDK ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pack():
    """The pack's module, loaded without starting its analyzer server."""
    pytest.importorskip("pulumi_policy")
    return runpy.run_path(str(ROOT / "policy" / "__main__.py"), run_name="policy_pack")


def sdk_validate(policy, type_token: str, props: dict) -> list[str]:
    """Calls a pack policy as the analyzer does: props behind the SDK's unknown-checking proxy."""
    from pulumi_policy import ResourceValidationArgs
    from pulumi_policy.proxy import unknown_checking_proxy

    reported: list[str] = []
    args = ResourceValidationArgs(type_token, unknown_checking_proxy(props), "urn:test", "test", None, None)
    policy.validate(args, lambda message, urn=None: reported.append(message))
    return reported


def test_pack_wraps_every_invariant_at_its_level(pack):
    from pulumi_policy import EnforcementLevel

    policies = pack["resource_policies"]()
    assert [p.name for p in policies] == [p.name for p in POLICIES]
    for policy, check in zip(policies, POLICIES, strict=True):
        wanted = EnforcementLevel.MANDATORY if check.mandatory else EnforcementLevel.ADVISORY
        assert policy.enforcement_level == wanted, policy.name
    # AKS's support of the Kubernetes minor, scale from zero, and the autoscaler's GPU label
    assert [p.enforcement_level for p in policies].count(EnforcementLevel.ADVISORY) == 3
    stack_policy, metrics_policy, credentials_policy = pack["stack_policies"]()
    assert (stack_policy.name, stack_policy.enforcement_level) == ("unique-device-class", EnforcementLevel.MANDATORY)
    assert (metrics_policy.name, metrics_policy.enforcement_level) == ("gpu-metrics-in-prod", EnforcementLevel.ADVISORY)
    assert (credentials_policy.name, credentials_policy.enforcement_level) == ("no-plain-credentials",
                                                                               EnforcementLevel.MANDATORY)


def test_pack_policies_validate_through_the_sdk(pack, good):
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

    by_name = {p.name: p for p in pack["resource_policies"]()}
    pool = by_name["a10-gpu-pool"]
    # An unknown value the policy never reads (the cluster's name, during preview) does not stop the check.
    assert sdk_validate(pool, POOL, {**good[POOL], "resourceName": UNKNOWN_STRING_VALUE}) == []
    (message,) = sdk_validate(pool, POOL, {**good[POOL], "vmSize": "Standard_NC6s_v3"})
    assert "is not an NVadsA10_v5 size" in message
    with pytest.raises(UnknownValueError):  # the SDK turns this into "can't run policy during preview"
        sdk_validate(pool, POOL, {**good[POOL], "vmSize": UNKNOWN_STRING_VALUE})
    release = {**good[RELEASE], "namespace": "default"}
    assert len(sdk_validate(by_name["dra-driver-release"], RELEASE, release)) == 1
    assert len(sdk_validate(by_name["no-chart-device-class"], DEVICE_CLASS, {"metadata": {"name": "mig.nvidia.com"}})) == 1


def test_pack_serves_the_engine_as_pulumi_runs_it(pack):
    """`pulumi preview --policy-pack policy` runs `python -m pulumi.policy <engine> policy` and talks gRPC to it."""
    import grpc
    from google.protobuf import empty_pb2, struct_pb2
    from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", "policy"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        port = server.stdout.readline().strip()
        assert port.isdigit(), server.stderr.read() if server.poll() is not None else port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = analyzer_pb2_grpc.AnalyzerStub(channel)
            info = stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=10)
            assert info.name == "aks-dra-vgpu"
            assert {p.name for p in info.policies} == {p.name for p in POLICIES} | {
                "unique-device-class", "gpu-metrics-in-prod", "no-plain-credentials"}
            props = struct_pb2.Struct()
            props.update({"metadata": {"name": "gpu.nvidia.com"}})
            request = analyzer_pb2.AnalyzeRequest(type=DEVICE_CLASS, properties=props, urn="urn:rogue", name="rogue")
            (diagnostic,) = stub.Analyze(request, timeout=10).diagnostics
            assert diagnostic.policyName == "no-chart-device-class"
            assert diagnostic.enforcementLevel == analyzer_pb2.MANDATORY
            props = struct_pb2.Struct()
            props.update({"metadata": {"name": "a10-vgpu"}})
            request = analyzer_pb2.AnalyzeRequest(type=DEVICE_CLASS, properties=props, urn="urn:ok", name="ok")
            assert list(stub.Analyze(request, timeout=10).diagnostics) == []
    finally:
        server.kill()
        server.wait(timeout=10)


# --- scale from zero and one owner per DeviceClass -----------------------------------------------------------------------
def test_a_dra_pool_autoscaling_from_zero_is_an_advisory_naming_the_pool_and_why(good):
    (message,) = check_scale_from_zero(POOL, good[POOL])  # dev: minCount 0
    assert message.startswith("pool a10s autoscales from minCount 0: the cluster autoscaler's Azure node template has no "
                              "ResourceSlices")
    assert "azure_template.go" in message and "set autoscaling.minCount to 1" in message
    assert check_scale_from_zero(POOL, {**good[POOL], "minCount": 1}) == []
    assert check_scale_from_zero(POOL, {**good[POOL], "enableAutoScaling": False}) == []
    cpu = {k: v for k, v in good[POOL].items() if k != "nodeLabels"}  # no nvidia.com/gpu.present: no DRA plugin there
    assert check_scale_from_zero(POOL, cpu) == []
    assert check_scale_from_zero(RELEASE, good[RELEASE]) == []


def test_an_autoscaled_dra_pool_is_an_advisory_naming_the_pool_the_label_and_the_thresholds(good):
    (message,) = check_autoscaler_gpu_label(POOL, good[POOL])  # dev: autoscaling 0-2
    assert message.startswith("pool a10s autoscales, but the cluster autoscaler (1.35) likely counts its nodes as "
                              "unready: they carry AKS's kubernetes.azure.com/accelerator label and no GPU allocatable")
    assert "gpu_processor.go" in message and "halts all scaling past its unready thresholds" in message
    assert "size it for its peak (minCount)" in message and "docs/extended-resources.md" in message
    assert check_autoscaler_gpu_label(POOL, {**good[POOL], "minCount": 1}) == [message]  # not only at zero
    assert check_autoscaler_gpu_label(POOL, {**good[POOL], "enableAutoScaling": False}) == []
    assert check_autoscaler_gpu_label(POOL, {**good[POOL], "enableAutoScaling": "[unknown]"}) == []
    cpu = {k: v for k, v in good[POOL].items() if k != "nodeLabels"}  # no nvidia.com/gpu.present: not a DRA pool
    assert check_autoscaler_gpu_label(POOL, cpu) == []
    assert check_autoscaler_gpu_label(RELEASE, good[RELEASE]) == []
    assert ("dra-pool-autoscaler-gpu-label", False) in [(p.name, p.mandatory) for p in POLICIES]


def test_two_device_classes_with_one_name_are_a_mandatory_violation():
    resources = [
        ("urn:a", DEVICE_CLASS, {"metadata": {"name": "a10-vgpu"}}),
        ("urn:b", "kubernetes:resource.k8s.io/v1:ResourceClaim", {"metadata": {"name": "a10-vgpu"}}),
        ("urn:c", DEVICE_CLASS, {"metadata": {"name": "team-a10"}}),
        ("urn:d", DEVICE_CLASS, {"metadata": {"name": "a10-vgpu"}}),
        ("urn:e", DEVICE_CLASS, {"metadata": {"name": "[unknown]"}}),
        ("urn:f", DEVICE_CLASS, {"metadata": {"name": "[unknown]"}}),
    ]
    ((urn, message),) = check_unique_device_classes(resources)
    assert urn == "urn:d" and message.startswith("DeviceClass 'a10-vgpu' is also declared by urn:a")
    assert check_unique_device_classes(resources[:3]) == []


def test_pack_checks_one_owner_per_device_class_through_the_sdk(pack):
    from pulumi_policy import PolicyCustomTimeouts, PolicyResource, PolicyResourceOptions, StackValidationArgs

    def res(urn: str, name: str) -> PolicyResource:
        opts = PolicyResourceOptions(False, [], False, [], PolicyCustomTimeouts(0, 0, 0), [])
        return PolicyResource(DEVICE_CLASS, {"metadata": {"name": name}}, urn, urn, opts, None, None, [], {})

    policy, _, _ = pack["stack_policies"]()
    reported: list[tuple[str, str | None]] = []
    policy.validate(StackValidationArgs([res("urn:a", "x"), res("urn:b", "x"), res("urn:c", "y")]),
                    lambda message, urn=None: reported.append((message, urn)))
    assert [urn for _, urn in reported] == ["urn:b"]


TWO_OWNERS = '''
# A team adds claim templates for its own namespace, and lets them create the DeviceClass the samples already create.
from components import DraClaimTemplates, DraClaimTemplatesArgs

DraClaimTemplates(
    "team-a",
    DraClaimTemplatesArgs(namespace="team-a", sizes=[4], device_class=True),
    opts=pulumi.ResourceOptions(providers={"kubernetes": platform.cluster.provider}),
)
'''


def project_with(tmp_path: Path, extra: str, min_count: int | None = None) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text() + extra)
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    if min_count is not None:
        path = tmp_path / "stacks" / "Pulumi.dev.yaml"
        path.write_text(path.read_text().replace("minCount: 0", f"minCount: {min_count}"))
    return tmp_path


def test_plan_refuses_two_components_creating_one_device_class(capsys, tmp_path: Path):
    project = project_with(tmp_path, TWO_OWNERS)
    status = main(["plan", "--stack", "dev", "--project-dir", str(project), "--json"])
    out, err = capsys.readouterr()
    assert status == EXIT_POLICY
    json.loads(out)  # stdout stays the plan document
    (error,) = [line for line in err.splitlines() if line.startswith("error: ")]
    # Each by the program's line that declared it, and the component that line builds, not by its URN.
    program = (project / "__main__.py").read_text().splitlines()
    team = next(i for i, line in enumerate(program, 1) if line.startswith("DraClaimTemplates("))
    platform = next(i for i, line in enumerate(program, 1) if 'GpuPlatform("gpu"' in line)
    assert error == (f"error: __main__.py:{platform} (GpuPlatform 'gpu'): DeviceClass 'a10-vgpu' is also declared by "
                     f"__main__.py:{team} (DraClaimTemplates 'team-a'): a DeviceClass is cluster-scoped, so only one "
                     "component may create it (one NVIDIA DRA driver release per cluster); let the others name it "
                     "without creating it"), error
    assert "urn:pulumi:" not in err
    assert main(["plan", "--stack", "dev", "--project-dir", str(project), "--policy"]) == EXIT_POLICY
    assert "[mandatory] unique-device-class:" in capsys.readouterr().out


TWO_EXTENDED = '''
# Another ExtendedResources beside the platform's, over the same pools: both would create the same DeviceClasses.
from components.kubernetes.extended_resources import ExtendedResources, ExtendedResourcesArgs

ExtendedResources(
    "again", ExtendedResourcesArgs(pools=config.gpu_pools, kubernetesVersion="1.36"),
    pulumi.ResourceOptions(providers={"kubernetes": platform.cluster.provider}))
'''


def test_two_extended_resources_components_are_named_by_the_programs_lines(capsys, tmp_path: Path):
    project = project_with(tmp_path, TWO_EXTENDED)
    path = project / "stacks" / "Pulumi.dev.yaml"
    path.write_text(path.read_text().replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.36"').replace(
        "  aks-dra-vgpu:samples:", "  aks-dra-vgpu:extendedResources: {}\n  aks-dra-vgpu:samples:"))
    assert main(["plan", "--stack", "dev", "--project-dir", str(project)]) == EXIT_POLICY
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    program = (project / "__main__.py").read_text().splitlines()
    again = next(i for i, line in enumerate(program, 1) if line.startswith("ExtendedResources("))
    platform = next(i for i, line in enumerate(program, 1) if 'GpuPlatform("gpu"' in line)
    assert errors and all(
        line.startswith(f"error: __main__.py:{platform} (GpuPlatform 'gpu'): DeviceClass 'aks-dra-vgpu-") and
        f"is also declared by __main__.py:{again} (ExtendedResources 'again'): " in line for line in errors), errors


def test_plan_warns_on_stderr_about_scale_from_zero_and_keeps_json_clean(capsys, tmp_path: Path):
    status = main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--json"])
    out, err = capsys.readouterr()
    assert status == EXIT_OK and json.loads(out)["stack"] == "dev"
    zero, unready = err.splitlines()
    assert zero.startswith("warning: pool a10s autoscales from minCount 0")
    assert unready.startswith("warning: pool a10s autoscales, but the cluster autoscaler (1.35) likely counts its nodes "
                              "as unready")
    project = project_with(tmp_path, "", min_count=1)
    assert main(["plan", "--stack", "dev", "--project-dir", str(project), "--json"]) == EXIT_OK
    assert capsys.readouterr().err == unready + "\n"  # at minCount 1 only the autoscaler's GPU label is left


def test_plan_with_policy_still_says_what_the_components_logged(capsys, tmp_path: Path):
    # dev at 1.36 with no extendedResources: GpuPlatform logs that the chart's class serves nvidia.com/gpu. That is no
    # policy finding, so the --policy report does not name it: it stays on stderr, as without --policy.
    project = project_with(tmp_path, "")
    path = project / "stacks" / "Pulumi.dev.yaml"
    path.write_text(path.read_text().replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.36"', 1))
    for extra in ((), ("--policy",)):
        assert main(["plan", "--stack", "dev", "--project-dir", str(project), *extra]) == EXIT_OK
        said = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("warning: extendedResources.nvidiaGpu: a pod asking for nvidia.com/gpu")]
        assert len(said) == 1, (extra, said)


SECOND_DRIVER = '''
# A second NVIDIA DRA driver release on the same cluster, under another name and namespace.
from components import NvidiaDraDriver, NvidiaDraDriverArgs

NvidiaDraDriver(
    "second-driver",
    NvidiaDraDriverArgs(pools=config.gpu_pools, namespace="dra-two", release_name="dra-two"),
    opts=pulumi.ResourceOptions(providers={"kubernetes": platform.cluster.provider}),
)
'''


def test_plan_refuses_two_driver_releases_whose_charts_create_the_same_device_classes(capsys, tmp_path: Path):
    project = project_with(tmp_path, SECOND_DRIVER)
    status = main(["plan", "--stack", "dev", "--project-dir", str(project), "--json"])
    out, err = capsys.readouterr()
    assert status == EXIT_POLICY
    json.loads(out)
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert [e.split("DeviceClass '", 1)[1].split("'", 1)[0] for e in errors] == [
        "gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com"], errors
    # named by the program's line that declared the second driver, not by its Release's URN
    assert all("(NvidiaDraDriver 'second-driver'): " in e and "one NVIDIA DRA driver release per cluster" in e
               for e in errors), errors
    assert main(["plan", "--stack", "dev", "--project-dir", str(project), "--policy"]) == EXIT_POLICY
    assert "[mandatory] unique-device-class:" in capsys.readouterr().out


def test_driver_releases_on_two_clusters_and_other_charts_do_not_clash():
    release = "kubernetes:helm.sh/v3:Release"
    values = {"resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}}
    resources = [
        ("urn:a", release, {"chart": "dra-driver-nvidia-gpu", "values": values}),
        ("urn:b", release, {"chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
                            "values": values}),
        ("urn:c", release, {"chart": "dcgm-exporter", "values": values}),
    ]
    assert check_unique_device_classes(resources, {"urn:a": "p1", "urn:b": "p2", "urn:c": "p1"}) == []
    clash = check_unique_device_classes(resources, {"urn:a": "p1", "urn:b": "p1", "urn:c": "p1"})
    assert [urn for urn, _ in clash] == ["urn:b"] * 3


@pytest.mark.parametrize(("version", "warns"), [("1.34", True), ("1.37", True), ("1.36", False), ("[unknown]", False)])
def test_kubernetes_support_advisory(version, warns):
    from components.policies.rules import check_kubernetes_support

    found = check_kubernetes_support("azure-native:containerservice:ManagedCluster", {"kubernetesVersion": version})
    assert bool(found) == warns, found
    assert check_kubernetes_support("azure-native:containerservice:AgentPool", {"kubernetesVersion": "1.34"}) == []
