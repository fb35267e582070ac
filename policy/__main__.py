"""The aks-dra-vgpu policy pack: the product's invariants, mandatory at `pulumi preview --policy-pack policy`.

The invariants are written once, as pure functions in components/policies/ (which `python -m components plan
--policy` runs offline too); this file only wraps each in a ResourceValidationPolicy of the same name (the stack-wide one in a
StackValidationPolicy).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Check the code this pack is versioned with: import components/ from this checkout, whether installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pulumi_policy import (
    EnforcementLevel,
    PolicyPack,
    ReportViolation,
    ResourceValidation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from components.policies import (
    GPU_METRICS_IN_PROD,
    GPU_METRICS_IN_PROD_DESCRIPTION,
    NO_PLAIN_CREDENTIALS,
    NO_PLAIN_CREDENTIALS_DESCRIPTION,
    POLICIES,
    UNIQUE_DEVICE_CLASS,
    UNIQUE_DEVICE_CLASS_DESCRIPTION,
    PolicyCheck,
    check_gpu_metrics_in_prod,
    check_plain_credentials,
    check_unique_device_classes,
)

PACK_NAME = "aks-dra-vgpu"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _validation(check: PolicyCheck) -> ResourceValidation:
    """Adapts a pure check (type token, inputs) -> messages to the policy SDK's callback."""

    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        for message in check.check(args.resource_type, args.props):
            report_violation(message, None)

    return validate


def resource_policies() -> list[ResourceValidationPolicy]:
    """One mandatory ResourceValidationPolicy per invariant in components.policies.POLICIES."""
    return [
        ResourceValidationPolicy(
            name=check.name,
            description=check.description,
            validate=_validation(check),
            enforcement_level=EnforcementLevel.MANDATORY if check.mandatory else EnforcementLevel.ADVISORY,
        )
        for check in POLICIES
    ]


def _unique_device_classes(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = [(r.urn, r.resource_type, r.props) for r in args.resources]
    for urn, message in check_unique_device_classes(resources):
        report_violation(message, urn)


def _gpu_metrics_in_prod(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    # The analyzer may run without the program's stack settings: then the cluster's environment tag decides alone.
    try:
        import pulumi

        stack = pulumi.get_stack()
    except Exception:  # any failure just means "no stack name"
        stack = ""
    resources = [(r.urn, r.resource_type, r.props) for r in args.resources]
    for message in check_gpu_metrics_in_prod(resources, stack):
        report_violation(message, None)


def stack_file_credentials(root: Path, project: str | None, stack: str | None) -> list[str]:
    """The plain credentials of the stack's own file under `root` (the project this pack is versioned with), `secure:`
    values left encrypted; nothing when the engine runs another project, or the file is not there or cannot be read."""
    from components.offline import StackFileError, load_project
    from components.offline.stacks import read_stack_file

    if not project or not stack:
        return []
    try:
        found = load_project(root)
        if found.name != project:
            return []  # the pack run against another project: its stack file is not ours to read
        stack_file = read_stack_file(found, stack)
    except (StackFileError, OSError):
        return []
    return check_plain_credentials(stack_file.config, stack_file.secrets, found.name, stack.split("/")[-1])


def _no_plain_credentials(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    # The engine hands the pack decrypted secrets, so the stack file (where a secure value is still ciphertext) is read
    # instead of the inputs. pulumi_policy sets the project and stack from PULUMI_PROJECT and PULUMI_STACK
    # (_configure_runtime_settings) before it calls a stack policy.
    import pulumi

    for message in stack_file_credentials(PROJECT_ROOT, pulumi.get_project(), pulumi.get_stack()):
        report_violation(message, None)


def stack_policies() -> list[StackValidationPolicy]:
    """The invariants that span resources: one mandatory StackValidationPolicy each."""
    return [
        StackValidationPolicy(
            name=UNIQUE_DEVICE_CLASS,
            description=UNIQUE_DEVICE_CLASS_DESCRIPTION,
            validate=_unique_device_classes,
            enforcement_level=EnforcementLevel.MANDATORY,
        ),
        StackValidationPolicy(
            name=GPU_METRICS_IN_PROD,
            description=GPU_METRICS_IN_PROD_DESCRIPTION,
            validate=_gpu_metrics_in_prod,
            enforcement_level=EnforcementLevel.ADVISORY,
        ),
        StackValidationPolicy(
            name=NO_PLAIN_CREDENTIALS,
            description=NO_PLAIN_CREDENTIALS_DESCRIPTION,
            validate=_no_plain_credentials,
            enforcement_level=EnforcementLevel.MANDATORY,
        ),
    ]


if __name__ == "__main__":
    # Starts the analyzer's gRPC server and serves the engine until it stops us (it never returns).
    PolicyPack(
        name=PACK_NAME, policies=[*resource_policies(), *stack_policies()], enforcement_level=EnforcementLevel.MANDATORY
    )
