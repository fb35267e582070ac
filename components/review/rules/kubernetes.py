"""What changing a Kubernetes object or the Helm release does (pulumi-kubernetes' force-new lists and the Kubernetes API)."""

from __future__ import annotations

from .model import CLAIM, CLAIM_TEMPLATE, DEVICE_CLASS, JOB, RELEASE, Rule

_K8S_FORCE_NEW = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/diff.go"
_HELM_RELEASE_DIFF = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/helm_release.go"
_K8S_DEVICE_CLASS = "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/device-class-v1/"
_EXTENDED_RESOURCE_CACHE = (
    "https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/dynamic-resource-allocation/deviceclass/"
    "extendedresourcecache/extendedresourcecache.go")
_IMMUTABLE_SPEC = (
    "'s spec is immutable, and pulumi-kubernetes has no force-new rule for resource.k8s.io objects, so it plans an "
    "update the API server refuses (422 field is immutable) already at `pulumi preview`, in server-side apply's dry "
    "run; the package's claim objects carry replaceOnChanges [spec] (with deleteBeforeReplace) so Pulumi replaces them"
)

RULES: tuple[Rule, ...] = (
    Rule("kubernetes:*", "metadata.name", "replace", "provider", "an object's name is its identity", _K8S_FORCE_NEW),
    Rule("kubernetes:*", "metadata.namespace", "replace", "provider", "an object cannot move to another namespace",
         _K8S_FORCE_NEW),
    *(
        Rule(JOB, path, "replace", "provider", "immutable in a Job", _K8S_FORCE_NEW)
        for path in ("spec.template", "spec.completions", "spec.parallelism", "spec.selector")
    ),
    Rule(CLAIM_TEMPLATE, "spec", "refused", "api", "a ResourceClaimTemplate" + _IMMUTABLE_SPEC, _K8S_FORCE_NEW),
    Rule(CLAIM, "spec", "refused", "api", "a ResourceClaim" + _IMMUTABLE_SPEC, _K8S_FORCE_NEW),
    *(
        Rule(DEVICE_CLASS, path, "note", "api",
             "a DeviceClass's spec is mutable and updated in place; claims already allocated keep the devices they got "
             "under the old selectors, only new allocations use the new ones", _K8S_DEVICE_CLASS)
        for path in ("spec.selectors", "spec.config")
    ),
    # The scheduler maps a name to the class that carries it now (extendedresourcecache.go, updateResourceName2class):
    # a pod already bound keeps its claim; a pod not yet scheduled that asks for the old name is served by no class.
    Rule(DEVICE_CLASS, "spec.extendedResourceName", "note", "api",
         "updated in place: the class now serves the new name only; pods already running keep their claims, and a pod "
         "not yet scheduled that asks for the old name stays Pending (no node offers it) until its workload asks for "
         "the new one", _EXTENDED_RESOURCE_CACHE, when="changed"),
    Rule(DEVICE_CLASS, "spec.extendedResourceName", "note", "api",
         "updated in place: the class serves no name any more; pods already running keep their claims, and a pod not "
         "yet scheduled that asks for the name stays Pending (no node offers it)", _EXTENDED_RESOURCE_CACHE,
         when="removed"),
    Rule(DEVICE_CLASS, "spec.extendedResourceName", "note", "api",
         "updated in place: pods not yet scheduled that ask for the name are given a device of this class (where "
         "another class carries the name too, the one created last serves it)", _EXTENDED_RESOURCE_CACHE,
         when="added"),
    Rule(RELEASE, "name", "replace", "provider", "a Helm release's name is its identity", _HELM_RELEASE_DIFF),
    Rule(RELEASE, "namespace", "replace", "provider", "a Helm release cannot move to another namespace",
         _HELM_RELEASE_DIFF),
)
