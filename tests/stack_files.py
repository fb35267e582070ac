"""Helpers for tests that write a stack file and run the command line on it: the file's opening lines, and one run."""

from __future__ import annotations

import pytest

from components.cli import main


def stack_file(name: str, kubernetes_version: str, cluster: str = "") -> str:
    """A stack file's text up to the end of its cluster section: cluster `aks-<name>` in westeurope, resource group
    `rg-<name>`, `kubernetesVersion` quoted, then `cluster` (more lines, each indented four spaces, or further
    sections)."""
    return (f"config:\n  aks-dra-vgpu:cluster:\n    name: aks-{name}\n    location: westeurope\n"
            f"    resourceGroup: {{name: rg-{name}}}\n    kubernetesVersion: \"{kubernetes_version}\"\n{cluster}")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs the command line in this process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
