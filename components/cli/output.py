"""What every subcommand shares: exit statuses, the one-line BadInputError, and output that cannot be hijacked (every
line printable, control characters escaped)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT, EXIT_CHANGES, EXIT_POLICY = 0, 1, 2, 3, 4
DEBUG_ENV = "AKS_DRA_VGPU_TRACEBACK"
MAX_LINE = 1000
MAX_PROBLEMS = 50


class BadInputError(Exception):
    """Input the user can fix: each line is one problem."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


def printable(line: str, limit: int = MAX_LINE) -> str:
    """The line with every non-printable character escaped (terminal escapes, bidi controls, NUL, undecodable bytes);
    a line over `limit` keeps its start (the key) and its end (what is allowed), the middle (a quoted value) elided."""
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in line)
    if len(text) <= limit:
        return text
    head = limit // 3
    return f"{text[:head]} ... {text[-(limit - head - 5):]}"


def printable_lines(text: str) -> str:
    """Multi-line output with each line made printable (tabs kept)."""
    return "\n".join(printable(line.replace("\t", "    "), limit=1 << 20) for line in text.split("\n"))


def write(stream: TextIO, text: str) -> None:
    """Writes text; characters the stream's encoding cannot hold are escaped rather than raising."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _report(lines: list[str]) -> None:
    shown = list(lines or ["bad input"])
    if len(shown) > MAX_PROBLEMS:  # a file of 5000 mistakes is told in a screenful, not 5000 lines
        shown = [*shown[:MAX_PROBLEMS], f"... and {len(shown) - MAX_PROBLEMS} more problems (fix these first)"]
    for line in shown:
        write(sys.stderr, printable(str(line)) + "\n")  # a newline inside a problem is escaped: one line each


def bad_input_problems(lines: list[str]) -> list[dict[str, Any]]:
    """A refused input's lines as a JSON document's problems (the shape `size --json` and `plan --json` share)."""
    return [{"key": "", "kind": "bad-input", "message": printable(line), "severity": "error"} for line in lines]


def bad_input_document(lines: list[str]) -> dict[str, Any]:
    """`--json`'s document for input a command refused before it had a result of its own (plan, diff): the exit
    status and the problems, and no key of a result, so nothing reads it as an empty one."""
    return {"exit": EXIT_BAD_INPUT, "problems": bad_input_problems(lines)}


def json_on_bad_input(run: Callable[[Any], int], document: Callable[[list[str]], dict[str, Any]],
                      sort_keys: bool = False) -> Callable[[Any], int]:
    """The command `run`, whose refused input is, with --json, also a document on stdout (`document` of its lines,
    each printable); the lines still go to stderr, one each, as for every command."""

    def command(args: Any) -> int:
        try:
            return run(args)
        except BadInputError as exc:
            if getattr(args, "json", False):
                doc = document([printable(line) for line in exc.lines])
                write(sys.stdout, json.dumps(doc, indent=2, sort_keys=sort_keys) + "\n")
            raise

    return command
