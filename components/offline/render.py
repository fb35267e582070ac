"""Render a captured plan as files: one manifest per Kubernetes object, and per Helm release its values and chart.

The manifests are what the Kubernetes provider would send to the API server: the inputs of each `kubernetes:*`
registration, in the API's own shape (apiVersion, kind, metadata, spec …). They can be read, diffed in review,
checked with schema validators or policy tools, and applied by hand in an emergency. Output is deterministic: the same
plan gives byte-identical files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .plan import UNKNOWN, Plan, Registration

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
# `kubernetes:<group>/<version>:<Kind>` (core group: `core/v1`); components such as helm.sh/v4:Chart are not objects.
_OBJECT_TYPE = re.compile(r"^kubernetes:[A-Za-z0-9.-]+/v[0-9a-z]+:[A-Z][A-Za-z0-9]*$")
# The keys every object starts with, in the order people read them.
_HEAD = ("apiVersion", "kind", "metadata")

# Kinds with no namespace. Any other kind without metadata.namespace lands where the provider's kubeconfig context
# points, which for the cluster's generated kubeconfig is `default`: the manifest says so explicitly.
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "APIService",
        "CSIDriver",
        "CSINode",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterTrustBundle",
        "CustomResourceDefinition",
        "DeviceClass",
        "DeviceTaintRule",
        "FlowSchema",
        "IngressClass",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "ResourceSlice",
        "RuntimeClass",
        "StorageClass",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
        "VolumeAttributesClass",
    }
)
DEFAULT_NAMESPACE = "default"


def is_kubernetes_object(r: Registration) -> bool:
    """A custom resource of the Kubernetes provider that stands for one API object (not a Helm release or a component)."""
    return r.custom and r.type != HELM_RELEASE and bool(_OBJECT_TYPE.match(r.type))


def _ordered(value: Any) -> Any:
    """Keys sorted at every level (deterministic), lists kept in order (their order means something)."""
    if isinstance(value, dict):
        return {k: _ordered(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


def _drop_internal(value: Any) -> Any:
    """Without Pulumi's own bookkeeping keys (``__…``), which the provider never sends to the API server."""
    if isinstance(value, dict):
        return {k: _drop_internal(v) for k, v in value.items() if not k.startswith("__")}
    if isinstance(value, list):
        return [_drop_internal(v) for v in value]
    return value


def manifest(r: Registration) -> dict[str, Any]:
    """The Kubernetes object a registration declares, as it would be applied: head keys first, the rest sorted."""
    body = _ordered(_drop_internal(r.inputs))
    metadata = dict(body.get("metadata") or {})
    if body.get("kind") not in CLUSTER_SCOPED_KINDS and "namespace" not in metadata:
        metadata["namespace"] = DEFAULT_NAMESPACE
    body["metadata"] = _ordered(metadata)
    head = {k: body[k] for k in _HEAD if k in body}
    return {**head, **{k: v for k, v in body.items() if k not in _HEAD}}


def _known(value: Any) -> str | None:
    return value if isinstance(value, str) and value and value != UNKNOWN else None


def _file_stem(obj: dict[str, Any], fallback: str, with_namespace: bool) -> str:
    """`<kind>-<name>`, lowercase; with the namespace when two objects of a kind share a name."""
    meta = obj.get("metadata") or {}
    name = _known(meta.get("name")) or fallback  # an unknown (computed) name: the Pulumi resource name stands in
    parts = [str(obj.get("kind", "object")).lower()]
    if with_namespace and _known(meta.get("namespace")):
        parts.append(meta["namespace"])
    parts.append(name)
    return re.sub(r"[^A-Za-z0-9._-]", "_", "-".join(parts))


def kubernetes_manifests(plan: Plan) -> dict[str, dict[str, Any]]:
    """Every Kubernetes object of the plan keyed by its file name (`<kind>-<name>.yaml`), sorted."""
    objects = [(r, manifest(r)) for r in plan.resources if is_kubernetes_object(r)]
    stems = [_file_stem(obj, r.name, with_namespace=False) for r, obj in objects]
    files: dict[str, dict[str, Any]] = {}
    for (r, obj), stem in zip(objects, stems, strict=True):
        if stems.count(stem) > 1:
            stem = _file_stem(obj, r.name, with_namespace=True)
        if f"{stem}.yaml" in files:
            raise ValueError(f"two Kubernetes objects render to {stem}.yaml (the second is {r.urn})")
        files[f"{stem}.yaml"] = obj
    return dict(sorted(files.items()))


def helm_releases(plan: Plan) -> dict[str, dict[str, Any]]:
    """Per Helm release name: `values` as Helm gets them (the release's values files, then its inline values over them),
    and `release` (name, chart, version, repository, namespace)."""
    releases: dict[str, dict[str, Any]] = {}
    for r in plan.all(HELM_RELEASE):
        inputs = r.inputs
        name = _known(inputs.get("name")) or r.name
        if name in releases:
            raise ValueError(f"two Helm releases are named {name} ({r.urn})")
        release = {
            "name": name,
            "chart": inputs.get("chart"),
            "version": inputs.get("version"),
            "repository": (inputs.get("repositoryOpts") or {}).get("repo"),
            "namespace": inputs.get("namespace", DEFAULT_NAMESPACE),
        }
        values: dict[str, Any] = {}
        for asset in inputs.get("valueYamlFiles") or []:
            text = asset.get("text") if isinstance(asset, dict) else None
            loaded = yaml.safe_load(text) if isinstance(text, str) else None
            values = _merged(values, loaded if isinstance(loaded, dict) else {})
        values = _merged(values, inputs.get("values") or {})
        releases[name] = {"values": _ordered(values), "release": release}
    return dict(sorted(releases.items()))


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Helm's merge of two values maps: maps merge key by key, anything else (a null too) replaces."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def to_yaml(doc: Any) -> str:
    """YAML in the order given, block style, long lines (CEL expressions) kept whole."""
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 16)


def render(plan: Plan, out_dir: Path) -> list[Path]:
    """Writes ``kubernetes/<kind>-<name>.yaml`` per object and ``helm/<release>/{values,release}.yaml`` per release.

    Files from an earlier render in those two folders that this plan no longer declares are removed, so the folder
    always shows exactly this plan. Returns the written paths, sorted.
    """
    out_dir = Path(out_dir)
    wanted: dict[Path, str] = {}
    for file, obj in kubernetes_manifests(plan).items():
        wanted[out_dir / "kubernetes" / file] = to_yaml(obj)
    for name, parts in helm_releases(plan).items():
        wanted[out_dir / "helm" / name / "values.yaml"] = to_yaml(parts["values"])
        wanted[out_dir / "helm" / name / "release.yaml"] = to_yaml(parts["release"])

    for stale in _rendered_files(out_dir):
        if stale not in wanted:
            stale.unlink()
            if stale.parent.parent == out_dir / "helm" and not any(stale.parent.iterdir()):
                stale.parent.rmdir()
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(wanted)


def _rendered_files(out_dir: Path) -> list[Path]:
    """Files an earlier render wrote (and only those: other files in the folder are left alone)."""
    found = list((out_dir / "kubernetes").glob("*.yaml"))
    for name in ("values.yaml", "release.yaml"):
        found.extend((out_dir / "helm").glob(f"*/{name}"))
    return sorted(found)
