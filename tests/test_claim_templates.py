"""DraClaimTemplates: best-fit claim templates (prioritized list, smallest first) or exact ones, valid for Kubernetes
1.34-1.36, in a namespace the consumer owns and this component never creates."""

from __future__ import annotations

import kubernetes_validate
import pulumi
import pytest

from components import DraClaimTemplates, DraClaimTemplatesArgs
from components.config import ConfigError
from components.config.syntax import DNS_LABEL
from components.kubernetes.claim_templates import (
    ClaimSettings,
    alternatives,
    claim_spec,
    claim_template_name,
    device_request,
    pair_template_name,
    template_specs,
)
from components.kubernetes.selectors import SIZE_CLASSES, size_class_selector
from components.offline import capture

VERSIONS = ("1.34", "1.35", "1.36")
TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
NAMESPACE = "kubernetes:core/v1:Namespace"
FOUR = ClaimSettings(sizes=[24, 4, 12, 8, 8], two_devices=True)


# --- pure functions -------------------------------------------------------------------------------------------------
def test_sizes_are_sorted_once_each_and_must_be_slice_sizes():
    assert FOUR.sizes == [4, 8, 12, 24]
    with pytest.raises(ConfigError, match="16 GiB is not an A10 slice size"):
        ClaimSettings(sizes=[8, 16])
    with pytest.raises(ConfigError, match="created by the NVIDIA chart"):
        ClaimSettings(sizes=[8], device_class_name="gpu.nvidia.com")


@pytest.mark.parametrize(("fit", "size", "expected"), [
    ("bestFit", 4, [4, 8, 12, 24]), ("bestFit", 12, [12, 24]), ("bestFit", 24, [24]),
    ("exact", 4, [4]), ("exact", 24, [24]),
])
def test_alternatives_are_own_size_then_each_larger_size_on_offer(fit, size, expected):
    assert alternatives(FOUR.model_copy(update={"fit": fit}), size) == expected


def test_alternatives_are_only_the_sizes_on_offer():
    assert alternatives(ClaimSettings(sizes=[8, 24]), 8) == [8, 24]


def test_best_fit_request_is_a_prioritized_list_named_gpu():
    request = device_request(FOUR, 8)
    assert set(request) == {"name", "firstAvailable"} and request["name"] == "gpu"
    subs = request["firstAvailable"]
    assert [s["name"] for s in subs] == ["8gib", "12gib", "24gib"]
    assert all(DNS_LABEL.fullmatch(s["name"]) for s in subs) and len(subs) <= 8  # the API's limit
    for sub, size in zip(subs, [8, 12, 24], strict=True):
        assert sub == {"name": f"{size}gib", "deviceClassName": "a10-vgpu", "allocationMode": "ExactCount", "count": 1,
                       "selectors": [{"cel": {"expression": size_class_selector(size, 10)}}]}


def test_a_single_choice_is_an_exactly_request():
    request = device_request(FOUR.model_copy(update={"fit": "exact"}), 8)
    assert set(request) == {"name", "exactly"}  # v1 wraps the details; v1beta1 had them at the top
    assert request["exactly"] == {"deviceClassName": "a10-vgpu", "allocationMode": "ExactCount", "count": 1,
                                  "selectors": [{"cel": {"expression": size_class_selector(8, 10)}}]}
    assert set(device_request(FOUR, 24)) == {"name", "exactly"}  # best fit with nothing larger on offer


def test_template_specs_one_per_size_and_the_two_device_one():
    specs = template_specs(FOUR)
    assert list(specs) == ["4GiB", "8GiB", "12GiB", "24GiB", "2x24GiB"]
    assert specs["8GiB"] == (claim_template_name("a10-vgpu", 8), claim_spec(FOUR, 8))
    name, spec = specs["2x24GiB"]
    assert name == pair_template_name("a10-vgpu") == "a10-vgpu-2x24gib"
    (request,) = spec["devices"]["requests"]
    assert request == {"name": "gpu", "exactly": {**request["exactly"], "count": 2}}
    assert "constraints" not in spec["devices"]  # one node per claim already (see the module's docstring)
    assert "2x24GiB" not in template_specs(ClaimSettings(sizes=[8]))


def _template(name: str, spec: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "team-a"}, "spec": {"spec": spec}}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("fit", ["bestFit", "exact"])
def test_every_template_passes_the_strict_schema(version, fit):
    settings = FOUR.model_copy(update={"fit": fit})
    listed = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplateList", "metadata": {},
              "items": [_template(name, spec) for name, spec in template_specs(settings).values()]}
    kubernetes_validate.validate(listed, version, strict=True)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_schema_check_can_fail(version):
    broken = claim_spec(FOUR, 8)
    broken["devices"]["requests"][0]["firstAvailable"][0]["exactly"] = {}  # not a sub-request field
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(_template("x", broken), version, strict=True)


# --- the component under mocks --------------------------------------------------------------------------------------
def make(preview: bool, args: dict, *, with_provider: bool = True, consumer_namespace: bool = False):
    import pulumi_kubernetes as k8s

    def program():
        opts = None
        if with_provider:
            provider = k8s.Provider("k8s", kubeconfig="offline")
            opts = pulumi.ResourceOptions(providers={"kubernetes": provider})
        namespace = args.get("namespace", "team-a")
        if consumer_namespace:  # the consumer's own namespace, handed over as an Output
            ns = k8s.core.v1.Namespace("mine", metadata={"name": "team-b"}, opts=opts)
            namespace = ns.metadata.name
        claims = DraClaimTemplates("gpus", DraClaimTemplatesArgs.model_validate({**args, "namespace": namespace}), opts)
        pulumi.export("claimTemplateNames", claims.claim_template_names)
        pulumi.export("sharedClaimName", claims.shared_claim_name)
        pulumi.export("deviceClassName", claims.device_class_name)
        pulumi.export("namespace", claims.namespace)

    return capture(program, preview=preview)


def test_templates_go_into_the_consumers_namespace_which_is_never_created(preview):
    plan = make(preview, {"sizes": [4, 8, 24]})
    assert plan.all(NAMESPACE) == [] and plan.all(DEVICE_CLASS) == [] and plan.all(CLAIM) == []
    templates = {t.inputs["metadata"]["name"]: t for t in plan.all(TEMPLATE)}
    assert sorted(templates) == ["a10-vgpu-24gib", "a10-vgpu-4gib", "a10-vgpu-8gib"]
    for t in templates.values():
        assert t.inputs["metadata"]["namespace"] == "team-a"
        assert t.parent == plan.one("aks-dra-vgpu:index:DraClaimTemplates").urn
    assert templates["a10-vgpu-4gib"].inputs["spec"] == {"spec": claim_spec(ClaimSettings(sizes=[4, 8, 24]), 4)}
    assert plan.outputs == {
        "claimTemplateNames": {"4GiB": "a10-vgpu-4gib", "8GiB": "a10-vgpu-8gib", "24GiB": "a10-vgpu-24gib"},
        "deviceClassName": "a10-vgpu",
        "namespace": "team-a",
    }


def test_a_namespace_output_is_waited_for_but_not_owned(preview):
    plan = make(preview, {"sizes": [8]}, consumer_namespace=True)
    (ns,) = plan.all(NAMESPACE)
    assert ns.name == "mine" and ns.parent != plan.one("aks-dra-vgpu:index:DraClaimTemplates").urn
    (template,) = plan.all(TEMPLATE)
    assert template.inputs["metadata"]["namespace"] == "team-b"
    assert ns.urn in template.dependencies


def test_shared_claim_two_devices_and_the_device_class_on_request(preview):
    plan = make(preview, {"sizes": [8, 24], "twoDevices": True, "sharedClaim": True, "deviceClass": True,
                          "deviceClassName": "team-a10", "fit": "exact"})
    (device_class,) = plan.all(DEVICE_CLASS)
    assert device_class.inputs["metadata"] == {"name": "team-a10"}
    names = sorted(t.inputs["metadata"]["name"] for t in plan.all(TEMPLATE))
    assert names == ["team-a10-24gib", "team-a10-2x24gib", "team-a10-8gib"]
    (claim,) = plan.all(CLAIM)
    assert claim.inputs["spec"] == claim_spec(ClaimSettings(sizes=[8, 24], fit="exact", device_class_name="team-a10"), 8)
    for r in [*plan.all(TEMPLATE), claim]:
        assert device_class.urn in r.dependencies  # created first, deleted last
    assert plan.outputs["sharedClaimName"] == "team-a10-shared"


def test_every_object_uses_the_explicit_provider(preview):
    plan = make(preview, {"sizes": list(SIZE_CLASSES), "sharedClaim": True})
    provider = plan.one("pulumi:providers:kubernetes").urn
    objects = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert len(objects) == 5
    for r in objects:
        assert r.provider is not None and r.provider.split("::")[:-1] == provider.split("::"), r.name


def test_without_an_explicit_provider_it_refuses():
    with pytest.raises(pulumi.InputPropertiesError) as err:
        make(False, {"sizes": [8]}, with_provider=False)
    assert "DraClaimTemplates needs an explicit Kubernetes provider" in str(err.value)


def test_bad_namespace_names_are_refused():
    with pytest.raises(ConfigError, match="'Team A' is not a namespace name"):
        DraClaimTemplatesArgs(namespace="Team A", sizes=[8])
