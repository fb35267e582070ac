"""A time limit no program can outrun: the command runs in a child process, and this one ends it when a program runs
past `--timeout`.

Inside the process the limit is a thread join (`offline.capture`), which needs the interpreter's lock: a program stuck
in one C call that never lets go of it (a catastrophic regular expression, ``sum(range(10**13))``, a huge ``**``)
would hold the command forever. So `python -m components` forks once, before any program runs; the child does all the
work and says on a pipe when a program starts (with its time limit) and when it ends. If one runs `GRACE` seconds past
its limit, the parent kills the child, prints the same one line the in-process limit prints, and exits 2. The child's
stdout is the command's: the program's own output goes to stderr, and a plan is only written after the program ended,
so a killed child has written nothing on stdout. Only the command line forks; `cli.main` called in-process does not.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

GRACE = 0.5  # the in-process limit gets this long to report first (if it cannot, this process prints the same line)
EXIT_BAD_INPUT = 2


def _child_hooks(write_fd: int) -> Callable[[Path | None, float | None], None]:
    def watcher(program: Path | None, timeout: float | None) -> None:
        message = f"S{timeout:g} {program.name}\n" if program is not None and timeout is not None else "D\n"
        with contextlib.suppress(OSError):  # the parent is gone: nothing to tell
            os.write(write_fd, message.encode("utf-8", "backslashreplace"))

    return watcher


def run_watched(run: Callable[[], int]) -> int:
    """`run()` in a child process, ended with exit 2 when a program it runs outlives its time limit; its exit status."""
    if not hasattr(os, "fork"):
        return run()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: does the work, reports program starts and ends
        os.close(read_fd)
        from ..offline.running import WATCHERS

        WATCHERS.append(_child_hooks(write_fd))
        return run()
    os.close(write_fd)
    return _supervise(pid, read_fd)


def _supervise(pid: int, read_fd: int) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the child too (one process group); it answers
    for forwarded in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(forwarded, lambda number, _frame: os.kill(pid, number))
    deadline: float | None = None
    program, limit = "", 0.0
    buffer = b""
    while True:
        wait = 0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
        ready, _, _ = select.select([read_fd], [], [], wait)
        if ready:
            data = os.read(read_fd, 4096)
            if not data:  # the child closed its end: it has exited
                _, status = os.waitpid(pid, 0)
                return os.waitstatus_to_exitcode(status)
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "replace")
                if text.startswith("S"):
                    seconds, _, program = text[1:].partition(" ")
                    limit = float(seconds)
                    deadline = time.monotonic() + limit + GRACE
                else:
                    deadline = None
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if deadline is not None and time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            from ..offline.running import timeout_message

            sys.stderr.write(timeout_message(program, limit) + "\n")
            sys.stderr.flush()
            return EXIT_BAD_INPUT
