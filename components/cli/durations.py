"""Seconds on the command line (`--timeout`, `--wait`, `--poll`): one parser for every command, so each says the same
thing of the same mistake."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def seconds(most: float, zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds above 0 (from 0 with `zero`) and at most `most`."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or not (value >= 0 if zero else value > 0) or value > most:
            bound = f"from 0 to {most:g}" if zero else f"above 0 and at most {most:g}"
            raise argparse.ArgumentTypeError(f"{text!r}: give seconds {bound}")
        return value

    parse.__name__ = "seconds"  # what argparse names in "invalid <type> value" (never reached: every error is ours)
    return parse
