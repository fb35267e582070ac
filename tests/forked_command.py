"""`python -m components ...` as a process of its own, without starting an interpreter: a fork of the test's process
runs what `components/__main__.py` runs (the CLI's GC thresholds, `run_watched(main)`, flush, `os._exit`).

What the tests that use it check is what the command does as a process (its exit status, its two output streams, the
processes it ends at `--timeout` or on Ctrl-C), not how an interpreter starts: the fork gives them the same process
without the half second to a second each fresh interpreter takes to import the SDKs and the package. A module constant
the test patches (`watchdog.TERM_GRACE`, ...) holds in the fork as well. Some tests keep a real `python -m
components` (tests/test_program_isolation.py), so the module's own entry point stays covered.

`forked_call` runs any function of a test as such a process (its return value the exit status); `run_with_the_package_of`
is the same saving for code that needs the package imported afresh (another copy of it, or
the order its own modules are imported in): a fork that unloads `components` and imports it again.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import select
import selectors
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from components.cli import main
from components.watchdog import run_watched


class ForkedCommand:
    """A function of the test as a process of its own (`forked`: the CLI), with the few parts of `subprocess.Popen` the
    process tests use: pid, poll, send_signal, communicate, returncode; and `stderr_line`, its first line as it comes."""

    def __init__(self, run: Callable[[], int], cwd: Path, env: dict[str, str]) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the command: never returns into the test
            _run_in_child(run, cwd, env, out_w, err_w, (out_r, err_r))
        os.close(out_w)
        os.close(err_w)
        self.pid = pid
        self.returncode: int | None = None
        self._pipes = {out_r: bytearray(), err_r: bytearray()}
        self._out, self._err = out_r, err_r
        self._open = {out_r, err_r}

    def poll(self) -> int | None:
        """The exit status once the command has ended (reaped here), else None."""
        if self.returncode is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, number: int) -> None:
        """Sends `number` to the command's process, as a terminal or `kill` would."""
        if self.poll() is None:
            os.kill(self.pid, number)

    def stderr_line(self, timeout: float = 120) -> str:
        """The first line the process writes on stderr, as soon as it is written (`communicate` returns it again, with
        the rest); less when stderr closes first, `subprocess.TimeoutExpired` past `timeout`."""
        deadline = time.monotonic() + timeout
        said = self._pipes[self._err]
        while b"\n" not in said and self._err in self._open:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._err], [], [], left)[0]:
                raise subprocess.TimeoutExpired(f"forked {self.pid}", timeout)
            data = os.read(self._err, 65536)
            if data:
                said += data
            else:
                os.close(self._err)
                self._open.discard(self._err)
        return said[: said.find(b"\n") + 1 or len(said)].decode("utf-8", "replace")

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Both streams once they are closed and the command has ended; `subprocess.TimeoutExpired` past `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            for fd in self._open:
                selector.register(fd, selectors.EVENT_READ)
            while self._open:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired(f"forked {self.pid}", timeout or 0)
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 65536)
                    if data:
                        self._pipes[key.fd] += data
                    else:
                        selector.unregister(key.fd)
                        os.close(key.fd)
                        self._open.discard(key.fd)
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"forked {self.pid}", timeout or 0)
            time.sleep(0.01)
        return (self._pipes[self._out].decode("utf-8", "replace"), self._pipes[self._err].decode("utf-8", "replace"))

    def kill(self) -> None:
        """SIGKILL to the command (cleanup after a test); nothing when it has ended."""
        with contextlib.suppress(OSError):
            self.send_signal(signal.SIGKILL)

    def close(self) -> None:
        """Reaps the command and closes what is left of its pipes (after `kill`)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.communicate(timeout=30)
        for fd in self._open:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._open.clear()


def _run_in_child(run: Callable[[], int], cwd: Path, env: dict[str, str], out_w: int, err_w: int,
                  read_ends: tuple[int, int]) -> None:
    status = 1
    try:
        for fd in read_ends:
            os.close(fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (devnull, out_w, err_w):
            os.close(fd)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        for number in (signal.SIGTERM, signal.SIGHUP):  # a fresh interpreter's dispositions, whatever pytest set
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        status = run()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # a broken harness says why on the command's stderr
        with contextlib.suppress(BaseException):
            os.write(2, traceback.format_exc().encode())
    finally:
        os._exit(status)


def forked(*argv: str, cwd: Path, env: dict[str, str] | None = None) -> ForkedCommand:
    """`python -m components *argv` in `cwd`, as a fork of this process (the environment without the shell's
    PULUMI_* variables unless `env` is given)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}

    def command() -> int:
        sys.argv = ["components", *argv]
        gc.set_threshold(20_000, 20, 100)  # as components/__main__.py
        return run_watched(lambda: main(list(argv)))

    return ForkedCommand(command, cwd, env)


def forked_call(run: Callable[[], int], cwd: Path) -> ForkedCommand:
    """`run()` as a process of its own (a fork of this process, in `cwd`, this environment): its return value is the
    exit status, an exception a traceback on its stderr and status 1."""
    return ForkedCommand(run, cwd, dict(os.environ))


def run_with_the_package_of(folder: Path, code: str) -> str:
    """What `code` prints, run with the `components` package of `folder` imported afresh: in a fork of this process
    that has unloaded the `components` it had (the SDKs it imported stay loaded: no interpreter start-up, no second
    import of pulumi and the Azure SDK), with `folder` first on its path and as its working folder. For what depends
    on the package's own modules and the order they are imported in, not on what else a fresh interpreter lacks."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # never returns into the test
        status = 1
        try:
            os.close(read_end)
            for name in [m for m in sys.modules if m == "components" or m.startswith("components.")]:
                del sys.modules[name]
            sys.path.insert(0, str(folder))
            os.chdir(folder)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, "<run with a fresh package>", "exec"), {"__name__": "__main__"})
            os.write(write_end, out.getvalue().encode())
            status = 0
        except BaseException:
            with contextlib.suppress(BaseException):
                os.write(write_end, ("FAILED\n" + traceback.format_exc()).encode())
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        text = pipe.read().decode()
    _, wait = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(wait) == 0, text
    return text
