"""Azure and Kubernetes limits that a stack can pass offline and only meet at `pulumi up`: tags, pools per cluster, and
the length of the object names this package derives from a setting. Each limit is a named constant with its source.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated

from pydantic import AfterValidator

from ..catalog import PAIR_SIZE

# Azure resource tags (learn.microsoft.com/azure/azure-resource-manager/management/tag-resources, "Limitations"): at
# most 50 tag name/value pairs per resource, names up to 512 characters, values up to 256, and names without these
# characters; names are case-insensitive ("Tag names are case-insensitive for operations").
MAX_TAGS = 50
MAX_TAG_NAME = 512
MAX_TAG_VALUE = 256
TAG_NAME_FORBIDDEN = "<>%&\\?/"
# AKS quotas (learn.microsoft.com/azure/aks/quotas-skus-regions, "Service quotas and limits"): "Maximum node pools
# per cluster 100", the system pool included.
MAX_NODE_POOLS = 100
# Kubernetes object names: DeviceClass, ResourceClaimTemplate and ResourceClaim names are DNS subdomains, at most 253
# characters (kubernetes/kubernetes pkg/apis/resource/validation/validation.go: ValidateObjectMeta with
# NameIsDNSSubdomain / ValidateResourceClaimTemplateName; apimachinery validation.IsDNS1123Subdomain).
MAX_SUBDOMAIN = 253
# The names the samples derive from samples.deviceClassName (kubernetes/claim_templates.py): a claim template per
# slice size ("<class>-<GiB>gib"), the two-device template ("<class>-2x<GiB>gib") and the shared claim ("<class>-shared").


def tag_problems(tags: Mapping[str, str]) -> list[str]:
    """What Azure would refuse in one resource's tags (empty when nothing)."""
    problems = []
    if len(tags) > MAX_TAGS:
        problems.append(f"{len(tags)} tags; Azure allows at most {MAX_TAGS} per resource (put several values in one "
                        "tag as JSON text)")
    seen: dict[str, str] = {}
    for name, value in tags.items():
        shown = name if len(name) <= 60 else name[:57] + "..."
        bad = sorted({c for c in name if c in TAG_NAME_FORBIDDEN})
        if bad:
            problems.append(f"tag name '{shown}' contains {' '.join(bad)}; Azure tag names may not contain "
                            f"{' '.join(TAG_NAME_FORBIDDEN)}")
        if not name.strip():
            problems.append("a tag name is empty; name the tag")
        if len(name) > MAX_TAG_NAME:
            problems.append(f"tag name '{shown}' is {len(name)} characters; Azure allows at most {MAX_TAG_NAME}")
        if len(value) > MAX_TAG_VALUE:
            problems.append(f"tag '{shown}' has a value of {len(value)} characters; Azure allows at most {MAX_TAG_VALUE}")
        folded = name.casefold()
        if folded in seen:
            problems.append(f"tags '{seen[folded]}' and '{shown}' are one tag for Azure (tag names are case-insensitive); "
                            "keep one")
        seen.setdefault(folded, shown)
    return problems


def _check_tags(tags: dict[str, str]) -> dict[str, str]:
    problems = tag_problems(tags)
    if problems:
        raise ValueError("; ".join(problems))
    return tags


Tags = Annotated[dict[str, str], AfterValidator(_check_tags)]
"""Azure tags of one resource, within Azure's limits."""


def merged_tag_problems(cluster: Mapping[str, str], pools: Iterable[Mapping[str, str]]) -> list[tuple[str, str]]:
    """(key, problem) for each pool whose tags merged over the cluster's (as the pool is given them) break a limit."""
    found = []
    for index, own in enumerate(pools):
        merged = {k: v for k, v in cluster.items() if k not in own} | dict(own)
        problems = [p for p in tag_problems(merged) if p.startswith(f"{len(merged)} tags") or "one tag for Azure" in p]
        found += [(f"gpuPools[{index}].tags", f"with cluster.tags merged in: {p}") for p in problems]
    return found


def pool_count_problem(gpu_pools: int) -> str | None:
    """Why the GPU pools and the system pool are more than AKS allows in one cluster (None when they fit)."""
    if gpu_pools + 1 > MAX_NODE_POOLS:
        return (f"{gpu_pools} GPU pools and the system pool make {gpu_pools + 1}; AKS allows at most {MAX_NODE_POOLS} "
                f"node pools per cluster, so at most {MAX_NODE_POOLS - 1} GPU pools")
    return None


def derived_names(device_class: str, sizes: Iterable[int], two_devices: bool, shared_claim: bool) -> list[str]:
    """The object names the samples derive from the DeviceClass name (as kubernetes/claim_templates.py names them)."""
    names = [f"{device_class}-{size}gib" for size in sorted(set(sizes))]
    if two_devices:
        names.append(f"{device_class}-2x{PAIR_SIZE}gib")
    if shared_claim:
        names.append(f"{device_class}-shared")
    return names


def derived_name_problem(device_class: str, names: Iterable[str]) -> str | None:
    """Why a derived name is longer than a DNS subdomain may be (None when all fit)."""
    longest = max(names, key=len, default="")
    if len(longest) > MAX_SUBDOMAIN:
        room = MAX_SUBDOMAIN - (len(longest) - len(device_class))
        return (f"{len(device_class)} characters make a {len(longest)}-character object name ('...{longest[-20:]}'); "
                f"Kubernetes names are DNS subdomains of at most {MAX_SUBDOMAIN} characters, so use at most {room}")
    return None
