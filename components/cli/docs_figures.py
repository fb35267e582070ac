"""Figures the README and docs/performance.md quote, generated from the code so that they cannot go stale: a first
`pulumi up`'s critical path for each shipped stack against the manual recipe, from the typical provisioning times."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

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


def critical_path_table(project_dir: Path) -> str:
    """Markdown: per stack, the critical path of a first `pulumi up`, its floor and the manual recipe run one command
    after the other (`python -m components plan --stack <s> --critical-path` prints the same, in full)."""
    from ..offline import load_project, run_project
    from ..review.critical_path import critical_path

    project = load_project(project_dir)
    plans = [
        ("dev", run_project(project, "dev", preview=True)),
        (NO_SUBNET, _prod_without_subnet(project_dir)),
        ("prod", run_project(project, "prod", preview=True)),
    ]
    rows = ["| stack | critical path | floor | manual recipe, one command after the other |", "|---|---|---|---|"]
    for name, plan in plans:
        result = critical_path(plan)
        pools = sum(1 for s in result.manual if s.kind == "GPU agent pool")
        label = f"{name} ({pools} GPU pool{'s' if pools != 1 else ''})"
        rows.append(f"| {label} | **{_minutes(result.minutes)} min**: {chain_in_words([s.kind for s in result.steps])} "
                    f"| {_minutes(result.floor_minutes)} min | **{_minutes(result.manual_minutes)} min** |")
    return "\n".join(rows) + "\n"
