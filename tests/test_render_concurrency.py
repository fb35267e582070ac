"""Two renders into one folder at once: the second waits for the first (and says so) instead of taking the first one's
staging folder for a killed run's; both end with the folder holding exactly the plan's files. Two real processes
(forks of the test's process, each with its own lock on the folder: no interpreter start-up)."""

from __future__ import annotations

import io
import os
import sys
import time
import traceback
from pathlib import Path, PurePosixPath

from components.offline import output_dir
from components.offline.output_dir import MANIFEST, STAGING_PREFIX

FILES = {PurePosixPath("kubernetes/configmap-a.yaml"): b"a: 1\n", PurePosixPath("helm/r/values.yaml"): b"v: 1\n"}


def _write(out: Path, marker: Path, go: Path, pause: bool) -> None:
    """output_dir.write_files, with `pause`: stopped between staging the files and moving them into place (it touches
    `marker` there) until the test creates `go`."""
    if pause:
        real = output_dir._swap_in

        def paused(root: Path, staging: Path, paths: list[PurePosixPath]) -> None:
            marker.touch()
            for _ in range(12000):  # at most two minutes: never hang the suite
                if go.exists():
                    break
                time.sleep(0.01)
            real(root, staging, paths)

        output_dir._swap_in = paused  # the forked process's own module: the test's is untouched
    output_dir.write_files(out, FILES)
    print("written")


class Writer:
    """`_write` in a forked process of its own, its stdout and stderr on pipes."""

    def __init__(self, out: Path, marker: Path, go: Path, pause: bool) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:  # never returns into the test
            status = 1
            try:
                for fd in (out_r, err_r):
                    os.close(fd)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
                sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
                _write(out, marker, go, pause)
                status = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(status)
        os.close(out_w)
        os.close(err_w)
        self.stdout = os.fdopen(out_r, encoding="utf-8")
        self.stderr = os.fdopen(err_r, encoding="utf-8")
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status once the process has ended, else None."""
        if self.returncode is None:
            done, wait = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.returncode = os.waitstatus_to_exitcode(wait)
        return self.returncode

    def communicate(self) -> tuple[str, str]:
        """The rest of stdout and stderr once the process has ended (it writes a line or two)."""
        out, err = self.stdout.read(), self.stderr.read()
        self.stdout.close()
        self.stderr.close()
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return out, err


def test_a_second_render_waits_for_the_first_and_both_succeed(tmp_path):
    out = tmp_path / "work" / "rendered"
    marker, go = tmp_path / "staged", tmp_path / "go"
    out.parent.mkdir()

    first = Writer(out, marker, go, pause=True)
    while not marker.exists() and first.poll() is None:
        time.sleep(0.01)  # until the first has staged its files (it waits there for `go`)
    assert marker.exists(), first.communicate()
    second = Writer(out, marker, go, pause=False)
    said = second.stderr.readline()  # the second says it waits (then waits) before the first goes on
    go.touch()
    first_out, first_err = first.communicate()
    second_out, second_err = second.communicate()
    assert (first.returncode, first_out, first_err) == (0, "written\n", "")
    assert (second.returncode, second_out, second_err) == (0, "written\n", "")
    assert said == f"{out.resolve()}: another render is writing into this folder; waiting for it to finish\n"
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert left == sorted(["helm/r/values.yaml", "kubernetes/configmap-a.yaml", MANIFEST])
    assert not [p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)]
