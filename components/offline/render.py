"""Render a captured plan as files: one manifest per Kubernetes object, and per Helm release its values and chart.

The manifests are what the Kubernetes provider would send to the API server: the inputs of each `kubernetes:*`
registration, in the API's own shape (apiVersion, kind, metadata, spec …). They can be read, diffed in review,
checked with schema validators or policy tools, and applied by hand in an emergency. Output is deterministic: the same
plan gives byte-identical files.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from .output_dir import OutputError, write_files
from .plan import SECRET, UNKNOWN, Plan, Registration

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
# `kubernetes:<group>/<version>:<Kind>` (core group: `core/v1`); components such as helm.sh/v4:Chart are not objects.
_OBJECT_TYPE = re.compile(r"kubernetes:[A-Za-z0-9.-]+/v[0-9a-z]+:[A-Z][A-Za-z0-9]*", re.ASCII)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]", re.ASCII)
MAX_STEM = 200  # file names stay well below the 255 bytes file systems allow
SECRET_VALUES = (
    "# The release's values hold a secret config value, so they are not written here (the plan shows [secret]).\n"
)
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
    return r.custom and r.type != HELM_RELEASE and bool(_OBJECT_TYPE.fullmatch(r.type))


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
    metadata = dict(body["metadata"]) if isinstance(body.get("metadata"), dict) else {}
    if body.get("kind") not in CLUSTER_SCOPED_KINDS and "namespace" not in metadata:
        metadata["namespace"] = DEFAULT_NAMESPACE
    body["metadata"] = _ordered(metadata)
    head = {k: body[k] for k in _HEAD if k in body}
    return {**head, **{k: v for k, v in body.items() if k not in _HEAD}}


def _known(value: Any) -> str | None:
    return value if isinstance(value, str) and value and value != UNKNOWN else None


def file_name(text: str) -> str:
    """`text` as one plain file name: letters, digits, '.', '_', '-' (others become '_'), not starting with '.' or '-'
    (no hidden files, no `..`, no option-like names), at most MAX_STEM characters (longer ones end in a hash)."""
    name = _UNSAFE.sub("_", text)
    if name[:1] in ("", ".", "-"):
        name = "_" + name
    if len(name) > MAX_STEM:
        name = f"{name[: MAX_STEM - 17]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return name


def _file_stem(obj: dict[str, Any], fallback: str, with_namespace: bool) -> str:
    """`<kind>-<name>`, lowercase; with the namespace when two objects of a kind share a name."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = _known(meta.get("name")) or fallback  # an unknown (computed) name: the Pulumi resource name stands in
    parts = [str(obj.get("kind", "object")).lower()]
    if with_namespace and _known(meta.get("namespace")):
        parts.append(meta["namespace"])
    parts.append(name)
    return file_name("-".join(parts))


def kubernetes_manifests(plan: Plan) -> dict[str, dict[str, Any]]:
    """Every Kubernetes object of the plan keyed by its file name (`<kind>-<name>.yaml`), sorted."""
    objects = [(r, manifest(r)) for r in plan.resources if is_kubernetes_object(r)]
    stems = [_file_stem(obj, r.name, with_namespace=False) for r, obj in objects]
    files: dict[str, dict[str, Any]] = {}
    owners: dict[str, tuple[Registration, dict[str, Any]]] = {}
    for (r, obj), stem in zip(objects, stems, strict=True):
        if stems.count(stem) > 1:
            stem = _file_stem(obj, r.name, with_namespace=True)
        file = f"{stem}.yaml"
        if file in files:
            first = owners[file]
            raise OutputError(f"kubernetes/{file}: two Kubernetes objects render to this file, {_shown(*first)} and "
                              f"{_shown(r, obj)}; give one another metadata.name (names that differ only in characters "
                              "a file name cannot hold meet here too)")
        files[file], owners[file] = obj, (r, obj)
    return dict(sorted(files.items()))


def _shown(r: Registration, obj: dict[str, Any]) -> str:
    """An object as a refusal names it: kind, namespace/name, and the Pulumi resource that declares it."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    namespace = _known(meta.get("namespace"))
    name = _known(meta.get("name")) or "(a name not known yet)"
    return f"{obj.get('kind', 'object')} {namespace + '/' if namespace else ''}{name} (resource '{r.name}')"


def helm_releases(plan: Plan) -> dict[str, dict[str, Any]]:
    """Per Helm release, by the folder it renders to: `values` as Helm gets them (the release's values files, then its
    inline values over them), and `release` (name, chart, version, repository, namespace).

    Helm release names are unique per namespace (Helm stores a release as Secrets in its own namespace, helm/helm
    `pkg/storage/driver/secrets.go`), so one name in two namespaces is two releases: their folders then carry the
    namespace (``helm/<namespace>-<name>``), as manifests of one name in two namespaces do. One name twice in one
    namespace is what Helm refuses ("cannot re-use a name that is still in use").
    """
    found: list[tuple[str, str, dict[str, Any]]] = []
    seen: dict[tuple[str, str], str] = {}
    for r in plan.all(HELM_RELEASE):
        inputs = r.inputs
        name = _known(inputs.get("name")) or r.name
        namespace = inputs.get("namespace", DEFAULT_NAMESPACE)
        where = (str(namespace), name)
        if where in seen:
            raise OutputError(f"two Helm releases are named {name} in namespace {namespace} ({seen[where]} and {r.urn}); "
                              "Helm release names are unique per namespace")
        seen[where] = r.urn
        release = {
            "name": name,
            "chart": inputs.get("chart"),
            "version": inputs.get("version"),
            "repository": inputs["repositoryOpts"].get("repo") if isinstance(inputs.get("repositoryOpts"), dict) else None,
            "namespace": namespace,
        }
        values: dict[str, Any] = {}
        for asset in inputs.get("valueYamlFiles") or []:
            text = asset.get("text") if isinstance(asset, dict) else None
            loaded = yaml.safe_load(text) if isinstance(text, str) else None
            values = _merged(values, loaded if isinstance(loaded, dict) else {})
        inline = inputs.get("values")
        values = _merged(values, inline) if isinstance(inline, dict) else (inline if inline is not None else values)
        found.append((name, str(namespace), {"values": _ordered(values), "release": release}))
    names = [name for name, _, _ in found]
    releases: dict[str, dict[str, Any]] = {}
    for name, namespace, parts in found:
        folder = file_name(name if names.count(name) == 1 else f"{namespace}-{name}")
        if folder in releases:
            raise OutputError(f"helm/{folder}: two Helm releases render to this folder, {releases[folder]['release']['name']}"
                              f" in namespace {releases[folder]['release']['namespace']} and {name} in namespace "
                              f"{namespace}; rename one (names that differ only in characters a folder name cannot "
                              "hold meet here)")
        releases[folder] = parts
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


def rendered_files(plan: Plan) -> dict[PurePosixPath, bytes]:
    """What a render writes, by path relative to the output folder: one manifest per object, values and release per
    Helm release (values that contain a secret are not written, only a note saying so)."""
    files: dict[PurePosixPath, bytes] = {}
    try:
        for file, obj in kubernetes_manifests(plan).items():
            files[PurePosixPath("kubernetes", file)] = to_yaml(obj).encode("utf-8")
        for name, parts in helm_releases(plan).items():
            folder = PurePosixPath("helm", name)
            values = parts["values"]
            files[folder / "values.yaml"] = (SECRET_VALUES if values == SECRET else to_yaml(values)).encode("utf-8")
            files[folder / "release.yaml"] = to_yaml(parts["release"]).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OutputError(f"the plan holds text that is not valid Unicode ({exc.reason}); nothing was written") from None
    return files


def render(plan: Plan, out_dir: Path, notes: list[str] | None = None) -> list[Path]:
    """Writes ``kubernetes/<kind>-<name>.yaml`` per object and ``helm/<release>/{values,release}.yaml`` per release
    (``helm/<namespace>-<release>/`` where one release name is used in several namespaces).

    All files are written before any is swapped in; files an earlier render wrote that this plan no longer declares
    are removed (only those: see `output_dir`), so the folder shows exactly this plan beside the user's own files.
    Returns the written paths, sorted; OutputError (one line) when the folder cannot take them.
    """
    out_dir = Path(out_dir)
    files = rendered_files(plan)
    write_files(out_dir, files, notes)
    if notes is not None:
        notes += [f"{out_dir / folder / 'values.yaml'}: {said}" for folder, said in secret_placeholders(plan).items()]
    return sorted(out_dir / rel for rel in files)


def secret_placeholders(plan: Plan) -> dict[PurePosixPath, str]:
    """Per Helm release folder whose values.yaml holds a placeholder for a secret, what to say about it (one line):
    the offline plan never sees a secret's value, so a file handed to helm as it is would install the placeholder."""
    said = {}
    for name, parts in helm_releases(plan).items():
        values = parts["values"]
        if values == SECRET:
            said[PurePosixPath("helm", name)] = ("holds no values, only a note: the release's values hold a secret, "
                                                 "which the offline plan never sees; write them in before using it")
            continue
        at = _secret_paths(values, "")
        if at:
            shown = ", ".join(at[:3]) + (f" and {len(at) - 3} more" if len(at) > 3 else "")
            said[PurePosixPath("helm", name)] = (f"holds the placeholder {SECRET} for a secret at {shown}, which the "
                                                 "offline plan never sees; put the real value in before using it")
    return said


def _secret_paths(value: Any, path: str) -> list[str]:
    """Where the values hold the secret placeholder: ``registry.password``, ``tolerations[0].value``."""
    if value == SECRET:
        return [path or "(the root)"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _secret_paths(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _secret_paths(v, f"{path}[{i}]")]
    return []
