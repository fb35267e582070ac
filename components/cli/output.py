"""What the command line prints, made safe: no raw control character, no over-long line, no encoding error.

A message may quote a value from a stack file or a program (a terminal escape, a bidi control, NUL, undecodable
bytes); here every such character is escaped, so no output can take over the terminal that shows it.
"""

from __future__ import annotations

from typing import TextIO

MAX_LINE = 1000


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
