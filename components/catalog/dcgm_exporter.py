"""NVIDIA's dcgm-exporter: the charts this package has checked, the image each publishes, and what an image tag tells.

A tag is ``<DCGM version>-<exporter version>[-<flavour>]`` (``4.6.0-4.8.3-distroless``); the exporter version decides
two things the package depends on, each read in NVIDIA/dcgm-exporter's source at the tags named:

- **Which ResourceSlice API it reads** (DRA attribution, ``KUBERNETES_ENABLE_DRA``). From 4.3.1-4.4.0 (#535, the
  first tagged release with ``internal/pkg/transformation/dra.go``, added by #501; "4.2.3-4.3.0", #527, was only ever a
  branch, never a tag) to 4.5.3-4.8.2, ``NewDRAResourceSliceManager`` builds a
  ``resource.k8s.io/v1beta1`` ResourceSlice informer and waits for its cache with ``cache.WaitForCacheSync(ctx.Done(),
  ...)`` on a context nothing cancels; it runs inside ``NewMetricsServer`` (``server.go`` -> ``GetTransformations`` ->
  ``NewPodMapper``, ``kubernetes.go``), before ``pkg/cmd/app.go`` starts the HTTP server. Where v1beta1 is not served
  the list never succeeds, so the server never listens, ``/health`` fails and the kubelet restarts the pod for ever.
  4.6.0-4.8.3 (PR #654, release PR #711; chart 4.8.3) discovers ``resource.k8s.io/v1`` first, falls back to v1beta1,
  and gives the cache 30 s (``resourceSliceCacheSyncTimeout``); on failure it logs and runs without DRA labels.
- **The node label's name.** ``Hostname`` up to 4.5.3-4.8.2 (``internal/pkg/rendermetrics/render_metrics.go``);
  ``hostname`` from 4.6.0-4.8.3 (PR #655, "Rename Hostname label to hostname").

The images the package knows by release (``CHECKED_IMAGES``): 4.6.0-4.8.3 (#711) and 4.6.1-4.8.4 (#745, 2026-09-18: DCGM
4.6.1; opt-in fields and exporter metrics, scrape limits, field batching; nothing about ResourceSlices or the node
label, so it reads v1 and says ``hostname`` as 4.8.3 does). A newer exporter is accepted on that reading too, and
``unchecked_image`` says it is unchecked. Chart 4.8.4 is not among the charts a stack may pick: no copy of it is in
reach here to render, so its values, templates and RBAC are unchecked; its image is used with chart 4.8.3 through
``gpuMetrics.imageTag``.

Kubernetes never serves ``resource.k8s.io/v1beta1`` unless the API server is started with ``--runtime-config`` for it:
beta APIs are off by default since 1.24 (KEP-3136; kubernetes/kubernetes ``pkg/controlplane/instance.go``
``DefaultAPIResourceConfigSource``, checked by ``TestNoBetaVersionsEnabledByDefault``), v1beta1 of resource.k8s.io came
in 1.32, and the API server warns it is deprecated in 1.35+ and unavailable in 1.38+ (quoted in
NVIDIA/k8s-test-infra#600, where a vanilla 1.36 serves only v1). This package needs 1.34 or newer
(resource.k8s.io/v1), so it refuses every exporter that hangs there rather than warning.
"""

from __future__ import annotations

import re

# Chart version -> the image tag its values.yaml pins (deployment/Chart.yaml and values.yaml `image.tag` at the tags
# 4.5.3-4.8.2 and 4.6.0-4.8.3).
DCGM_EXPORTER_CHARTS = {"4.8.2": "4.5.3-4.8.2-distroless", "4.8.3": "4.6.0-4.8.3-distroless"}
DEFAULT_DCGM_EXPORTER_CHART = "4.8.3"
# Exporter releases whose behaviour here (ResourceSlice API, node label) the package has checked, with the release PR.
CHECKED_IMAGES = {(4, 8, 3): "4.6.0-4.8.3-distroless (NVIDIA/dcgm-exporter #711)",
                  (4, 8, 4): "4.6.1-4.8.4-distroless (NVIDIA/dcgm-exporter #745)"}

_TAG = re.compile(r"(?P<dcgm>\d+\.\d+\.\d+)-(?P<exporter>\d+\.\d+\.\d+)(?:-(?P<flavour>[A-Za-z0-9][A-Za-z0-9._-]*))?",
                  re.ASCII)
FIRST_DRA = (4, 4, 0)  # 4.3.1-4.4.0 (#535): the first tag with dra.go, KUBERNETES_ENABLE_DRA
FIRST_RESOURCE_V1 = (4, 8, 3)  # 4.6.0-4.8.3: v1 discovery, 30 s cache timeout (#654)
FIRST_LOWERCASE_HOSTNAME = (4, 8, 3)  # 4.6.0-4.8.3: Hostname -> hostname (#655)
TAG_FORM = "<DCGM version>-<exporter version>[-flavour], e.g. 4.6.0-4.8.3-distroless"


def exporter_version(tag: str) -> tuple[int, int, int] | None:
    """The exporter version in a release tag (4.6.0-4.8.3-distroless -> (4, 8, 3)), or None for another form."""
    match = _TAG.fullmatch(tag)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match["exporter"].split("."))
    return major, minor, patch


def node_label(tag: str) -> str:
    """The label naming the node on the exporter's GPU metrics, for this image tag: `Hostname` up to exporter 4.8.2,
    `hostname` from 4.8.3 (NVIDIA/dcgm-exporter#655). A ValueError for a tag that is not a release tag."""
    version = exporter_version(tag)
    if version is None:
        raise ValueError(f"'{tag}' is not a dcgm-exporter release tag ({TAG_FORM})")
    return "hostname" if version >= FIRST_LOWERCASE_HOSTNAME else "Hostname"


def dra_refusal(tag: str) -> str | None:
    """Why an exporter with this image tag cannot attribute metrics to DRA claims on Kubernetes 1.34+, or None."""
    version = exporter_version(tag)
    if version is None:
        return (f"'{tag}' is not a dcgm-exporter release tag ({TAG_FORM}); the package reads the exporter version from "
                "it to know the API it uses and its node label")
    if version < FIRST_DRA:
        return (f"'{tag}' predates DRA attribution (first released in exporter 4.4.0, tag 4.3.1-4.4.0, "
                "NVIDIA/dcgm-exporter #535): no claim labels")
    if version < FIRST_RESOURCE_V1:
        return (f"'{tag}' reads ResourceSlices only through resource.k8s.io/v1beta1 and waits for that cache with no "
                "timeout before its HTTP server starts (NVIDIA/dcgm-exporter internal/pkg/transformation/dra.go); "
                "Kubernetes serves v1beta1 only when its API server is told to (off by default, gone in 1.38), so the "
                "exporter never answers /health and restarts for ever")
    return None


def allowed_tags() -> str:
    """The tags this package accepts, in words, for error messages."""
    return f"{' or '.join(tag.split(' ')[0] for tag in CHECKED_IMAGES.values())}, or another release tag of exporter " \
        "4.8.3 or newer"


def unchecked_image(tag: str) -> str | None:
    """What to say of an accepted tag whose exporter is newer than any the package has checked, or None."""
    version = exporter_version(tag)
    newest = max(CHECKED_IMAGES)
    if version is None or version <= newest:
        return None
    return (f"imageTag '{tag}' is exporter {'.'.join(map(str, version))}, newer than any this package has checked "
            f"({CHECKED_IMAGES[newest]}): it is taken to read resource.k8s.io/v1 and label nodes `hostname` as that one "
            "does; check its release notes")
