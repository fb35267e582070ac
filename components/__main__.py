"""The offline CLI: `python -m aks_dra_vgpu plan --stack dev` (`python -m components …` inside this repository). Thin."""

from __future__ import annotations

import gc
import os
import sys

from .watchdog import EXIT_ERROR, run_watched


def _command() -> int:
    """The command line's command, run in the watched child: the CLI (and every SDK) is imported there only."""
    from .cli import main

    return main()


if __name__ == "__main__":
    # This process only runs one plan: collect the young generation less often while the imports and the program
    # allocate hundreds of thousands of short-lived objects (tuned here, never by the library's capture()).
    gc.set_threshold(20_000, 20, 100)
    # The child imports the CLI after the fork: the supervising parent stays small, and the child never pays for
    # copying pages of a heap it shares with its parent (docs/performance.md).
    status = run_watched(_command)  # a program stuck past --timeout ends the command with exit 2 (watchdog.py)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # the reader went away (`| head`) or closed the stream: nothing left to say
        status = status or EXIT_ERROR
    # Everything is written: end the process now. No exit-time garbage collection of a heap the process is about to
    # free (about a third of a small plan's wall time; see docs/performance.md), and nothing a program left behind
    # (an atexit handler printing to stdout, a thread that never ends) runs after the plan.
    os._exit(status)
