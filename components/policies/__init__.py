"""The invariants this product depends on, written once as pure functions: the checks (`rules`) and the pack that
names them and reads a plan's findings (`findings`).

The policy pack (``policy/``, `pulumi preview --policy-pack policy`) wraps each check in a ResourceValidationPolicy of
the same name; `python -m components plan --policy` runs the same checks over the offline plan. May import `config` and
`catalog` only: a check reads the inputs as the engine sees them, never a component.
"""

from .findings import (
    POLICIES,
    UNIQUE_DEVICE_CLASS,
    UNIQUE_DEVICE_CLASS_DESCRIPTION,
    PolicyCheck,
    Violation,
    check_plan,
    check_resource,
    format_violations,
    plan_findings,
)
from .rules import (
    SCALE_FROM_ZERO_WHY,
    check_device_class_name,
    check_dra_driver_release,
    check_gpu_pool,
    check_kubernetes_version,
    check_scale_from_zero,
    check_unique_device_classes,
)

__all__ = [
    "POLICIES",
    "SCALE_FROM_ZERO_WHY",
    "UNIQUE_DEVICE_CLASS",
    "UNIQUE_DEVICE_CLASS_DESCRIPTION",
    "PolicyCheck",
    "Violation",
    "check_device_class_name",
    "check_dra_driver_release",
    "check_gpu_pool",
    "check_kubernetes_version",
    "check_plan",
    "check_resource",
    "check_scale_from_zero",
    "check_unique_device_classes",
    "format_violations",
    "plan_findings",
]
