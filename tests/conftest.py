"""Shared fixtures: valid configs to start from, both engine modes, and the project's folder."""

from __future__ import annotations

import ast
import copy
import functools
import gc
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kubernetes_validate.utils
import pytest

# Collection as `python -m components` runs (components/__main__.py; pytest_collection_finish below says more): each
# worker imports the SDKs and rewrites the asserts of every test module, allocating millions of short-lived objects,
# and with the default thresholds the collector scans the whole loaded SDK again and again (about a third of the
# collection's time). Set here, before pytest imports the first test module.
gc.set_threshold(20_000, 20, 100)

ROOT = Path(__file__).resolve().parent.parent

# kubernetes_validate reads and parses a schema file and its 1.5 MB `_definitions.json` again on every validate()
# (kubernetes_validate/utils.py, schema_contents): files of the installed package that never change, so each is read
# once per test process (some 500 reads, over a second of the suite's CPU). What validate() checks, the schema version
# it picks and the errors it raises are its own, unchanged; the schemas are only read, never changed, by jsonschema.
kubernetes_validate.utils.schema_contents = functools.cache(kubernetes_validate.utils.schema_contents)

# The Kubernetes objects DraSamples creates, by type token.
SAMPLE_TYPES = (
    "kubernetes:core/v1:Namespace",
    "kubernetes:resource.k8s.io/v1:DeviceClass",
    "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate",
    "kubernetes:resource.k8s.io/v1:ResourceClaim",
    "kubernetes:networking.k8s.io/v1:NetworkPolicy",
    "kubernetes:batch/v1:Job",
)

# The smallest valid stack, as plain data (camelCase, as a stack file says it).
MINIMAL_STACK: dict[str, Any] = {
    "cluster": {
        "name": "aks-test",
        "location": "westeurope",
        "resourceGroup": {"name": "rg-test"},
        "kubernetesVersion": "1.35",
    },
    "gpuPools": [{"name": "gpu", "vmSize": "Standard_NV12ads_A10_v5", "count": 1}],
}


@pytest.fixture
def stack_data() -> dict[str, Any]:
    """A fresh copy of the minimal stack, to change in a test."""
    return copy.deepcopy(MINIMAL_STACK)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once per test process: several tests walk every module of the package
    (import circles, absolute imports, SDK internals), and none of them changes a tree or the file it was read from."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def as_config(data: dict[str, Any], project: str = "aks-dra-vgpu") -> dict[str, Any]:
    """Plain stack data as the Pulumi config map a program receives (``project:key`` -> value)."""
    return {f"{project}:{key}": value for key, value in data.items()}


@pytest.fixture(params=[True, False], ids=["preview", "update"])
def preview(request: pytest.FixtureRequest) -> bool:
    """Run a case both as `pulumi preview` (unknown outputs) and as `pulumi up` would."""
    return request.param


def scratch_project(folder: Path) -> Path:
    """`folder` made a copy of the project's program and project file, with an empty stacks/ for a test's own stacks."""
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", folder / "__main__.py")
    (folder / "stacks").mkdir()
    return folder


# Modules whose tests take seconds each (they start processes, build a wheel or wait for a time limit), longest first.
# They run first: pytest-xdist's worksteal hands each worker a contiguous share of the collection and lets an idle one
# take the tail of another's, so long tests at the end of the order would leave a core idle at the end of the run.
SLOW_FIRST = (
    "test_contract.py",
    "test_rightsize_prometheus.py",
    "test_docs_snippets.py",
    "test_package.py",
    "test_watchdog.py",
    "test_program_isolation.py",
    "test_verify_cli.py",
    "test_docs.py",
    "test_plugin.py",
    "test_observability.py",
    "test_lint.py",
    "test_engine_scale.py",
)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Garbage collection tuned as `python -m components` tunes it (components/__main__.py; the thresholds are set at
    the top of this file): what collection loaded (the SDKs, pydantic's models, the tests) is frozen, never scanned
    again, while plans allocate hundreds of thousands of short-lived objects. It was about a sixth of the tests' own
    CPU time. Cyclic garbage is still collected, and pytest collects once more at the end to report what a finaliser
    raised (a coroutine never awaited)."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of SLOW_FIRST first, in that order; every other test keeps its place after them."""
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))  # stable: each module's order is kept


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """A pytest-xdist worker ends here, as `python -m components` ends (components/__main__.py, `os._exit`): by now it
    has sent every report and its `workerfinished` to the controller and torn down every fixture, and what is left is
    the interpreter freeing a heap of several hundred MB object by object, which the controller waits for before it
    prints the summary (about 2 s of wall at the end of every run). Only workers: a run in one process (`-n 0`) ends
    as pytest ends it, with its exit status."""
    if hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


@pytest.fixture(scope="session")
def shipped_plan() -> Callable[..., Any]:
    """The repository's own stacks (stacks/Pulumi.<stack>.yaml) planned offline, each (stack, preview) once per
    session and worker: `shipped_plan("prod")` is `run_project(load_project(ROOT), "prod", preview=True)`. For tests
    that only read a plan; a test that changes one plans its own, or deep-copies what it changes."""
    from components.offline import load_project, run_project

    project = load_project(ROOT)

    @functools.cache
    def plan(stack: str, preview: bool = True) -> Any:
        return run_project(project, stack, preview=preview)

    return plan


# Run in a fresh interpreter by `fresh_process`: what `import components` loads, then what planning dev loads.
FRESH_PROCESS_PROBE = """import contextlib, io, json, sys
import components
imported = sorted(sys.modules)
from components.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["plan", "--stack", "dev", "--json"])
from components.config.base import Model
def subclasses(model):
    for sub in model.__subclasses__():
        yield sub
        yield from subclasses(sub)
built = sorted({m.__name__ for m in subclasses(Model)
                if type(m.__pydantic_validator__).__name__ != "MockValSer"})
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"imported": imported, "status": status, "planned": sorted(sys.modules), "built": built}, out)
"""


@pytest.fixture(scope="session")
def fresh_process(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One fresh interpreter in the repository: ``imported``, the modules loaded after `import components`; ``status``
    and ``planned``, the exit status of `cli.main(["plan", "--stack", "dev", "--json"])` run next and the modules
    loaded then; ``built``, the config models whose validators that plan built (pydantic builds a model with
    ``defer_build`` on its first use). For the tests of what the offline path never loads (one process for all of
    them, not one each)."""
    out = tmp_path_factory.mktemp("fresh") / "modules.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS_PROBE, str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The package's wheel installed in a fresh virtualenv, and a consumer project (tests/test_package.py builds them):
    once per session, not once per module that installs it (a build and a virtualenv cost seconds)."""
    from tests.test_package import build_installed

    return build_installed(tmp_path_factory)


@pytest.fixture
def project_dir() -> Path:
    """The repository's Pulumi project."""
    return ROOT


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing under test may reach for the developer's cluster."""
    monkeypatch.setenv("KUBECONFIG", os.devnull)


def all_waits(plan: Any, urn: str) -> set[str]:
    """Every urn a resource of a captured plan waits for, directly or through others: its dependencies, its parent
    and its provider (a provider reference is `<urn>::<id>`)."""
    index = {r.urn: r for r in plan.resources}
    seen: set[str] = set()
    todo = [urn]
    while todo:
        r = index.get(todo.pop())
        if r is None:
            continue
        links = [*r.dependencies, *([r.parent] if r.parent else []), *([r.provider.rsplit("::", 1)[0]] if r.provider else [])]
        for link in links:
            if link not in seen:
                seen.add(link)
                todo.append(link)
    return seen


@pytest.fixture(scope="module")
def arm():
    """One fake ARM (Compute usages and SKUs, tests.fake_compute) per test module that asks for it."""
    from tests.fake_compute import FakeCompute

    with FakeCompute() as fake:
        yield fake


@pytest.fixture
def arm_token(monkeypatch):
    """The held ARM token the fake expects, and no subscription from the environment."""
    from tests.fake_compute import TOKEN

    monkeypatch.setenv("ARM_ACCESS_TOKEN", TOKEN)
    for name in ("ARM_SUBSCRIPTION_ID", "AZURE_SUBSCRIPTION_ID"):
        monkeypatch.delenv(name, raising=False)
