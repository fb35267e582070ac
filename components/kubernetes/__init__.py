"""Kubernetes objects through an explicit provider: `NvidiaDraDriver` (the Helm release and its values),
`DraSamples` and `DraClaimTemplates` (resource.k8s.io/v1 objects; `claim_specs` and `mig_claims` decide what claims ask
for), the size-class selectors, the one answer to "which slice is this?" for both families (`slice_kinds`: an A10 size
class or a MIG profile on a GPU architecture), the one tolerations function, the driver chart's upgrade rules and the
explicit-provider check.

May import `config` and `catalog` and the Pulumi SDKs; never `azure`, `offline`, `host` or the CLI.
"""
