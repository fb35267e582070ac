"""Two renders into one folder at once: the second waits for the first (and says so) instead of taking the first one's
staging folder for a killed run's; both end with the folder holding exactly the plan's files. Two real processes
(forks of the test's process, each with its own lock on the folder: no interpreter start-up)."""

from __future__ import annotations

import time
from pathlib import Path, PurePosixPath

from components.offline import output_dir
from components.offline.output_dir import MANIFEST, STAGING_PREFIX
from tests.forked_command import ForkedCommand, forked_call

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


def writer(out: Path, marker: Path, go: Path, pause: bool) -> ForkedCommand:
    """`_write` in a forked process of its own, its stdout and stderr on pipes."""

    def run() -> int:
        _write(out, marker, go, pause)
        return 0

    return forked_call(run, out.parent)


def test_a_second_render_waits_for_the_first_and_both_succeed(tmp_path):
    out = tmp_path / "work" / "rendered"
    marker, go = tmp_path / "staged", tmp_path / "go"
    out.parent.mkdir()

    first = writer(out, marker, go, pause=True)
    while not marker.exists() and first.poll() is None:
        time.sleep(0.01)  # until the first has staged its files (it waits there for `go`)
    assert marker.exists(), first.communicate()
    second = writer(out, marker, go, pause=False)
    said = second.stderr_line()  # the second says it waits (then waits) before the first goes on
    go.touch()
    first_out, first_err = first.communicate()
    second_out, second_err = second.communicate()
    assert (first.returncode, first_out, first_err) == (0, "written\n", "")
    assert (second.returncode, second_out, second_err) == (0, "written\n", said)  # that line, and nothing else
    assert said == f"{out.resolve()}: another render is writing into this folder; waiting for it to finish\n"
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert left == sorted(["helm/r/values.yaml", "kubernetes/configmap-a.yaml", MANIFEST])
    assert not [p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)]
