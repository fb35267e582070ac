"""How fast is the offline plan, and how much of its time is ours? Prints figures; asserts nothing.

Every measured thing runs as its own process (a fresh interpreter, as a user or CI runs it); the rows are run
round-robin, so a machine that gets busier or quieter during the run moves every row alike and the ratios hold.
Figures are medians over the runs.

- floor: a fresh interpreter that only imports what a plan needs (the Pulumi SDK, the azure-native and kubernetes
  modules a plan declares from, each class touched) and exits: no interpreter does a plan in less.
- plan dev / prod: ``python -m components plan --stack <s> --json``, whole processes.
- synthetic stacks of 1, 10, 50 and 100 GPU pools, generated into a temporary project: wall time, time per added pool,
  peak memory (ru_maxrss of the child).
- bare SDK: the same resources declared directly with the SDK classes under plain ``pulumi.runtime.set_mocks`` and a
  trivial Mocks (no components, no capture, no config validation); ours / bare is the cost our layer adds.

Usage (from the repository root): ``python benchmarks/plan_bench.py [--runs 5] [--synthetic-runs 3] [--gc-control]``.
Takes under three minutes on two cores: the runs stop at a time budget (``--budget``, default 165 s; each row says
how many runs it got).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1, 10, 50, 100)
A10_SIZES = ("Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV18ads_A10_v5", "Standard_NV36ads_A10_v5")
GPU_MEMORY_GIB = {"Standard_NV6ads_A10_v5": 4, "Standard_NV12ads_A10_v5": 8, "Standard_NV18ads_A10_v5": 12,
                  "Standard_NV36ads_A10_v5": 24}
PROJECT = "aks-dra-vgpu"

# What a plan needs from the SDKs, and nothing else. networking.v1 is here because the samples declare a NetworkPolicy.
FLOOR_CODE = """
import pulumi
import pulumi_azure_native.containerservice as containerservice
import pulumi_azure_native.resources as resources
import pulumi_kubernetes as k8s
(containerservice.AgentPool, containerservice.ManagedCluster, resources.ResourceGroup,
 containerservice.list_managed_cluster_user_credentials_output)
(k8s.Provider, k8s.helm.v3.Release, k8s.resource.v1.DeviceClass, k8s.resource.v1.ResourceClaimTemplate,
 k8s.resource.v1.ResourceClaim, k8s.core.v1.Namespace, k8s.batch.v1.Job, k8s.networking.v1.NetworkPolicy)
"""


# The floor again, ending as `python -m components` ends (gc.freeze(): no full collection at exit), to show how much of
# plan(dev) / floor is that exit rather than the plan.
FLOOR_SAME_EXIT_CODE = FLOOR_CODE + "import gc\ngc.freeze()\n"


# --- measuring one child process -------------------------------------------------------------------------------------
@dataclass
class Sample:
    """One run of a child process: wall seconds, peak resident memory (MiB), what it printed on stdout."""

    wall: float
    peak_mib: float
    stdout: str


def run_child(argv: list[str], cwd: Path, keep_stdout: bool = False) -> Sample:
    """Runs a child to its end; wall time from spawn to reaped, peak memory from its own rusage (ru_maxrss, KiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out if keep_stdout else subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}:\n{tail}")
        out.seek(0)
        return Sample(wall, usage.ru_maxrss / 1024, out.read().decode() if keep_stdout else "")


@dataclass
class Case:
    """A thing to measure: a label, the command, how many runs; the samples it got."""

    label: str
    argv: list[str]
    runs: int  # wanted; len(samples) is what the time budget allowed
    cwd: Path = ROOT
    samples: list[Sample] = field(default_factory=list)

    @property
    def wall(self) -> float:
        """Median wall time (s)."""
        return statistics.median(s.wall for s in self.samples)

    @property
    def spread(self) -> tuple[float, float]:
        """Fastest and slowest run (s)."""
        return min(s.wall for s in self.samples), max(s.wall for s in self.samples)

    @property
    def peak_mib(self) -> float:
        """Median peak memory (MiB)."""
        return statistics.median(s.peak_mib for s in self.samples)


def measure(cases: list[Case], budget: float, progress: Callable[[str], None]) -> None:
    """Runs the cases round-robin (one run of each per round) until each has its runs; the first run keeps stdout.

    A round that would end past `budget` seconds (judged by the previous round's times) is cut to the cases that still
    fit, cheapest first; every case gets at least one run. The report counts the runs each case really got.
    """
    started = time.perf_counter()
    for round_ in range(max(c.runs for c in cases)):
        due = [c for c in cases if round_ < c.runs]
        if round_ > 0:
            left = budget - (time.perf_counter() - started)
            fitting: list[Case] = []
            for case in sorted(due, key=lambda c: c.samples[-1].wall):
                if case.samples[-1].wall <= left:
                    fitting.append(case)
                    left -= case.samples[-1].wall
            due = [c for c in due if c in fitting]
        for case in due:
            case.samples.append(run_child(case.argv, case.cwd, keep_stdout=not case.samples))
        progress(f"round {round_ + 1}: {len(due)} cases")


# --- synthetic stacks -----------------------------------------------------------------------------------------------
def synthetic_pools(n: int) -> list[dict[str, Any]]:
    """n GPU pools as a stack file writes them: four slice sizes in turn, autoscaling from zero, a label and a taint."""
    return [
        {
            "name": f"gpu{i}",
            "vmSize": A10_SIZES[i % len(A10_SIZES)],
            "autoscaling": {"minCount": 0, "maxCount": 3},
            "labels": {"pool": f"gpu{i}"},
            "taints": ["nvidia.com/gpu=present:NoSchedule"],
        }
        for i in range(n)
    ]


def synthetic_stack(n: int) -> dict[str, Any]:
    """A stack file's content with n GPU pools (the dev stack's cluster, driver and samples)."""
    return {
        "config": {
            f"{PROJECT}:cluster": {
                "name": "aks-bench",
                "location": "westeurope",
                "resourceGroup": {"name": "rg-aks-bench"},
                "kubernetesVersion": "1.34",
                "systemPool": {"vmSize": "Standard_D4ds_v5", "count": 1},
            },
            f"{PROJECT}:gpuPools": synthetic_pools(n),
            f"{PROJECT}:draDriver": {"chartVersion": "25.8.1"},
            f"{PROJECT}:samples": {"workload": True},
        }
    }


def write_project(directory: Path, sizes: tuple[int, ...]) -> None:
    """A copy of this Pulumi project (its program) with one generated stack file per size, ``Pulumi.bench<n>.yaml``."""
    (directory / "stacks").mkdir(parents=True)
    (directory / "Pulumi.yaml").write_text(f"name: {PROJECT}\nruntime: python\nstackConfigDir: stacks\n")
    shutil.copy(ROOT / "__main__.py", directory / "__main__.py")
    for n in sizes:
        (directory / "stacks" / f"Pulumi.bench{n}.yaml").write_text(yaml.safe_dump(synthetic_stack(n), sort_keys=False))


# --- the bare SDK child -----------------------------------------------------------------------------------------------
def bare_child(stack_file: Path, gc_like_ours: bool = False) -> None:
    """Declares the synthetic stack's resources with the SDK classes alone, under plain set_mocks; prints the count.

    With `gc_like_ours`, the cyclic GC is set as the offline engine sets it for a run (freeze what is loaded, collect
    the young generation less often): the comparison then shows what our layer costs beyond that setting.
    """
    import base64
    import gc

    import pulumi
    import pulumi_azure_native.containerservice as containerservice
    import pulumi_azure_native.resources as resources
    import pulumi_kubernetes as k8s

    config = yaml.safe_load(stack_file.read_text())["config"]
    cluster, pools = config[f"{PROJECT}:cluster"], config[f"{PROJECT}:gpuPools"]
    registered: list[str] = []

    class Mocks(pulumi.runtime.Mocks):
        """Echoes inputs back; one placeholder kubeconfig."""

        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
            registered.append(args.typ)
            return f"{args.name}-id", dict(args.inputs)

        def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
            kubeconfig = base64.b64encode(b"apiVersion: v1\nkind: Config\nclusters: []\n").decode()
            return {"kubeconfigs": [{"name": "clusterUser", "value": kubeconfig}]}

    pulumi.runtime.set_mocks(Mocks(), project=PROJECT, stack="bench", preview=True)

    @pulumi.runtime.test
    def program() -> Any:
        group = resources.ResourceGroup("rg", resource_group_name=cluster["resourceGroup"]["name"], location="westeurope")
        aks = containerservice.ManagedCluster(
            "aks",
            resource_group_name=group.name,
            resource_name_=cluster["name"],
            location=cluster["location"],
            kubernetes_version=cluster["kubernetesVersion"],
            dns_prefix=cluster["name"],
            sku=containerservice.ManagedClusterSKUArgs(name="Base", tier="Free"),
            identity=containerservice.ManagedClusterIdentityArgs(type="SystemAssigned"),
            enable_rbac=True,
            oidc_issuer_profile=containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=True),
            network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                network_plugin="azure", network_plugin_mode="overlay", network_dataplane="cilium", network_policy="cilium",
            ),
            agent_pool_profiles=[
                containerservice.ManagedClusterAgentPoolProfileArgs(
                    name="system", mode="System", os_type="Linux", vm_size="Standard_D4ds_v5", count=1, max_pods=110,
                    type="VirtualMachineScaleSets",
                )
            ],
            disable_local_accounts=False,
        )
        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group.name, resource_name=aks.name
        )
        kubeconfig = pulumi.Output.secret(credentials.kubeconfigs[0].value.apply(lambda v: base64.b64decode(v).decode()))
        provider = k8s.Provider("k8s", kubeconfig=kubeconfig, cluster_identifier=aks.id, delete_unreachable=False)
        names = []
        for pool in pools:
            agent_pool = containerservice.AgentPool(
                f"{pool['name']}-pool",
                resource_group_name=group.name,
                resource_name_=aks.name,
                agent_pool_name=pool["name"],
                mode="User",
                os_type="Linux",
                os_sku="Ubuntu",
                type="VirtualMachineScaleSets",
                vm_size=pool["vmSize"],
                gpu_profile=containerservice.GPUProfileArgs(driver="Install"),
                node_labels={**pool["labels"], "nvidia.com/gpu.present": "true"},
                node_taints=pool["taints"],
                max_pods=110,
                os_disk_size_gb=128,
                upgrade_settings=containerservice.AgentPoolUpgradeSettingsArgs(max_surge="1"),
                count=pool["autoscaling"]["minCount"],
                enable_auto_scaling=True,
                min_count=pool["autoscaling"]["minCount"],
                max_count=pool["autoscaling"]["maxCount"],
                opts=pulumi.ResourceOptions(ignore_changes=["count"]),
            )
            names.append(agent_pool.name)
        on_cluster = pulumi.ResourceOptions(provider=provider)
        k8s.helm.v3.Release(
            "dra-driver",
            name="nvidia-dra-driver-gpu",
            chart="nvidia-dra-driver-gpu",
            version="25.8.1",
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://helm.ngc.nvidia.com/nvidia"),
            namespace="nvidia-dra-driver-gpu",
            create_namespace=True,
            values={
                "nvidiaDriverRoot": "/",
                "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
                "gpuResourcesEnabledOverride": True,
                "featureGates": {"IMEXDaemonsWithDNSNames": False},
                "kubeletPlugin": {
                    "nodeSelector": {"nvidia.com/gpu.present": "true"},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present",
                                     "effect": "NoSchedule"}],
                },
            },
            allow_null_values=True,
            atomic=True,
            timeout=600,
            opts=on_cluster,
        )
        k8s.core.v1.Namespace("ns", metadata={"name": "dra-samples"}, opts=on_cluster)
        device_class = k8s.resource.v1.DeviceClass(
            "class", metadata={"name": "a10-vgpu"},
            spec={"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}, opts=on_cluster,
        )
        after_class = pulumi.ResourceOptions(provider=provider, depends_on=[device_class])
        request = {"name": "gpu", "exactly": {"deviceClassName": "a10-vgpu", "allocationMode": "ExactCount", "count": 1}}
        templates = [
            k8s.resource.v1.ResourceClaimTemplate(
                f"{size}gib", metadata={"name": f"a10-vgpu-{size}gib", "namespace": "dra-samples"},
                spec={"spec": {"devices": {"requests": [request]}}}, opts=after_class,
            )
            for size in sorted({GPU_MEMORY_GIB[p["vmSize"]] for p in pools})
        ]
        k8s.resource.v1.ResourceClaim(
            "shared", metadata={"name": "a10-vgpu-shared", "namespace": "dra-samples"},
            spec={"devices": {"requests": [request]}}, opts=after_class,
        )
        deny_all = k8s.networking.v1.NetworkPolicy(
            "deny-all", metadata={"name": "deny-all", "namespace": "dra-samples"},
            spec={"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}, opts=on_cluster,
        )
        k8s.batch.v1.Job(
            "nvidia-smi",
            metadata={"name": "nvidia-smi", "namespace": "dra-samples"},
            spec={"template": {"spec": {
                "restartPolicy": "Never",
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "a10-vgpu-4gib"}],
                "containers": [{"name": "nvidia-smi", "image": "ubuntu:24.04", "command": ["nvidia-smi", "-L"],
                                "resources": {"claims": [{"name": "gpu"}]}}],
            }}},
            opts=pulumi.ResourceOptions(provider=provider, depends_on=[templates[0], deny_all]),
        )
        return names

    thresholds = gc.get_threshold()
    if gc_like_ours:
        gc.freeze()
        gc.set_threshold(20_000, 20, 100)
    program()
    if gc_like_ours:  # as the engine does after a run: back to the defaults, nothing left frozen
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    gc.freeze()  # exit as `python -m components` does (no final collection), so ours/bare compares like with like
    print(json.dumps({"custom_resources": len(registered)}))


# --- report ---------------------------------------------------------------------------------------------------------
def machine() -> str:
    """Cores, CPU model, Python and SDK versions, load average: what the figures were measured on."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(', '.join(f'{p} {m.version(p)}' for p in "
         "('pulumi', 'pulumi_azure_native', 'pulumi_kubernetes', 'pydantic')))"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()
    return (
        f"machine: {os.cpu_count()} cores ({usable} usable), {model}, {platform.system()} {platform.release()}\n"
        f"python {platform.python_version()}; {versions}"
    )


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def custom_count(plan_json: str) -> int:
    """Custom resources in a plan document (what the bare SDK child declares too)."""
    return sum(1 for r in json.loads(plan_json)["resources"] if r["custom"])


def per_added_pool(cases: dict[int, Case]) -> dict[int, float]:
    """Milliseconds per pool added since the previous size (the slope; flat means linear growth)."""
    return {b: 1000 * (cases[b].wall - cases[a].wall) / (b - a) for a, b in itertools.pairwise(sorted(cases))}


def report(floor: Case, floor_same_exit: Case, plans: list[Case], ours: dict[int, Case], bare: dict[int, Case]) -> str:
    """The figures as text."""
    lines = ["", "whole processes (median wall over n runs; fastest-slowest):"]
    for case in [floor, floor_same_exit, *plans]:
        fast, slow = case.spread
        ratio = "" if case in (floor, floor_same_exit) else f"   {case.wall / floor.wall:.2f} x floor"
        lines.append(
            f"  {case.label:<28} n={len(case.samples)} {case.wall:6.2f} s  ({fast:.2f}-{slow:.2f})"
            f"  {case.peak_mib:5.0f} MiB{ratio}"
        )
    runs = sorted({len(c.samples) for c in [*ours.values(), *bare.values()]})
    lines += [
        "",
        f"synthetic stacks (median of {'/'.join(map(str, runs))} runs): ours = python -m components plan --json; "
        "bare = SDK classes + set_mocks",
        "  pools  resources |   ours s  ms/added pool  peak MiB |   bare s  ms/added pool  peak MiB | ours/bare",
    ]
    ours_slope, bare_slope = per_added_pool(ours), per_added_pool(bare)
    for n in sorted(ours):
        mine, sdk = ours[n], bare[n]
        count = custom_count(mine.samples[0].stdout)
        bare_count = json.loads(bare[n].samples[0].stdout)["custom_resources"]
        same = "" if count == bare_count else f" (bare: {bare_count})"
        slope = f"{ours_slope[n]:8.1f}" if n in ours_slope else " " * 8
        bare_s = f"{bare_slope[n]:8.1f}" if n in bare_slope else " " * 8
        lines.append(
            f"  {n:5d}  {count:5d}{same:>4} | {mine.wall:8.2f}  {slope}       {mine.peak_mib:6.0f}   |"
            f" {sdk.wall:8.2f}  {bare_s}       {sdk.peak_mib:6.0f}   |   {mine.wall / sdk.wall:.2f}"
        )
    dev = plans[0]
    lines += [
        "",
        f"plan(dev) / floor = {dev.wall / floor.wall:.2f} (target <= 1.3); "
        f"against the floor with the CLI's exit: {dev.wall / floor_same_exit.wall:.2f}",
        "ours / bare SDK: " + ", ".join(f"{n} pools {ours[n].wall / bare[n].wall:.2f}" for n in sorted(ours))
        + f" (target <= 1.15 at {max(ours)})",
        "per added pool (ms), ours: " + ", ".join(f"{a}->{b}: {ours_slope[b]:.0f}" for a, b in itertools.pairwise(sorted(ours)))
        + "; bare: " + ", ".join(f"{a}->{b}: {bare_slope[b]:.0f}" for a, b in itertools.pairwise(sorted(bare))),
    ]
    return "\n".join(lines)


def gc_control_report(ours: dict[int, Case], bare_gc: dict[int, Case]) -> str:
    """Ours against the bare SDK run with the engine's GC settings: the cost of our layer beyond that setting."""
    slope = per_added_pool(bare_gc)
    runs = "/".join(map(str, sorted({len(c.samples) for c in bare_gc.values()})))
    lines = ["", f"control: bare SDK with the engine's GC settings (median of {runs} runs)",
             "  pools |   bare+gc s  ms/added pool  peak MiB | ours/(bare+gc)"]
    for n in sorted(bare_gc):
        per = f"{slope[n]:8.1f}" if n in slope else " " * 8
        ratio = ours[n].wall / bare_gc[n].wall
        lines.append(f"  {n:5d} | {bare_gc[n].wall:10.2f}  {per}       {bare_gc[n].peak_mib:6.0f}   |   {ratio:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measures and prints; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of the floor and the dev/prod plans (default 5)")
    parser.add_argument("--synthetic-runs", type=int, default=3, help="runs of each synthetic stack (default 3)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="GPU pool counts (default 1,10,50,100)")
    parser.add_argument("--budget", type=float, default=165, help="seconds the runs may take in all (default 165)")
    parser.add_argument(
        "--gc-control", action="store_true",
        help="also run the bare SDK with the engine's GC settings (about a minute more)",
    )
    parser.add_argument("--bare-child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--bare-gc", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare_child:
        bare_child(args.bare_child, gc_like_ours=args.bare_gc)
        return 0

    started = time.perf_counter()
    print(machine())
    print(f"load average at start: {load()}", flush=True)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="plan-bench-") as tmp:
        project = Path(tmp) / "project"
        write_project(project, sizes)
        floor = Case("floor (SDK imports only)", [py, "-c", FLOOR_CODE], args.runs)
        floor_same_exit = Case("floor, exiting like the CLI", [py, "-c", FLOOR_SAME_EXIT_CODE], args.runs)
        plans = [
            Case(f"plan --stack {s} --json", [py, "-m", "components", "plan", "--stack", s, "--json"], args.runs)
            for s in ("dev", "prod")
        ]
        ours = {
            n: Case(f"ours {n}", [py, "-m", "components", "plan", "--stack", f"bench{n}", "--json",
                                  "--project-dir", str(project)], args.synthetic_runs)
            for n in sizes
        }
        def bare_case(n: int, *extra: str) -> Case:
            child = [py, str(Path(__file__).resolve()), "--bare-child", str(project / "stacks" / f"Pulumi.bench{n}.yaml")]
            return Case(f"bare {n}", [*child, *extra], args.synthetic_runs)

        bare = {n: bare_case(n) for n in sizes}
        bare_gc = {n: bare_case(n, "--bare-gc") for n in sizes} if args.gc_control else {}
        measure([floor, floor_same_exit, *plans, *ours.values(), *bare.values(), *bare_gc.values()], args.budget,
                lambda msg: print(f"  {msg} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True))
    print(report(floor, floor_same_exit, plans, ours, bare))
    if bare_gc:
        print(gc_control_report(ours, bare_gc))
    print(f"\nload average at end: {load()}; total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
