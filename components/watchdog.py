"""A time limit no program can outrun: the command runs in a child process, and this one ends it when a program runs
past `--timeout`.

Inside the process the limit is a thread join (`offline.capture`), which needs the interpreter's lock: a program stuck
in one C call that never lets go of it (a catastrophic regular expression, ``sum(range(10**13))``, a huge ``**``)
would hold the command forever. So `python -m components` forks once, before any program runs; the child does all the
work and says on a pipe when a program starts (with its time limit) and when it ends. If one runs `GRACE` seconds past
its limit, the parent ends the child, prints the same one line the in-process limit prints, and exits 2. The child's
stdout is the command's: the program's own output goes to stderr, and a plan is only written after the program ended,
so a killed child has written nothing on stdout. Only the command line forks; `cli.main` called in-process does not.

The child leads a process group of its own, so every process a program starts (a helper, a shell, their children)
is in it too, holding the command's stdout and stderr: however the child ends (done, failed, timed out, Ctrl-C,
SIGTERM), the parent ends the whole group — SIGTERM, then SIGKILL to whatever is left after `TERM_GRACE` seconds —
so no helper outlives the command or keeps a reader of its output waiting. A Ctrl-C reaches the parent only (the
child's group is not the terminal's foreground group): the parent passes it on to the group. A process that leaves the
group (``setsid``, ``start_new_session=True``, a daemon's double fork) is caught on Linux: the parent is a child
subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``, man 2 prctl), so every such process becomes its child once the process
that started it has ended, and is ended the same way.
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
TERM_GRACE = 1.0  # a process of the group gets this long after SIGTERM before SIGKILL
INTERRUPT_GRACE = 2.0  # after Ctrl-C, the child gets this long to report and end before its group is ended
EXIT_ERROR = 1  # the CLI's codes (cli/output.py), not imported: this module runs in the parent, which imports no CLI
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


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
    _become_subreaper()  # before the fork: the child does not inherit it
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: does the work, reports program starts and ends
        os.close(read_fd)
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)  # a process group of its own, which whatever the program starts joins
        from .offline.running import WATCHERS

        WATCHERS.append(_child_hooks(write_fd))
        return run()
    os.close(write_fd)
    with contextlib.suppress(OSError):  # set on both sides, so the group exists whichever process runs first
        os.setpgid(pid, pid)
    return _supervise(pid, read_fd)


PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def _become_subreaper() -> bool:
    """Linux: this process adopts the orphans among its descendants (instead of init); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children() -> list[int]:
    """The processes whose parent is this one, zombies included (Linux /proc; none where it cannot be read)."""
    me = os.getpid()
    try:  # each thread's children (CONFIG_PROC_CHILDREN, on in common kernels): no scan of every process
        return [int(pid) for task in os.listdir(f"/proc/{me}/task")
                for pid in Path(f"/proc/{me}/task/{task}/children").read_text().split()]
    except (OSError, ValueError):
        pass
    found = []
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(entry))
    return found


def end_orphans() -> None:
    """Ends the processes that left the group and came back to this one as orphans (SIGTERM, then SIGKILL after
    `TERM_GRACE`), and those they leave behind in turn; reaps them."""
    started = time.monotonic()
    while time.monotonic() < started + 2 * TERM_GRACE + 1:  # bounded: a process stuck in the kernel stays
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        orphans = _children()  # after the reaping above: a zombie found here has just ended, and is reaped next round
        if not orphans:
            return
        number = signal.SIGTERM if time.monotonic() < started + TERM_GRACE else signal.SIGKILL
        for orphan in orphans:
            with contextlib.suppress(OSError):
                os.kill(orphan, number)
        time.sleep(0.02)


def _signal_group(group: int, number: int) -> bool:
    """Sends `number` to every process of `group`; False when none is left."""
    try:
        os.killpg(group, number)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its user (setuid): nothing this process may do to it
        return True
    return True


def end_group(group: int, child: int, status: int | None = None) -> int:
    """Ends every process of `group` (led by `child`): SIGTERM, then SIGKILL after `TERM_GRACE` seconds to whatever
    is left; reaps `child` unless its wait `status` is known already. The child's exit status."""
    if _signal_group(group, signal.SIGTERM):
        _signal_group(group, signal.SIGCONT)  # a stopped member (a helper reading the terminal) acts on SIGTERM only
        deadline = time.monotonic() + TERM_GRACE  # once it runs again
        while time.monotonic() < deadline:
            if status is None:
                done, found = os.waitpid(child, os.WNOHANG)  # a zombie leader still counts as a member: reap it
                status = found if done else None
            if status is not None and not _signal_group(group, 0):
                break
            time.sleep(0.02)
        else:
            _signal_group(group, signal.SIGKILL)
    if status is None:
        _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


def _exit_fd(pid: int) -> int | None:
    """A descriptor that becomes readable once the child has ended (Linux 5.3+ ``pidfd_open``, man 2 pidfd_open), so
    the parent learns of the end at once instead of at its next poll; None where there is none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _supervise(pid: int, read_fd: int) -> int:
    exited = _exit_fd(pid)
    try:
        return _supervise_child(pid, read_fd, exited)
    finally:
        if exited is not None:
            os.close(exited)


def _supervise_child(pid: int, read_fd: int, exited: int | None) -> int:
    interrupts: list[float] = []

    def interrupted(number: int, _frame: object) -> None:
        interrupts.append(time.monotonic())
        _signal_group(pid, number)  # the child reports the interrupt (exit 130), as the command does in-process

    signal.signal(signal.SIGINT, interrupted)
    for forwarded in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(forwarded, lambda number, _frame: _signal_group(pid, number))
    deadline: float | None = None
    program, limit = "", 0.0
    buffer = b""
    reading: int | None = read_fd
    while True:
        wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
        ready, _, _ = select.select([fd for fd in (reading, exited) if fd is not None], [], [], wait)
        if reading is not None and reading in ready:
            data = os.read(read_fd, 4096)
            if not data:  # the child closed its end (it has exited, or is about to)
                os.close(read_fd)
                reading = None
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
            status = end_group(pid, pid, status)  # whatever the program started and left running
            end_orphans()
            return status
        if (interrupts and time.monotonic() > interrupts[0] + INTERRUPT_GRACE) or len(interrupts) > 1:
            end_group(pid, pid)
            end_orphans()
            return EXIT_INTERRUPTED
        if deadline is not None and time.monotonic() > deadline:
            end_group(pid, pid)
            end_orphans()
            from .offline.running import timeout_message

            sys.stderr.write(timeout_message(program, limit) + "\n")
            sys.stderr.flush()
            return EXIT_BAD_INPUT
