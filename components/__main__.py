"""The offline CLI: `python -m components plan --stack dev` (see `--help`). Thin: the work is in components.offline."""

from __future__ import annotations

import os
import sys

from .cli import EXIT_ERROR, main

if __name__ == "__main__":
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # the reader went away (`| head`) or closed the stream: nothing left to say
        status = status or EXIT_ERROR
    # Everything is written: end the process now. No exit-time garbage collection of a heap the process is about to
    # free (about a third of a small plan's wall time; see docs/performance.md), and nothing a program left behind
    # (an atexit handler printing to stdout, a thread that never ends) runs after the plan.
    os._exit(status)
