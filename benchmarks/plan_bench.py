"""How fast is the offline plan, and how much of its time is ours? Prints figures; asserts nothing.

Every measured thing runs as its own process (a fresh interpreter, as a user or CI runs it).

- floor: a fresh interpreter that imports only what the stack's plan uses from the SDKs (the dev floor: the
  azure-native and kubernetes modules of the dev plan's resources; the prod floor: those of the prod plan, no Job or
  NetworkPolicy) and ends the way ``python -m components`` ends (the CLI's GC thresholds, flush, ``os._exit``).
- plan dev / prod: ``python -m components plan --stack <s> --json``, compared with its floor in paired runs: ours then
  floor, floor then ours, ... (the order alternates from pair to pair); each ratio is ours_i / floor_i of one pair.
- synthetic stacks of 10, 50 and 99 GPU pools (99 and the system pool: the most AKS allows in one cluster), generated
  into a temporary project: wall time, time per pool, peak
  memory (ru_maxrss of the child, from wait4), run round-robin with the sizes in alternating order.
- ``--bare``: also pairs each synthetic stack with the same resources declared directly with the SDK classes under
  plain ``pulumi.runtime.set_mocks`` (no components, no capture, no config validation), in a process started and ended
  like the CLI's: ours_i / bare_i is the cost our layer adds.

Usage (from the repository root): ``python benchmarks/plan_bench.py [--quick] [--budget 200] [--pairs 11] [--bare]
[--bytecode]``; ``--bytecode`` compiles the package's bytecode first (as an installed package has it).
The runs stop at the time budget (default 200 s, about 4 minutes in all on two cores); each row says how many runs it got.
"""

from __future__ import annotations

import argparse
import importlib.metadata
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SIZES = (10, 50, 99)  # AKS: at most 100 node pools per cluster, the system pool included
A10_SIZES = ("Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV18ads_A10_v5", "Standard_NV36ads_A10_v5")
GPU_MEMORY_GIB = {"Standard_NV6ads_A10_v5": 4, "Standard_NV12ads_A10_v5": 8, "Standard_NV18ads_A10_v5": 12,
                  "Standard_NV36ads_A10_v5": 24}
PROJECT = "aks-dra-vgpu"
VERSIONS = ("pulumi", "pulumi-azure-native", "pulumi-kubernetes", "pydantic")

# How `python -m components` starts and ends its process (components/__main__.py): the same GC thresholds from the
# start, and once everything is written, os._exit (no exit-time collection, no interpreter teardown).
CLI_START = "import gc, os, sys\ngc.set_threshold(20_000, 20, 100)\n"
CLI_END = "sys.stdout.flush()\nsys.stderr.flush()\nos._exit(0)\n"

# What each stack's plan uses from the SDKs (the modules a plan of that stack loads), each class touched.
DEV_IMPORTS = """
import pulumi
import pulumi_azure_native.containerservice as containerservice
import pulumi_azure_native.resources as resources
import pulumi_kubernetes as k8s
(containerservice.AgentPool, containerservice.ManagedCluster, resources.ResourceGroup,
 containerservice.list_managed_cluster_user_credentials_output)
(k8s.Provider, k8s.helm.v3.Release, k8s.resource.v1.DeviceClass, k8s.resource.v1.ResourceClaimTemplate,
 k8s.resource.v1.ResourceClaim, k8s.core.v1.Namespace, k8s.batch.v1.Job, k8s.networking.v1.NetworkPolicy)
"""
PROD_IMPORTS = """
import pulumi
import pulumi_azure_native.containerservice as containerservice
import pulumi_azure_native.resources as resources
import pulumi_kubernetes as k8s
(containerservice.AgentPool, containerservice.ManagedCluster, containerservice.MaintenanceConfiguration,
 resources.ResourceGroup, containerservice.list_managed_cluster_user_credentials_output)
(k8s.Provider, k8s.helm.v3.Release, k8s.resource.v1.DeviceClass, k8s.resource.v1.ResourceClaimTemplate,
 k8s.resource.v1.ResourceClaim, k8s.core.v1.Namespace)
"""
FLOOR_CODE = {"dev": CLI_START + DEV_IMPORTS + CLI_END, "prod": CLI_START + PROD_IMPORTS + CLI_END}


# --- measuring one child process -------------------------------------------------------------------------------------
@dataclass
class Sample:
    """One run of a child process: wall seconds, peak resident memory (MiB), what it printed on stdout."""

    wall: float
    peak_mib: float
    stdout: str


def run_child(argv: list[str], cwd: Path, keep_stdout: bool = False) -> Sample:
    """Runs a child to its end; wall time from spawn to reaped, peak memory from its own rusage (wait4, ru_maxrss)."""
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
        # ru_maxrss is KiB on Linux, bytes on macOS.
        peak = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
        return Sample(wall, peak, out.read().decode() if keep_stdout else "")


@dataclass
class Case:
    """A command to measure, and the samples it got (the first keeps its stdout)."""

    label: str
    argv: list[str]
    cwd: Path = ROOT
    samples: list[Sample] = field(default_factory=list)

    def run(self) -> float:
        """One more run; returns its wall time."""
        self.samples.append(run_child(self.argv, self.cwd, keep_stdout=not self.samples))
        return self.samples[-1].wall

    def walls(self) -> list[float]:
        """Wall time of each run (s)."""
        return [s.wall for s in self.samples]

    def peak_mib(self) -> float:
        """The highest peak resident memory over the runs (MiB)."""
        return max(s.peak_mib for s in self.samples)


@dataclass
class Job:
    """One scheduled thing: a single Case, or a pair (ours, other) run back to back in alternating order."""

    ours: Case
    other: Case | None
    wanted: int
    done: int = 0
    last: float = 0.0  # seconds the last run (or pair) took: the estimate of the next one

    def step(self) -> None:
        """Runs once more: a pair runs ours first on even turns and the other first on odd ones."""
        cases = [self.ours] if self.other is None else [self.ours, self.other]
        if self.done % 2:
            cases.reverse()
        self.last = sum(case.run() for case in cases)
        self.done += 1

    def ratios(self) -> list[float]:
        """ours_i / other_i for each pair (none for a single Case)."""
        if self.other is None:
            return []
        return [a / b for a, b in zip(self.ours.walls(), self.other.walls(), strict=True)]


def measure(jobs: list[Job], budget: float, progress: Callable[[str], None]) -> None:
    """Runs the jobs round-robin (one step of each per round, the order reversed every other round) until each has its runs.

    Every job gets one step; after that, a step whose estimate (its previous step) would end past `budget` seconds is
    skipped, and the run stops once nothing fits. The report counts the runs each row really got.
    """
    started = time.perf_counter()
    for round_ in itertools.count():
        due = [j for j in jobs if j.done < j.wanted]
        if round_ % 2:
            due.reverse()
        ran = 0
        for job in due:
            if job.done and time.perf_counter() - started + job.last > budget:
                continue
            job.step()
            ran += 1
        progress(f"round {round_ + 1}: {ran} steps")
        if not ran:
            return


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
def bare_child(stack_file: Path) -> None:
    """Declares the synthetic stack's resources with the SDK classes alone, under plain set_mocks; prints the count.

    The process starts and ends as `python -m components` does (its GC thresholds; flush, then os._exit).
    """
    import base64
    import gc

    gc.set_threshold(20_000, 20, 100)

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

    program()
    print(json.dumps({"custom_resources": len(registered)}))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# --- report ---------------------------------------------------------------------------------------------------------
def machine() -> str:
    """Cores, CPU model, platform, Python and SDK versions: what the figures were measured on."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    checked = subprocess.run(  # the children run from the repository root: is that the `components` they import?
        [sys.executable, "-c", "import components, pathlib; print(pathlib.Path(components.__file__).parent.parent)"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    ).stdout.strip()
    here = "this checkout" if checked and Path(checked).resolve() == ROOT else f"elsewhere ({checked or 'not importable'})"
    return (
        f"machine: {os.cpu_count()} cores ({usable} usable), {model}; {platform.platform()}\n"
        f"python {platform.python_version()} ({platform.python_implementation()}); "
        + ", ".join(f"{name} {version(name)}" for name in VERSIONS)
        + f"; components imported from {here}"
    )


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def spread(values: Sequence[float], fmt: str = "{:.2f}") -> str:
    """min / median / max of some figures."""
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def custom_count(plan_json: str) -> int:
    """Custom resources in a plan document (what the bare SDK child declares too)."""
    return sum(1 for r in json.loads(plan_json)["resources"] if r["custom"])


def pairs_report(pairs: dict[str, Job]) -> list[str]:
    """The paired comparisons: raw walls of both sides and the per-pair ratios, min / median / max."""
    lines = ["paired runs (A B, B A, ...; ratio = ours_i / floor_i of each pair; min / median / max):"]
    for label, job in pairs.items():
        if job.other is None:
            continue
        lines += [
            f"  {label}: {job.done} pairs",
            f"    ours   {spread(job.ours.walls())} s   peak {job.ours.peak_mib():.0f} MiB   ({job.ours.label})",
            f"    floor  {spread(job.other.walls())} s   peak {job.other.peak_mib():.0f} MiB   ({job.other.label})",
            f"    ratio  {spread(job.ratios(), '{:.3f}')}",
        ]
    return lines


def synthetic_report(synthetic: dict[int, Job], floor_wall: float) -> list[str]:
    """Per size: resources, wall, time per pool (whole and above the floor), the slope between sizes, peak memory."""
    lines = [
        "",
        f"synthetic stacks (python -m components plan --stack bench<n> --json; dev floor median {floor_wall:.2f} s):",
        "  pools resources runs  wall s min / median / max   ms/pool  ms/pool above floor  ms/added pool  peak MiB",
    ]
    sizes = sorted(synthetic)
    medians = {n: statistics.median(synthetic[n].ours.walls()) for n in sizes}
    slopes = {b: 1000 * (medians[b] - medians[a]) / (b - a) for a, b in itertools.pairwise(sizes)}
    for n in sizes:
        case = synthetic[n].ours
        slope = f"{slopes[n]:13.1f}" if n in slopes else " " * 13
        lines.append(
            f"  {n:5d} {custom_count(case.samples[0].stdout):9d} {len(case.samples):4d}  {spread(case.walls()):>26}"
            f"  {1000 * medians[n] / n:7.1f}  {1000 * (medians[n] - floor_wall) / n:19.1f}  {slope}"
            f"  {case.peak_mib():8.0f}"
        )
    bare = {n: job for n, job in synthetic.items() if job.other is not None}
    if bare:
        lines += ["", "ours / bare SDK (paired; bare = SDK classes + set_mocks, started and ended like the CLI):",
                  "  pools pairs  bare s min / median / max  bare peak MiB  resources  ratio min / median / max"]
        for n, job in sorted(bare.items()):
            if job.other is None:
                continue
            count = json.loads(job.other.samples[0].stdout)["custom_resources"]
            lines.append(f"  {n:5d} {job.done:5d}  {spread(job.other.walls()):>24}  {job.other.peak_mib():13.0f}"
                         f"  {count:9d}  {spread(job.ratios(), '{:.3f}')}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measures and prints; returns 0."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pairs", type=int, default=11, help="paired runs of each plan and its floor (default 11)")
    parser.add_argument("--synthetic-runs", type=int, default=3, help="runs of each synthetic stack (default 3)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="GPU pool counts (default 10,50,99)")
    parser.add_argument("--budget", type=float, default=200, help="seconds the runs may take in all (default 200)")
    parser.add_argument("--quick", action="store_true", help="a short run: 3 pairs, 1 run per size, 60 s budget")
    parser.add_argument("--bare", action="store_true", help="pair each synthetic stack with the bare SDK (slower)")
    parser.add_argument("--bare-child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--bytecode", action="store_true", help="first compile the package's bytecode into its "
                        "__pycache__ folders, as pip does when it installs a wheel and Python does on a first run")
    args = parser.parse_args(argv)
    if args.bare_child:
        bare_child(args.bare_child)
        return 0
    if args.bytecode:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "components")], check=True)
    if args.quick:
        args.pairs, args.synthetic_runs, args.budget = min(args.pairs, 3), 1, min(args.budget, 60)

    started = time.perf_counter()
    print(machine())
    print(f"load average at start: {load()}", flush=True)
    # Where PYTHONDONTWRITEBYTECODE is set and no bytecode was compiled, every run compiles the package's modules from
    # source, while the SDKs (installed by pip) have theirs: say which case was measured.
    cached = any((ROOT / "components" / "__pycache__").glob("__init__.*.pyc"))
    print(f"package bytecode: {'compiled' if cached else 'none'}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}", flush=True)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="plan-bench-") as tmp:
        project = Path(tmp) / "project"
        write_project(project, sizes)
        pairs = {
            f"plan {s} / floor {s}": Job(
                Case(f"plan --stack {s} --json", [py, "-m", "components", "plan", "--stack", s, "--json"]),
                Case(f"floor: the {s} plan's SDK imports, ending like the CLI", [py, "-c", FLOOR_CODE[s]]),
                args.pairs,
            )
            for s in ("dev", "prod")
        }
        synthetic = {
            n: Job(
                Case(f"ours {n}", [py, "-m", "components", "plan", "--stack", f"bench{n}", "--json",
                                   "--project-dir", str(project)]),
                Case(f"bare {n}", [py, str(Path(__file__).resolve()), "--bare-child",
                                   str(project / "stacks" / f"Pulumi.bench{n}.yaml")]) if args.bare else None,
                args.synthetic_runs,
            )
            for n in sizes
        }
        measure([*pairs.values(), *synthetic.values()], args.budget,
                lambda msg: print(f"  {msg} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True))
    print(flush=True)
    print("\n".join(pairs_report(pairs)))
    floor_dev = pairs["plan dev / floor dev"].other
    floor_wall = statistics.median(floor_dev.walls()) if floor_dev else 0.0
    print("\n".join(synthetic_report(synthetic, floor_wall)))
    print(f"\nload average at end: {load()}; total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
