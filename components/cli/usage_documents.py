"""A usage mistake (argparse refusing the command line) under `--json`: the same document the command prints for any
other bad input, so a script reading stdout always reads one, whichever mistake stopped the command.

argparse refuses before a command runs, so the command and its JSON flag are read from the words as given: the command
is the first word (the top-level parser takes no option but --help), and JSON is `--json` or `--format json`.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .output import EXIT_BAD_INPUT, printable, write


def _documents() -> dict[str, Callable[[list[str]], dict[str, Any]]]:
    """Each command's document for bad input (imported when one is needed)."""
    from ..verify.report import error_report
    from .output import bad_input_document
    from .plan import error_document as plan_document
    from .preflight import failure_document as preflight_document
    from .rollout import failure_document as rollout_document
    from .size import error_document as size_document

    return {"plan": plan_document, "diff": bad_input_document, "size": size_document, "verify": error_report,
            "preflight": preflight_document, "fleet-rollout": lambda lines: rollout_document(lines, EXIT_BAD_INPUT)}


def asks_json(argv: Sequence[str]) -> bool:
    """Whether the words ask for JSON, and nothing else: `--json`, `--format json` or `--format=json` (before a lone
    `--`), and no other format beside it (`--json --format tree` asks for two things: no document)."""
    words = list(argv[: argv.index("--")] if "--" in argv else argv)
    formats = [b for a, b in itertools.pairwise(words) if a == "--format"]
    formats += [w.partition("=")[2] for w in words if w.startswith("--format=")]
    return ("--json" in words or "json" in formats) and all(f == "json" for f in formats)


def write_usage_document(argv: Sequence[str] | None, lines: list[str]) -> None:
    """Prints the command's bad-input document on stdout when the words ask for JSON and the command has one."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or not asks_json(words):
        return
    document = _documents().get(words[0])
    if document is not None:
        doc = document([printable(line) for line in lines])
        write(sys.stdout, json.dumps(doc, indent=2, sort_keys=True) + "\n")
