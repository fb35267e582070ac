"""Rendered MIG claim templates on a real kube-apiserver and kube-scheduler (with the controller-manager's resourceclaim
controller), over ResourceSlices shaped as the NVIDIA driver publishes MIG devices (tests/integration/mig_cluster.py):
each claim is allocated the right slice. Nodes are made Ready as in test_control_plane.py (status written, the
lifecycle taints lifted); no kubelet runs, so the allocation is read from the ResourceClaim's status.

Order matters and is kept by waiting for each allocation before the next pod: own slice first, then best fit to the
next larger slice on offer, two slices that share a parent GPU, and 40 GiB of memory on an H100 NVL 3g.47gb (an A100
3g.40gb holds 36 GiB at the 10 % margin) and, when those are taken, a 7g.80gb.
Without the binaries every test here skips, saying how to get them.
"""

from __future__ import annotations

from typing import Any

import pytest

from components.kubernetes.slice_kinds import pool_slice, slice_of
from components.verify.checks_devices import memory_mib
from tests.integration.controlplane import HOW_TO_GET, ControlPlane, assets, can_schedule
from tests.integration.mig_cluster import MIG_CLASS, NAMESPACE, device, nodes, pod, slices, templates
from tests.integration.test_control_plane import Api, apply_all, make_ready, wait_for

FOLDER, WHY = assets()
pytestmark = pytest.mark.skipif(FOLDER is None, reason=WHY)
A100_3G = pool_slice("Standard_NC24ads_A100_v4", "MIG3g")
NVL_3G = pool_slice("Standard_NC80adis_H100_v5", "MIG3g")
A100_7G = pool_slice("Standard_NC24ads_A100_v4", "MIG7g")
# (pod, template key, the slice each of its devices must be), in the order they are created.
STEPS = [
    ("own-a", "a100-80gb-3g.40gb", A100_3G),
    ("own-b", "a100-80gb-3g.40gb", A100_3G),
    ("next-larger", "a100-80gb-3g.40gb", NVL_3G),
    ("pair", "2xh100-nvl-94gb-3g.47gb", NVL_3G),
    ("mem-a", "migMem40GiB", NVL_3G),
    ("mem-b", "migMem40GiB", A100_7G),
]


def allocation(api: Api, name: str) -> list[dict[str, Any]] | None:
    """The devices allocated to the pod's claim, or None while unallocated."""
    live = api.get("v1", "Pod", name, NAMESPACE)
    for status in (live.get("status") or {}).get("resourceClaimStatuses") or []:
        if status.get("resourceClaimName"):
            claim = api.get("resource.k8s.io/v1", "ResourceClaim", status["resourceClaimName"], NAMESPACE)
            return ((claim.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results")
    return None


def test_rendered_mig_templates_allocate_the_right_slice():
    if not can_schedule(FOLDER):
        pytest.skip(f"kube-scheduler and kube-controller-manager are missing; {HOW_TO_GET}")
    rendered = templates()
    with ControlPlane(FOLDER, scheduling=True) as plane:
        api = Api(plane.kubeconfig)
        for node in nodes():
            make_ready(api, node)
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        refused, _ = apply_all(api, [*slices(), MIG_CLASS, namespace, *rendered.values()])
        assert refused == [], refused
        for name, key, kind in STEPS:
            api.create(pod(name, rendered[key]["metadata"]["name"]))
            results = wait_for(f"claim of {name} ({key}) allocated", lambda name=name: allocation(api, name))
            found = [device(r["pool"], r["device"]) for r in results]
            assert [slice_of(d, memory_mib(d), 10) for d in found] == [kind] * len(found), (name, results)
            if key.startswith("2x"):
                assert len(found) == 2
                assert len({d["attributes"]["parentUUID"]["string"] for d in found}) == 1, (name, results)
