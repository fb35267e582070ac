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
    POLICIES,
    UNIQUE_DEVICE_CLASS,
    UNIQUE_DEVICE_CLASS_DESCRIPTION,
    PolicyCheck,
    check_unique_device_classes,
)

PACK_NAME = "aks-dra-vgpu"


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


def stack_policies() -> list[StackValidationPolicy]:
    """The invariants that span resources: one mandatory StackValidationPolicy each."""
    return [
        StackValidationPolicy(
            name=UNIQUE_DEVICE_CLASS,
            description=UNIQUE_DEVICE_CLASS_DESCRIPTION,
            validate=_unique_device_classes,
            enforcement_level=EnforcementLevel.MANDATORY,
        )
    ]


if __name__ == "__main__":
    # Starts the analyzer's gRPC server and serves the engine until it stops us (it never returns).
    PolicyPack(
        name=PACK_NAME, policies=[*resource_policies(), *stack_policies()], enforcement_level=EnforcementLevel.MANDATORY
    )
