"""The objects of the MIG allocation tests, built by pure functions (tested offline in tests/test_mig_allocation_objects.py).

Three AKS-like MIG nodes, each laid out by AKS with one profile on every GPU (tests/verify_cluster.py mig_node_slice:
ResourceSlices shaped as the NVIDIA driver publishes MIG devices), the chart's `mig.nvidia.com` DeviceClass, and the
claim templates the package renders for the slices on offer (`claim_specs.template_specs`, the function
`DraClaimTemplates` and `DraSamples` declare from), plus a pod per claim.
"""

from __future__ import annotations

from typing import Any

from components.kubernetes.claim_specs import ClaimSettings, template_specs
from components.kubernetes.slice_kinds import MIG_DEVICE_CLASS
from tests.verify_cluster import aks_node, mig_node_slice

NAMESPACE = "mig-claims"
# node -> (VM size, AKS profile): two 3g.40gb on one A100 80GB, 2 x 2 3g.47gb on two H100 NVL, one 7g.80gb.
NODES = {
    "aks-a100-3g-vmss000000": ("Standard_NC24ads_A100_v4", "MIG3g"),
    "aks-nvl-3g-vmss000000": ("Standard_NC80adis_H100_v5", "MIG3g"),
    "aks-a100-7g-vmss000000": ("Standard_NC24ads_A100_v4", "MIG7g"),
}
# The chart's DeviceClass (templates/deviceclass-mig.yaml in 25.8.1, 25.12.0, 0.4.1).
MIG_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": MIG_DEVICE_CLASS},
             "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com' && "
                                             "device.attributes['gpu.nvidia.com'].type == 'mig'"}}]}}


def settings() -> ClaimSettings:
    """The claim settings of the test: every slice on offer, two on one GPU, and 40 GiB of memory."""
    return ClaimSettings(mig_slices=[{"vmSize": vm, "profile": aks} for vm, aks in NODES.values()],
                         migMemoryRequestsGiB=[40], mig_two_slices=True)


def nodes() -> list[dict[str, Any]]:
    """The MIG nodes as AKS registers them (GPU label; no taints, so pods need no tolerations)."""
    return [aks_node(name, name.split("-vmss")[0].removeprefix("aks-").replace("-", ""), vm,
                     labels={"nvidia.com/gpu.present": "true"}) for name, (vm, _) in NODES.items()]


def slices() -> list[dict[str, Any]]:
    """Each node's ResourceSlice."""
    return [mig_node_slice(name, vm, aks) for name, (vm, aks) in NODES.items()]


def templates() -> dict[str, dict[str, Any]]:
    """The ResourceClaimTemplates, by output key."""
    return {key: {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                  "metadata": {"name": name, "namespace": NAMESPACE}, "spec": {"spec": spec}}
            for key, (name, spec) in template_specs(settings()).items()}


def pod(name: str, template: str) -> dict[str, Any]:
    """A pod that claims one device set from this template (nothing starts it: the allocation is the claim's status)."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"restartPolicy": "Never",
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
                     "containers": [{"name": "main", "image": "busybox", "command": ["true"],
                                     "resources": {"claims": [{"name": "gpu"}]}}]}}


def device(node: str, name: str) -> dict[str, Any]:
    """A published device by node and name."""
    return next(d for s in slices() if s["spec"]["nodeName"] == node for d in s["spec"]["devices"] if d["name"] == name)
