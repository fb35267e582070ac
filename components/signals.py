"""A signal handler for the length of a block, the previous one put back after it: the CLI's watch for a real Ctrl-C
and verify's smoke (SIGTERM cleans up like Ctrl-C) both set theirs this way. Standard library only: any part of the
package may import it.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

Handler = Callable[[int, "FrameType | None"], Any]


@contextmanager
def signal_handler(number: int, handler: Handler, *, only_replacing: Any = None) -> Iterator[bool]:
    """Handles signal `number` with `handler` while the block runs, then restores the handler it found; yields whether
    it was set. Python lets only the main thread set a handler: elsewhere the block runs with nothing changed. With
    `only_replacing`, the handler is set only over that one (e.g. `signal.default_int_handler`), so a handler someone
    else installed stays theirs."""
    previous = None
    try:
        if only_replacing is None or signal.getsignal(number) is only_replacing:
            previous = signal.signal(number, handler)
    except ValueError:  # not the main thread
        previous = None
    try:
        yield previous is not None
    finally:
        if previous is not None:
            signal.signal(number, previous)
