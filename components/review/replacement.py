"""How a replacement is executed, decided once per resource: delete first or create first, why, and the source.

Every line the diff writes about a replacement comes from this one decision: the header (``REPLACE (delete first)``),
the line under it that says why, what the replacement costs (``rules.impacts``: one text per order) and the advice. The
engine's rule (pulumi/pulumi ``pkg/resource/deploy/step_generator.go``, continueStepsFromDiff): the provider's Diff
answers ``DeleteBeforeReplace``, and the resource's own ``deleteBeforeReplace`` option overrides it; a dependent of a
resource replaced delete-first is deleted before it (calculateDependentReplacements).

The plan document records the option as a boolean, so an explicit ``deleteBeforeReplace: false`` (which would force
create-first against the provider) reads as unset here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .equal import same
from .rules.model import RELEASE, Rule

_STEP_GENERATOR = "https://github.com/pulumi/pulumi/blob/master/pkg/resource/deploy/step_generator.go"
_AZURE_DIFF = "https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/provider/provider.go"
_K8S_DIFF = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go"
_HELM_DIFF = "https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/helm_release.go"


@dataclass(frozen=True)
class Replacement:
    """How one resource is replaced: delete first (the old one goes before the new one exists) or create first."""

    delete_first: bool
    why: str
    source: str

    @property
    def order(self) -> str:
        """``delete first`` or ``create first``: the words every line about this replacement uses."""
        return "delete first" if self.delete_first else "create first"

    def header(self) -> str:
        """The operation as the diff's resource line shows it."""
        return f"REPLACE ({self.order})"

    def line(self) -> str:
        """Why this order, with its source (the line under the header)."""
        return f"{self.order}: {self.why}; {self.source}"

    def to_dict(self) -> dict[str, Any]:
        """JSON shape (beside the document's ``deleteBeforeReplace``)."""
        return {"order": self.order, "deleteFirst": self.delete_first, "why": self.why, "source": self.source}


OPTION = Replacement(True, "the resource's deleteBeforeReplace option (it overrides the provider's choice)", _STEP_GENERATOR)
AZURE = Replacement(
    True, "pulumi-azure-native replaces delete-first whenever its Diff asks for a replacement: the new resource has the "
    "same name, so the same ARM id, and cannot exist beside the old one (Diff: deleteBeforeReplace = len(replaces) > 0)",
    _AZURE_DIFF,
)
K8S_SAME_NAME = Replacement(
    True, "pulumi-kubernetes deletes first when the new object keeps the old one's name and namespace (Diff)", _K8S_DIFF
)
K8S_NEW_NAME = Replacement(
    False, "pulumi-kubernetes creates first when the new object has another name or namespace, so both can exist (Diff)",
    _K8S_DIFF,
)
HELM = Replacement(False, "pulumi-kubernetes replaces a Helm release create-first (its Diff never asks for delete-first)",
                   _HELM_DIFF)
PROVIDER = Replacement(
    False, "a provider is replaced create-first: the new one is configured before the resources it manages move to it "
    "(pulumi-kubernetes' DiffConfig asks for no delete-first)", _K8S_DIFF,
)
CASCADE = Replacement(
    True, "a resource it depends on is replaced delete-first, and the engine deletes such a dependent before it "
    "(calculateDependentReplacements)", _STEP_GENERATOR,
)
ENGINE = Replacement(
    False, "the engine replaces it (a new provider or its replaceOnChanges), and the provider's Diff, which saw no "
    "replacing change, does not ask for delete-first: the engine's default is create first", _STEP_GENERATOR,
)


def decide(old: dict[str, Any], new: dict[str, Any], by_provider: bool, reasons: list[Rule]) -> Replacement:
    """How a resource the diff replaces is replaced. `by_provider`: its own inputs match a provider's force-new rule;
    `reasons`: what replaces it beyond its inputs (a cascade names the replaced dependency's type in ``after``)."""
    if (new.get("options") or {}).get("deleteBeforeReplace"):
        return OPTION
    type_ = new.get("type", "")
    if by_provider:
        if type_.startswith("pulumi:providers:"):
            return PROVIDER
        if type_.startswith("azure-native:"):
            return AZURE
        if type_ == RELEASE:
            return HELM
        if type_.startswith("kubernetes:"):
            kept = all(same(_metadata(old).get(k), _metadata(new).get(k)) for k in ("name", "namespace"))
            return K8S_SAME_NAME if kept else K8S_NEW_NAME
    # The table cascades only from dependencies replaced delete-first (path parameters of Azure resources); a
    # replaced provider is a provider change for its resources, which the engine replaces create-first.
    if any(r.after is not None and not r.after.startswith("pulumi:providers:") for r in reasons):
        return CASCADE
    return ENGINE


def _metadata(res: dict[str, Any]) -> dict[str, Any]:
    """A Kubernetes object's metadata, or nothing when a hand-made plan holds something else there."""
    metadata = (res.get("inputs") or {}).get("metadata")
    return metadata if isinstance(metadata, dict) else {}
