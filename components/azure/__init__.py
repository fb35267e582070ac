"""Azure resources: `AksCluster` (resource group, ManagedCluster with its one inline system pool, kubeconfig and the
Kubernetes provider built from it) and `GpuNodePool` (an NVadsA10_v5 AgentPool).

May import `config` and `catalog`, the Pulumi SDKs, and `kubernetes.providers` (the explicit provider); nothing above.
"""
