"""Tables as the sizing reports print them: aligned columns for a terminal, pipes for Markdown."""

from __future__ import annotations


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Aligned columns, two spaces apart, indented by two (no trailing blanks)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
            for line in [header, *rows]]


def md_table(header: list[str], rows: list[list[str]], align: str = "---") -> list[str]:
    """A Markdown table (a `|` in a cell escaped); `align` per column: '---' or '---:' for every column but the first."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rule = "|---|" + "|".join(align for _ in header[1:]) + "|" if len(header) > 1 else "|---|"
    lines = ["| " + " | ".join(header) + " |", rule]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines
