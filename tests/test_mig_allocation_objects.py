"""The MIG allocation test's pure parts, offline: its objects are valid resource.k8s.io/v1 and core/v1 objects, and
the outcome it expects from the scheduler follows from the templates' own CEL on the recorded devices (evaluated by the
real CEL engine, alternatives in order, two devices of one request on one parent GPU). This is what the test expects,
not a second scheduler: the real one decides in tests/integration/test_mig_allocation.py."""

from __future__ import annotations

import kubernetes_validate

from components.verify.cel import selects
from tests.integration.mig_cluster import MIG_CLASS, NAMESPACE, device, nodes, pod, slices, templates
from tests.integration.test_mig_allocation import STEPS


def test_the_objects_are_valid_for_the_api_server():
    objects = [*nodes(), *slices(), MIG_CLASS, *templates().values(),
               *(pod(name, templates()[key]["metadata"]["name"]) for name, key, _ in STEPS)]
    for obj in objects:
        kubernetes_validate.validate(obj, "1.36", strict=True)
    assert {t["metadata"]["namespace"] for t in templates().values()} == {NAMESPACE}


def _free_set(choice: dict, free: list[tuple[str, dict]], paired: bool) -> list[tuple[str, dict]] | None:
    """`count` free devices on one node (and one parent GPU when the request is constrained) that the choice selects."""
    cel = [MIG_CLASS["spec"]["selectors"][0]["cel"]["expression"], *(s["cel"]["expression"] for s in choice["selectors"])]
    groups: dict[tuple[str, str], list[tuple[str, dict]]] = {}
    for node, d in free:
        if selects(cel, "gpu.nvidia.com", d):
            parent = d["attributes"]["parentUUID"]["string"] if paired else ""
            groups.setdefault((node, parent), []).append((node, d))
    return next((g[:choice["count"]] for g in groups.values() if len(g) >= choice["count"]), None)


def test_the_expected_allocations_follow_from_the_templates_cel():
    free = [(s["spec"]["nodeName"], d) for s in slices() for d in s["spec"]["devices"]]
    for name, key, kind in STEPS:
        spec = templates()[key]["spec"]["spec"]
        (request,) = spec["devices"]["requests"]
        paired = bool(spec["devices"].get("constraints"))
        choices = [request["exactly"]] if "exactly" in request else request["firstAvailable"]
        taken = next(found for c in choices if (found := _free_set(c, free, paired)))
        for node, d in taken:
            free.remove((node, d))
            assert device(node, d["name"])["attributes"]["profile"]["string"] == kind.profile, (name, d["name"])
            assert d["attributes"]["architecture"]["string"] == kind.architecture, (name, d["name"])
