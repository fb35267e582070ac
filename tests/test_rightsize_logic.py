"""The pure parts of rightsize, without a network: which slice a row's device is, the verdict at each boundary, devices
held at once, who a row belongs to, what a slice costs, and the names the workloads file gives."""

from __future__ import annotations

import pytest

from components.config import GpuPoolConfig
from components.kubernetes.slice_kinds import a10_kinds, a10_slice, mig_kinds, smallest_holding
from components.rightsize.cost import slice_price
from components.rightsize.units import MIG_SLICE, POD, SHARED, WORKLOAD, units
from components.rightsize.usage import DeviceKey, Measurements, Owner, UsageRow
from components.rightsize.verdicts import (
    DOWNSIZE,
    IDLE,
    INSUFFICIENT_DATA,
    KEEP,
    PREALLOCATED,
    UPSIZE,
    assess,
    intervals,
    mig_slice_of,
    most_at_once,
    slice_name,
    sustained,
)
from components.rightsize.window import parse_window
from components.rightsize.workloads_file import entry_name, workloads_text
from components.sizing.prices import load_prices

DAY, STEP = 86400, 900
END = 1_760_000_400
PRICES = load_prices(region="westeurope")


def row(uuid: str, peak: float, *, claim: str = "c", pod: str = "p-1", namespace: str = "ml", low: float | None = None,
        first: float = END - 7 * DAY, last: float = END, profile: str = "", model: str = "NVIDIA A10-8Q",
        instance: str = "") -> UsageRow:
    return UsageRow(DeviceKey("", "node-0", uuid, instance), profile, model, namespace, pod if claim else "dcgm-x",
                    claim, namespace if claim else "", peak, peak / 2 if low is None else low, first, last, 10.0)


def measured(rows: list[UsageRow], framebuffer: float = 7987, owners: dict | None = None) -> Measurements:
    return Measurements(rows, {r.device: framebuffer for r in rows}, owners or {})


def verdict(peak: float, framebuffer: float = 7987, **kw) -> tuple[str, str | None]:
    rows = [row("GPU-1", peak, **kw)]
    found = measured(rows, framebuffer)
    held, _ = units(found)
    result = assess(held[0], found, 10, STEP)
    return result.verdict, slice_name(result.recommended)


@pytest.mark.parametrize("peak_mib, expected", [
    (7373, (UPSIZE, "12GiB")),  # 7.2001 GiB: the 8 GiB slice's 7.2 usable reached
    (7372, (KEEP, "8GiB")),  # 7.1992 GiB: just under
    (3687, (KEEP, "8GiB")),  # 3.6006 GiB: more than a 4 GiB slice's 3.6 usable
    (3686, (DOWNSIZE, "4GiB")),  # 3.5996 GiB
    (80, (DOWNSIZE, "4GiB")),  # 1 % of the 7987 MiB framebuffer is 79.87 MiB
    (79, (IDLE, None)),
])
def test_the_verdict_at_each_boundary(peak_mib, expected) -> None:
    assert verdict(peak_mib) == expected


def test_boundaries_follow_the_usable_memory_rule() -> None:
    # the same rule `size` places by: a slice holds what its usable memory (nominal less the margin) holds
    assert slice_name(smallest_holding(a10_kinds(), 10, 3.6)) == "4GiB"
    assert slice_name(smallest_holding(a10_kinds(), 10, 3.61)) == "8GiB"
    assert smallest_holding(a10_kinds(), 10, 21.7) is None


def test_less_than_a_day_of_samples_is_insufficient_whatever_the_peak() -> None:
    assert verdict(7900, first=END - DAY + 2 * STEP)[0] == INSUFFICIENT_DATA  # the last step counts: 24 h less one
    assert verdict(7900, first=END - DAY + STEP)[0] == UPSIZE  # a day to the second


def test_flat_high_use_from_the_start_is_preallocation() -> None:
    assert verdict(7400, low=7380)[0] == PREALLOCATED  # 5th percentile 92 % of the framebuffer, peak within 5 %
    assert verdict(7400, low=6000)[0] == UPSIZE  # not flat: a real peak at the slice's edge
    assert verdict(6300, low=6290)[0] == KEEP  # flat, but under 80 % of the framebuffer


def test_a_slice_outside_every_band_is_kept_and_said(capsys) -> None:
    found = measured([row("GPU-1", 2000)], framebuffer=6000)  # 5.9 GiB: no A10 class at a 10 % margin
    result = assess(units(found)[0][0], found, 10, STEP)
    assert (result.held, result.verdict, slice_name(result.recommended)) == (None, KEEP, "4GiB")
    assert result.reason.startswith("the slice is unknown (framebuffer 6000 MiB is in no size class at the 10 % margin)")


def test_devices_at_once_are_swept_not_summed() -> None:
    rows = (row("GPU-1", 10, first=0, last=100), row("GPU-2", 10, first=50, last=200),
            row("GPU-3", 10, first=300, last=400), row("GPU-1", 10, pod="p-2", first=150, last=250))
    spans = intervals(rows, 10)
    assert spans[DeviceKey("", "node-0", "GPU-1")] == [(0, 110), (150, 260)]
    assert most_at_once(spans) == 2  # GPU-1 and GPU-2 at 50-110 and 150-210; GPU-3 alone later
    assert most_at_once(intervals((row("GPU-1", 10, first=0, last=90), row("GPU-2", 10, first=100, last=200)), 10)) == 1


def test_rows_become_workloads_pods_shared_claims_mig_slices_and_idle_devices() -> None:
    owners = {("", "ml", "a-1"): Owner("a", "deployment"), ("", "ml", "b-1"): Owner("b", "deployment"),
              ("", "ml", "a-2"): Owner("a", "deployment")}
    rows = [row("GPU-1", 10, pod="a-1", claim="a-1-gpu"), row("GPU-2", 10, pod="a-2", claim="a-2-gpu"),
            row("GPU-3", 10, pod="a-1", claim="team"), row("GPU-3", 10, pod="b-1", claim="team"),
            row("GPU-4", 10, pod="bare", claim="bare-gpu"), row("GPU-5", 0, claim=""),
            row("GPU-6", 10, claim="", profile="1g.10gb", model="NVIDIA A100 80GB PCIe", instance="3"),
            row("GPU-1", 0, claim="")]  # GPU-1 while nobody held it: not idle capacity
    held, idle = units(measured(rows, owners=owners))
    assert [(u.namespace, u.name, u.kind, len(u.rows)) for u in held] == [
        ("", "node-0/GPU-6/3", MIG_SLICE, 1), ("ml", "a", WORKLOAD, 2), ("ml", "bare", POD, 1),
        ("ml", "team", SHARED, 2)]
    assert held[3].users == ("ml/a", "ml/b")
    assert [d.device.uuid for d in idle] == ["GPU-5"]


def test_a_mig_profile_is_read_on_its_parent_gpu() -> None:
    assert mig_slice_of("1g.10gb", "NVIDIA A100 80GB PCIe").gpu_model == "A100 80GB"
    assert mig_slice_of("1g.10gb", "NVIDIA H100 80GB HBM3").gpu_model == "H100 80GB"
    assert mig_slice_of("1g.12gb", "NVIDIA H100 NVL").gpu_model == "H100 NVL 94GB"
    assert mig_slice_of("1g.10gb", "some H100 name the catalog lacks").gpu_model == "H100 80GB"
    assert mig_slice_of("9g.99gb", "NVIDIA A100 80GB PCIe") is None


def test_a_slice_costs_its_vm_divided_by_the_slices_it_holds() -> None:
    nv12, nc24 = PRICES.prices["Standard_NV12ads_A10_v5"], PRICES.prices["Standard_NC24ads_A100_v4"]
    assert slice_price(a10_slice(8), PRICES).hourly == nv12
    three_g = next(k for k in mig_kinds() if k.profile == "3g.40gb" and k.gpu_model == "A100 80GB")
    found = slice_price(three_g, PRICES)
    assert (found.vm_size, found.per_node, found.hourly) == ("Standard_NC24ads_A100_v4", 2, nc24 / 2)
    # the stack's own pool of that slice decides the VM: two 24 GiB devices on one Standard_NV72ads_A10_v5
    pair = GpuPoolConfig.model_validate({"name": "pair", "vmSize": "Standard_NV72ads_A10_v5", "count": 1})
    assert slice_price(a10_slice(24), PRICES, [pair]).hourly == PRICES.prices["Standard_NV72ads_A10_v5"] / 2
    assert slice_price(a10_slice(24), PRICES).hourly == PRICES.prices["Standard_NV36ads_A10_v5"]


@pytest.mark.parametrize("namespace, name, cluster, expected", [
    ("ml", "chat", "", "ml.chat"),
    ("ml", "chat", "prod", "prod.ml.chat"),
    ("team", "a" * 80, "", "team." + "a" * 49 + "-"),
])
def test_workload_names_fit_size(namespace, name, cluster, expected) -> None:
    from components.rightsize.cost import cost

    rows = [UsageRow(DeviceKey(cluster, "n", "GPU-1"), "", "NVIDIA A10-8Q", namespace, "p", "c", namespace, 3000, 1000,
                     END - 7 * DAY, END, 10.0)]
    found = Measurements(rows, {rows[0].device: 7987}, {(cluster, namespace, "p"): Owner(name, "deployment")})
    item = cost(assess(units(found)[0][0], found, 10, STEP), PRICES)
    got = entry_name(item)
    assert got.startswith(expected) and len(got) <= 63
    text = workloads_text([item], 10, "header")
    assert text.splitlines()[:3] == ["# header", "workloads:", f'  - name: "{got}"  # downsize, held 8GiB, peak 2.9 GiB']


def test_the_subquery_step_keeps_the_answer_the_same_size() -> None:
    assert [parse_window(w, END).step for w in ("1h", "1d", "7d", "30d")] == ["1m", "3m", "15m", "65m"]


def test_a_bare_pod_named_like_a_workload_gets_a_name_of_its_own() -> None:
    from components.rightsize.cost import cost

    rows = [row("GPU-1", 3000, pod="chat-1", claim="a"), row("GPU-2", 3000, pod="chat", claim="b")]
    found = measured(rows, owners={("", "ml", "chat-1"): Owner("chat", "deployment")})
    items = [cost(assess(unit, found, 10, STEP), PRICES) for unit in units(found)[0]]
    names = [line.split('"')[1] for line in workloads_text(items, 10, "h").splitlines() if "name:" in line]
    assert names[0] == "ml.chat" and names[1].startswith("ml.chat-") and len(set(names)) == 2


def test_a_rolling_updates_surge_is_not_two_devices() -> None:
    hour = 3600
    old_pod, new_pod = row("GPU-1", 10, pod="a-1", first=0, last=10 * hour), row("GPU-2", 10, pod="a-2",
                                                                                 first=10 * hour - STEP, last=20 * hour)
    spans = intervals((old_pod, new_pod), STEP)
    assert most_at_once(spans) == 2  # for the step they overlap
    assert most_at_once(spans, sustained(STEP)) == 1  # not for an hour
    replicas = intervals((old_pod, row("GPU-2", 10, pod="a-2", first=5 * hour, last=20 * hour)), STEP)
    assert most_at_once(replicas, sustained(STEP)) == 2  # together for five hours
    short = intervals((row("GPU-1", 10, first=0, last=STEP), row("GPU-2", 10, first=0, last=STEP)), STEP)
    assert most_at_once(short, sustained(STEP)) == 2  # seen for less than an hour at all: the most at any moment
    assert sustained(STEP) == 3600 and sustained(65 * 60) == 2 * 65 * 60
