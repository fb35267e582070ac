"""One contract: a setting added to a config model needs no second edit to reach the stack file's schema, the Python
args and the plugin's GetSchema. Proved on a scratch copy of the repository: add a field to the pool model,
regenerate (`python -m components docs`, the copy's own package), start the copy as Pulumi starts a plugin and ask it
for its schema.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import grpc
from pulumi.runtime.proto import provider_pb2_grpc

from tests.conftest import ROOT
from tests.test_plugin import consumer, engine, get_schema, started_plugin  # noqa: F401 (fixtures)

PACKAGE = "aks-dra-vgpu"
POOL_MODEL = Path("components/config/pools.py")
NEW_FIELD = '    probe_interval_seconds: int = Field(17, ge=1, description="A setting the contract test adds.")\n'


def scratch_copy(target: Path) -> Path:
    """The repository's tracked files (as `git ls-files` lists them, working-tree content) copied to `target`."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def add_pool_field(repo: Path) -> None:
    """Adds NEW_FIELD to GpuPoolConfig, right after its docstring: the one edit a new setting takes."""
    path = repo / POOL_MODEL
    lines = path.read_text().splitlines(keepends=True)
    model = next(n for n in ast.parse("".join(lines)).body if isinstance(n, ast.ClassDef) and n.name == "GpuPoolConfig")
    after_docstring = model.body[0].end_lineno or 0
    path.write_text("".join([*lines[:after_docstring], NEW_FIELD, *lines[after_docstring:]]))


# `docs --check`, `docs`, `docs --check` as `python -m components` runs them (cli.main), each one's exit status and
# stdout, and the fields of the copy's GpuNodePoolArgs.
DOCS_RUNS = """import contextlib, io, json
from components.cli import main
runs = []
for argv in (["docs", "--check"], ["docs"], ["docs", "--check"]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(argv)
    runs.append((status, out.getvalue()))
from components.azure.gpu_pool import GpuNodePoolArgs
print(json.dumps({"runs": runs, "fields": list(GpuNodePoolArgs.model_fields)}))
"""


def run_in_copy(repo: Path, code: str) -> str:
    """What `code` prints, run by the copy's own package: in a fork of this process that has unloaded this checkout's
    `components` and imports the copy's in its place (the SDKs it imports stay loaded: no interpreter start-up, no
    second import of pulumi and the Azure SDK, about a second and a half less than a fresh `python -c`)."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the copy's run: never returns into the test
        status = 1
        try:
            os.close(read_end)
            for name in [m for m in sys.modules if m == "components" or m.startswith("components.")]:
                del sys.modules[name]
            sys.path.insert(0, str(repo))
            os.chdir(repo)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, "<the copy's docs runs>", "exec"), {"__name__": "__main__"})
            os.write(write_end, out.getvalue().encode())
            status = 0
        except BaseException:
            os.write(write_end, ("FAILED\n" + traceback.format_exc()).encode())
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        text = pipe.read().decode()
    _, wait = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(wait) == 0, text
    return text


def test_a_field_added_to_the_pool_model_reaches_every_schema_with_no_second_edit(tmp_path, engine, consumer):  # noqa: F811
    repo = scratch_copy(tmp_path / "repo")
    add_pool_field(repo)
    # The copy's own CLI, its three docs runs in one process that imported the copy's package (and not this one's).
    done = json.loads(run_in_copy(repo, DOCS_RUNS))
    (check, stale), (regenerate, _), (recheck, _) = done["runs"]
    assert check == 3 and {"docs/stack.schema.json", "components/host/schema.json"} <= set(stale.split())  # stale
    assert regenerate == 0
    assert recheck == 0  # nothing else is stale: the one edit was enough

    stack = json.loads((repo / "docs/stack.schema.json").read_text())
    assert stack["$defs"]["GpuPoolConfig"]["properties"]["probeIntervalSeconds"]["default"] == 17
    assert "probe_interval_seconds" in done["fields"]

    address = engine[0]
    with started_plugin(address, consumer, folder=repo) as (port, _), grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        served = get_schema(provider_pb2_grpc.ResourceProviderStub(channel))
    for spec in (served["resources"][f"{PACKAGE}:index:GpuNodePool"]["inputProperties"],
                 served["types"][f"{PACKAGE}:index:GpuPool"]["properties"]):
        assert spec["probeIntervalSeconds"] == {"description": "A setting the contract test adds.", "type": "integer",
                                                "default": 17, "plain": True}
    # This checkout's plugin has no such setting: the copy served its own models, not these.
    assert "probeIntervalSeconds" not in json.loads((ROOT / "components/host/schema.json").read_text())["types"][
        f"{PACKAGE}:index:GpuPool"]["properties"]
