"""DraClaimTemplates: best-fit ResourceClaimTemplates for A10 vGPU slice sizes (and an optional shared claim), in a
namespace the consumer owns. What the claims ask for is decided in `claim_specs` (pure); this module declares it.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pydantic import Field

from ..config.args import component_args
from ..config.types import NamespaceInput
from ..outputs import output, register_declared
from .claim_specs import PAIR_SIZE as PAIR_SIZE
from .claim_specs import REQUEST_NAME as REQUEST_NAME
from .claim_specs import ClaimSettings as ClaimSettings
from .claim_specs import alternatives as alternatives
from .claim_specs import claim_spec as claim_spec
from .claim_specs import claim_template_name as claim_template_name
from .claim_specs import device_class_spec as device_class_spec
from .claim_specs import device_request as device_request
from .claim_specs import pair_template_name as pair_template_name
from .claim_specs import shared_claim_name as shared_claim_name
from .claim_specs import shared_claim_spec as shared_claim_spec
from .claim_specs import subrequest_name as subrequest_name
from .claim_specs import template_key as template_key
from .claim_specs import template_specs as template_specs
from .providers import require_kubernetes_provider
from .providers import waits_for as waits_on


# --- declaring the objects (shared with DraSamples, which keeps its children's names and URNs) ---------------------------
def declare_device_class(
    name: str, device_class_name: str, opts: pulumi.ResourceOptions, extended_resource_name: str | None = None
) -> Any:
    """The cluster-scoped DeviceClass (one owner per cluster: `plan` refuses two components declaring the same name)."""
    import pulumi_kubernetes as k8s

    return k8s.resource.v1.DeviceClass(
        f"{name}-class", metadata={"name": device_class_name}, spec=device_class_spec(extended_resource_name), opts=opts
    )


def declare_claims(
    name: str, settings: ClaimSettings, namespace: pulumi.Input[str], shared_claim: bool, opts: pulumi.ResourceOptions
) -> tuple[dict[str, Any], Any | None]:
    """The templates (by output key) and the shared claim (or None) in `namespace`, each registered with `opts`.

    A claim's spec is immutable and pulumi-kubernetes has no force-new rule for resource.k8s.io objects
    (provider/pkg/provider/diff.go): without replaceOnChanges a new spec is planned as an update that the API server
    refuses (422). With it Pulumi replaces the object, delete-first: the new one has the same name.
    """
    import pulumi_kubernetes as k8s

    opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(replace_on_changes=["spec"], delete_before_replace=True))

    templates = {
        key: k8s.resource.v1.ResourceClaimTemplate(
            f"{name}-{key.lower()}",
            metadata={"name": template_name, "namespace": namespace},
            spec={"spec": spec},
            opts=opts,
        )
        for key, (template_name, spec) in template_specs(settings).items()
    }
    shared = None
    if shared_claim:
        shared = k8s.resource.v1.ResourceClaim(
            f"{name}-shared",
            metadata={"name": shared_claim_name(settings.device_class_name), "namespace": namespace},
            spec=shared_claim_spec(settings),
            opts=opts,
        )
    return templates, shared


class DraClaimTemplatesArgs(ClaimSettings, defer_build=True):
    """Claim templates (and optionally a shared claim, and the DeviceClass) in a namespace the consumer owns."""

    namespace: NamespaceInput = Field(
        description="The namespace the templates go in (a name, or another resource's output); never created here."
    )
    shared_claim: bool = Field(False, description="Also a ResourceClaim of the smallest size that several pods share.")
    device_class: bool = Field(
        False,
        description="Also create the DeviceClass (cluster-scoped: only one component in a cluster may create it; "
        "leave off when DraSamples or another stack already does).",
    )



class DraClaimTemplatesOutputs:
    """What a DraClaimTemplates gives back, in Python and in every other language."""

    claim_template_names: dict[str, pulumi.Output[str]] = output(
        "ResourceClaimTemplate per slice size, keyed like '8GiB' (and '2x24GiB' for two devices on one node, 'mem5GiB' for "
        "5 GiB of a slice shared by memory)."
    )
    shared_claim_name: pulumi.Output[str] | None = output("The ResourceClaim several pods can share, when asked for.")
    device_class_name: pulumi.Output[str] = output("The DeviceClass the requests name (created here only with deviceClass).")
    namespace: pulumi.Output[str] = output("The namespace the templates are in.")


class DraClaimTemplates(DraClaimTemplatesOutputs, pulumi.ComponentResource):
    """Best-fit claim templates for A10 vGPU slice sizes in a namespace the consumer owns (it never creates or owns it).

    Needs an explicit Kubernetes provider. What the component is told to wait for (`depends_on`), its objects wait for.
    """
    templates: dict[str, Any]
    """The ResourceClaimTemplate resources, by the same keys (for `depends_on`)."""

    def __init__(self, name: str, args: DraClaimTemplatesArgs, opts: pulumi.ResourceOptions | None = None):
        require_kubernetes_provider("DraClaimTemplates", opts)
        args = component_args(DraClaimTemplatesArgs, args)
        args = component_args(DraClaimTemplatesArgs, args)
        super().__init__("aks-dra-vgpu:index:DraClaimTemplates", name, None, opts)
        waits_for = waits_on(opts)
        device_class_name: pulumi.Input[str] = args.device_class_name
        if args.device_class:
            device_class = declare_device_class(
                name, args.device_class_name, pulumi.ResourceOptions(parent=self, depends_on=waits_for or None)
            )
            device_class_name = device_class.metadata.name
            # Requests name the class as text (the API does not check it): create it first, delete it last.
            waits_for = [*waits_for, device_class]
        self.templates, shared = declare_claims(
            name, args, args.namespace, args.shared_claim, pulumi.ResourceOptions(parent=self, depends_on=waits_for or None)
        )
        self.claim_template_names = {key: t.metadata.name for key, t in self.templates.items()}
        self.shared_claim_name = shared.metadata.name if shared is not None else None
        self.device_class_name = pulumi.Output.from_input(device_class_name)
        self.namespace = pulumi.Output.from_input(args.namespace)
        register_declared(self)
