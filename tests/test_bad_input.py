"""Bad input, table-driven, through the real CLI: every mistake exits 2 before anything is registered.

Each case edits a copy of the prod stack (or writes a raw stack file), runs `plan` on a scratch copy of the project and
checks: exit status 2, nothing on stdout, a stderr line that starts with the key path the user wrote and says what is
allowed, no traceback, and no resource registered (a spy on the offline engine's monitor; the control case proves the
spy sees registrations when the stack is valid).
"""

from __future__ import annotations

import copy
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cli import main
from tests.conftest import ROOT, scratch_project
from tests.stack_files import starts

engine = importlib.import_module("components.offline.capture")  # the module; the package exports its function

NS = "aks-dra-vgpu:"
PROD = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
GUID = "00000000-0000-0000-0000-000000000001"

Edit = Callable[[dict[str, Any]], None]


def _walk(config: dict[str, Any], dotted: str) -> tuple[Any, str | int]:
    """The container holding the last part of `dotted` (``cluster.systemPool.count``, ``gpuPools[1].taints``)."""
    parts: list[str | int] = []
    for key, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", dotted):
        parts.append(int(index) if index else key)
    parts[0] = NS + str(parts[0])
    node: Any = config
    for part in parts[:-1]:
        node = node[part]
    return node, parts[-1]


def put(dotted: str, value: Any) -> Edit:
    """An edit that sets one value in the stack's config."""

    def edit(config: dict[str, Any]) -> None:
        node, last = _walk(config, dotted)
        node[last] = value

    return edit


def drop(dotted: str) -> Edit:
    """An edit that removes one key from the stack's config."""

    def edit(config: dict[str, Any]) -> None:
        node, last = _walk(config, dotted)
        del node[last]

    return edit


def clear() -> Edit:
    """An edit that empties the whole config section."""
    return lambda config: config.clear()


@dataclass(frozen=True)
class Case:
    """One mistake: how to make it, the key path the error must name, and fragments saying what is allowed."""

    id: str
    path: str
    allowed: tuple[str, ...]
    edit: Edit | None = None
    text: str | None = None  # a raw stack file instead of an edit of prod


def case(id_: str, edit: Edit, path: str, *allowed: str) -> Case:
    """A case that edits the prod stack."""
    return Case(id_, path, allowed, edit=edit)


def raw(id_: str, text: str, path: str, *allowed: str) -> Case:
    """A case that writes the stack file as given (the path may be ``file:line``)."""
    return Case(id_, path, allowed, text=text)


ALL_SIZES = ("Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV36ads_A10_v5", "Standard_NV72ads_A10_v5")

CASES: list[Case] = [
    # --- cluster --------------------------------------------------------------------------------------------------------
    case("cluster-name-chars", put("cluster.name", "aks dra!"), "cluster.name", "1-63 letters, digits, '-' and '_'"),
    case("cluster-location-display-name", put("cluster.location", "West Europe"), "cluster.location", "'westeurope'"),
    case("k8s-1.33-too-old", put("cluster.kubernetesVersion", "1.33"), "cluster.kubernetesVersion", "1.34 or newer"),
    case("k8s-version-as-number", put("cluster.kubernetesVersion", 1.34), "cluster.kubernetesVersion",
         "quote the version", "'1.34'"),
    case("k8s-version-word", put("cluster.kubernetesVersion", "latest"), "cluster.kubernetesVersion", "major.minor"),
    case("sku-tier-unknown", put("cluster.skuTier", "Gold"), "cluster.skuTier", "'Free', 'Standard' or 'Premium'"),
    case("protect-not-bool", put("cluster.protect", "maybe"), "cluster.protect", "true or false"),
    case("retain-not-bool", put("cluster.retainOnDelete", "sometimes"), "cluster.retainOnDelete", "true or false"),
    case("resource-group-missing", drop("cluster.resourceGroup"), "cluster.resourceGroup", "required key is missing"),
    case("resource-group-name-chars", put("cluster.resourceGroup.name", "rg prod!"), "cluster.resourceGroup.name",
         "letters, digits, '-', '_', '.', '(', ')'"),
    case("resource-group-create-not-bool", put("cluster.resourceGroup.create", "no way"), "cluster.resourceGroup.create",
         "true or false"),
    case("dns-prefix-chars", put("cluster.dnsPrefix", "-bad-"), "cluster.dnsPrefix", "letters, digits and '-'"),
    case("tag-value-number", put("cluster.tags", {"environment": 5}), "cluster.tags.environment", "must be text"),
    case("cluster-key-typo", put("cluster.kubernetesVerison", "1.34"), "cluster.kubernetesVerison",
         "did you mean 'kubernetesVersion'?", "allowed keys:"),
    case("cluster-section-a-string", put("cluster", "aks-dra-prod"), "cluster", "a mapping with the keys name, location"),
    case("cluster-section-empty", put("cluster", None), "cluster", "a mapping with the keys name, location"),
    # --- system pool ----------------------------------------------------------------------------------------------------
    case("system-count-zero", put("cluster.systemPool.count", 0), "cluster.systemPool.count", "from 1 to 1000", "got 0"),
    case("system-count-word", put("cluster.systemPool.count", "three"), "cluster.systemPool.count", "from 1 to 1000"),
    case("system-max-pods-high", put("cluster.systemPool.maxPods", 300), "cluster.systemPool.maxPods", "from 10 to 250"),
    case("system-zone-4", put("cluster.systemPool.zones", ["1", "4"]), "cluster.systemPool.zones[1]", "'1', '2' or '3'"),
    case("system-pool-name-case", put("cluster.systemPool.name", "System"), "cluster.systemPool.name",
         "1-12 lowercase letters and digits"),
    case("system-os-disk-small", put("cluster.systemPool.osDiskSizeGb", 10), "cluster.systemPool.osDiskSizeGb",
         "from 30 to 2048"),
    case("system-key-typo", put("cluster.systemPool.vmsize", "Standard_D4ds_v5"), "cluster.systemPool.vmsize",
         "did you mean 'vmSize'?"),
    case("gpu-pool-named-like-system", put("gpuPools[1].name", "system"), "gpuPools[1].name",
         "system pool's name", "unique"),
    # --- auth -----------------------------------------------------------------------------------------------------------
    case("auth-mode-unknown", put("cluster.auth", {"mode": "aad"}), "cluster.auth.mode", "'localAccounts' or 'entraId'"),
    case("auth-interactive-login", put("cluster.auth", {"mode": "entraId", "loginMode": "devicecode"}),
         "cluster.auth.loginMode", "'azurecli', 'workloadidentity' or 'spn'"),
    case("auth-groups-without-entra", put("cluster.auth", {"adminGroupObjectIds": [GUID]}),
         "cluster.auth.adminGroupObjectIds", "'entraId'"),
    case("auth-key-unknown", put("cluster.auth", {"groups": [GUID]}), "cluster.auth.groups",
         "allowed keys:", "adminGroupObjectIds"),
    # --- GPU pools ------------------------------------------------------------------------------------------------------
    case("pool-not-a10", put("gpuPools[1].vmSize", "Standard_NC6s_v3"), "gpuPools[1].vmSize", *ALL_SIZES),
    case("pool-size-typo", put("gpuPools[1].vmSize", "Standard_NV12ads_A10"), "gpuPools[1].vmSize",
         "did you mean 'Standard_NV12ads_A10_v5'?"),
    case("pool-name-chars", put("gpuPools[0].name", "GPU-1"), "gpuPools[0].name", "1-12 lowercase letters and digits"),
    case("pool-name-13-chars", put("gpuPools[0].name", "thirteenchars"), "gpuPools[0].name",
         "1-12 lowercase letters and digits"),
    case("pool-names-twice", put("gpuPools[1].name", "a10third"), "gpuPools", "gpuPools[0] and gpuPools[1]",
         "must be unique"),
    case("pool-count-negative", put("gpuPools[1].count", -1), "gpuPools[1].count", "from 0 to 1000"),
    case("pool-count-1001", put("gpuPools[1].count", 1001), "gpuPools[1].count", "from 0 to 1000"),
    case("pool-count-word", put("gpuPools[1].count", "two"), "gpuPools[1].count", "from 0 to 1000"),
    case("autoscaling-min-above-max", put("gpuPools[1].autoscaling", {"minCount": 3, "maxCount": 1}),
         "gpuPools[1].autoscaling.minCount", "min <= max"),
    case("autoscaling-max-zero", put("gpuPools[1].autoscaling", {"minCount": 0, "maxCount": 0}),
         "gpuPools[1].autoscaling.maxCount", "from 1 to 1000"),
    case("autoscaling-max-missing", put("gpuPools[1].autoscaling", {"minCount": 0}),
         "gpuPools[1].autoscaling.maxCount", "required key is missing"),
    case("count-outside-bounds", put("gpuPools[0].count", 9), "gpuPools[0].count", "[1, 6]"),
    case("windows-pool", put("gpuPools[1].osType", "Windows"), "gpuPools[1].osType", "'Linux'",
         "the DRA driver runs only there"),
    case("windows-os-sku", put("gpuPools[1].osSku", "Windows2022"), "gpuPools[1].osSku", "'Ubuntu' or 'AzureLinux'"),
    case("label-reserved-azure", put("gpuPools[0].labels", {"kubernetes.azure.com/mode": "gpu"}), "gpuPools[0].labels",
         "reserved prefix", "kubernetes.azure.com/, kubernetes.io/"),
    case("label-reserved-k8s", put("gpuPools[0].labels", {"kubernetes.io/role": "gpu"}), "gpuPools[0].labels",
         "reserved prefix", "kubernetes.azure.com/, kubernetes.io/"),
    case("label-gpu-present-false", put("gpuPools[0].labels", {"nvidia.com/gpu.present": "false"}), "gpuPools[0].labels",
         "must be 'true'"),
    case("label-value-chars", put("gpuPools[0].labels", {"team": "-ml-"}), "gpuPools[0].labels",
         "alphanumeric at both ends"),
    case("labels-a-list", put("gpuPools[0].labels", ["team=ml"]), "gpuPools[0].labels", "a mapping"),
    case("taint-without-effect", put("gpuPools[1].taints", ["sku=gpu"]), "gpuPools[1].taints[0]",
         "NoSchedule, PreferNoSchedule, NoExecute"),
    case("taint-effect-unknown", put("gpuPools[1].taints", ["a=b:NoSchedule", "sku=gpu:Sometimes"]), "gpuPools[1].taints[1]",
         "NoSchedule, PreferNoSchedule, NoExecute"),
    case("taint-key-chars", put("gpuPools[1].taints", ["a b=c:NoExecute"]), "gpuPools[1].taints[0]", "label key"),
    case("taint-twice", put("gpuPools[1].taints", ["a=b:NoSchedule", "a=b:NoSchedule"]), "gpuPools[1].taints",
         "list each taint once"),
    case("pool-zone-number-4", put("gpuPools[0].zones", [1, 4]), "gpuPools[0].zones[1]", "'1', '2' or '3'"),
    case("pool-zones-a-string", put("gpuPools[0].zones", "1"), "gpuPools[0].zones", "must be a list", "'1', '2', '3'"),
    case("max-surge-word", put("gpuPools[1].maxSurge", "fast"), "gpuPools[1].maxSurge", "'1'", "'33%'"),
    case("pool-max-pods-low", put("gpuPools[1].maxPods", 5), "gpuPools[1].maxPods", "from 10 to 250"),
    case("pool-key-typo", put("gpuPools[0].autoscale", {"minCount": 0, "maxCount": 1}), "gpuPools[0].autoscale",
         "did you mean 'autoscaling'?"),
    case("pools-empty", put("gpuPools", []), "gpuPools", "at least 1 item"),
    case("pools-a-mapping", put("gpuPools", {"name": "a10"}), "gpuPools", "must be a list"),
    case("pools-missing", drop("gpuPools"), "gpuPools", "required key is missing"),
    # --- DRA driver -----------------------------------------------------------------------------------------------------
    case("chart-version-unknown", put("draDriver.chartVersion", "26.1.0"), "draDriver.chartVersion", "25.8.1", "0.4.1"),
    case("chart-0.4.0-withdrawn", put("draDriver.chartVersion", "0.4.0"), "draDriver.chartVersion",
         "#1184", "use 0.4.1"),
    case("host-driver-below-chart-minimum", put("draDriver.hostDriverVersion", "550.144.06"),
         "draDriver.hostDriverVersion", ">= 565", "202606.08.1"),
    case("chart-25.12-on-grid-driver", put("draDriver.chartVersion", "25.12.0"), "draDriver.chartVersion",
         ">= 580", "25.8.1"),
    case("feature-gate-unknown", put("draDriver.featureGates", {"NoSuchGate": True}), "draDriver.featureGates",
         "NoSuchGate", "known gates:", "MPSSupport"),
    case("feature-gate-imex-on", put("draDriver.featureGates", {"IMEXDaemonsWithDNSNames": True}),
         "draDriver.featureGates.IMEXDaemonsWithDNSNames", "must stay false"),
    case("feature-gate-not-bool", put("draDriver.featureGates", {"MPSSupport": "sometimes"}),
         "draDriver.featureGates.MPSSupport", "true or false"),
    case("driver-namespace-default", put("draDriver.namespace", "default"), "draDriver.namespace", "other than 'default'"),
    case("release-name-too-long", put("draDriver.releaseName", "r" * 60), "draDriver.releaseName",
         "at most 53 characters"),
    case("helm-timeout-short", put("draDriver.timeoutSeconds", 10), "draDriver.timeoutSeconds", "from 60 to 3600"),
    case("extra-values-drop-override", put("draDriver.extraValues", {"gpuResourcesEnabledOverride": False}),
         "draDriver.extraValues.gpuResourcesEnabledOverride", "must be true"),
    case("extra-values-namespace", put("draDriver.extraValues", {"namespace": "x"}), "draDriver.extraValues.namespace",
         "use draDriver.namespace"),
    case("host-driver-word", put("draDriver.hostDriverVersion", "latest"), "draDriver.hostDriverVersion", "'580.65.06'"),
    case("driver-key-typo", put("draDriver.version", "25.8.1"), "draDriver.version", "allowed keys:", "chartVersion"),
    # --- samples --------------------------------------------------------------------------------------------------------
    case("device-class-chart-name", put("samples.deviceClassName", "gpu.nvidia.com"), "samples.deviceClassName",
         "created by the NVIDIA chart", "mig.nvidia.com"),
    case("device-class-chars", put("samples.deviceClassName", "A10_vGPU"), "samples.deviceClassName", "DNS subdomain"),
    case("sample-memory-larger-than-pools", put("samples.workloadMemoryGiB", 48), "samples.workloadMemoryGiB",
         "at most 24", "8, 24 GiB"),
    case("sample-memory-zero", put("samples.workloadMemoryGiB", 0), "samples.workloadMemoryGiB", "at least 1"),
    case("memory-margin-high", put("samples.memoryMarginPercent", 50), "samples.memoryMarginPercent", "from 0 to 25"),
    case("samples-namespace-chars", put("samples.namespace", "Dra Samples"), "samples.namespace", "DNS label"),
    case("samples-namespace-kube-system", put("samples.namespace", "kube-system"), "samples.namespace",
         "'kube-system' is refused"),
    case("samples-namespace-default", put("samples.namespace", "default"), "samples.namespace", "'default' is refused"),
    case("samples-namespace-driver", put("samples.namespace", "nvidia-dra-driver-gpu"), "samples.namespace",
         "is the driver's namespace (draDriver.namespace)"),
    case("samples-fit-unknown", put("samples.fit", "best"), "samples.fit", "'bestFit' or 'exact'"),
    case("samples-extended-resource-on-1-35", put("samples.extendedResourceName", "example.com/a10"),
         "samples.extendedResourceName", "needs Kubernetes 1.36 or newer"),
    case("samples-extended-resource-name", put("samples.extendedResourceName", "gpu"), "samples.extendedResourceName",
         "not an extended resource name"),
    case("samples-key-typo", put("samples.workloadMemoryGB", 8), "samples.workloadMemoryGB",
         "did you mean 'workloadMemoryGiB'?"),
    case("samples-section-a-word", put("samples", "yes"), "samples", "a mapping with the keys enabled"),
    # --- the stack file as a whole --------------------------------------------------------------------------------------
    case("top-level-key-typo", put("gpuPool", []), "gpuPool", "did you mean 'gpuPools'?",
         "allowed keys: cluster, gpuPools, draDriver, samples"),
    case("cluster-missing", drop("cluster"), "cluster", "required key is missing"),
    # No settings at all: one line naming the file and the namespace, not one per required key.
    case("config-empty", clear(), "stacks/Pulumi.config-empty.yaml", "sets none of this package's settings",
         "'aks-dra-vgpu:'", "aks-dra-vgpu:cluster and aks-dra-vgpu:gpuPools"),
    raw("file-empty", "", "stacks/Pulumi.file-empty.yaml", "sets none of this package's settings", "'aks-dra-vgpu:'"),
    raw("section-encrypted", "config:\n  aks-dra-vgpu:cluster:\n    secure: AAABAG1hc2tlZA==\n", "cluster", "a mapping"),
    raw("yaml-unclosed-list", "config:\n  aks-dra-vgpu:cluster:\n    name: [unclosed\n", "Pulumi.yaml-unclosed-list.yaml:3:11",
        "not valid YAML"),
    raw("yaml-tab-indent", "config:\n\taks-dra-vgpu:cluster: {}\n", "Pulumi.yaml-tab-indent.yaml:2", "not valid YAML"),
]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the project's program and project file for the whole battery; each case writes its own stack."""
    return scratch_project(tmp_path_factory.mktemp("bad-input"))


@pytest.fixture
def monitors(monkeypatch: pytest.MonkeyPatch) -> list[engine.Monitor]:
    """Every monitor the offline engine creates during the test, to read what was registered through it."""
    seen: list[engine.Monitor] = []

    class Spy(engine.Monitor):
        def __init__(self, *args: Any):
            super().__init__(*args)
            seen.append(self)

    monkeypatch.setattr(engine, "Monitor", Spy)
    return seen


def write_stack(project: Path, name: str, c: Case | None) -> None:
    """The case's stack file: prod edited by the case, or the case's raw text."""
    if c is not None and c.text is not None:
        text = c.text
    else:
        config = copy.deepcopy(PROD)
        if c is not None and c.edit is not None:
            c.edit(config)
        text = yaml.safe_dump({"config": config}, sort_keys=False)
    (project / "stacks" / f"Pulumi.{name}.yaml").write_text(text)


def plan(project: Path, stack: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Runs `plan` through the CLI's entry point; returns exit status, stdout, stderr."""
    status = main(["plan", "--stack", stack, "--project-dir", str(project)])
    out, err = capsys.readouterr()
    return status, out, err


def registered(monitors: list[engine.Monitor]) -> list[str]:
    """The urns of every resource registered through the spied monitors."""
    return [r.urn for m in monitors for r in m.registrations]


def test_the_battery_is_big_and_every_case_is_distinct():
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


def test_control_a_valid_stack_registers_resources(scratch, monitors, capsys):
    # Without this, "nothing registered" below could pass because the spy sees nothing at all.
    write_stack(scratch, "control", None)
    status, out, err = plan(scratch, "control", capsys)
    # prod's pools that autoscale from 0: plan warns about them (on stderr), and nothing else.
    assert status == 0 and err and {line.split(":")[0] for line in err.splitlines()} == {"warning"}
    assert out.startswith("aks-dra-vgpu/control: ")
    assert len(registered(monitors)) > 10


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_bad_input_exits_2_naming_the_key_and_what_is_allowed(c: Case, scratch, monitors, capsys):
    write_stack(scratch, c.id, c)
    status, out, err = plan(scratch, c.id, capsys)
    assert status == 2, err
    assert out == ""
    assert "Traceback" not in err and "Error:" not in err
    lines = err.strip().splitlines()
    about = [line for line in lines if starts(line, c.path + ":")]
    assert about, f"no line starts with {c.path!r}: {lines}"
    assert any(all(fragment in line for fragment in c.allowed) for line in about), (c.allowed, about)
    assert registered(monitors) == []


@pytest.mark.parametrize("text", ["config:\n  - aks-dra-vgpu:cluster\n", "- config\n"], ids=["config-a-list", "file-a-list"])
def test_stack_file_of_the_wrong_shape_exits_2(text, scratch, monitors, capsys):
    write_stack(scratch, "shape", raw("shape", text, "", ""))
    status, out, err = plan(scratch, "shape", capsys)
    assert status == 2 and out == "" and "Pulumi.shape.yaml" in err
    assert "Traceback" not in err and "'config:' mapping" in err
    assert registered(monitors) == []


def test_a_key_written_twice_is_an_error_not_a_lost_setting(scratch, monitors, capsys):
    text = "config:\n  aks-dra-vgpu:samples:\n    workload: true\n    workload: false\n"
    write_stack(scratch, "twice", raw("twice", text, ""))
    status, out, err = plan(scratch, "twice", capsys)
    assert status == 2 and out == ""
    assert err.startswith("stacks/Pulumi.twice.yaml:4:5: samples.workload: key 'workload' is written twice")
    assert registered(monitors) == []
