"""Kubernetes objects through an explicit provider: `NvidiaDraDriver` (the Helm release and its values),
`DraSamples` and `DraClaimTemplates` (resource.k8s.io/v1 objects), the size-class selectors, the one tolerations
function, the driver chart's upgrade rules and the explicit-provider check.

May import `config` and `catalog` and the Pulumi SDKs; never `azure`, `offline`, `host` or the CLI.
"""
