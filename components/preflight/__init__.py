"""Quota and capacity before the first `pulumi up`: what a stack (or a fleet's stacks) can use at most, per region and
quota family, against what the subscription has free there, and whether each VM size is offered to the subscription in
the region and in the pools' zones.

`demand` (pure) reads a validated StackConfig into the nodes each pool can run at most; `facts` holds what ARM answered
(usages and SKUs, as plain values); `compare` (pure) puts the two together into families and SKU findings; `report`
prints them (text, JSON, the request to file); `arm` is the one seam to Azure: azure-mgmt-compute's
`ComputeManagementClient` (`usage.list`, `resource_skus.list`) with the package's one credential, every wait bounded by
the command's deadline. `arm` loads the Azure SDK on first use only; nothing offline imports this subpackage.

May import `config`, `catalog` and `online` (the credential and the mask every online command shares); never `offline`
(the engine), `sizing`, `azure` or the CLI. Stacks are read by the CLI, through the paths `size --stack` and
`plan --fleet` use.
"""
