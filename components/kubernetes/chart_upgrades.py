"""What moving the driver's Helm release from one chart version to another does: in place, or refused, and why.

A pure decision on catalog data, for the offline `diff` (and anyone reviewing a chartVersion change). Three facts decide:
- the Release itself is updated in place for any chart, repository or version change: pulumi-kubernetes replaces a
  `helm.v3.Release` only when its name or namespace changes (provider/pkg/provider/helm_release.go, Diff:
  forceNewFields `.name`, `.namespace`), and Helm upgrades a release to a chart of another name;
- the objects in it stay the same objects when their names do: 0.4.x renamed the chart, and the package sets
  `nameOverride: nvidia-dra-driver-gpu` so the 25.x names (and the kubelet plugin DaemonSet's immutable selector) stay;
- the kubelet plugin's checkpoint only moves forward: each plugin verifies the checkpoint's checksum by re-marshalling
  what it understood (cmd/gpu-kubelet-plugin/checkpoint.go, VerifyChecksumV2), so an older plugin drops the fields a
  newer one wrote and rejects the file as corrupted. 0.4.0 added `nodeBootID` and upstream declares the move to 0.4
  forward-only (docs/upgrade.md at v0.4.1); 25.12.0 had added claim names and namespaces (checkpointv.go); 0.5.0 adds
  a prepared claim's `timeSliceApplied` (device_state.go) and, with consumable shares, several claims on one device,
  which a 0.4 plugin never expects.
- the CRDs: Helm never upgrades a chart's crds/, so with compute domains on the package applies the new version's CRDs
  before the release (upstream's upgrade guide, "Update custom resource definitions"; NvidiaDraDriver).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import DRIVER_CHARTS, DriverChart

# docs/upgrade.md at tag v0.4.1; on main (and so in 0.5.0) it moved to site/content/docs/upgrade.md.
UPGRADE_GUIDE = "kubernetes-sigs/dra-driver-nvidia-gpu docs/upgrade.md (tag v0.4.1; site/content/docs/upgrade.md from 0.5.0)"
CHECKPOINT_CODE = "kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/checkpoint.go, checkpointv.go"
RELEASE_DIFF = "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go (Diff: replaces only on name, namespace)"


@dataclass(frozen=True)
class Transition:
    """The verdict on one chart change of the driver's release."""

    allowed: bool  # False: the change must not be applied (the diff reports it as refused)
    in_place: bool  # True: a `helm upgrade` of the same release that keeps every object's name (nothing replaced)
    reason: str
    source: str  # where the reason comes from (repository and file, or issue)


def chart_name(chart: str) -> str:
    """A chart's name from what a Release's `chart` input holds: a plain name, or an OCI reference ending in it."""
    return chart.rstrip("/").rsplit("/", 1)[-1]


def _known(chart: str, version: str) -> DriverChart | None:
    entry = DRIVER_CHARTS.get(version)
    return entry if entry is not None and entry.chart == chart_name(chart) else None


def chart_transition(old_chart: str, old_version: str, new_chart: str, new_version: str) -> Transition:
    """The verdict on moving the release from (old_chart, old_version) to (new_chart, new_version)."""
    old, new = _known(old_chart, old_version), _known(new_chart, new_version)
    for entry, chart, version in ((old, old_chart, old_version), (new, new_chart, new_version)):
        if entry is None:
            return Transition(
                False, False,
                f"{chart_name(chart)} {version} is not a chart this package knows; known: "
                + ", ".join(f"{c.chart} {c.version}" for c in DRIVER_CHARTS.values()),
                "components/catalog/charts.py",
            )
    assert old is not None and new is not None  # for the type checker: both were found above
    if old.version == new.version:
        return Transition(True, True, f"{new.chart} {new.version} stays: nothing to upgrade", RELEASE_DIFF)
    if new.checkpoint_format < old.checkpoint_format:
        if old.checkpoint_format >= 3 > new.checkpoint_format:
            reason = (
                f"{old.version} -> {new.version} is a downgrade across the 0.4 line, which upstream declares "
                "forward-only: the kubelet plugin's checkpoint gained a BootID field in 0.4.0, which a 25.x plugin "
                "cannot read back (and the ComputeDomain API now allows numNodes to be omitted); stay on "
                f"{old.version} or move forward"
            )
            source = f"{UPGRADE_GUIDE}; {CHECKPOINT_CODE}"
        else:
            reason = (
                f"{old.version} -> {new.version} is a downgrade: {old.version}'s kubelet plugin writes checkpoint "
                f"fields {new.version}'s plugin does not know, so it rejects every node's checkpoint as corrupted"
            )
            if old.has_consumable_shares and not new.has_consumable_shares:
                reason += (f", and {new.version} cannot publish slices shared by memory (several claims on one "
                           "device)")
            reason += f"; stay on {old.version} or move forward"
            source = CHECKPOINT_CODE
        return Transition(False, False, reason, source)
    if old.chart != new.chart:
        # The rename (25.x -> 0.4.x): the package's nameOverride is what keeps this in place (upstream's first step).
        return Transition(
            True, True,
            f"{old.chart} {old.version} -> {new.chart} {new.version} is an in-place helm upgrade of the same release: "
            f"nameOverride=nvidia-dra-driver-gpu keeps the 25.x object names, so the kubelet plugin DaemonSet is updated "
            "(rolling), not replaced; the CRDs are applied before the release when compute domains are on",
            f"{UPGRADE_GUIDE}; {RELEASE_DIFF}",
        )
    return Transition(
        True, True,
        f"{old.chart} {old.version} -> {new.version} is an in-place helm upgrade of the same release "
        "(same chart, same object names); the CRDs are applied before the release when compute domains are on",
        RELEASE_DIFF,
    )
