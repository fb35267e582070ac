"""Draws docs/observability.png from the committed dashboard JSON: each panel where Grafana puts it (gridPos), with
its title, its queries' legends and illustrative values (not measurements). Needs matplotlib, which is a docs-only
dependency (`pip install aks-dra-vgpu[docs]`), never a runtime one.

    python scripts/render_dashboard_preview.py [docs/grafana/gpu-dashboard.json] [docs/observability.png]
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parent.parent
ROW = 0.45  # inches per Grafana grid row
COLUMN = 0.62  # inches per Grafana grid column (24 columns)
PROFILES = ["NVIDIA A10-4Q", "NVIDIA A10-8Q", "NVIDIA A10-24Q"]
WORKLOADS = ["ml/chat", "research/finetune", "serving/vllm"]


def _draw(ax: plt.Axes, panel: dict, seed: int) -> None:
    kind, targets = panel["type"], panel["targets"]
    per_workload = "workload" in json.dumps(targets)  # the right-sizing row
    if kind == "bargauge":
        names = WORKLOADS if per_workload else PROFILES
        values = [(seed * 3 + i * 5) % 7 + 1 for i in range(len(names))]
        ax.barh(names, [v * 14 for v in values] if per_workload else values, color="#73bf69")
        ax.tick_params(labelsize=7)
    elif kind == "stat":
        for i, target in enumerate(targets):
            ax.text((i + 0.5) / len(targets), 0.55, str((seed + i) % 2), ha="center", fontsize=20, weight="bold",
                    color="#f2495c" if (seed + i) % 2 else "#73bf69")
            ax.text((i + 0.5) / len(targets), 0.2, target["legendFormat"], ha="center", fontsize=7)
        ax.axis("off")
    elif kind == "table":
        columns = ["dra_claim_namespace", "dra_claim_name", "pod", "hostname", "modelName", "Value"]
        rows = [["team-a", "infer-0", "infer-0-7c9f", "aks-a10third-0", "NVIDIA A10-8Q", "63"],
                ["team-b", "train", "train-0", "aks-a10full-1", "NVIDIA A10-24Q", "91"]]
        if per_workload:
            columns = ["namespace", "workload", "peak", "slice"]
            rows = [["ml", "chat", "3000", "7987"], ["research", "finetune", "5000", "24000"]]
        table = ax.table(cellText=rows, colLabels=columns, loc="center", cellLoc="left")
        table.auto_set_font_size(False)
        table.set_fontsize(7)
        ax.axis("off")
    else:
        xs = [i / 10 for i in range(120)]
        for line in range(3):
            ys = [50 + 30 * math.sin(x / (2 + line) + seed + line) for x in xs]
            ax.plot(xs, ys, linewidth=1)
        legend = targets[0]["legendFormat"] if targets else ""
        ax.set_title(legend, fontsize=6, loc="right", color="#555")
        ax.tick_params(labelsize=6)


def render(source: Path, out: Path) -> None:
    """Writes the preview PNG of the dashboard at `source` to `out`."""
    board = json.loads(source.read_text(encoding="utf-8"))
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in board["panels"])
    fig = plt.figure(figsize=(24 * COLUMN, rows * ROW + 0.6))
    fig.suptitle(f"{board['title']} (preview, illustrative values)", fontsize=12, y=0.995)
    for index, panel in enumerate(board["panels"]):
        g = panel["gridPos"]
        left, width = g["x"] / 24, g["w"] / 24
        bottom, height = 0.955 - 0.94 * (g["y"] + g["h"]) / rows, 0.94 * g["h"] / rows
        if panel["type"] == "row":  # a row is its title across the dashboard
            fig.text(left + 0.005, bottom + height / 2, panel["title"], fontsize=11, weight="bold")
            continue
        inset = 0.07 if panel["type"] == "bargauge" else 0.035  # room for the profile names
        ax = fig.add_axes((left + inset, bottom + 0.03, width - inset - 0.015, height - 0.07))
        ax.set_facecolor("#fafafa")
        _draw(ax, panel, index)
        fig.text(left + 0.01, bottom + height - 0.025, panel["title"], fontsize=9, weight="bold")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)


if __name__ == "__main__":
    args = sys.argv[1:]
    render(Path(args[0]) if args else ROOT / "docs/grafana/gpu-dashboard.json",
           Path(args[1]) if len(args) > 1 else ROOT / "docs/observability.png")
