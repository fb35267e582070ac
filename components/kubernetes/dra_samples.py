"""DraSamples: resource.k8s.io/v1 objects that select A10 vGPU slices by size, and a sample Job that uses one.

Pure functions decide (the claim settings, the Job's spec; selectors and claims come from `selectors` and
`claim_templates`); the component only registers what they return.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field, model_validator

from ..config import GpuPoolConfig, KeyedProblemsError, SamplesConfig
from ..config.args import component_args
from ..config.pools import GpuPools, a10_pools
from ..config.samples import extended_resource_problem
from ..outputs import output, register_declared
from .claim_templates import (
    PAIR_SIZE,
    REQUEST_NAME,
    ClaimSettings,
    claim_template_name,
    declare_claims,
    declare_device_class,
    template_key,
)
from .memory_claims import memory_problem
from .mig_claims import MigSliceRef
from .providers import require_kubernetes_provider
from .tolerations import tolerations_for_size

JOB_NAME = "nvidia-smi"
# `nvidia-smi -L` lists the GPUs the container sees, one line with name and UUID each: proof that the claim reached the
# container, and the vGPU profile (e.g. "NVIDIA A10-8Q") shows which slice size the scheduler picked. The AKS team's
# walkthrough runs it in a Pod that then sleeps (`bash -c "nvidia-smi -L; … sleep 9999"` in ubuntu:22.04); a Job that
# runs only `nvidia-smi -L` finishes, releases the vGPU at once, keeps its log, and needs no shell.
JOB_COMMAND = ["nvidia-smi", "-L"]


class DraSamplesArgs(SamplesConfig):
    """The samples' settings plus the GPU pools they target (their slice sizes and taints).

    `enabled` is GpuPlatform's switch; a DraSamples that is built always creates its objects.
    """

    pools: GpuPools = Field(
        description="The GPU pools the claims and the Job may land on (GpuNodePool components or their settings)."
    )
    kubernetes_version: str | None = Field(
        None, description="The cluster's Kubernetes version (major.minor); needed only with extendedResourceName."
    )

    @model_validator(mode="after")
    def _workload_fits(self) -> DraSamplesArgs:
        problems = []
        wanted, sizes = self.workload_memory_gib, sizes_in_use(self.pools)
        if self.workload and self.pools and not sizes:
            problems.append(("workload", "the sample Job asks for an A10 vGPU slice and every pool here is a MIG pool "
                             "(the claim templates and shared claim are made for its MIG slices); set workload: false"))
        elif wanted is not None and sizes and wanted > sizes[-1]:
            offered = ", ".join(map(str, sizes))
            problems.append(("workloadMemoryGiB", f"{wanted} GiB is more than any pool's slice offers ({offered} GiB)"))
        if self.extended_resource_name is not None:
            problem = extended_resource_problem(self.kubernetes_version, "kubernetesVersion")
            if problem:
                problems.append(("extendedResourceName", problem))
        if problems:
            raise KeyedProblemsError(*problems)
        return self


def sizes_in_use(pools: list[GpuPoolConfig]) -> list[int]:
    """The distinct per-device GPU memory sizes (GiB) the A10 pools offer, smallest first (MIG pools have claims of
    their own: their slices are `type: mig` devices, which these templates never select)."""
    return sorted({p.size.gpu_memory_gib for p in a10_pools(pools)})


# The memory templates the samples make where pools share slices by memory (DraClaimTemplates makes any other amount):
# a small inference pod's 1-4 GiB, and the 8 GiB of a larger one, each where some shared slice holds it.
SAMPLE_MEMORY_REQUESTS_GIB = (1, 2, 4, 8)


def memory_requests(config: SamplesConfig, pools: list[GpuPoolConfig]) -> tuple[list[int], list[int]]:
    """(memory amounts in GiB, shared slice sizes) for the samples' memory templates: none without a shared pool."""
    shared = sorted({p.size.gpu_memory_gib for p in a10_pools(pools) if p.sharing == "memory"})
    if not shared:
        return [], []
    wanted = set(SAMPLE_MEMORY_REQUESTS_GIB)
    if config.workload_memory_gib:
        wanted.add(config.workload_memory_gib)
    fitting = [m for m in sorted(wanted) if memory_problem(m, shared, config.memory_margin_percent) is None]
    return fitting, shared


def claim_settings(config: SamplesConfig, pools: list[GpuPoolConfig]) -> ClaimSettings:
    """The claim templates the samples make: one per size the pools offer, two devices where a pool's nodes have two,
    memory templates for the slices shared by memory, and one per MIG slice the MIG pools lay out."""
    amounts, shared = memory_requests(config, pools)
    return ClaimSettings(
        memory_requests_gib=amounts,
        shared_sizes=shared,
        sizes=sizes_in_use(pools),
        two_devices=any(p.size.devices_per_node >= 2 and p.size.gpu_memory_gib == PAIR_SIZE for p in a10_pools(pools)),
        # One template per MIG slice the MIG pools lay out (through the chart's mig.nvidia.com class, never this one).
        mig_slices=[MigSliceRef(vm_size=p.vm_size, profile=p.mig_profile) for p in pools if p.is_mig and p.mig_profile],
        device_class_name=config.device_class_name,
        memory_margin_percent=config.memory_margin_percent,
        fit=config.fit,
    )


# --- the sample Job ---------------------------------------------------------------------------------------------------
def workload_memory(config: SamplesConfig, pools: list[GpuPoolConfig]) -> int:
    """The size class the sample Job asks for: the configured memory rounded up to a size in use, or the smallest."""
    wanted = config.workload_memory_gib or 0
    for size in sizes_in_use(pools):
        if size >= wanted:
            return size
    raise ValueError(f"workloadMemoryGiB: {wanted} GiB is more than any pool's slice offers")


def job_spec(config: SamplesConfig, pools: list[GpuPoolConfig]) -> dict[str, Any]:
    """The sample Job: `nvidia-smi -L` on one claimed vGPU of the size `workload_memory` picks (see `pod_spec`)."""
    size = workload_memory(config, pools)
    # Only the taints of its own size class: the Job never goes onto a tainted pool of bigger slices. Spot pools only
    # when the class has no other pool (as the sizing planner places a workload that opts in).
    only_spot = all(p.spot is not None for p in a10_pools(pools) if p.size.gpu_memory_gib == size)
    spec = pod_spec(config, claim_template_name(config.device_class_name, size),
                    tolerations_for_size(pools, size, spot=only_spot))
    return {
        "backoffLimit": 2,
        # Gives up (and frees the claim) if no GPU node turns up within an hour, e.g. a pool at zero that never scales.
        "activeDeadlineSeconds": 3600,
        # No ttlSecondsAfterFinished: Kubernetes would delete the finished Job and `pulumi up --refresh` recreate it.
        "template": {"metadata": {"labels": {"app.kubernetes.io/name": JOB_NAME}}, "spec": spec},
    }


def pod_spec(config: SamplesConfig, template_name: str, tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    """The sample pod: `nvidia-smi -L` on the device a claim from `template_name` gets, as locked down as a GPU pod can
    be, with `tolerations` (none: no key).

    The image is a plain glibc base image, not a CUDA image: the driver's kubelet plugin hands the container a CDI
    device whose edits mount the host driver's user-space libraries and binaries, `nvidia-smi` among them (NVIDIA
    k8s-dra-driver-gpu `cmd/gpu-kubelet-plugin/cdi.go` via nvidia-container-toolkit `pkg/nvcdi`). nvidia-smi is
    dynamically linked against glibc, so musl or static images (alpine, busybox, distroless/static) cannot run it.
    """
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {
            # nobody:nogroup. NVIDIA device nodes are mode 0666 by default (NVreg_DeviceFileMode): no root needed.
            "runAsNonRoot": True,
            "runAsUser": 65534,
            "runAsGroup": 65534,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "resourceClaims": [
            {"name": REQUEST_NAME, "resourceClaimTemplateName": template_name}
        ],
        "containers": [
            {
                "name": JOB_NAME,
                "image": config.image,
                "imagePullPolicy": "Always",
                "command": list(JOB_COMMAND),
                "resources": {
                    "claims": [{"name": REQUEST_NAME}],
                    "requests": {"cpu": "100m", "memory": "128Mi"},
                    "limits": {"cpu": "500m", "memory": "256Mi"},
                },
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    # runc runs the CDI createContainer hooks (ld cache, .so symlinks) before it remounts the root
                    # read-only, so injection still works; a runtime that mounts the root read-only earlier makes the hook
                    # fail ("error running createContainer hook": kserve/kserve#5711 dropped this setting for that).
                    "readOnlyRootFilesystem": True,
                    "privileged": False,
                    "capabilities": {"drop": ["ALL"]},
                },
            }
        ],
    }
    if tolerations:
        spec["tolerations"] = tolerations
    return spec


def scanner_skips(image: str) -> dict[str, str]:
    """checkov's skip annotations for the checks the sample Job knowingly leaves to the stack's owner, each with why.

    Everything else checkov asks of a pod the Job meets (see `job_spec`); a digest-pinned image needs no skip.
    """
    reasons = []
    if "@sha256:" not in image:
        reasons.append("CKV_K8S_43=the image is the samples.image setting; pin it by digest (name@sha256:...) there")
    return {f"checkov.io/skip{i}": reason for i, reason in enumerate(reasons, 1)}


def deny_all_network_policy() -> dict[str, Any]:
    """A NetworkPolicy spec that selects every pod of the namespace and allows no traffic either way.

    `nvidia-smi -L` neither listens nor connects (the kubelet pulls the image, not the pod); the cluster's network
    policy engine (Cilium) enforces it.
    """
    return {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


def job_metadata(namespace: pulumi.Input[str], image: str = "") -> dict[str, Any]:
    """The Job's metadata: GPU nodes may not exist yet (pools scale from zero), so `pulumi up` must not wait for it."""
    annotations = {"pulumi.com/skipAwait": "true", **scanner_skips(image)}
    return {"name": JOB_NAME, "namespace": namespace, "annotations": annotations}


class DraSamplesOutputs:
    """What a DraSamples gives back, in Python and in every other language."""

    device_class_name: pulumi.Output[str] = output("The DeviceClass that selects A10 vGPU devices.")
    claim_template_names: dict[str, pulumi.Output[str]] = output(
        "ResourceClaimTemplate per slice size, keyed like '8GiB' (and '2x24GiB' where nodes have two devices)."
    )
    shared_claim_name: pulumi.Output[str] | None = output("The ResourceClaim several pods can share, when enabled.")
    job_name: pulumi.Output[str] | None = output("The sample Job, when enabled.")
    namespace: pulumi.Output[str] = output("The namespace of the claims and the Job.")


class DraSamples(DraSamplesOutputs, pulumi.ComponentResource):
    """A DeviceClass for A10 vGPUs, a claim template per slice size in use, a shared claim, and an optional sample Job.

    Needs an explicit Kubernetes provider. Nothing here waits for the driver's Helm release or the GPU pools: the API
    server accepts DeviceClasses and claims before any device exists, and the Job is created without waiting.
    """

    def __init__(self, name: str, args: DraSamplesArgs, opts: pulumi.ResourceOptions | None = None):
        require_kubernetes_provider("DraSamples", opts)
        args = component_args(DraSamplesArgs, args)
        super().__init__("aks-dra-vgpu:index:DraSamples", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        ns = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": args.namespace, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}},
            opts=child,
        )
        # Namespaced objects take the namespace's output name: they wait for the namespace, and nothing else does.
        self.namespace = ns.metadata.name
        device_class = declare_device_class(name, args.device_class_name, child, args.extended_resource_name)
        self.device_class_name = device_class.metadata.name

        # The same objects DraClaimTemplates declares, registered here under the samples (their names and URNs as
        # before DraClaimTemplates existed). Requests name the class as plain text (the API does not check it exists);
        # depends_on keeps create and delete in order so a claim never sits pointing at a missing class.
        templates, shared = declare_claims(
            name, claim_settings(args, args.pools), self.namespace, args.shared_claim,
            pulumi.ResourceOptions(parent=self, depends_on=[device_class]),
        )
        self.claim_template_names = {key: t.metadata.name for key, t in templates.items()}
        self.shared_claim_name = shared.metadata.name if shared is not None else None

        self.job_name = None
        if args.workload:
            deny_all = k8s.networking.v1.NetworkPolicy(
                f"{name}-deny-all",
                metadata={"name": "deny-all", "namespace": self.namespace},
                spec=deny_all_network_policy(),
                opts=child,
            )
            job = k8s.batch.v1.Job(
                f"{name}-{JOB_NAME}",
                metadata=job_metadata(self.namespace, args.image),
                spec=job_spec(args, args.pools),
                # The pod names its claim template as text: create the template first, delete it last. The pod
                # starts with the deny-all policy already in place.
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[templates[template_key(workload_memory(args, args.pools))], deny_all]
                ),
            )
            self.job_name = job.metadata.name
        register_declared(self)
