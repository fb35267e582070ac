"""The dependency versions this package supports, checked against what is installed before the CLI runs a program.

The ranges are the installed distribution's own (its ``Requires-Dist`` metadata, written from pyproject.toml), so there
is one list of them; the floors are the oldest releases CI tests (.ci/floor-constraints.txt). This module imports no
SDK: an SDK outside its range may fail to import or behave differently (pulumi before 3.261.0 drops the secret marker
of an unknown value, pulumi/pulumi#24500), and the user gets one line naming the fix instead of a traceback.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Iterable
from importlib import metadata

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

DISTRIBUTION = "aks-dra-vgpu"


# A requirement that applies only with an extra, as pip and setuptools write it (`pytest>=8; extra == "test"`).
_EXTRA_ONLY = re.compile(r"""; *extra *== *("[^"]*"|'[^']*') *$""")


@functools.cache
def _dist_info_versions() -> dict[str, str]:
    """Each installed wheel's version by canonical name, read from its ``<name>-<version>.dist-info`` folder's name (the
    binary distribution format: neither part holds a '-'): one listing a sys.path folder instead of a METADATA file
    parsed a dependency. The first folder on sys.path wins, as for an import; anything else is left to metadata."""
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in names:
            stem = entry.removesuffix(".dist-info")
            if stem != entry and stem.count("-") == 1:
                name, version = stem.split("-")
                found.setdefault(canonicalize_name(name), version)
    return found


# What is installed does not change while a process runs, so a process that runs the CLI more than once (the test suite,
# a plugin host) looks each up once.
@functools.cache
def installed_version(name: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed."""
    listed = _dist_info_versions().get(canonicalize_name(name))
    if listed is not None:
        return listed
    try:  # an egg-info, a folder named otherwise: the metadata itself (it scans sys.path and parses the file)
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def declared_requirements(distribution: str = DISTRIBUTION) -> list[Requirement]:
    """The distribution's runtime requirements that apply here (no extras); none when it is not installed."""
    return list(_declared_requirements(distribution))


@functools.cache
def _declared_requirements(distribution: str) -> tuple[Requirement, ...]:
    try:
        lines = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed: nothing declared to check
        return ()
    # An extra's requirement never applies here: left unparsed (most lines are; each parse costs a fraction of a ms).
    requirements = [Requirement(line) for line in lines if not _EXTRA_ONLY.search(line)]
    return tuple(r for r in requirements if r.marker is None or r.marker.evaluate({"extra": ""}))


def _range(specifier: SpecifierSet) -> str:
    """``>=A,<B``: lower bounds first, as pyproject.toml writes them (SpecifierSet sorts them the other way)."""
    return ",".join(sorted((str(s) for s in specifier), key=lambda s: (not s.startswith(">"), s)))


def _side(version: Version, specifier: SpecifierSet) -> str | None:
    """'older' or 'newer' when a version misses a lower or an upper bound of its range; None otherwise (``!=`` …)."""
    for s in specifier:
        if not s.contains(version, prereleases=True):
            if s.operator in (">=", ">"):
                return "older"
            if s.operator in ("<", "<="):
                return "newer"
    return None


def problems(requirements: Iterable[Requirement], version_of: Callable[[str], str | None] | None = None) -> list[str]:
    """One line per requirement the installed packages miss, each with the pip command that fixes it."""
    version_of = version_of or installed_version
    lines = []
    for requirement in requirements:
        name = requirement.name
        wanted = _range(requirement.specifier)
        fix = f"pip install '{name}{wanted}'"
        found = version_of(name)
        if found is None:
            lines.append(f"{name} is not installed; this package needs {name}{wanted}: {fix}")
            continue
        try:
            version = Version(found)
        except InvalidVersion:
            lines.append(f"{name} {found} is not a version this package can check against {wanted}; {fix}")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            side = _side(version, requirement.specifier)
            what = f"is {side} than this package supports" if side else "is not a version this package supports"
            lines.append(f"{name} {found} {what} ({wanted}); {fix}")
    return lines


def unsupported(distribution: str = DISTRIBUTION) -> list[str]:
    """The problems with the installed dependencies of `distribution` (empty when every one is in range)."""
    return problems(declared_requirements(distribution))
