"""What a component built around one Helm release gives back (the DRA driver, dcgm-exporter), declared once."""

from __future__ import annotations

from typing import Any

import pulumi

from ..outputs import output


class HelmReleaseOutputs:
    """A Helm-release component's outputs, in Python and in every other language."""

    release_name: pulumi.Output[str] = output("The Helm release's name.")
    namespace: pulumi.Output[str] = output("The namespace the release runs in.")
    chart_version: str = output("The pinned chart version.")
    values: dict[str, Any] = output("The exact Helm values passed to the release.")
