"""Where the package's own price table lives (data only: its rows are checked by `sizing.prices`, above config)."""

from __future__ import annotations

from pathlib import Path

DEFAULT_PRICES = Path(__file__).resolve().parent / "data" / "prices.yaml"
