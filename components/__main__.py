"""The offline CLI: `python -m components plan --stack dev` (see `--help`). Thin: the work is in components.offline."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
