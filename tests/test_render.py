"""`render`: each stack's Kubernetes objects as complete manifests that pass the official schemas, plus the Helm values."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import traceback
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from components.cli import main
from components.offline import Plan, Registration, load_project, run_project
from components.offline.output_dir import MANIFEST, OutputError
from components.offline.render import CLUSTER_SCOPED_KINDS, render
from tests.conftest import ROOT

VERSIONS = ("1.34", "1.35", "1.36")
STACKS = ("dev", "prod")
RELEASE = "nvidia-dra-driver-gpu"
SCRAPE_GROUPS = ("azmonitoring.coreos.com", "monitoring.coreos.com")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, tuple[Plan, Path, list[Path]]]:
    """Each stack planned once and rendered into its own folder: (plan, folder, written paths)."""
    project = load_project(ROOT)
    out = {}
    for stack in STACKS:
        plan = run_project(project, stack, preview=True)
        folder = tmp_path_factory.mktemp(stack)
        out[stack] = (plan, folder, render(plan, folder))
    return out


def load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def manifests(folder: Path) -> dict[str, dict]:
    return {p.name: load(p) for p in sorted((folder / "kubernetes").glob("*.yaml"))}


# What each stack renders: one file per Kubernetes object (the samples), named by kind and name.
MANIFESTS = {
    "dev": [
        "deviceclass-a10-vgpu.yaml",
        "job-nvidia-smi.yaml",
        "namespace-dra-samples.yaml",
        "networkpolicy-deny-all.yaml",
        "resourceclaim-a10-vgpu-shared.yaml",
        "resourceclaimtemplate-a10-vgpu-4gib.yaml",
    ],
    "prod": [
        "deviceclass-a10-vgpu.yaml",
        "namespace-dra-samples.yaml",
        # Managed Prometheus with GPU metrics: one scrape object per target, of AKS's metrics add-on's group.
        "podmonitor-nvidia-dra-driver-gpu-kubelet-plugin.yaml",
        "resourceclaim-a10-vgpu-shared.yaml",
        "resourceclaimtemplate-a10-vgpu-24gib.yaml",
        "resourceclaimtemplate-a10-vgpu-8gib.yaml",
        "servicemonitor-dcgm-exporter.yaml",
    ],
}
# The Helm releases each stack renders: the DRA driver, and dcgm-exporter where GPU metrics are on.
RELEASES = {"dev": [RELEASE], "prod": ["dcgm-exporter", RELEASE]}


@pytest.mark.parametrize("stack", STACKS)
def test_each_stack_renders_one_file_per_object_and_its_releases(rendered, stack):
    _, folder, written = rendered[stack]
    objects = manifests(folder)
    assert sorted(objects) == MANIFESTS[stack]
    on_disk = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert written == on_disk
    assert sorted(p.name for p in (folder / "helm").iterdir()) == RELEASES[stack]
    assert {p.relative_to(folder).as_posix() for p in on_disk if p.parts[-3] == "helm"} >= {
        f"helm/{RELEASE}/release.yaml", f"helm/{RELEASE}/values.yaml"
    }
    scrapers = {o["apiVersion"] for n, o in objects.items() if n.startswith(("podmonitor", "servicemonitor"))}
    # prod's managed Prometheus reads AKS's metrics add-on's group only; dev scrapes nothing.
    assert scrapers == ({"azmonitoring.coreos.com/v1"} if stack == "prod" else set())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stack", STACKS)
def test_every_object_passes_the_strict_schema(rendered, stack, version):
    found = manifests(rendered[stack][1])
    assert found
    for name, obj in found.items():
        if obj["apiVersion"].split("/")[0] in SCRAPE_GROUPS:
            continue  # defined by a CRD, not a Kubernetes built-in: tests/test_observability_render.py checks its shape
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            pytest.fail(f"{stack}: {name} is not a valid {version} object: {err.message}")


@pytest.mark.parametrize("stack", STACKS)
def test_manifests_are_complete_as_applied(rendered, stack):
    plan, folder, _ = rendered[stack]
    for name, obj in manifests(folder).items():
        assert list(obj)[:3] == ["apiVersion", "kind", "metadata"], name
        assert obj["metadata"]["name"] and "[unknown]" not in yaml.safe_dump(obj), name
        if obj["kind"] not in CLUSTER_SCOPED_KINDS:
            assert obj["metadata"]["namespace"] in {"dra-samples", "gpu-metrics", "nvidia-dra-driver-gpu"}, name
        assert not [k for k in obj if k.startswith("__")], name
        assert name == f"{obj['kind'].lower()}-{obj['metadata']['name']}.yaml"
    # The same objects as the plan declares, field for field.
    declared = {r.inputs["metadata"]["name"]: r.inputs for r in plan.resources if r.type.startswith("kubernetes:resource")}
    for obj in manifests(folder).values():
        if obj["metadata"]["name"] in declared:
            assert obj == declared[obj["metadata"]["name"]]


def _claim(request: dict) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "x", "namespace": "dra-samples"},
        "spec": {"devices": {"requests": [request]}},
    }


@pytest.mark.parametrize("version", VERSIONS)
def test_a_v1beta1_shaped_request_fails_v1_validation(version):
    v1beta1 = {"name": "gpu", "deviceClassName": "a10-vgpu", "allocationMode": "ExactCount", "count": 1}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(_claim(v1beta1), version, strict=True)
    v1 = {"name": "gpu", "exactly": {k: v for k, v in v1beta1.items() if k != "name"}}
    kubernetes_validate.validate(_claim(v1), version, strict=True)  # the same request, v1-shaped, passes


@pytest.mark.parametrize("stack", STACKS)
def test_values_are_exactly_what_the_release_gets_with_the_driver_flags(rendered, stack):
    plan, folder, _ = rendered[stack]
    values = load(folder / "helm" / RELEASE / "values.yaml")
    assert values == plan.one("kubernetes:helm.sh/v3:Release", "gpu-dra-driver-release").inputs["values"]
    assert values["resources"]["gpus"]["enabled"] is True
    assert values["gpuResourcesEnabledOverride"] is True
    assert values["featureGates"]["IMEXDaemonsWithDNSNames"] is False
    assert values["nvidiaDriverRoot"] == "/"
    assert values["kubeletPlugin"]["nodeSelector"]["nvidia.com/gpu.present"] == "true"


def test_prod_values_let_the_plugin_onto_tainted_pools(rendered):
    values = load(rendered["prod"][1] / "helm" / RELEASE / "values.yaml")
    keys = {t["key"] for t in values["kubeletPlugin"]["tolerations"]}
    # The spot pool's nodes carry AKS's own taint: without its toleration they get no plugin and no ResourceSlice.
    assert keys == {"nvidia.com/gpu", "workload-class", "kubernetes.azure.com/scalesetpriority"}


@pytest.mark.parametrize("stack", STACKS)
def test_release_file_names_chart_version_repository_namespace(rendered, stack):
    release = load(rendered[stack][1] / "helm" / RELEASE / "release.yaml")
    assert release == {
        "name": RELEASE,
        "chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
        "version": "0.4.1",
        "repository": None,  # an OCI chart is one full reference (helm.v3.Release takes no repository for it)
        "namespace": "nvidia-dra-driver-gpu",
    }


@pytest.mark.parametrize("stack", STACKS)
def test_stack_outputs_name_the_device_class_and_templates(rendered, stack):
    outputs = rendered[stack][0].outputs
    assert outputs["deviceClassName"] == "a10-vgpu"
    expected = {"dev": {"4GiB": "a10-vgpu-4gib"}, "prod": {"8GiB": "a10-vgpu-8gib", "24GiB": "a10-vgpu-24gib"}}
    assert outputs["claimTemplateNames"] == expected[stack]


def test_cli_render_is_byte_identical_to_an_earlier_render(rendered, tmp_path):
    _, folder, written = rendered["dev"]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(tmp_path)]) == 0
    again = sorted(p for p in tmp_path.rglob("*") if p.is_file() and p.name != MANIFEST)
    assert stdout.getvalue().split() == [str(p) for p in again]
    assert [p.relative_to(tmp_path) for p in again] == [p.relative_to(folder) for p in written]
    for new, old in zip(again, written, strict=True):
        assert new.read_bytes() == old.read_bytes(), new.name


def test_rerender_removes_what_it_wrote_before_and_keeps_other_files(rendered, tmp_path):
    dev, prod = rendered["dev"][0], rendered["prod"][0]
    render(dev, tmp_path)
    stale = tmp_path / "kubernetes" / "job-nvidia-smi.yaml"
    assert stale.exists()
    mine = {tmp_path / "NOTES.txt": "mine\n", tmp_path / "kubernetes" / "mine.yaml": "mine\n",
            tmp_path / "helm" / "old-release" / "values.yaml": "{}\n"}
    for path, text in mine.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    render(prod, tmp_path)
    assert not stale.exists()  # written by the dev render, not declared by prod
    assert {path: path.read_text() for path in mine} == mine  # never written by render: untouched
    assert (tmp_path / "kubernetes" / "deviceclass-a10-vgpu.yaml").exists()


FOUR_SIZES = {
    "aks-dra-vgpu:cluster": {"name": "aks-four", "location": "westeurope", "resourceGroup": {"name": "rg-four"},
                             "kubernetesVersion": "1.36"},
    "aks-dra-vgpu:gpuPools": [
        {"name": "small", "vmSize": "Standard_NV6ads_A10_v5", "count": 1},
        {"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "count": 1, "taints": ["size=8:NoSchedule"]},
        {"name": "half", "vmSize": "Standard_NV18ads_A10_v5", "count": 1, "taints": ["size=12:NoSchedule"]},
        {"name": "pairs", "vmSize": "Standard_NV72ads_A10_v5", "count": 1, "taints": ["size=24:NoSchedule"]},
    ],
    "aks-dra-vgpu:samples": {"workloadMemoryGiB": 8, "extendedResourceName": "example.com/a10"},
}


@pytest.fixture(scope="module")
def four_sizes(tmp_path_factory) -> dict[str, dict]:
    """A stack with all four slice sizes (and two-device nodes), rendered: its manifests by file name."""
    project = tmp_path_factory.mktemp("four")
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (project / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.four.yaml").write_text(yaml.safe_dump({"config": FOUR_SIZES}))
    out = project / "out"
    render(run_project(load_project(project), "four", preview=True), out)
    return manifests(out)


@pytest.mark.parametrize("version", VERSIONS)
def test_four_sizes_render_valid_best_fit_templates(four_sizes, version):
    templates = {k: v for k, v in four_sizes.items() if k.startswith("resourceclaimtemplate-")}
    assert sorted(templates) == [f"resourceclaimtemplate-a10-vgpu-{n}.yaml"
                                 for n in ("12gib", "24gib", "2x24gib", "4gib", "8gib")]
    (request,) = templates["resourceclaimtemplate-a10-vgpu-4gib.yaml"]["spec"]["spec"]["devices"]["requests"]
    assert [s["name"] for s in request["firstAvailable"]] == ["4gib", "8gib", "12gib", "24gib"]
    for name, obj in four_sizes.items():
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            pytest.fail(f"{name} is not a valid {version} object: {err.message}")


def test_four_sizes_job_tolerates_only_its_own_size(four_sizes):
    pod = four_sizes["job-nvidia-smi.yaml"]["spec"]["template"]["spec"]
    assert pod["tolerations"] == [{"key": "size", "operator": "Equal", "value": "8", "effect": "NoSchedule"}]
    assert pod["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "a10-vgpu-8gib"}]
    assert four_sizes["deviceclass-a10-vgpu.yaml"]["spec"]["extendedResourceName"] == "example.com/a10"


# --- hostile output folders: refused in one line, nothing outside what render wrote is touched ----------------------------
def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every path below `folder` with its bytes (files), its target (links) or "dir"."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        found[key] = f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes() if path.is_file() else "dir"
    return found


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def render_cli(out: str) -> tuple[int, str, str]:
    return cli("render", "--stack", "dev", "--project-dir", str(ROOT), "--out", out)


def refused(result: tuple[int, str, str], *says: str) -> None:
    status, out, err = result
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert all(s in err for s in says), err


@pytest.mark.parametrize("text", ["", " ", "\t"])
def test_an_empty_out_is_refused_and_nothing_is_written_here(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(render_cli(text), "--out", "empty path")
    assert list(tmp_path.iterdir()) == []


def test_an_out_that_is_a_file_a_dangling_link_or_below_a_file_is_refused(tmp_path):
    file = tmp_path / "file"
    file.write_text("mine")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    before = snapshot(tmp_path)
    refused(render_cli(str(file)), "is a file")
    refused(render_cli(str(tmp_path / "dangling")), "symbolic link to nothing")
    refused(render_cli(str(file / "below")), "is a file")
    assert snapshot(tmp_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_out_that_cannot_be_written_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    refused(render_cli(str(locked)), "not writable")
    refused(render_cli(str(locked / "new")), "not writable")


def test_files_render_did_not_write_are_never_touched(rendered, tmp_path):
    mine = {"NOTES.txt": "n", "kubernetes/mine.yaml": "m", "helm/other/values.yaml": "v", "helm/other/release.yaml": "r",
            "kubernetes/sub/deep.yaml": "d"}
    for rel, text in mine.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    for plan in (rendered["dev"][0], rendered["prod"][0], rendered["dev"][0]):
        render(plan, tmp_path)
        assert {rel: (tmp_path / rel).read_text() for rel in mine} == mine


def test_a_file_of_the_users_where_render_would_write_is_a_conflict_and_nothing_changes(rendered, tmp_path):
    (tmp_path / "kubernetes").mkdir()
    (tmp_path / "kubernetes" / "job-nvidia-smi.yaml").write_text("mine")
    before = snapshot(tmp_path)
    refused(render_cli(str(tmp_path)), "job-nvidia-smi.yaml", "render did not write it")
    assert snapshot(tmp_path) == before


def test_a_link_inside_out_is_never_followed(tmp_path, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (tmp_path / "kubernetes").symlink_to(elsewhere)
    refused(render_cli(str(tmp_path)), "symbolic link")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "manifest",
    [json.dumps({"files": {"../outside.txt": "x", "/etc/hostname": "x", "kubernetes/../../outside.txt": "x",
                           "kubernetes\\..\\..\\outside.txt": "x", "": "x", ".": "x"}}),
     json.dumps({"files": {"../outside.txt": None}}), json.dumps({"files": ["../outside.txt"]})],
    ids=["escaping-paths", "null-digest", "files-a-list"],
)
def test_a_hostile_manifest_never_removes_anything_outside_out(manifest, rendered, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "outside.txt").write_text("victim")
    (out / MANIFEST).write_text(manifest)
    with contextlib.suppress(OutputError):  # refusing the manifest is fine too
        render(rendered["dev"][0], out)
    assert (tmp_path / "outside.txt").read_text() == "victim"


@pytest.mark.parametrize("garbage", ["{not json", "[]", '{"files": 5}', "\xff"])
def test_a_manifest_that_is_not_one_is_refused(garbage, tmp_path):
    (tmp_path / MANIFEST).write_text(garbage, encoding="latin-1")
    before = snapshot(tmp_path)
    refused(render_cli(str(tmp_path)), MANIFEST)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("fail_at", [1, 3, 6])
def test_a_render_that_fails_half_way_leaves_the_earlier_render_whole(fail_at, rendered, tmp_path, monkeypatch):
    render(rendered["dev"][0], tmp_path)
    before = snapshot(tmp_path)
    real, calls = os.replace, {"n": 0}

    def flaky(src, dst):  # a disk that fills up while the files are moved into place
        if ".render-staging-" in str(src) and "/new/" in str(src):
            calls["n"] += 1
            if calls["n"] == fail_at:
                raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(OutputError, match="No space left on device"):
        render(rendered["prod"][0], tmp_path)
    monkeypatch.setattr(os, "replace", real)
    assert snapshot(tmp_path) == before  # the dev render, whole: no mix of dev and prod files, no staging left


def test_a_render_that_fails_while_writing_changes_nothing(rendered, tmp_path, monkeypatch):
    render(rendered["dev"][0], tmp_path)
    before = snapshot(tmp_path)
    real, calls = Path.write_bytes, {"n": 0}

    def failing(self, data):
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError(5, "Input/output error")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    with pytest.raises(OutputError):
        render(rendered["prod"][0], tmp_path)
    assert snapshot(tmp_path) == before


def test_an_edited_stale_file_is_kept_and_reported(rendered, tmp_path):
    render(rendered["dev"][0], tmp_path)
    job = tmp_path / "kubernetes" / "job-nvidia-smi.yaml"
    job.write_text("my edit\n")
    notes: list[str] = []
    render(rendered["prod"][0], tmp_path, notes)
    assert job.read_text() == "my edit\n" and notes == [f"kept {job}: changed since render wrote it"]


def test_a_users_own_files_named_like_staging_are_never_touched(rendered, tmp_path):
    (tmp_path / ".render-staging-abc123" / "new").mkdir(parents=True)
    (tmp_path / ".render-staging-abc123" / "new" / "mine.txt").write_text("mine")
    (tmp_path / ".render-staging-notes").write_text("my notes")
    (tmp_path / ".render-manifest.json.x.tmp").write_text("mine too")
    before = snapshot(tmp_path)
    render(rendered["dev"][0], tmp_path)
    render(rendered["prod"][0], tmp_path)
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before
    assert not [k for k in after if k.startswith(".render-") and k not in before and k != MANIFEST]  # no staging left


def _render_killed_while_moving_into(folder: Path) -> None:
    """A render that dies (SIGKILL) while it moves its files into place: run in a process of its own."""
    real = os.replace

    def killed(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if "/new/" in str(src):
            os.kill(os.getpid(), signal.SIGKILL)
        real(src, dst)

    os.replace = killed  # the forked process's own os module: the test's is untouched
    reg = Registration("urn:pulumi:s::p::kubernetes:core/v1:ConfigMap::c", "kubernetes:core/v1:ConfigMap", "c", True,
                       None, None, [], {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, {})
    render(Plan("p", "s", [reg]), folder)


def test_the_staging_folder_of_a_killed_render_is_removed_by_its_recorded_name(rendered, tmp_path):
    (tmp_path / ".render-staging-mine").mkdir()
    pid = os.fork()  # the killed render as a process of its own (a fork: no interpreter start-up)
    if pid == 0:
        try:
            _render_killed_while_moving_into(tmp_path)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(1)  # it was not killed: the test fails on the status
    _, wait = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(wait) == -signal.SIGKILL
    recorded = json.loads((tmp_path / MANIFEST).read_text())["staging"]
    assert recorded.startswith(".render-staging-") and (tmp_path / recorded / "new").is_dir()
    render(rendered["dev"][0], tmp_path)
    assert not (tmp_path / recorded).exists() and (tmp_path / ".render-staging-mine").is_dir()
    assert "staging" not in json.loads((tmp_path / MANIFEST).read_text())


@pytest.mark.parametrize("staging", ["kubernetes", ".", "..", "../outside", ".render-staging-x/../../outside",
                                     "/tmp", ".render-staging-link"])
def test_a_manifest_naming_another_folder_as_staging_removes_nothing(staging, rendered, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("victim")
    (out / "kubernetes").mkdir()
    (out / "kubernetes" / "mine.yaml").write_text("mine")
    (out / ".render-staging-link").symlink_to(tmp_path / "outside")
    (out / MANIFEST).write_text(json.dumps({"files": {}, "staging": staging}))
    render(rendered["dev"][0], out)
    assert (tmp_path / "outside" / "victim.txt").read_text() == "victim"
    assert (out / "kubernetes" / "mine.yaml").read_text() == "mine"
    assert (out / ".render-staging-link").is_symlink()


@pytest.mark.parametrize("target", ["/", "/etc", "/tmp", "//", "/tmp/..", "/usr/../var", "/etc/rendered",
                                    "/usr/local/share/rendered", "/tmp/../usr/lib/x"])
def test_the_file_system_root_the_folders_below_it_and_system_folders_are_refused(target):
    from components.offline.output_dir import check_folder

    with pytest.raises(OutputError, match=r"file system's root|system folder") as refusal:
        check_folder(target)
    assert "\n" not in str(refusal.value) and str(refusal.value).startswith(f"--out {target}: ")


def test_the_home_folder_the_project_and_a_repository_are_refused_through_links_and_dots(tmp_path, monkeypatch):
    home = tmp_path / "home" / "me"
    (home / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "to-home").symlink_to(home)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    before = snapshot(tmp_path)
    for target, says in [(home, "home folder"), (home / "work" / "..", "home folder"), (tmp_path / "to-home", "home folder"),
                         (tmp_path / "home", "holds the home folder"), (repo, "root of a repository"),
                         (project, "Pulumi project's folder")]:
        refused(render_cli(str(target)), "--out", says)
    refused(render_cli(str(ROOT)), "project's folder")
    refused(render_cli(str(ROOT / "docs" / "..")), "project's folder")
    # The folder above the checkout: refused as holding the project, or first as a folder right below the root when
    # the checkout lives one level down (which reason comes first depends on where the checkout is).
    status, _, err = render_cli(str(ROOT.parent))
    refused((status, "", err), "--out")
    assert "holds the project's folder" in err or "directly below the file system's root" in err, err
    assert snapshot(tmp_path) == before


HOSTILE_NAMES = ["../../../escaped", "..", ".", "a/b", "/etc/passwd", "-rf", ".hidden", "x" * 400, "nul\x00", "new\nline",
                 "\u202eevil", "C:\\windows"]


def hostile_plan(name: str) -> Plan:
    """A plan whose Kubernetes object and Helm release carry `name` (a program may register anything)."""
    from components.offline import Registration

    def reg(type_: str, inputs: dict) -> Registration:
        return Registration(f"urn:pulumi:s::p::{type_}::{len(inputs)}", type_, "r", True, None, None, [], inputs, {})

    return Plan("p", "s", [
        reg("kubernetes:core/v1:ConfigMap", {"apiVersion": "v1", "kind": "ConfigMap",
                                             "metadata": {"name": name, "namespace": name}}),
        reg("kubernetes:helm.sh/v3:Release", {"name": name, "chart": "c", "values": {"a": 1}}),
    ])


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=[json.dumps(n)[:20] for n in HOSTILE_NAMES])
def test_every_written_path_stays_inside_out_whatever_the_names(name, tmp_path):
    out = tmp_path / "a" / "out"
    written = render(hostile_plan(name), out)
    assert len(written) == 3
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file() and p.name != MANIFEST) == written
    for path in written:
        rel = path.relative_to(out)
        assert path.resolve().is_relative_to(out.resolve())
        assert all(part[:1] not in (".", "-") and len(part.encode()) <= 255 for part in rel.parts), rel
        assert all(c.isalnum() or c in "._-" for c in str(rel).replace("/", "")), rel


def test_two_releases_that_would_share_a_folder_are_refused(tmp_path):
    from components.offline import Registration

    releases = [Registration(f"urn:pulumi:s::p::kubernetes:helm.sh/v3:Release::{n}", "kubernetes:helm.sh/v3:Release", n,
                             True, None, None, [], {"name": n, "chart": "c"}, {}) for n in ("a/b", "a_b")]
    with pytest.raises(OutputError) as caught:
        render(Plan("p", "s", releases), tmp_path)
    assert str(caught.value).startswith("helm/a_b: two Helm releases render to this folder, a/b in namespace default "
                                        "and a_b in namespace default; rename one")
    assert list(tmp_path.iterdir()) == []


def test_two_objects_that_would_share_a_file_are_refused_naming_both_at_the_file(tmp_path):
    from components.offline import Registration

    def config_map(resource: str, name: str) -> Registration:
        return Registration(f"urn:pulumi:s::p::kubernetes:core/v1:ConfigMap::{resource}", "kubernetes:core/v1:ConfigMap",
                            resource, True, None, None, [],
                            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}}, {})

    with pytest.raises(OutputError) as caught:
        render(Plan("p", "s", [config_map("first", "a:b"), config_map("second", "a_b")]), tmp_path)
    assert str(caught.value) == (
        "kubernetes/configmap-ns-a_b.yaml: two Kubernetes objects render to this file, ConfigMap ns/a:b (resource "
        "'first') and ConfigMap ns/a_b (resource 'second'); give one another metadata.name (names that differ only in "
        "characters a file name cannot hold meet here too)")
    assert list(tmp_path.iterdir()) == []
