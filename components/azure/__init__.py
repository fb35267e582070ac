"""Azure resources: `AksCluster` (resource group, ManagedCluster with its one inline system pool, kubeconfig and the
Kubernetes provider built from it), `GpuNodePool` (an NVadsA10_v5 AgentPool), `GpuFleet` (an Azure Kubernetes Fleet
Manager fleet, its update strategy and auto-upgrade profile: ``fleet``) and a platform's FleetMember (``fleet_member``).

May import `config` and `catalog`, the Pulumi SDKs, and `kubernetes.providers` (the explicit provider); nothing above.
"""
