"""`docs`: regenerate (or, with --check, only compare) the files made from the code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import EXIT_CHANGES, EXIT_OK, BadInputError, printable, write
from .problems import program_problems


def cmd_docs(args: argparse.Namespace) -> int:
    """`docs`: write docs/configuration.md, the sizing table, the README's resource graph and critical-path figures; print
    what changed."""
    from .docs import DocsError, sync_docs

    directory = Path(args.project_dir).absolute()
    own = (DocsError, OSError, UnicodeError)
    try:
        with program_problems(directory.resolve(), passthrough=own):
            changed = sync_docs(directory, check=args.check)
    except own as exc:
        raise BadInputError([" ".join(str(exc).split())]) from None
    for path in changed:
        write(sys.stdout, printable(str(path)) + "\n")
    return EXIT_CHANGES if args.check and changed else EXIT_OK
