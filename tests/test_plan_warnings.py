"""The warnings a program logs (`pulumi.log.warn`, as the components do) reach the user of the offline plan, once each,
as `pulumi preview` prints them: on stderr beside the tree, in the document's `warnings` list with `--json`."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from components import catalog
from components.cli import main

PROGRAM = '''import pulumi
from components import GpuNodePool, GpuNodePoolArgs

for name in ("a", "b"):
    GpuNodePool(f"gpu-{name}", GpuNodePoolArgs(name=name, vm_size="Standard_NV12ads_A10_v5", cluster_name="c",
                                               resource_group_name="rg", os_disk_type="Ephemeral"))
pulumi.log.warn("said twice")
pulumi.log.warn("said twice")
pulumi.log.info("not a warning")
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A consumer's program whose pools' size has no known temp disk, so GpuNodePool warns that Ephemeral is unchecked."""
    size = catalog.A10_SIZES["Standard_NV12ads_A10_v5"]
    monkeypatch.setitem(catalog.A10_SIZES, size.vm_size, dataclasses.replace(size, temp_disk_gib=None))
    (tmp_path / "Pulumi.yaml").write_text("name: consumer\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    return tmp_path


UNCHECKED = ("gpu-{}: osDiskType Ephemeral is unchecked: the catalog does not know Standard_NV12ads_A10_v5's temp disk, "
             "so AKS decides whether the OS disk fits")


def test_the_tree_is_followed_by_each_warning_once_on_stderr(project, capsys):
    assert main(["plan", "--stack", "dev", "--project-dir", str(project)]) == 0
    out, err = capsys.readouterr()
    assert "GpuNodePool" in out and "warning" not in out
    assert err.splitlines() == [f"warning: {UNCHECKED.format('a')}", f"warning: {UNCHECKED.format('b')}",
                                "warning: said twice"]


def test_the_json_document_lists_the_warnings_and_stderr_stays_quiet(project, capsys):
    assert main(["plan", "--stack", "dev", "--project-dir", str(project), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["warnings"] == [UNCHECKED.format("a"), UNCHECKED.format("b"), "said twice"]
    assert err == ""


def test_a_plan_without_warnings_keeps_its_document(capsys):
    assert main(["plan", "--stack", "dev", "--json"]) == 0
    assert "warnings" not in json.loads(capsys.readouterr().out)
