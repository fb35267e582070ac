"""One contract: a setting added to a config model needs no second edit to reach the stack file's schema, the Python
args and the plugin's GetSchema. Proved on a scratch copy of the repository: add a field to the pool model,
regenerate (`python -m components docs`, the copy's own package), start the copy as Pulumi starts a plugin and ask it
for its schema.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import grpc
from pulumi.runtime.proto import provider_pb2_grpc

from tests.conftest import ROOT
from tests.forked_command import run_with_the_package_of
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


def test_a_field_added_to_the_pool_model_reaches_every_schema_with_no_second_edit(tmp_path, engine, consumer):  # noqa: F811
    repo = scratch_copy(tmp_path / "repo")
    add_pool_field(repo)
    # The copy's own CLI, its three docs runs in one process that imported the copy's package (and not this one's).
    done = json.loads(run_with_the_package_of(repo, DOCS_RUNS))
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
