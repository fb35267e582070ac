"""Dependency ranges: declared once, the floors pinned for CI, and a version outside them one clear CLI line (exit 2)."""

from __future__ import annotations

import re

import pytest
from packaging.requirements import Requirement

from components.catalog import sdk_versions
from components.cli import main
from tests.conftest import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10: pytest brings tomli there
    import tomli as tomllib

DECLARED = [Requirement(line) for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
MAJOR_CAPPED = {"pulumi": "<4", "pulumi-azure-native": "<4", "pulumi-kubernetes": "<5", "pydantic": "<3"}


def floors(lines: list[str]) -> dict[str, str]:
    """Name -> lower bound of every requirement line that has one (comments skipped)."""
    found = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            lower = [s.version for s in requirement.specifier if s.operator in (">=", "==")]
            if lower:
                found[requirement.name.lower()] = lower[0]
    return found


def test_each_sdk_has_a_floor_and_an_upper_bound_on_its_next_major():
    by_name = {r.name: r for r in DECLARED}
    for name, cap in MAJOR_CAPPED.items():
        operators = {s.operator: s.version for s in by_name[name].specifier}
        assert ">=" in operators, name
        assert f"<{operators['<']}" == cap, (name, operators)


def test_the_ci_constraints_pin_exactly_the_declared_floors():
    pins = (ROOT / ".ci" / "floor-constraints.txt").read_text().splitlines()
    assert all("==" in line for line in pins if line.split("#", 1)[0].strip())
    pinned = floors(pins)
    assert set(pinned) == set(MAJOR_CAPPED)
    declared = floors([str(r) for r in DECLARED])
    assert pinned == {name: declared[name] for name in MAJOR_CAPPED}
    assert floors((ROOT / "requirements.txt").read_text().splitlines()) == declared


def test_ci_runs_the_suite_at_the_floors_and_last_at_the_newest():
    run = (ROOT / ".ci" / "run").read_text()
    assert "-c .ci/floor-constraints.txt" in run
    commands = [line.strip() for line in run.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert commands[-1] == "python -m pytest"  # the README's test command, at the newest releases


def test_the_ranges_come_from_the_installed_distribution():
    installed = {str(r) for r in sdk_versions.declared_requirements()}
    assert installed == {str(r) for r in DECLARED}  # the test extra's requirements are not among them
    assert sdk_versions.declared_requirements("no-such-distribution-aks-dra-vgpu") == []


def test_the_installed_versions_are_in_range():
    assert sdk_versions.unsupported() == []


def fake(versions: dict[str, str | None]):
    return lambda name: versions.get(name, "99.0")


RANGES = [Requirement("pulumi>=3.261.0,<4"), Requirement("pydantic<3,>=2.5.0")]


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        ({"pulumi": "3.100.0", "pydantic": "2.5.0"},
         ["pulumi 3.100.0 is older than this package supports (>=3.261.0,<4); pip install 'pulumi>=3.261.0,<4'"]),
        ({"pulumi": "3.272.0", "pydantic": "3.0.0"},
         ["pydantic 3.0.0 is newer than this package supports (>=2.5.0,<3); pip install 'pydantic>=2.5.0,<3'"]),
        ({"pulumi": "4.0.0a1", "pydantic": "2.5.0"},
         ["pulumi 4.0.0a1 is newer than this package supports (>=3.261.0,<4); pip install 'pulumi>=3.261.0,<4'"]),
        ({"pulumi": None, "pydantic": "2.5.0"},
         ["pulumi is not installed; this package needs pulumi>=3.261.0,<4: pip install 'pulumi>=3.261.0,<4'"]),
        ({"pulumi": "3.261.0", "pydantic": "2.14.4"}, []),
        ({"pulumi": "3.273.0a1792704891", "pydantic": "2.5.0"}, []),  # a pre-release inside the range is fine
    ],
    ids=["too-old", "too-new", "next-major-pre-release", "missing", "floor-and-newest", "pre-release-in-range"],
)
def test_one_line_per_dependency_out_of_range(versions, expected):
    assert sdk_versions.problems(RANGES, fake(versions)) == expected


def test_the_cli_refuses_an_old_sdk_with_one_line_and_exit_2(monkeypatch, capsys):
    real = sdk_versions.installed_version
    monkeypatch.setattr(sdk_versions, "installed_version", lambda name: "3.100.0" if name == "pulumi" else real(name))
    status = main(["plan", "--stack", "dev", "--project-dir", str(ROOT)])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    floor = floors([str(r) for r in DECLARED])["pulumi"]
    assert err.splitlines() == [
        f"pulumi 3.100.0 is older than this package supports (>={floor},<4); pip install 'pulumi>={floor},<4'"
    ]


def test_the_cli_refuses_a_new_major_too(monkeypatch, capsys):
    real = sdk_versions.installed_version
    monkeypatch.setattr(sdk_versions, "installed_version", lambda n: "5.0.0" if n == "pulumi-kubernetes" else real(n))
    status = main(["diff", "a.json", "b.json"])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert len(err.splitlines()) == 1
    assert re.fullmatch(r"pulumi-kubernetes 5\.0\.0 is newer than this package supports \(>=[\d.]+,<5\); .+\n", err)
