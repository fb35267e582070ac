"""The offline engine at scale and after failures: no recursion per registration, no state leaking between captures."""

from __future__ import annotations

import gc
import sys

import pulumi_kubernetes as k8s
import pytest

from components.offline import capture
from components.offline.mocks import OfflineProviders


def many_config_maps(n: int):
    def program() -> None:
        for i in range(n):
            k8s.core.v1.ConfigMap(f"cm{i}", metadata={"name": f"cm{i}"}, data={"key": "value"})

    return program


def test_registrations_do_not_nest_inside_one_another(preview, monkeypatch):
    # The SDK's MockMonitor serialises each result by pumping the running event loop re-entrantly: with the executor
    # inline, each registration ran inside the previous one (about 12 frames deeper each time), and 100 ConfigMaps
    # exceeded the recursion limit. The engine serialises without re-entering the loop: every one at the same depth.
    depths: list[int] = []
    new_resource = OfflineProviders.new_resource

    def recording(self, *args):
        frame, depth = sys._getframe(), 0
        while frame:
            frame, depth = frame.f_back, depth + 1
        depths.append(depth)
        return new_resource(self, *args)

    monkeypatch.setattr(OfflineProviders, "new_resource", recording)
    plan = capture(many_config_maps(60), preview=preview)
    assert len(plan.all("kubernetes:core/v1:ConfigMap")) == 60
    assert max(depths) - min(depths) <= 2, (min(depths), max(depths))


def test_a_program_of_three_hundred_resources_is_captured_whole():
    plan = capture(many_config_maps(300), preview=True)
    assert len(plan.resources) == 300


def test_a_failed_capture_leaves_nothing_for_the_next_one():
    def failing() -> None:
        ns = k8s.core.v1.Namespace("ns", metadata={"name": "x"})
        k8s.core.v1.ConfigMap("cm", metadata={"name": ns.metadata.name.apply(lambda _: 1 / 0)})

    def raising() -> None:
        raise ValueError("the program's own error")

    with pytest.raises(ZeroDivisionError):
        capture(failing, preview=True)
    # Without a fresh set of pending outputs per capture, this one waited on the failed run's outputs (closed loop).
    with pytest.raises(ValueError, match="the program's own error"):
        capture(raising, preview=True)
    assert len(capture(many_config_maps(2)).resources) == 2


def test_garbage_collection_settings_are_restored_even_after_a_failure():
    before, frozen = gc.get_threshold(), gc.get_freeze_count()  # the session froze what collection loaded (conftest)
    capture(many_config_maps(1))
    assert gc.get_threshold() == before
    with pytest.raises(ValueError):
        capture(lambda: (_ for _ in ()).throw(ValueError("boom")))
    assert gc.get_threshold() == before
    # capture leaves nothing frozen: the count never grows (it may shrink, when a frozen object another test left
    # reachable is freed meanwhile)
    assert gc.get_freeze_count() <= frozen
