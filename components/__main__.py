"""The offline CLI: `python -m aks_dra_vgpu plan --stack dev` (`python -m components …` inside this repository). Thin."""

from __future__ import annotations

import gc
import sys

from .cli import main

if __name__ == "__main__":
    # This process only runs one plan: collect the young generation less often while the program allocates hundreds
    # of thousands of short-lived Outputs and tasks (tuned here, never by the library's capture()).
    gc.set_threshold(20_000, 20, 100)
    status = main()
    sys.stdout.flush()
    # Everything is written: spare the exit a full garbage collection of a heap the process is about to free
    # (about a third of a small plan's wall time; see docs/performance.md).
    gc.freeze()
    sys.exit(status)
