"""The invariants this product depends on, written once as pure functions: the checks (`rules`) and the pack that
names them and reads a plan's findings (`findings`).

The policy pack (``policy/``, `pulumi preview --policy-pack policy`) wraps each check in a ResourceValidationPolicy of
the same name; `python -m components plan --policy` runs the same checks over the offline plan. May import `config` and
`catalog` only: a check reads the inputs as the engine sees them, never a component.
"""

from . import findings, rules
from .autoscaling import check_autoscaler_gpu_label
from .credentials import NO_PLAIN_CREDENTIALS, NO_PLAIN_CREDENTIALS_DESCRIPTION, check_plain_credentials
from .findings import *  # noqa: F403 (the pack: every name in findings.__all__)
from .observability import check_gpu_metrics_in_prod, check_managed_gpu_profile
from .rules import *  # noqa: F403 (the checks: every name in rules.__all__)

__all__ = [
    *findings.__all__,
    *rules.__all__,
    "NO_PLAIN_CREDENTIALS",
    "NO_PLAIN_CREDENTIALS_DESCRIPTION",
    "check_autoscaler_gpu_label",
    "check_plain_credentials",
    "check_gpu_metrics_in_prod",
    "check_managed_gpu_profile",
]
