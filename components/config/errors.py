"""Configuration errors: every problem with the key path the user wrote, reported at once.

A model-level check raises `KeyedProblemsError` with (key path, message) pairs; the formatter reads those pairs from the
exception object, never from message text, so a value the user wrote cannot pose as a problem at another key.

Two ways of naming keys, one formatter: ``"config"`` (a stack file or the multi-language schema: ``gpuPools[0].vmSize``)
and ``"python"`` (the Python API's arguments: ``gpu_pools[0].vm_size``), chosen by who wrote the input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pulumi


class KeyedProblemsError(ValueError):
    """Problems that a model-level check found at keys below its model: (camelCase key path, message) pairs."""

    def __init__(self, *problems: tuple[str, str]):
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{key}: {message}" for key, message in self.problems))


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: where (the path the user wrote) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


KeyStyle = Literal["config", "python"]
"""How keys are named: as a stack file and the schema write them (camelCase), or as Python arguments (snake_case)."""


class ConfigError(ValueError, pulumi.InputPropertiesError):
    """Every problem found in a configuration, reported at once.

    Also Pulumi's structured input error (property paths and reasons), so the same object serves a stack's program, a
    component hosted for other languages and a Python caller; its text lists every problem, one line each.
    """

    def __init__(self, problems: list[Problem], source: str = "", title: str = ""):
        self.problems = problems
        self.source = source
        self.title = title
        lines = [str(p) for p in problems]
        message = "\n".join([f"{title}:", *(f"  {line}" for line in lines)] if title else lines)
        pulumi.InputPropertiesError.__init__(self, message, _details(problems))

    def to_pulumi(self) -> pulumi.InputPropertiesError:
        """The same problems as the error a Pulumi program raises: shown as one clean message, no traceback."""
        lines = "\n".join(f"  {p}" for p in self.problems)
        return ProgramInputError(f"invalid configuration:\n{lines}", _details(self.problems))


class ProgramInputError(pulumi.InputPropertiesError, pulumi.RunError):
    """Bad input found by a program: the Python language host prints a RunError's message alone, without a traceback
    (pulumi/pulumi ``sdk/python/cmd/pulumi-language-python-exec``), and the offline CLI reads its property errors."""


def _details(problems: list[Problem]) -> list[pulumi.InputPropertyErrorDetails]:
    return [{"property_path": p.path, "reason": p.message} for p in problems]
