"""The packing onto shared slices (`sizing.packing`) for people (text, Markdown) and machines (the `sharedByMemory`
key of `size --json`), with the one-slice-per-replica plan as a row of its own, so the cheaper of the two is read
off one table and said in one sentence."""

from __future__ import annotations

from typing import Any

from .cost_text import rounded
from .model import CostLine
from .packing import SharedOption, SharedPlan
from .tables import md_table, text_table

PLAN_LABEL = "one slice per replica, the plan above"
CAVEAT = ("Sharing gives no memory isolation and no fair share of compute between the pods on one slice; MPS is not "
          "available with it.")
NOTHING = "Nothing to share: every workload asks for a slice, or two devices."


def _option_dict(o: SharedOption, hours: float) -> dict[str, Any]:
    total = o.total_hourly
    return {"vmSize": o.vm_size, "usableGiBPerSlice": round(o.usable_gib, 2), "slices": len(o.slices),
            "nodes": o.nodes, "hourly": rounded(o.hourly, 4), "monthly": rounded(o.monthly, 2),
            "requestedGiB": o.requested_gib, "provisionedGiB": o.provisioned_gib,
            "packing": [[f"{n} {g} GiB" for n, g in s.replicas] for s in o.slices],
            "stackPool": o.pool, "maxNodes": o.max_nodes, "notShared": list(o.not_shared),
            "totalHourly": rounded(total, 4), "totalMonthly": None if total is None else round(total * hours, 2)}


def verdict(plan: SharedPlan, currency: str) -> str | None:
    """One sentence: which is cheaper for these workloads, the best sharing or the plan above (None: nothing shared)."""
    best = plan.best
    if best is None or plan.plain is None:
        return None
    cheaper = plan.cheaper
    shared, plain = best.total_hourly, plan.plain.hourly if plan.plain else None
    if cheaper is None or shared is None or plain is None:
        return "A price is missing, so sharing is not compared with the one-slice-per-replica plan above."
    if cheaper == "plan":
        return (f"The one-slice-per-replica plan above is cheaper: {plain:.2f} {currency} an hour against "
                f"{shared:.2f} {currency} for the cheapest sharing, on {best.label}; sharing saves nothing for these "
                "workloads.")
    if cheaper == "same":
        return (f"Sharing, on {best.label}, costs the same as the one-slice-per-replica plan above: {plain:.2f} {currency} "
                "an hour.")
    return (f"Sharing is cheaper: on {best.label} it costs {shared:.2f} {currency} an hour against {plain:.2f} {currency} "
            f"for the one-slice-per-replica plan above ({plain - shared:.2f} {currency} an hour less, "
            f"{(plain - shared) / plain:.0%}).")


def to_dict(plan: SharedPlan, currency: str = "USD", hours: float = 730) -> dict[str, Any]:
    """The JSON shape (`sharedByMemory`): best, options, notShared as before; the plan compared, which is cheaper."""
    plain = plan.plain
    return {"best": _option_dict(plan.best, hours) if plan.best else None,
            "options": [_option_dict(o, hours) for o in plan.options], "notShared": list(plan.not_shared),
            "plan": None if plain is None else {"hourly": rounded(plain.hourly, 4), "monthly": rounded(plain.monthly, 2),
                                                "nodes": plan.plain_nodes, "devices": plan.plain_devices},
            "cheaper": plan.cheaper, "verdict": verdict(plan, currency), "notes": list(plan.notes),
            "stackPools": plan.stack_pools}


def _money(value: float | None, currency: str, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f} {currency}"


def _rows(plan: SharedPlan, currency: str, hours: float, code: str) -> list[list[str]]:
    """The plan and every option, cheapest first (the plan first on a tie), the cheapest marked."""
    rows: list[tuple[float | None, int, list[str]]] = []
    plain = plan.plain
    if plain is not None:
        rows.append((plain.hourly, 0, [PLAN_LABEL, "-", str(plan.plain_devices), str(plan.plain_nodes),
                                       _money(plain.hourly, currency, 2), _money(plain.monthly, currency, 0),
                                       f"{plain.requested_gib:g} / {plain.provisioned_gib:g} GiB"]))
    for o in plan.options:
        total = o.total_hourly
        kept = o.kept or CostLine("", 0.0, 0.0, 0.0, 0.0)
        name = f"{code}{o.pool}{code} ({o.vm_size}), shared" if o.pool else f"{code}{o.vm_size}{code}, shared"
        rows.append((total, 1, [name, f"{o.usable_gib:.1f}", str(len(o.slices)), str(o.nodes),
                                _money(total, currency, 2), _money(None if total is None else total * hours, currency, 0),
                                f"{o.requested_gib + kept.requested_gib:g} / {o.provisioned_gib + kept.provisioned_gib:g} GiB"]))
    priced = all(hourly is not None for hourly, _, _ in rows)
    if priced:
        rows.sort(key=lambda r: (round(r[0] or 0.0, 2), r[1]))
        rows[0][2][0] += " (cheapest)"
    return [cells for _, _, cells in rows]


HEADER = ["option", "GiB a slice holds", "slices", "nodes", "per hour", "per month", "GPU memory asked / paid for"]


def _after(plan: SharedPlan, currency: str, code: str) -> list[str]:
    """What follows the table: the verdict, the best packing slice by slice, what is not shared, notes, the caveat."""
    best = plan.best
    assert best is not None
    where = best.label.replace(best.vm_size, f"{code}{best.vm_size}{code}")
    said = verdict(plan, currency)
    lines = [*([said, ""] if said else []), f"On {where}, slice by slice (first-fit decreasing):", ""]
    lines += [f"{i + 1}. {', '.join(f'{n} ({g} GiB)' for n, g in s.replicas)}: {s.used_gib} of "
              f"{best.usable_gib:.1f} GiB" for i, s in enumerate(best.slices)]
    if best.not_shared:
        lines += ["", f"Not shared (asked for by slice, two devices, more than a shared slice holds, or not allowed "
                  f"on the pool): {', '.join(best.not_shared)}; they keep their own slices as the plan above places "
                  "them, and the option's cost counts them."]
    if plan.notes:
        lines += ["", *(f"- {n}" for n in plan.notes)]
    return [*lines, "", CAVEAT, ""]


def _title(plan: SharedPlan, code: str) -> str:
    pools = "the stack's pools" if plan.stack_pools else "pools"
    return f"Shared by memory ({pools} with {code}sharing: memory{code})"


def to_markdown(plan: SharedPlan, currency: str, heading: str = "###", hours: float = 730) -> str:
    """The packing for docs/sizing.md and `size --sharing memory --format markdown`."""
    lines = [f"{heading} {_title(plan, '`')}".lstrip(), ""]
    if plan.best is None:
        return "\n".join([*lines, NOTHING, *(f"- {n}" for n in plan.notes), ""])
    lines += md_table(HEADER, _rows(plan, currency, hours, "`"), "---:")
    return "\n".join([*lines, "", *_after(plan, currency, "`")])


def text_lines(plan: SharedPlan, currency: str, hours: float = 730) -> list[str]:
    """The packing for a terminal: aligned columns, as the rest of the text report (no Markdown)."""
    lines = [f"{_title(plan, '')[0].lower()}{_title(plan, '')[1:]}:"]
    if plan.best is None:
        return [*lines, f"  {NOTHING}", *(f"  - {n}" for n in plan.notes), ""]
    lines += text_table(HEADER, _rows(plan, currency, hours, ""))
    return [*lines, "", *_after(plan, currency, "")]
