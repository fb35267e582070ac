"""The watchdog (components/watchdog.py) ends every process a program started: at `--timeout`, on Ctrl-C and when it ends.

Each test's program starts a helper that would live for a minute and holds the command's stderr open, so a reader of
stderr (here `communicate`) waits until the helper is gone. Every wait is bounded, and the helper is killed after the
test whatever happened, so a broken watchdog fails the test in seconds instead of hanging the suite.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from components import watchdog
from tests.conftest import ROOT
from tests.forked_command import ForkedCommand, forked
from tests.test_program_isolation import EXPORT, project

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")

# The helper: a grandchild of the command, with the command's stderr; the program writes its pid, the helper touches
# `<pid file>.ready` once it runs. It ignores SIGINT, as a daemon would (so Ctrl-C alone does not end it); with
# `ignores`, SIGTERM too; with `session`, it leaves the command's process group for a session of its own. The program
# goes on (to get stuck, or to end) only once that grandchild is ready, so at the short `--timeout` below it runs with
# its signal dispositions set (the test checks that it was ready: the escalation it tests did happen).
HELPER = """import subprocess, sys, time
from pathlib import Path
helper = "import signal, time\\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\\n" + \\
    ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\\n" if {ignores} else "") + \\
    "open({pid_file!r} + '.ready', 'w').close()\\ntime.sleep(60)\\n"
Path({pid_file!r}).write_text(str(subprocess.Popen([sys.executable, "-c", helper], start_new_session={session}).pid))
while not Path({pid_file!r} + ".ready").exists():
    time.sleep(0.01)
"""
STARTUP = 120  # seconds the command may take to start the program (a busy machine, a cold cache)
BOUND = 10  # seconds from the program's start until the command has ended and its stderr is closed


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie nobody reaped has ended: a container's first process may not reap orphans)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def ready_helper(pid_file: Path, deadline: float) -> int:
    """The helper's pid once it runs (its signal dispositions set)."""
    while not Path(f"{pid_file}.ready").exists():
        assert time.monotonic() < deadline, "the program never started its helper"
        time.sleep(0.05)
    return int(pid_file.read_text())


@contextlib.contextmanager
def command(tmp_path: Path, rest: str, *argv: str, ignores: bool = False,
            session: bool = False) -> Iterator[tuple[ForkedCommand, Path]]:
    """`python -m components plan` (forked: tests/forked_command.py) on a program that starts a helper, then does `rest`;
    the helper is killed after."""
    pid_file = tmp_path / "helper.pid"
    program = HELPER.format(ignores=ignores, session=session, pid_file=str(pid_file)) + rest
    folder = project(tmp_path / "p", program)
    proc = forked("plan", "--stack", "dev", "--project-dir", str(folder), *argv, cwd=ROOT)
    try:
        yield proc, pid_file
    finally:
        for pid in [proc.pid] + ([int(pid_file.read_text())] if pid_file.exists() and pid_file.read_text() else []):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        proc.close()


def finished(proc: ForkedCommand, pid_file: Path) -> tuple[int, str, str, float]:
    """Exit status, stdout, stderr, and seconds from the program's start (its helper's pid written) until the command
    ended and its stderr closed; BOUND + 1 and what was still running when it did not within BOUND."""
    deadline = time.monotonic() + STARTUP
    while not (pid_file.exists() and pid_file.read_text()) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=BOUND)
    except subprocess.TimeoutExpired:
        helper = int(pid_file.read_text()) if pid_file.exists() and pid_file.read_text() else None
        return -1, "", (f"stderr still open {BOUND} s after the program started: command ended: {proc.poll()}, helper "
                        f"{helper} running: {helper is not None and alive(helper)}"), BOUND + 1
    return proc.returncode, out, err, time.monotonic() - started


@pytest.fixture(autouse=True)
def short_term_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper that ignores SIGTERM gets SIGKILL 0.2 s after it (1 s in the command): the same escalation, sooner."""
    monkeypatch.setattr(watchdog, "TERM_GRACE", 0.2)


SLEEPS = "import time\ntime.sleep(3600)\n"
# One C call that keeps the interpreter lock (a PyDLL function does not let go of it, unlike time.sleep): only the
# supervising process can stop it. Asleep, not counting, so it burns no CPU meanwhile (tests/test_program_isolation.py
# stops the real-world kinds: a huge sum, a catastrophic regular expression).
HOLDS_THE_LOCK = "import ctypes\nctypes.PyDLL(None).sleep(3600)\n"


@pytest.mark.parametrize(("stuck", "helper"), [
    (SLEEPS, "plain"), (SLEEPS, "ignores-sigterm"), (SLEEPS, "new-session"),
    (HOLDS_THE_LOCK, "plain"), (HOLDS_THE_LOCK, "new-session"),
], ids=["sleeps", "sleeps-helper-ignores-sigterm", "sleeps-helper-in-new-session", "holds-the-lock",
        "holds-the-lock-helper-in-new-session"])
def test_at_the_timeout_every_process_the_program_started_ends(stuck, helper, tmp_path, monkeypatch):
    if helper == "new-session" and not sys.platform.startswith("linux"):
        pytest.skip("a process that leaves the group is caught by a Linux child subreaper")
    kinds = {"ignores": helper == "ignores-sigterm", "session": helper == "new-session"}
    if stuck == HOLDS_THE_LOCK:  # no in-process limit can report first (it needs the lock): the parent's wait is idle
        monkeypatch.setattr(watchdog, "GRACE", 0.1)
    with command(tmp_path, stuck, "--timeout", "0.5", **kinds) as (proc, pid_file):
        status, out, err, seconds = finished(proc, pid_file)
        assert seconds < BOUND, err
        assert status == 2 and out == "" and "did not finish within 0.5 s" in err, err
        assert len(err.splitlines()) == 1, err
        assert Path(f"{pid_file}.ready").exists(), "the grandchild was not running yet when the time limit came"
        assert not alive(int(pid_file.read_text()))


def test_a_program_that_ends_leaves_no_helper_behind(tmp_path):
    with command(tmp_path, EXPORT, "--json") as (proc, pid_file):
        status, out, err, seconds = finished(proc, pid_file)
        assert seconds < BOUND and status == 0 and '"x": 1' in out, err
        assert not alive(int(pid_file.read_text()))


@pytest.mark.parametrize("session", [False, True], ids=["helper", "helper-in-new-session"])
def test_ctrl_c_ends_every_process_the_program_started(session, tmp_path):
    if session and not sys.platform.startswith("linux"):
        pytest.skip("a process that leaves the group is caught by a Linux child subreaper")
    with command(tmp_path, SLEEPS, session=session) as (proc, pid_file):
        helper = ready_helper(pid_file, time.monotonic() + STARTUP)
        proc.send_signal(signal.SIGINT)  # what a terminal sends the command on Ctrl-C
        status, out, err, seconds = finished(proc, pid_file)
        assert seconds < BOUND, err
        assert status == 130 and out == "" and "Traceback" not in err, err
        assert not alive(helper)
