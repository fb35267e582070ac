"""Helpers for tests that write a stack file and run the command line on it: the file's opening lines, and one run."""

from __future__ import annotations

import re

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


# Every problem of a stack file names the file first, one way: its path from the project's folder, with the line and
# column where they are known (`stacks/Pulumi.dev.yaml:12:5: cluster.protect: ...`, `stacks/Pulumi.dev.yaml: ...`).
FILE_NAMED = re.compile(r"(?:[\w.-]+/)*Pulumi\.[^:/]+\.yaml(?::\d+(?::\d+)?)?: ")


# A GPU pool's problem names the pool beside its index: gpuPools[2] (h100mig).gpuInstanceProfile.
POOL_NAMED = re.compile(r"(gpuPools\[\d+\]) \([^)]*\)")


def without_file(line: str) -> str:
    """A problem's line without the stack file it names first, and without the name beside a pool's index (what it
    says about the key, as the key path is written)."""
    line = FILE_NAMED.sub("", line, count=1) if FILE_NAMED.match(line) else line
    return POOL_NAMED.sub(r"\1", line, count=1) if POOL_NAMED.match(line) else line


def starts(line: str, text: str) -> bool:
    """Whether a problem's line starts with `text` after the stack file it names (a key path), or names the file as
    `text` does (``Pulumi.<stack>.yaml...``, under ``stacks/``); other lines (about Pulumi.yaml, a flag) as written."""
    return line.startswith((text, f"stacks/{text}")) or without_file(line).startswith(text)
