"""Two renders into one folder at once: the second waits for the first (and says so) instead of taking the first one's
staging folder for a killed run's; both end with the folder holding exactly the plan's files. Two real processes."""

from __future__ import annotations

import subprocess
import sys
import time

from components.offline.output_dir import MANIFEST, STAGING_PREFIX
from tests.conftest import ROOT

WRITER = """
import sys, time
from pathlib import Path, PurePosixPath
sys.path.insert(0, {root!r})
from components.offline import output_dir

out, marker, go, pause = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "pause"
files = {{PurePosixPath("kubernetes/configmap-a.yaml"): b"a: 1\\n", PurePosixPath("helm/r/values.yaml"): b"v: 1\\n"}}
if pause:  # stop between staging the files and moving them into place, until the test says go
    real = output_dir._swap_in

    def paused(root, staging, paths):
        marker.touch()
        for _ in range(12000):  # at most two minutes: never hang the suite
            if go.exists():
                break
            time.sleep(0.01)
        real(root, staging, paths)

    output_dir._swap_in = paused
output_dir.write_files(out, files)
print("written")
"""


def test_a_second_render_waits_for_the_first_and_both_succeed(tmp_path):
    script, out = tmp_path / "writer.py", tmp_path / "work" / "rendered"
    marker, go = tmp_path / "staged", tmp_path / "go"
    script.write_text(WRITER.format(root=str(ROOT)))
    out.parent.mkdir()

    def writer(mode: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, str(script), str(out), str(marker), str(go), mode],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    first = writer("pause")
    while not marker.exists() and first.poll() is None:
        time.sleep(0.01)  # until the first has staged its files (it waits there for `go`)
    assert marker.exists(), first.communicate()
    second = writer("run")
    said = second.stderr.readline()  # the second says it waits (then waits) before the first goes on
    go.touch()
    first_out, first_err = first.communicate(timeout=120)
    second_out, second_err = second.communicate(timeout=120)
    assert (first.returncode, first_out, first_err) == (0, "written\n", "")
    assert (second.returncode, second_out, second_err) == (0, "written\n", "")
    assert said == f"{out.resolve()}: another render is writing into this folder; waiting for it to finish\n"
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert left == sorted(["helm/r/values.yaml", "kubernetes/configmap-a.yaml", MANIFEST])
    assert not [p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)]
