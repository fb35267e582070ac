"""Figures the README and docs/performance.md quote, generated from the code so that they cannot go stale: a first
`pulumi up`'s critical path for each shipped stack against the manual recipe, from the typical provisioning times, and
the table of the shipped stacks (Kubernetes version, nodes, pools, resources) read from their stack files and plans."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import GpuPoolConfig
    from ..offline import Plan

CRITICAL_PATH_BLOCK = "critical-path"
NO_SUBNET = "prod without its own subnet"


def _minutes(value: float) -> str:
    """Minutes as people write them: 14.1, 30.55, 8 (no trailing zeros)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _plural(kind: str, count: int) -> str:
    return kind if count == 1 else f"{count} {kind}s" if not kind.endswith("s") else f"{count} {kind}"


def chain_in_words(kinds: list[str]) -> str:
    """A chain by kind, repeats counted: ``resource group -> AKS cluster -> 3 GPU agent pools one after another``."""
    words = []
    for kind, run in groupby(kinds):
        count = len(list(run))
        words.append(_plural(kind, count) + (" one after another" if count > 1 else ""))
    return " -> ".join(words)


class StackPlans:
    """The first-preview plan of each of a project's stacks, made once: one `docs` run quotes dev's and prod's plans in
    three places (graph, critical path, stacks table), and the files it reads do not change while it runs."""

    def __init__(self, project_dir: Path):
        from ..offline import load_project

        self.project = load_project(project_dir)
        self._plans: dict[str, Plan] = {}

    def __call__(self, stack: str) -> Plan:
        """`stack`'s plan (`run_project(..., preview=True)`), made on the first call."""
        if stack not in self._plans:
            from ..offline import run_project

            self._plans[stack] = run_project(self.project, stack, preview=True)
        return self._plans[stack]


def _prod_without_subnet(project_dir: Path):
    """Prod's plan with `cluster.network` left out: the pools join AKS's own network (and may run side by side)."""
    from ..config import stack_config_from_mapping
    from ..offline import capture, load_project, read_stack_config
    from ..platform import GpuPlatform

    project = load_project(project_dir)
    config, _secrets = read_stack_config(project, "prod")
    key = f"{project.name}:cluster"
    cluster = {k: v for k, v in dict(config[key]).items() if k != "network"}
    stack = stack_config_from_mapping({**config, key: cluster}, project.name)
    return capture(lambda: GpuPlatform("gpu", stack), preview=True)


def critical_path_table(project_dir: Path, stack_plans: StackPlans | None = None) -> str:
    """Markdown: per stack, the critical path of a first `pulumi up`, its floor and the manual recipe run one command
    after the other (`python -m components plan --stack <s> --critical-path` prints the same, in full). `stack_plans`:
    plans already made for `project_dir` (one docs run shares them)."""
    from ..review.critical_path import critical_path

    plan_of = stack_plans or StackPlans(project_dir)
    plans = [
        ("dev", plan_of("dev")),
        (NO_SUBNET, _prod_without_subnet(project_dir)),
        ("prod", plan_of("prod")),
    ]
    rows = ["| stack | critical path | floor | manual recipe, one command after the other |", "|---|---|---|---|"]
    for name, plan in plans:
        result = critical_path(plan)
        pools = sum(1 for s in result.manual if s.typical.kind == "GPU agent pool")
        label = f"{name} ({pools} GPU pool{'s' if pools != 1 else ''})"
        rows.append(f"| {label} | **{_minutes(result.minutes)} min**: {chain_in_words([s.kind for s in result.steps])} "
                    f"| {_minutes(result.floor_minutes)} min | **{_minutes(result.manual_minutes)} min** |")
    return "\n".join(rows) + "\n"


STACKS_BLOCK = "stacks-table"
STACKS = ("dev", "prod", "serving")
# What the figures cannot say about a stack's cluster: its settings in words (docs/production.md explains each).
STACK_NOTES = {
    "prod": "protected; Entra ID with Azure RBAC (CI's identity granted Cluster Admin, operators by group); own subnet "
            "and identity, API access limited to listed ranges, patch + node-image upgrades in a weekly window, managed "
            "Prometheus with its workspace, DCE, DCR and rules, GPU metrics (dcgm-exporter) and alerts, Managed Grafana, "
            "named node resource group",
    "serving": "extended resources: nvidia.com/gpu gets an 8 GiB slice, aks-dra-vgpu.io/a10-8gib and a10-24gib name "
               "each size (docs/extended-resources.md)",
}


def _pool_in_words(pool: GpuPoolConfig) -> str:
    """'`Standard_NV12ads_A10_v5` (1/3 A10, 8 GB) 1-6 deallocating on scale-down'."""
    share = "a whole A10" if pool.size.gpu_share == "1" else f"{pool.size.gpu_share} A10"
    scale = pool.autoscaling
    count = f"autoscaling {scale.min_count}-{scale.max_count}" if scale else f"{pool.count or 1} node(s)"
    extras = [text for on, text in (
        (pool.scale_down_mode == "Deallocate", "deallocating on scale-down"),
        (pool.capacity_reservation_group_id is not None, "on a capacity reservation"),
        (pool.os_disk_type == "Ephemeral", "with an ephemeral OS disk"),
        (pool.spot is not None, "on Spot VMs"),
    ) if on]
    return f"`{pool.vm_size}` ({share}, {pool.size.gpu_memory_gib} GB) {count}" + "".join(f" {e}" for e in extras)


def stacks_table(project_dir: Path, stack_plans: StackPlans | None = None) -> str:
    """Markdown: the shipped stacks, their figures read from their stack files and their offline plans (the Kubernetes
    version, the system nodes, each GPU pool, the number of resources), so the README cannot quote stale ones.
    `stack_plans`: plans already made for `project_dir` (one docs run shares them)."""
    from ..config import stack_config_from_mapping
    from ..offline import read_stack_config

    plan_of = stack_plans or StackPlans(project_dir)
    project = plan_of.project
    rows = ["| stack | cluster | GPU pools | samples | resources |", "|---|---|---|---|---|"]
    for name in STACKS:
        raw, _secrets = read_stack_config(project, name)
        stack = stack_config_from_mapping(raw, project.name)
        cluster, system = stack.cluster, stack.cluster.system_pool
        nodes = f"{system.count} system node{'s' if system.count != 1 else ''}"
        facts = [f"Kubernetes {cluster.kubernetes_version}", f"{cluster.sku_tier} tier",
                 nodes + (" across zones" if len(system.zones) > 1 else "")]
        described = ", ".join(facts) + (f"; {STACK_NOTES[name]}" if name in STACK_NOTES else "")
        pools = stack.gpu_pools
        tainted = [bool(p.taints) for p in pools]
        taints = "all tainted" if all(tainted) else "untainted" if not any(tainted) else "some tainted"
        samples = stack.samples
        shown = ["DeviceClass", "claim templates", *(["shared claim"] if samples.shared_claim else [])]
        job = "the sample Job (it waits until a pool has a node: see below)" if samples.workload else "no Job"
        rows.append(f"| `{name}` | {described} | {', '.join(_pool_in_words(p) for p in pools)}; {taints} "
                    f"| {', '.join(shown)}; {job} | {len(plan_of(name).resources)} |")
    return "\n".join(rows) + "\n"
