"""The program's own behaviour never speaks for the CLI: its output, its exit, its time, the shell's PULUMI_* variables.

Table-driven through `components.cli.main` in-process; the few things only a real process shows (file descriptor 1,
atexit handlers, a thread that never ends, a closed pipe) run `python -m components` in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from components import watchdog
from components.cli import main
from tests.conftest import ROOT
from tests.forked_command import forked

PROJECT = "name: p\nruntime: python\n"
EXPORT = "import pulumi\npulumi.export('x', 1)\n"


def project(folder: Path, program: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Pulumi.yaml").write_text(PROJECT)
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(program)
    return folder


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- a program that stops early, fails or never ends: one line, exit 2 ---------------------------------------------------
STOPS = {
    "sys-exit-0": ("import sys\nsys.exit(0)\n", "the program", "sys.exit(0) at __main__.py:2 before it finished"),
    "sys-exit-none": ("import sys\nsys.exit()\n", "the program", "sys.exit() at __main__.py:2"),
    "sys-exit-3": ("import sys\nsys.exit(3)\n", "the program", "exited with status 3"),
    "sys-exit-text": ("import sys\nsys.exit('bye now')\n", "the program", "bye now"),
    "exit-after-a-resource": (EXPORT + "raise SystemExit(0)\n", "the program", "before it finished"),
    "os-exit": ("import os\nos._exit(0)\n", "the program", "os._exit(0)"),
    "exit-in-an-apply": ("import pulumi, sys\npulumi.export('x', pulumi.Output.from_input(1).apply(lambda v: sys.exit(0)))\n",
                         "the program", "sys.exit(0)"),
    "raises": ("raise ValueError('boom')\n", "__main__.py:1", "ValueError: boom"),
    "raises-multi-line": ("raise ValueError('one\\ntwo')\n", "__main__.py:1", "one two"),
    "raises-in-an-apply": ("import pulumi\npulumi.export('x', pulumi.Output.from_input(0).apply(lambda v: 1 / v))\n",
                           "__main__.py:2", "ZeroDivisionError"),
    "syntax-error": ("def (:\n", "__main__.py:1", "not valid Python"),
    "import-error": ("import no_such_module_here\n", "__main__.py:1", "ModuleNotFoundError"),
    "reads-stdin": ("input()\n", "__main__.py:1", "EOFError"),
    "recursion": ("def f():\n    f()\nf()\n", "__main__.py", "RecursionError"),
    "memory-error": ("raise MemoryError()\n", "__main__.py:1", "MemoryError"),
    "run-error": ("import pulumi\nraise pulumi.RunError('stop')\n", "__main__.py:2", "RunError: stop"),
    "its-own-timeout-error": ("raise TimeoutError('socket')\n", "__main__.py:1", "TimeoutError: socket"),
    "input-property-error": ("import pulumi\nraise pulumi.InputPropertyError('a.b', 'no good')\n", "a.b", "no good"),
    "base-exception": ("raise BaseException('odd')\n", "__main__.py:1", "BaseException: odd"),
    "generator-exit": ("raise GeneratorExit()\n", "__main__.py:1", "GeneratorExit"),
    # Not the user's Ctrl-C (no SIGINT arrived): the program's own failure, exit 2, not 130.
    "raises-keyboard-interrupt": ("raise KeyboardInterrupt\n", "__main__.py:1", "KeyboardInterrupt"),
    "replaces-sys-stderr": ("import sys\nsys.stderr = None\nraise ValueError('x')\n", "__main__.py:3", "ValueError: x"),
    "replaces-sys-streams": ("import io, sys\nsys.stdout = sys.stderr = io.StringIO()\nraise ValueError('y')\n",
                             "__main__.py:3", "ValueError: y"),
}


@pytest.mark.parametrize("name", sorted(STOPS))
def test_a_program_that_does_not_run_to_its_end_is_reported_as_what_it_is(name, tmp_path, capsys):
    program, starts, says = STOPS[name]
    status, out, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(project(tmp_path / name, program)))
    assert status == 2, err
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(starts) and says in err, err


HANGS = {
    "output-never-resolves": "import asyncio, pulumi\n"
    "pulumi.export('x', pulumi.Output.from_input(asyncio.get_event_loop().create_future()))\n",
    "busy-loop": "while True:\n    pass\n",
    "sleeps": "import time\ntime.sleep(3600)\n",
    "waits-on-an-event": "import threading\nthreading.Event().wait()\n",
}


@pytest.mark.parametrize("name", sorted(HANGS))
def test_a_program_that_never_finishes_is_stopped_at_the_time_limit_and_the_next_run_works(name, tmp_path, capsys):
    started = time.monotonic()
    status, out, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(project(tmp_path / name, HANGS[name])),
                           "--timeout", "0.3")
    assert time.monotonic() - started < 10
    assert (status, out) == (2, "") and "did not finish within 0.3 s" in err and "--timeout" in err
    # Whatever the stuck run still holds, the next one is not kept waiting (no lock, no environment of its own).
    status, out, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(project(tmp_path / "next", EXPORT)),
                           "--json")
    assert (status, err) == (0, "") and json.loads(out)["outputs"] == {"x": 1}


# --- its output stays off the plan ---------------------------------------------------------------------------------------
NOISY = {
    "print": "print('hello from the program')\n",
    "sys-stdout": "import sys\nsys.stdout.write('hello\\n')\n",
    "dunder-stdout": "import sys\nsys.__stdout__.write('hello\\n')\n",
    "file-descriptor-1": "import os\nos.write(1, b'hello\\n')\n",
    "print-in-an-apply": "import pulumi\npulumi.export('y', pulumi.Output.from_input(2).apply(lambda v: print('hello') or v))\n",
}


@pytest.mark.parametrize("name", sorted(NOISY))
def test_what_a_program_prints_goes_to_stderr_and_the_plan_document_parses(name, tmp_path, capfd):
    folder = project(tmp_path / name, NOISY[name] + EXPORT)
    status = main(["plan", "--stack", "dev", "--project-dir", str(folder), "--json"])
    out, err = capfd.readouterr()  # file descriptors 1 and 2: what Python writes and what the program writes itself
    assert status == 0
    assert json.loads(out)["outputs"]["x"] == 1  # stdout holds the plan document and nothing else
    assert "hello" not in out and "hello" in err


def test_stdout_and_stdin_are_the_callers_again_after_the_run(tmp_path, capsys):
    before = sys.stdout, sys.stdin
    cli(capsys, "plan", "--stack", "dev", "--project-dir", str(project(tmp_path / "p", "print('x')\n" + EXPORT)))
    assert (sys.stdout, sys.stdin) == before


# --- the shell's PULUMI_* variables do not change an offline plan ---------------------------------------------------------
AMBIENT = {
    "PULUMI_CONFIG": json.dumps({"aks-dra-vgpu:samples": json.dumps({"enabled": False})}),
    "PULUMI_CONFIG_SECRET_KEYS": json.dumps(["aks-dra-vgpu:draDriver"]),
    "PULUMI_CONFIG_AKS_DRA_VGPU_SAMPLES": json.dumps({"enabled": False}),
    "PULUMI_CONFIG_AKS_DRA_VGPU_DRADRIVER": json.dumps({"chartVersion": "0.4.0"}),
    "PULUMI_ERROR_OUTPUT_STRING": "true",
    "PULUMI_DISABLE_RESOURCE_REFERENCES": "true",
    "PULUMI_STACK": "prod",
    "PULUMI_PROJECT": "other",
    "PULUMI_CONFIG_PASSPHRASE": "hunter2",
}
# The config-carrying ones are ignored with one warning line naming them; the others (and the passphrase) silently.
CONFIG_VARIABLES = {"PULUMI_CONFIG", "PULUMI_CONFIG_SECRET_KEYS", "PULUMI_CONFIG_AKS_DRA_VGPU_SAMPLES",
                    "PULUMI_CONFIG_AKS_DRA_VGPU_DRADRIVER"}
MIN_STACK = """config:
  aks-dra-vgpu:cluster: {name: aks-min, location: westeurope, resourceGroup: {name: rg-min}, kubernetesVersion: "1.35"}
  aks-dra-vgpu:gpuPools: [{name: gpu, vmSize: Standard_NV12ads_A10_v5, count: 1}]
"""


@pytest.fixture(scope="module")
def minimal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A project with a stack that leaves samples and draDriver unset (so a per-key variable would fill them), and its
    plan made in a clean environment."""
    import contextlib
    import io
    import shutil

    folder = tmp_path_factory.mktemp("ambient")
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", folder / "__main__.py")
    (folder / "stacks").mkdir()
    (folder / "stacks" / "Pulumi.dev.yaml").write_text(MIN_STACK)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", "dev", "--project-dir", str(folder), "--json"]) == 0
    return folder, buffer.getvalue()


@pytest.mark.parametrize("variable", sorted(AMBIENT))
def test_an_ambient_pulumi_variable_does_not_change_the_plan(variable, minimal, monkeypatch, capsys):
    folder, clean = minimal
    monkeypatch.setenv(variable, AMBIENT[variable])
    status, out, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(folder), "--json")
    assert status == 0
    if variable in CONFIG_VARIABLES:
        assert err.startswith(f"warning: ignoring {variable} from the environment:") and err.count("\n") == 1, err
        assert "config from the stack file only" in err
    else:
        assert err == ""
    assert out == clean
    assert os.environ[variable] == AMBIENT[variable]  # the caller's environment is given back as it was


@pytest.mark.parametrize("command", ["plan", "render"])
def test_all_ambient_config_variables_are_named_in_one_warning_and_change_nothing(command, minimal, monkeypatch, tmp_path,
                                                                                 capsys):
    folder, clean = minimal
    for name, value in AMBIENT.items():
        monkeypatch.setenv(name, value)
    extra = ["--json"] if command == "plan" else ["--out", str(tmp_path / "out")]
    status, out, err = cli(capsys, command, "--stack", "dev", "--project-dir", str(folder), *extra)
    assert status == 0
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("warning: ignoring")] and len(
        err.splitlines()) == 1
    assert all(name in err for name in CONFIG_VARIABLES) and "PASSPHRASE" not in err
    if command == "plan":
        assert out == clean


def test_the_control_a_per_key_variable_would_have_filled_the_stack(minimal, monkeypatch):
    # Without the offline engine hiding it, the SDK itself reads PULUMI_CONFIG_<KEY> (pulumi/runtime/config.py).
    import pulumi

    monkeypatch.setenv("PULUMI_CONFIG_AKS_DRA_VGPU_SAMPLES", "x")
    assert pulumi.runtime.get_config("aks-dra-vgpu:samples") == "x"


# --- what only a real process shows -----------------------------------------------------------------------------------------
def python_m_components(*argv: str, cwd: Path = ROOT, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    return subprocess.run([sys.executable, "-m", "components", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_a_real_process_keeps_stdout_for_the_plan_whatever_the_program_writes(tmp_path):
    noisy = ("import atexit, os, sys, threading, time\n"
             "print('print'); sys.__stdout__.write('dunder\\n'); os.write(1, b'fd\\n')\n"
             "atexit.register(lambda: print('atexit'))\n"
             "threading.Thread(target=time.sleep, args=(3600,)).start()\n") + EXPORT
    folder = project(tmp_path / "noisy", noisy)
    done = python_m_components("plan", "--stack", "dev", "--project-dir", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outputs"] == {"x": 1}  # nothing else on stdout, not even at exit
    assert "Traceback" not in done.stderr


FOREVER = {
    "sleeps": "import time\ntime.sleep(3600)\n",
    # One C call that never lets go of the interpreter lock: only the supervising process (components/watchdog.py) can stop it.
    "regex-backtracking": "import re\nre.match('(a+)+$', 'a' * 64 + 'b')\n",
    "big-sum": "sum(range(10 ** 15))\n",
    "output-never-resolves": "import asyncio, pulumi\nloop = asyncio.get_event_loop()\n"
                             "pulumi.export('x', pulumi.Output(set(), loop.create_future(), loop.create_future()))\n",
}
# One C call that keeps the lock as the two above do, asleep (a PyDLL function does not let go of the lock): for the
# command whose run only needs to show the same stop, without burning a core until it comes.
FOREVER["holds-the-lock-asleep"] = "import ctypes\nctypes.PyDLL(None).sleep(3600)\n"
LOCK_HOLDERS = ("regex-backtracking", "big-sum", "holds-the-lock-asleep")


# Every kind of program with `plan`; `render` runs programs the same way (cli/running.py), so one kind suffices there.
@pytest.mark.parametrize(("name", "command"), [*((name, "plan") for name in sorted(FOREVER) if "asleep" not in name),
                                               ("holds-the-lock-asleep", "render")])
def test_a_real_process_stops_a_program_that_never_ends(name, command, tmp_path, monkeypatch):
    # The command as a process of its own, forked from this one (tests/forked_command.py: no interpreter start-up). A
    # program that holds the interpreter lock cannot be reported by the in-process limit, so the supervisor's grace
    # before it ends the process is idle time here: shortened, the same path runs.
    if name in LOCK_HOLDERS:
        monkeypatch.setattr(watchdog, "GRACE", 0.1)
    folder = project(tmp_path / "forever", FOREVER[name])
    extra = ["--out", str(tmp_path / "out")] if command == "render" else []
    started = time.monotonic()
    proc = forked(command, "--stack", "dev", "--project-dir", str(folder), "--timeout", "0.3", *extra, cwd=ROOT)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.close()
    assert time.monotonic() - started < 15
    assert proc.returncode == 2 and stdout == "" and "did not finish within 0.3 s" in stderr, stderr
    assert len(stderr.splitlines()) == 1 and "--timeout" in stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.parametrize("closes", ["1", "2", "1, 2"])
def test_a_program_that_closes_the_standard_descriptors_does_not_silence_the_command(closes, tmp_path):
    program = f"import os\nfor fd in ({closes},):\n    os.close(fd)\nraise ValueError('after closing')\n"
    proc = forked("plan", "--stack", "dev", "--project-dir", str(project(tmp_path / "p", program)), cwd=ROOT)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.close()
    assert proc.returncode == 2 and stdout == ""
    assert stderr.startswith("__main__.py:4: the program failed: ValueError: after closing"), stderr


def test_help_says_the_default_time_limit(capsys):
    status, out, _ = cli(capsys, "plan", "--help")  # argparse's help: nothing a real process would change
    assert status == 0 and "(default: 120)" in " ".join(out.split())


def test_a_reader_that_goes_away_is_no_traceback(tmp_path):
    folder = project(tmp_path / "p", "import pulumi\nfor i in range(200):\n    pulumi.export(f'x{i}', 'y' * 100)\n")
    argv = [sys.executable, "-m", "components", "plan", "--stack", "dev", "--json", "--project-dir", str(folder)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(10)
        proc.stdout.close()  # like `| head -c 10`
        err = proc.stderr.read().decode()
        proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err



def test_a_program_that_changes_folder_does_not_move_where_render_writes(tmp_path, monkeypatch, capsys):
    import shutil

    folder = tmp_path / "project"
    shutil.copytree(ROOT / "stacks", folder / "stacks")
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    (folder / "__main__.py").write_text("import os\nos.chdir(os.sep)\n" + (ROOT / "__main__.py").read_text())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    status, out, err = cli(capsys, "render", "--stack", "dev", "--project-dir", str(folder), "--out", "rendered")
    assert (status, err) == (0, "")
    assert Path.cwd() == work and (work / "rendered" / "kubernetes").is_dir()
    assert out.splitlines()[0].startswith("rendered/")


def test_a_failed_program_leaves_no_traceback_for_later(tmp_path, capsys):
    import gc
    import logging

    class Records(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[logging.LogRecord] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.seen.append(record)

    records = Records()
    logging.getLogger("asyncio").addHandler(records)
    try:
        # Fails inside the SDK's serialization of a resource, leaving a future with an exception that nobody awaits.
        nan = "import pulumi_kubernetes as k8s\nk8s.core.v1.ConfigMap('cm', data={'a': float('nan')})\n"
        status, _, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(project(tmp_path / "nan", nan)))
        gc.collect()  # asyncio would log each such future, with its traceback, when it is collected
    finally:
        logging.getLogger("asyncio").removeHandler(records)
    assert status == 2 and "Traceback" not in err
    assert [r.getMessage() for r in records.seen] == []
