"""Running someone else's program offline without letting it speak for us: its output, its exit, its time.

A Pulumi program may ``print``, read stdin, change folder, call ``sys.exit`` half way, or wait forever for an Output. The offline
engine keeps the caller's stdout for the plan (``--json`` must always parse), gives the program an empty stdin, reports
an early exit as what it is (the real language host exits with the program's status, and the engine would take what
was registered so far for the whole stack: pulumi/pulumi `sdk/python/cmd/pulumi-language-python-exec`), and stops
waiting after a time limit. Ambient ``PULUMI_*`` variables are hidden while the program runs: the SDK reads per-key
config (``PULUMI_CONFIG_<KEY>``, `pulumi/runtime/config.py` get_config), behaviour switches and tracing endpoints from
the environment, and an offline plan must not change with the shell it runs in.
"""

from __future__ import annotations

import ast
import io
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

AMBIENT_PREFIXES = ("PULUMI_",)
AMBIENT_NAMES = ("TRACEPARENT",)
# The variables the SDK reads config from (pulumi/runtime/config.py: get_config_env, get_config_env_key,
# get_config_secret_keys_env). PULUMI_CONFIG_PASSPHRASE(_FILE) only shares the prefix: it unlocks a passphrase secrets
# provider (pulumi/pulumi `pkg/secrets/passphrase`), is set in many CI jobs, and carries no config.
CONFIG_VARIABLE = "PULUMI_CONFIG"
NOT_CONFIG = frozenset({"PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE"})


def ambient_config(environ: dict[str, str] | None = None) -> list[str]:
    """The config variables set in the caller's environment (PULUMI_CONFIG, PULUMI_CONFIG_SECRET_KEYS and the per-key
    PULUMI_CONFIG_<KEY>), sorted: what an offline plan ignores, and says it ignores."""
    env = os.environ if environ is None else environ
    return sorted(k for k in env if (k == CONFIG_VARIABLE or k.startswith(CONFIG_VARIABLE + "_")) and k not in NOT_CONFIG)


def ambient_config_warning(names: list[str]) -> str:
    """One line saying which config variables are ignored, and why."""
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (f"warning: ignoring {shown} from the environment: an offline plan takes its config from the stack file "
            "only (the Pulumi CLI sets these itself for the program it runs, so a value found here belongs to another "
            "run, not to this stack)")


# Called with (program file, time limit) as a program starts and with (None, None) when it has ended, however it
# ended: how a supervising process (`cli.watchdog`) learns when the time limit applies.
WATCHERS: list[Callable[[Path | None, float | None], None]] = []


class ProgramError(Exception):
    """The program did not run to its end (it exited, failed or timed out); the message is one line."""


class _HardExit(SystemExit):
    """``os._exit`` called by the program while it runs offline (it would end the whole process)."""


def one_line(text: str, limit: int = 400) -> str:
    """Text on one line, at most `limit` characters: a message may quote a whole value, so a long one keeps its start
    (where) and its end (what is allowed) and elides the middle."""
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    head = limit // 3
    return f"{flat[:head]} ... {flat[-(limit - head - 5):]}"


# The installed package's own folder (`components/` in a checkout, `aks_dra_vgpu/` once installed): its frames are never
# the user's code, even when the project's folder holds it.
PACKAGE_DIR = Path(__file__).resolve().parent.parent
# Where installers put packages. Pulumi's own layout keeps the virtualenv inside the project (the `virtualenv: venv`
# runtime option of Pulumi.yaml, pulumi/pulumi#4775), so a frame under the project's folder may still be a library's.
LIBRARY_FOLDERS = frozenset({"site-packages", "dist-packages"})


def _users_code(path: Path, directory: Path) -> bool:
    """Whether a frame's file is the project's own code: under the project's folder, but neither in an installed library
    (a virtualenv inside the project) nor in this package (a copy, a link or the checkout itself)."""
    if not (path.is_absolute() and path.is_relative_to(directory)):
        return False
    if LIBRARY_FOLDERS & set(path.relative_to(directory).parts):
        return False
    try:
        return not path.resolve().is_relative_to(PACKAGE_DIR)
    except (OSError, RuntimeError):
        return True


def _innermost(exc: BaseException, directory: Path) -> tuple[Path, int] | None:
    """The innermost frame of `exc` in the user's own code: (file, line)."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if frame.lineno and _users_code(path, directory):
            found = (path, frame.lineno)
    return found


def program_frame(exc: BaseException, directory: Path) -> str | None:
    """``file:line`` of the innermost frame of `exc` in the user's own code (`_users_code`), relative to the project."""
    found = _innermost(exc, directory)
    return f"{found[0].relative_to(directory)}:{found[1]}" if found else None


def describe_failure(exc: BaseException, directory: Path) -> str:
    """One line for an exception the program raised: where (in the project) and what."""
    where = program_frame(exc, directory)
    if isinstance(exc, SyntaxError) and exc.filename:
        path = Path(exc.filename)
        shown = path.relative_to(directory) if path.is_relative_to(directory) else path.name
        where = f"{shown}:{exc.lineno or 0}"
        return one_line(f"{where}: the program is not valid Python: {exc.msg}")
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return one_line(f"{where + ': ' if where else ''}the program failed: {what}")


def resource_at(exc: BaseException, directory: Path) -> str | None:
    """"GpuNodePool 'gpu-b'": the component call whose arguments the program was building when `exc` was raised, read
    from the program's source at the failing line (a call with a literal name and an Args call as its second
    argument); None when the line says no more (the Args were built apart, or the name is computed)."""
    where = _innermost(exc, directory)
    if where is None:
        return None
    path, line = where
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    best: tuple[int, int, str] | None = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        given = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "args"), None)
        name = node.args[0] if node.args else None
        kind = ast.unparse(node.func).rsplit(".", 1)[-1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and kind[:1].isupper()):
            continue
        # Best: the call whose Args were being built on the failing line; else the component call itself failed there.
        builds = isinstance(given, ast.Call) and given.lineno <= line <= (given.end_lineno or given.lineno)
        rank = (0 if builds else 1, (node.end_lineno or node.lineno) - node.lineno)
        if best is None or rank < best[:2]:
            best = (*rank, f"{kind} {name.value!r}")
    return best[2] if best else None


def args_error_lines(exc: BaseException, title: str, problems: list[str], directory: Path) -> list[str]:
    """One line per problem of a component's arguments, each saying where (the program's file and line), which resource
    (when the line names it) and which Args class: ``__main__.py:14: GpuNodePool 'b': invalid GpuNodePoolArgs: ...``."""
    frame = program_frame(exc, directory)
    resource = resource_at(exc, directory)
    head = "".join(f"{part}: " for part in (frame, resource, title) if part)
    return [one_line(f"{head}{problem}") for problem in problems]


def _exit_message(exc: SystemExit, directory: Path) -> str:
    where = program_frame(exc, directory)
    at = f" at {where}" if where else ""
    call = "os._exit" if isinstance(exc, _HardExit) else "sys.exit"
    code = exc.code
    if code is None or code == 0:
        return (f"the program called {call}({code if code is not None else ''}){at} before it finished: nothing after "
                "it was declared, and `pulumi up` would take what was registered so far for the whole stack")
    if isinstance(code, int):
        return f"the program exited with status {code} ({call}{at}) before it finished"
    return one_line(f"the program exited{at} before it finished: {code}")


@contextmanager
def _hidden_environment() -> Iterator[None]:
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith(AMBIENT_PREFIXES) or k in AMBIENT_NAMES}
    try:
        yield
    finally:
        for key in [k for k in os.environ if k.startswith(AMBIENT_PREFIXES) or k in AMBIENT_NAMES]:
            del os.environ[key]
        os.environ.update(saved)


@contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """The program's stdout (``print``, ``sys.__stdout__``, even file descriptor 1) goes to stderr; stdin is empty."""
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    try:
        saved_fd = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no file descriptor 1 or 2 (closed by the caller): the Python-level redirect still holds
        saved_fd = None
    try:
        saved_err_fd: int | None = os.dup(2)  # a program that closes or replaces fd 2 must not take the CLI's stderr
    except OSError:
        saved_err_fd = None
    saved = sys.stdout, sys.stdin, sys.stderr
    sys.stdout, sys.stdin = sys.stderr, io.StringIO("")
    try:
        yield
    finally:
        for stream in (sys.__stdout__, saved[2]):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stdin, sys.stderr = saved  # a program may have replaced any of them
        if saved_err_fd is not None:
            os.dup2(saved_err_fd, 2)
            os.close(saved_err_fd)
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)


@contextmanager
def _exit_reported() -> Iterator[None]:
    """``os._exit`` from the program's own process raises instead of ending the process (a forked child still exits)."""
    real, pid = os._exit, os.getpid()

    def _exit(status: int) -> None:
        if os.getpid() != pid:
            real(status)
        raise _HardExit(status)

    os._exit = _exit
    try:
        yield
    finally:
        os._exit = real


@contextmanager
def isolated_program(main: Path, timeout: float | None) -> Iterator[None]:
    """Runs the block as the program's run: hidden environment, stdout to stderr, exits and timeouts as ProgramError."""
    directory = main.parent
    started = time.monotonic()
    cwd = os.getcwd()
    # As the language host does (pulumi-language-python-exec): a failed program leaves futures nobody awaits, and asyncio
    # would log each one with a traceback when it is collected, long after the one-line report.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    for watcher in WATCHERS:
        watcher(main, timeout)
    try:
        with _hidden_environment(), _stdout_to_stderr(), _exit_reported():
            try:
                yield
            finally:
                os.chdir(cwd)  # a program that changes folder must not move where the CLI writes next
    except SystemExit as exc:
        raise ProgramError(_exit_message(exc, directory)) from None
    except TimeoutError as exc:
        if timeout is None or time.monotonic() - started < timeout:
            raise  # the program's own TimeoutError (a socket, a lock): a failure like any other
        raise ProgramError(timeout_message(main.name, timeout)) from exc
    finally:
        for watcher in WATCHERS:
            watcher(None, None)


def timeout_message(program: str, timeout: float) -> str:
    """The one line for a program that ran past its time limit."""
    return (f"{program}: the program did not finish within {timeout:g} s: it waits for something that never comes (an "
            "Output that never resolves, input, a lock) or runs forever; raise the limit with --timeout")
