"""A private cluster whose Azure Monitor workspace is in another region gets a second data collection endpoint in its
own region and that endpoint's association, as Microsoft's Terraform template does (dce_mismatch, dcra_mismatch)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from components.config import stack_config_from_mapping
from components.observability.prometheus import needs_private_link_endpoint
from components.offline import capture
from components.platform import GpuPlatform
from tests.conftest import ROOT

NS = "aks-dra-vgpu:"
PROD = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
WORKSPACE = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-mon/providers/Microsoft.Monitor/accounts/amw-x"
DCE = "azure-native:monitor:DataCollectionEndpoint"
DCRA = "azure-native:monitor:DataCollectionRuleAssociation"
CLUSTER = "azure-native:containerservice:ManagedCluster"


def _plan(private: bool, workspace_location: str | None, preview: bool) -> Any:
    config = copy.deepcopy(PROD)
    cluster = config[NS + "cluster"]
    cluster["apiServer"] = {"private": private} if private else cluster["apiServer"]
    monitoring = cluster["monitoring"]
    if workspace_location is not None:
        monitoring.update(workspaceId=WORKSPACE, workspaceLocation=workspace_location)
    return capture(lambda: GpuPlatform("gpu", stack_config_from_mapping(config)), preview=preview)


def test_private_cluster_with_a_workspace_elsewhere_gets_a_local_endpoint_and_its_association(preview):
    plan = _plan(True, "northeurope", preview)
    endpoints = {r.inputs["dataCollectionEndpointName"]: r for r in plan.all(DCE)}
    assert set(endpoints) == {"MSProm-northeurope-aks-dra-prod", "MSProm-PL-westeurope-aks-dra-prod"}
    local = endpoints["MSProm-PL-westeurope-aks-dra-prod"]
    assert (local.inputs["location"], local.inputs["kind"]) == ("westeurope", "Linux")
    assert endpoints["MSProm-northeurope-aks-dra-prod"].inputs["location"] == "northeurope"
    associations = {r.inputs["associationName"]: r for r in plan.all(DCRA)}
    assert set(associations) == {"MSProm-westeurope-aks-dra-prod", "configurationAccessEndpoint"}
    endpoint_link = associations["configurationAccessEndpoint"]
    assert "dataCollectionRuleId" not in endpoint_link.inputs
    assert local.urn in endpoint_link.dependencies and plan.one(CLUSTER).urn in endpoint_link.dependencies


@pytest.mark.parametrize(("private", "workspace_location"), [(True, "westeurope"), (True, None), (False, "northeurope")])
def test_no_second_endpoint_otherwise(private, workspace_location):
    plan = _plan(private, workspace_location, True)
    assert len(plan.all(DCE)) == 1 and len(plan.all(DCRA)) == 1
    assert not needs_private_link_endpoint(private, "westeurope", workspace_location or "westeurope")
