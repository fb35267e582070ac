"""Hostile input, table-driven, through the real CLI (`components.cli.main`): whatever a user or a program hands us.

Every refusal must: exit 2, print nothing on stdout, name the file or key path in one printable line per problem (no
traceback, no raw control character), and register nothing. Cases are grouped by class: the bytes of a stack file,
its YAML, its values, its keys, stack names, project files, plan documents for `diff`, and `docs`. Most are refused
before the program runs, so hundreds of them take a few seconds.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from components.cli import main
from tests.conftest import ROOT
from tests.stack_files import cli, stack_file
from tests.stack_files import starts as named_first

engine = importlib.import_module("components.offline.capture")

MIN = stack_file("min", "1.35", """\
  aks-dra-vgpu:gpuPools:
    - {name: gpu, vmSize: Standard_NV12ads_A10_v5, count: 1}
""")


def extra(values: str) -> str:
    """MIN with a draDriver section whose extraValues are `values` (a YAML flow mapping)."""
    return MIN + f"  aks-dra-vgpu:draDriver:\n    extraValues: {values}\n"


def in_cluster(line: str) -> str:
    """MIN with one more line of the cluster section (`key: value`, as YAML text)."""
    return MIN.replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.35"\n    ' + line)


def in_pool(entries: str) -> str:
    """MIN with more entries in its GPU pool's flow mapping (`key: value, ...`, as YAML text)."""
    return MIN.replace("count: 1}", "count: 1, " + entries + "}")


def cluster_tags(tags: str) -> str:
    """MIN with cluster.tags set to `tags` (the inside of a YAML flow mapping, or a JSON object)."""
    inside = tags if tags.startswith("{") else "{" + tags + "}"
    return in_cluster("tags: " + inside)


def nested(open_: str, close: str, depth: int) -> str:
    return open_ * depth + close * depth


def bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["config:", "  x:", "    l0: &l0 [lol]"]
    for i in range(1, levels + 1):
        lines.append(f"    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


YAML11_WORDS = ["no", "No", "NO", "yes", "Yes", "YES", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N"]


@dataclass(frozen=True)
class Case:
    """A stack file the CLI must refuse: its content, the start of the line that says so, and what that line says."""

    id: str
    content: str | bytes
    starts: str
    says: tuple[str, ...] = ()


def case(id_: str, content: str | bytes, starts: str, *says: str) -> Case:
    return Case(id_, content, starts, says)


def file_case(id_: str, content: str | bytes, *says: str) -> Case:
    """A case whose line names the stack file (``Pulumi.<id>.yaml``)."""
    return Case(id_, content, f"Pulumi.{id_}.yaml", says)


STACK_FILES: list[Case] = [
    # --- bytes: encodings, control characters, size ------------------------------------------------------------------
    file_case("latin1", MIN.replace("aks-min", "aks-mïn").encode("latin-1"), "not UTF-8", "save it as UTF-8"),
    file_case("utf16-le", MIN.encode("utf-16"), "UTF-16"),
    file_case("utf16-be", b"\xfe\xff" + MIN.encode("utf-16-be"), "UTF-16"),
    file_case("utf32", MIN.encode("utf-32"), "UTF-16"),
    file_case("cp1252-quote", MIN.encode() + b"  x: \x93quoted\x94\n", "not UTF-8"),
    file_case("nul-byte", MIN + "  x: a\x00b\n", "not valid YAML", "#x0000"),
    file_case("bell", MIN + "  x: a\x07b\n", "not valid YAML", "#x0007"),
    file_case("escape-char", MIN + "  x: \x1b[2J\n", "not valid YAML", "#x001b"),
    file_case("too-large", "config:\n  x: '" + "a" * (1 << 20) + "'\n", "too large"),
    file_case("binary-garbage", bytes(range(256)) * 4, "not UTF-8"),
    # --- YAML syntax and documents ------------------------------------------------------------------------------------
    file_case("unclosed-flow", MIN + "  x: [a, b\n", "not valid YAML"),
    file_case("unclosed-quote", MIN + '  x: "abc\n', "not valid YAML"),
    file_case("tab-indent", "config:\n\tx: 1\n", "not valid YAML"),
    file_case("two-documents", MIN + "---\nconfig: {}\n", "not valid YAML", "another document"),
    file_case("bad-indent", "config:\n  a: 1\n b: 2\n", "not valid YAML"),
    file_case("undefined-alias", MIN + "  x: *nowhere\n", "not valid YAML", "undefined alias"),
    file_case("directive-only", "%YAML 1.1\n", "not valid YAML"),
    # --- depth, aliases, expansion -------------------------------------------------------------------------------------
    file_case("deep-lists", "config:\n  x: " + nested("[", "]", 5000) + "\n", "nested deeper than 64"),
    file_case("deep-maps", "config:\n  x: " + nested("{a: ", "}", 2000).replace("{a: }", "{a: 1}") + "\n",
              "nested deeper than 64"),
    file_case("deep-block", "config:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(80)) + "  " * 81 + "v: 1\n",
              "nested deeper than 64"),
    file_case("recursive-list", "config:\n  x: &a [*a]\n", "recursive alias"),
    file_case("recursive-map", "config:\n  x: &a {b: *a}\n", "recursive alias"),
    file_case("recursive-deep", "config:\n  x: &a {b: [1, {c: *a}]}\n", "recursive alias"),
    file_case("recursive-merge", "config:\n  x: &a {<<: *a}\n", "recursive alias"),
    file_case("billion-laughs", bomb(), "aliases expand"),
    file_case("billion-laughs-maps", "config:\n  x:\n    a: &a {k: v, l: v}\n"
              + "".join(f"    b{i}: &b{i} {{" + ", ".join(f"k{j}: *{'a' if i == 0 else f'b{i - 1}'}" for j in range(9)) + "}\n"
                        for i in range(8)), "aliases expand"),
    file_case("alias-text-bomb", "config:\n  x:\n    s: &s '" + "a" * 200_000 + "'\n    l: [" + ", ".join(["*s"] * 30) + "]\n",
              "aliases expand"),
    file_case("alias-deep", "config:\n  x:\n    a: &a " + nested("[", "]", 60) + "\n    b: &b " + "[" * 40 + "*a" + "]" * 40
              + "\n    c: " + "[" * 40 + "*b" + "]" * 40 + "\n", "aliases nest"),
    # --- scalars PyYAML's constructors trust ---------------------------------------------------------------------------
    case("bad-bool-tag", MIN + "  x: !!bool maybe\n", "x:", "cannot read", "!!bool"),
    case("bad-int-tag", MIN + "  x: !!int ten\n", "x:", "cannot read", "!!int"),
    case("bad-float-tag", MIN + "  x: !!float pi\n", "x:", "cannot read", "!!float"),
    case("bad-timestamp-tag", MIN + "  x: !!timestamp soon\n", "x:", "cannot read"),
    case("impossible-date", MIN + "  x: 2024-13-45\n", "x:", "cannot read"),
    case("bad-binary", MIN + "  x: !!binary '***'\n", "x:", "!!binary"),
    case("python-object", MIN + "  x: !!python/object:os.system ls\n", "x:", "could not determine a constructor"),
    case("python-name", MIN + "  x: !!python/name:os.system\n", "x:", "could not determine a constructor"),
    case("custom-tag", MIN + "  x: !vault secret/path\n", "x:", "!vault"),
    case("str-tag-on-list", MIN + "  x: !!str [a]\n", "x:", "expected a scalar"),
    case("set-tag-on-list", MIN + "  x: !!set [a]\n", "x:", "!!set on a list", "a mapping whose keys have no values",
         "remove the tag to pass the list"),
    case("huge-int", MIN + "  x: " + "9" * 5000 + "\n", "x:", "5000 digits"),
    case("huge-negative-int", MIN + "  x: -" + "9" * 400 + "\n", "x:", "400 digits"),
    case("huge-hex", MIN + "  x: 0x" + "f" * 100 + "\n", "x:", "digits is too long"),
    # --- plain scalars YAML 1.1 reads otherwise than Pulumi (yaml.v3): refused where they stand, naming the key -----
    *[case(f"yaml11-word-{w}-{i}", MIN.replace("westeurope", w), "cluster.location:", f"unquoted {w} is the boolean",
           f"'{w}'") for i, w in enumerate(YAML11_WORDS)],
    case("yaml11-key-yes", extra("{yes: 1}"), "draDriver.extraValues.yes:", "unquoted yes", "quote it"),
    case("yaml11-key-on", MIN + "  aks-dra-vgpu:draDriver: {featureGates: {on: true}}\n", "draDriver.featureGates.on:",
         "unquoted on"),
    case("yaml11-in-list", in_pool("zones: ['1', off]"), "gpuPools[0].zones[1]:", "unquoted off"),
    case("yaml11-base60", MIN.replace("aks-min", "1:30"), "cluster.name:", "base-60", "'1:30'"),
    case("yaml11-base60-negative", extra("{x: -1:30:15}"), "draDriver.extraValues.x:", "base-60"),
    case("yaml11-base60-float", extra("{x: 1:30.5}"), "draDriver.extraValues.x:", "base-60"),
    case("yaml11-octal", extra("{mode: 0755}"), "draDriver.extraValues.mode:", "0755 is octal", "0o755", "755 for decimal"),
    case("yaml11-octal-nine", extra("{x: 09}"), "draDriver.extraValues.x:", "09"),
    case("yaml11-in-pulumi-namespace", MIN + "  azure-native:location: no\n", "azure-native:location:", "unquoted no"),
    case("yaml11-through-alias", "config:\n  t:a: &a on\n  aks-dra-vgpu:samples: {workload: *a}\n", "t:a:", "unquoted on"),
    # --- keys ----------------------------------------------------------------------------------------------------------
    case("key-written-twice", MIN + "  aks-dra-vgpu:samples: {}\n  aks-dra-vgpu:samples: {}\n", "samples:", "written twice"),
    case("nested-key-twice", extra("{a: 1, a: 2}"), "draDriver.extraValues.a:", "key 'a' is written twice"),
    case("int-key", MIN + "  1: x\n", "1:", "key 1 is a number", "quote it"),
    case("float-key", extra("{1.5: x}"), "draDriver.extraValues.1.5:", "key 1.5 is a number"),
    case("bool-key", extra("{true: x}"), "draDriver.extraValues.true:", "key true is a boolean"),
    case("null-key", MIN + "  ~: x\n", "~:", "key null is null"),
    case("date-key", extra("{2024-01-01: x}"), "draDriver.extraValues.2024-01-01:", "is a date"),
    case("list-key", MIN + "  ? [a, b]\n  : x\n", "?:", "is a list"),
    case("map-key", MIN + "  ? {a: b}\n  : x\n", "?:", "is a dict"),
    case("merge-twice", "config:\n  x: &b {a: 1}\n  w: {<<: *b, <<: *b}\n", "w:", "merge key '<<' is written twice"),
    case("merge-a-scalar", "config:\n  x: &b 5\n  w: {<<: *b}\n", "w:", "expected a mapping"),
    case("merge-list-of-scalars", "config:\n  x: &b 5\n  w: {<<: [*b]}\n", "w:", "expected a mapping"),
    # --- the file's shape ----------------------------------------------------------------------------------------------
    file_case("config-a-list", "config:\n  - a\n", "'config:' mapping"),
    file_case("config-a-number", "config: 5\n", "'config:' mapping"),
    file_case("config-a-string", "config: hello\n", "'config:' mapping"),
    file_case("file-a-list", "- config\n", "'config:' mapping"),
    file_case("file-a-string", "just text\n", "'config:' mapping"),
    file_case("file-a-number", "42\n", "'config:' mapping"),
    file_case("config-typo", MIN.replace("config:", "confg:"), "unknown key \"confg\"", "did you mean 'config'?"),
    file_case("unknown-top-key", MIN + "extras: 1\n", "unknown key \"extras\"", "a stack file holds config"),
    file_case("esc-environment", MIN + "environment: [dev-env]\n", "ESC environments"),
    file_case("esc-environment-imports", MIN + "environment:\n  imports: [dev-env]\n", "ESC environments"),
    # --- config keys ---------------------------------------------------------------------------------------------------
    file_case("empty-namespace", MIN + "  :samples: {}\n", "not a config key", "<namespace>:<name>"),
    file_case("empty-name", MIN + "  'aks-dra-vgpu:': {}\n", "not a config key"),
    file_case("three-parts", MIN + "  a:b:c: 1\n", "not a config key"),
    file_case("double-colon", MIN + "  'aks-dra-vgpu::cluster': 1\n", "not a config key"),
    case("with-and-without-prefix", MIN + "  cluster: {name: other}\n", "cluster:", "written twice", "keep one"),
    case("legacy-and-new-form", MIN + "  aks-dra-vgpu:config:gpuPools: []\n", "gpuPools:", "written twice"),
    case("bare-twice-via-legacy", MIN.replace("aks-dra-vgpu:cluster", "cluster") + "  aks-dra-vgpu:config:cluster: {}\n",
         "cluster:", "written twice"),
    case("namespace-swapped-letters", MIN + "  aks-dra-vpgu:samples: {workload: false}\n", "aks-dra-vpgu:samples:",
         "unknown namespace", "did you mean 'aks-dra-vgpu'?"),
    case("namespace-upper-case", MIN + "  AKS-DRA-VGPU:samples: {}\n", "AKS-DRA-VGPU:samples:", "did you mean 'aks-dra-vgpu'?"),
    case("namespace-underscores", MIN + "  aks_dra_vgpu:samples: {}\n", "aks_dra_vgpu:samples:", "did you mean"),
    case("namespace-extra-letter", MIN + "  aks-dra-vgpus:samples: {}\n", "aks-dra-vgpus:samples:", "did you mean"),
    case("namespace-missing-letter", MIN + "  aks-dra-vgp:samples: {}\n", "aks-dra-vgp:samples:", "did you mean"),
    # a dot in the namespace: no package `pulumi_aks.dra_vgpu` can exist (its parent is none), so still a typo
    case("namespace-with-a-dot", MIN + "  aks.dra-vgpu:samples: {}\n", "aks.dra-vgpu:samples:", "did you mean"),
    # --- values Pulumi config cannot carry as written ------------------------------------------------------------------
    case("date-value", MIN.replace("aks-min", "2024-01-01"), "cluster.name:", "as a date", "quote it"),
    case("datetime-value", extra("{when: 2024-01-01T10:00:00Z}"), "draDriver.extraValues.when:", "as a date"),
    case("binary-value", extra("{blob: !!binary aGVsbG8=}"), "draDriver.extraValues.blob:", "!!binary"),
    case("set-value", extra("{s: !!set {a, b}}"), "draDriver.extraValues.s:", "!!set",
         "a mapping whose keys have no values", "write a list ([a, b]) or a mapping with values"),
    # A set where the model takes a mapping: what a set is, and what the key takes (its keys), not "write a list".
    case("set-for-a-section", MIN.replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.35"\n    monitoring: '
                                          '{alerts: !!set {enabled, severity}}'),
         "cluster.monitoring.alerts:", "YAML's set: a mapping whose keys have no values",
         "it takes a mapping with the keys enabled, xidMinutes,"),
    case("set-for-a-list", in_pool("zones: !!set {'1', '2'}"), "gpuPools[0].zones:",
         "!!set", "it takes a list"),
    case("omap-value", extra("{o: !!omap [{a: 1}]}"), "draDriver.extraValues.o[0]:", "!!pairs"),
    case("nan-value", extra("{x: .nan}"), "draDriver.extraValues.x:", "not a finite number"),
    case("inf-value", extra("{x: .inf}"), "draDriver.extraValues.x:", "not a finite number"),
    case("minus-inf-in-list", extra("{x: [1, -.inf]}"), "draDriver.extraValues.x[1]:", "not a finite number"),
    case("float-overflow", extra("{x: 1.0e999}"), "draDriver.extraValues.x:", "not a finite number"),
    case("int-past-2-53", extra("{x: 9007199254740993}"), "draDriver.extraValues.x:", "too large to pass exactly"),
    case("negative-int-past-2-53", extra("{x: -9007199254740993}"), "draDriver.extraValues.x:", "too large"),
    case("huge-count", MIN.replace("count: 1", "count: 99999999999999999999"), "gpuPools[0].count:", "too large"),
    case("date-in-provider-key", MIN + "  azure-native:location: 2024-01-01\n", "azure-native:location:", "as a date"),
]

# Mistakes in values that earlier passed unnoticed (each runs the program: validation is the program's own).
VALUES: list[Case] = [
    case("extra-one-for-true", extra("{gpuResourcesEnabledOverride: 1}"), "draDriver.extraValues.gpuResourcesEnabledOverride:",
         "must be true"),
    case("extra-text-true", extra("{gpuResourcesEnabledOverride: 'true'}"),
         "draDriver.extraValues.gpuResourcesEnabledOverride:", "must be true"),
    case("extra-1.0-for-true", extra("{resources: {gpus: {enabled: 1.0}}}"), "draDriver.extraValues.resources.gpus.enabled:",
         "must be true"),
    case("extra-root-not-slash", extra("{nvidiaDriverRoot: '/ '}"), "draDriver.extraValues.nvidiaDriverRoot:", "must be \"/\""),
    case("quoted-yes-is-text-not-true", extra("{gpuResourcesEnabledOverride: 'yes'}"),
         "draDriver.extraValues.gpuResourcesEnabledOverride:", "must be true"),
    case("protect-one", in_cluster('protect: 1'), "cluster.protect:", "true or false"),
    case("protect-yes-text", in_cluster('protect: "yes"'), "cluster.protect:", "true or false"),
    case("protect-quoted-on", in_cluster('protect: "on"'), "cluster.protect:", "true or false"),
    case("count-true", MIN.replace("count: 1", "count: true"), "gpuPools[0].count:", "whole number"),
    case("count-text", MIN.replace("count: 1", "count: '1'"), "gpuPools[0].count:", "whole number"),
    case("count-half", MIN.replace("count: 1", "count: 1.5"), "gpuPools[0].count:", "whole number"),
    case("count-arabic-digit", MIN.replace("count: 1", "count: '\u0661'"), "gpuPools[0].count:", "whole number"),
    case("feature-gate-one", MIN + "  aks-dra-vgpu:draDriver: {featureGates: {MPSSupport: 1}}\n",
         "draDriver.featureGates.MPSSupport:", "true or false"),
    case("taint-key-twice", in_pool("taints: [a=b:NoSchedule, a=c:NoSchedule]"),
         "gpuPools[0].taints:", "same key and effect"),
    case("taint-key-twice-no-value", in_pool("taints: [a:NoExecute, a=x:NoExecute]"),
         "gpuPools[0].taints:", "same key and effect"),
    case("image-empty", MIN + "  aks-dra-vgpu:samples: {image: ''}\n", "samples.image:", "not an image reference"),
    case("image-space", MIN + "  aks-dra-vgpu:samples: {image: ' '}\n", "samples.image:", "not an image reference"),
    case("image-upper", MIN + "  aks-dra-vgpu:samples: {image: Ubuntu}\n", "samples.image:", "not an image reference"),
    case("image-newline", MIN + '  aks-dra-vgpu:samples: {image: "ubuntu\\n"}\n', "samples.image:", "not an image"),
    case("image-short-digest", MIN + "  aks-dra-vgpu:samples: {image: 'ubuntu@sha256:abc'}\n", "samples.image:", "image"),
    case("system-vm-empty", in_cluster('systemPool: {vmSize: ""}'), "cluster.systemPool.vmSize:",
         "not an Azure VM size"),
    case("system-vm-space", in_cluster('systemPool: {vmSize: "Standard_D4ds_v5 "}'),
         "cluster.systemPool.vmSize:", "not an Azure VM size"),
    case("gpu-vm-empty", MIN.replace("vmSize: Standard_NV12ads_A10_v5", "vmSize: ''"), "gpuPools[0].vmSize:", "NVadsA10_v5"),
    case("k8s-leading-zero", MIN.replace('"1.35"', '"01.35"'), "cluster.kubernetesVersion:", "not a Kubernetes version"),
    case("k8s-patch-leading-zero", MIN.replace('"1.35"', '"1.35.02"'), "cluster.kubernetesVersion:", "not a Kubernetes"),
    case("k8s-trailing-newline", MIN.replace('"1.35"', '"1.35\\n"'), "cluster.kubernetesVersion:", "not a Kubernetes"),
    case("k8s-arabic-digits", MIN.replace('"1.35"', '"\u0661.\u0663\u0664"'), "cluster.kubernetesVersion:", "not a Kubernetes"),
    case("pool-trailing-newline", MIN.replace("name: gpu,", 'name: "gpu\\n",'), "gpuPools[0].name:", "not a pool name"),
    case("namespace-trailing-newline", MIN + '  aks-dra-vgpu:samples: {namespace: "dra\\n"}\n', "samples.namespace:",
         "DNS label"),
    case("label-trailing-newline", in_pool('labels: {team: "ml\\n"}'), "gpuPools[0].labels:",
         "alphanumeric"),
    case("label-key-unicode", in_pool("labels: {t\u00e9am: ml}"), "gpuPools[0].labels:",
         "label key"),
    case("guid-trailing-newline", in_cluster('auth: {mode: entraId, tenantId: "'
                                              '00000000-0000-0000-0000-000000000000\\n"}'), "cluster.auth.tenantId:", "GUID"),
    case("guid-fullwidth-digits", in_cluster('auth: {mode: entraId, tenantId: "' + "\uff10" * 8
                                              + '-0000-0000-0000-000000000000"}'), "cluster.auth.tenantId:", "GUID"),
    case("release-trailing-newline", MIN + '  aks-dra-vgpu:draDriver: {releaseName: "dra\\n"}\n', "draDriver.releaseName:",
         "Helm release name"),
    case("host-driver-newline", MIN + '  aks-dra-vgpu:draDriver: {hostDriverVersion: "580.65.06\\n"}\n',
         "draDriver.hostDriverVersion:", "driver version"),
    case("host-driver-huge", MIN + "  aks-dra-vgpu:draDriver: {hostDriverVersion: '" + "9" * 5000 + "'}\n",
         "draDriver.hostDriverVersion:", "driver version"),
    case("location-trailing-newline", MIN.replace("westeurope", '"westeurope\\n"'), "cluster.location:", "region"),
    case("surge-huge", in_pool("maxSurge: '" + "9" * 50 + "'"), "gpuPools[0].maxSurge:", "surge"),
    case("environment-newline", in_cluster('auth: {mode: entraId, environment: "AzurePublicCloud\\n"}'),
         "cluster.auth.environment:", "Azure cloud name"),
    case("device-class-unicode", MIN + "  aks-dra-vgpu:samples: {deviceClassName: '\u0430-vgpu'}\n",
         "samples.deviceClassName:", "DNS subdomain"),
    case("json-string-section", MIN + "  aks-dra-vgpu:samples: '" + nested("[", "]", 3000) + "'\n", "samples:",
         "must be a mapping"),
    # --- Azure and Kubernetes limits that used to pass offline and fail only at `pulumi up` ------------------------------
    case("tags-51", cluster_tags(", ".join(f"t{i}: v" for i in range(51))), "cluster.tags:", "51 tags", "at most 50"),
    *[case(f"tag-name-with-{ord(c)}", cluster_tags(json.dumps({f"a{c}b": "v"})), "cluster.tags:", f"contains {c}",
           "may not contain") for c in "<>%&\\?/"],
    case("tag-name-513", cluster_tags("a" * 513 + ": v"), "cluster.tags:", "513 characters", "at most 512"),
    case("tag-value-257", cluster_tags("a: " + "v" * 257), "cluster.tags:", "257 characters", "at most 256"),
    case("tag-names-differ-in-case", cluster_tags("Env: a, env: b"), "cluster.tags:", "'Env' and 'env' are one tag"),
    case("pool-tag-char", in_pool("tags: {'x/y': v}"), "gpuPools[0].tags:", "contains /"),
    case("pool-tags-merged-51", cluster_tags(", ".join(f"c{i}: v" for i in range(26)))
         .replace("count: 1}", "count: 1, tags: {" + ", ".join(f"p{i}: v" for i in range(25)) + "}}"),
         "gpuPools[0].tags:", "with cluster.tags merged in", "51 tags"),
    case("pools-100", MIN.replace("    - {name: gpu, vmSize: Standard_NV12ads_A10_v5, count: 1}\n", "".join(
        f"    - {{name: g{i}, vmSize: Standard_NV12ads_A10_v5, count: 1}}\n" for i in range(100))), "gpuPools:",
        "make 101", "at most 100 node pools"),
    case("device-class-derived-too-long", MIN + "  aks-dra-vgpu:samples: {deviceClassName: " + ("a" * 61 + ".") * 4 + "bcd}\n",
         "samples.deviceClassName:", "258-character object name", "-shared", "at most 246"),
]


def test_limits_that_fit_just_pass(project, capsys):
    """The control for the limits above: at each limit, not over it, the stack plans."""
    at_limit = (cluster_tags(", ".join(f"t{i}: v" for i in range(50)))
                .replace("count: 1}", "count: 1, tags: {t0: " + "v" * 256 + "}}")
                + "  aks-dra-vgpu:samples: {deviceClassName: " + ("a" * 61 + ".") * 3 + "a" * 50 + "}\n")
    write_stack(project, "at-limit", at_limit)
    status, _out, err = cli(capsys, "plan", "--stack", "at-limit", "--project-dir", str(project))
    assert (status, err) == (0, ""), err


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch copy of the project (program and project file); each case writes its own stack file."""
    folder = tmp_path_factory.mktemp("hostile")
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", folder / "__main__.py")
    (folder / "stacks").mkdir()
    return folder


@pytest.fixture
def monitors(monkeypatch: pytest.MonkeyPatch) -> list[engine.Monitor]:
    """Every monitor the offline engine creates during the test."""
    seen: list[engine.Monitor] = []

    class Spy(engine.Monitor):
        def __init__(self, *args):
            super().__init__(*args)
            seen.append(self)

    monkeypatch.setattr(engine, "Monitor", Spy)
    return seen


def assert_refused(status: int, out: str, err: str, starts: str = "", says: tuple[str, ...] = (), most: int = 20) -> None:
    """Exit 2, nothing on stdout, one printable line per problem, and a line that starts and says as expected."""
    assert status == 2, err
    assert out == ""
    lines = err.splitlines()
    assert 1 <= len(lines) <= most, lines
    assert "Traceback" not in err
    assert all(c.isprintable() for line in lines for c in line), lines
    about = [line for line in lines if named_first(line, starts)]
    assert about, f"no line starts with {starts!r}: {lines}"
    assert any(all(s in line for s in says) for line in about), (says, about)


def write_stack(project: Path, name: str, content: str | bytes) -> None:
    path = project / "stacks" / f"Pulumi.{name}.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def test_the_battery_is_big_and_every_case_is_distinct():
    ids = [c.id for c in STACK_FILES + VALUES]
    assert len(ids) >= 120 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("c", STACK_FILES, ids=[c.id for c in STACK_FILES])
def test_a_hostile_stack_file_is_refused_in_one_line_before_the_program_runs(c: Case, project, monitors, capsys):
    write_stack(project, c.id, c.content)
    status, out, err = cli(capsys, "plan", "--stack", c.id, "--project-dir", str(project))
    assert_refused(status, out, err, c.starts, c.says)
    assert monitors == []  # refused while reading the file: the program never ran


@pytest.mark.parametrize("c", VALUES, ids=[c.id for c in VALUES])
def test_a_value_that_used_to_pass_is_refused_naming_its_key(c: Case, project, monitors, capsys):
    write_stack(project, c.id, c.content)
    status, out, err = cli(capsys, "plan", "--stack", c.id, "--project-dir", str(project))
    assert_refused(status, out, err, c.starts, c.says)
    assert [r for m in monitors for r in m.registrations] == []


def test_the_control_stack_plans(project, monitors, capsys):
    write_stack(project, "control", MIN)
    status, out, err = cli(capsys, "plan", "--stack", "control", "--project-dir", str(project))
    assert (status, err) == (0, "") and out.startswith("aks-dra-vgpu/control: ")
    assert len([r for m in monitors for r in m.registrations]) > 10


# --- what Pulumi accepts must be accepted: the same plan as the plain spelling --------------------------------------------
PLAIN = MIN + """  aks-dra-vgpu:draDriver:
    extraValues:
      answer: "yes"
      mode: "1:20"
      eq: "="
      octal: 15
      big: 1000.0
      labels: {a: x, b: w}
  aks-dra-vgpu:samples: {workload: false}
"""
SPELLINGS = {
    # yaml.v3 (Pulumi's reader) reads 0o17 as octal, 1e3 as a float and = as text; quoted, yes and 1:20 are text either way.
    "yaml-1.2-scalars": PLAIN.replace("15", "0o17").replace("1000.0", "1e3").replace('"="', "="),
    "single-quotes": PLAIN.replace('"yes"', "'yes'").replace('"1:20"', "'1:20'"),
    # Merge keys: the mapping's own keys win over merged ones, earlier merged mappings over later ones.
    "merge-inline": PLAIN.replace("labels: {a: x, b: w}", "labels: {<<: {a: x, b: z}, b: w}"),
    "merge-anchor": PLAIN.replace("config:\n", "config:\n  templates:base: &base {a: x, b: z}\n", 1)
    .replace("labels: {a: x, b: w}", "labels: {<<: *base, b: w}"),
    "merge-list": PLAIN.replace("labels: {a: x, b: w}", "labels: {<<: [{b: w}, {a: x, b: z}]}"),
    "merge-section": PLAIN.replace("config:\n", "config:\n  templates:rg: &rg {name: rg-min}\n", 1)
    .replace("resourceGroup: {name: rg-min}", "resourceGroup: {<<: *rg}"),
    "bom": "\ufeff" + PLAIN,
    "bare-keys": PLAIN.replace("aks-dra-vgpu:", ""),
    "legacy-keys": PLAIN.replace("aks-dra-vgpu:", "aks-dra-vgpu:config:"),
}


@pytest.fixture(scope="module")
def plain_plan(project) -> str:
    write_stack(project, "spelling", PLAIN)
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", "spelling", "--project-dir", str(project), "--json"]) == 0
    return buffer.getvalue()


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_standard_yaml_and_pulumi_key_forms_give_the_same_plan(name, project, plain_plan, capsys):
    write_stack(project, "spelling", SPELLINGS[name])
    status, out, err = cli(capsys, "plan", "--stack", "spelling", "--project-dir", str(project), "--json")
    assert (status, err) == (0, "")
    assert out == plain_plan


def test_the_plain_spelling_holds_what_pulumi_would_pass(plain_plan):
    (release,) = [r for r in json.loads(plain_plan)["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release"]
    values = release["inputs"]["values"]
    assert (values["answer"], values["mode"], values["octal"], values["labels"]) == ("yes", "1:20", 15, {"a": "x", "b": "w"})


# --- stack names -------------------------------------------------------------------------------------------------------
BAD_STACKS = ["../dev", "dev/../../x", "a::b", "dev\nx", "dev\x00", "", " ", "x" * 101, "a/b/c/d", "d\u00e9v", "\x1b[2J",
              "dev\u202e", "dev x", "dev;rm", "$(id)", "`id`", "dev*", "dev?", "~dev", "dev/", "/dev", "c:dev", "dev\t",
              "org/other-project/dev", "other-project/dev"]


@pytest.mark.parametrize("stack", BAD_STACKS, ids=[json.dumps(s)[:30] for s in BAD_STACKS])
def test_a_stack_name_pulumi_refuses_never_reaches_a_path(stack, project, monitors, capsys):
    status, out, err = cli(capsys, "plan", "--stack", stack, "--project-dir", str(project))
    assert_refused(status, out, err, "--stack ")
    assert monitors == []


@pytest.mark.parametrize("stack", ["org/aks-dra-vgpu/control", "aks-dra-vgpu/control"])
def test_a_qualified_stack_name_of_this_project_is_its_stack(stack, project, capsys):
    write_stack(project, "control", MIN)
    status, out, err = cli(capsys, "plan", "--stack", stack, "--project-dir", str(project))
    assert (status, err) == (0, "") and out.startswith("aks-dra-vgpu/control: ")


# --- project folders and project files -----------------------------------------------------------------------------------
PROJECT_FILES = {
    "runtime-nodejs": ("name: p\nruntime: nodejs\n", "Python programs only"),
    "runtime-go-object": ("name: p\nruntime: {name: go}\n", "Python programs only"),
    "runtime-missing": ("name: p\n", "no runtime"),
    "runtime-a-list": ("name: p\nruntime: [python]\n", "Python programs only"),
    "name-missing": ("runtime: python\n", "not a project name"),
    "name-with-space": ("name: 'a b'\nruntime: python\n", "not a project name"),
    "name-a-list": ("name: [p]\nruntime: python\n", "not a project name"),
    "name-with-colons": ("name: 'a::b'\nruntime: python\n", "not a project name"),
    "name-newline": ('name: "p\\n"\nruntime: python\n', "not a project name"),
    "name-too-long": ("name: " + "p" * 101 + "\nruntime: python\n", "not a project name"),
    "name-starts-with-digit": ("name: 1p\nruntime: python\n", "not a project name"),
    "broken-yaml": ("name: [\n", "not valid YAML"),
    "a-list": ("- name\n", "not a Pulumi project file"),
    "empty": ("", "not a Pulumi project file"),
    "main-missing": ("name: p\nruntime: python\nmain: nope.py\n", "no program at nope.py"),
    "main-a-number": ("name: p\nruntime: python\nmain: 5\n", "main must be a relative path"),
    "stack-dir-a-list": ("name: p\nruntime: python\nstackConfigDir: [a]\n", "stackConfigDir must be"),
    "config-and-stack-dir": ("name: p\nruntime: python\nconfig: a\nstackConfigDir: b\n", "use only stackConfigDir"),
    "config-a-list": ("name: p\nruntime: python\nconfig: [a]\n", "config must be a mapping"),
    "config-unknown-attribute": ("name: p\nruntime: python\nconfig:\n  x: {deflt: 1}\n", "unknown attribute 'deflt'"),
    "config-default-and-value": ("name: p\nruntime: python\nconfig:\n  x: {default: 1, value: 2}\n", "both 'default' and"),
    "config-foreign-default": ("name: p\nruntime: python\nconfig:\n  aws:region: {default: x}\n", "takes a 'value'"),
    "duplicate-key": ("name: p\nname: q\nruntime: python\n", "written twice"),
    "not-utf8": (b"name: \xff\nruntime: python\n", "not UTF-8"),
    "alias-bomb": (bomb().replace("config:\n  x:", "name: p\nruntime: python\nx:"), "aliases expand"),
    "name-yaml11-word": ("name: no\nruntime: python\n", "Pulumi.yaml:1:7: name: unquoted no"),
    "config-default-yaml11-word": ("name: p\nruntime: python\nconfig:\n  x: {default: off}\n",
                                   "Pulumi.yaml:4:16: config.x.default: unquoted off"),
    "config-default-huge-number": ("name: p\nruntime: python\nconfig:\n  x: {default: " + "1" * 400 + "}\n",
                                   "config.x.default: a number of 400 digits"),
}


@pytest.mark.parametrize("name", sorted(PROJECT_FILES))
def test_a_project_file_the_offline_engine_cannot_run_is_refused(name, tmp_path, monitors, capsys):
    text, says = PROJECT_FILES[name]
    path = tmp_path / "Pulumi.yaml"
    path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "Pulumi.dev.yaml").write_text(MIN)
    status, out, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path))
    assert_refused(status, out, err, "", (says,))
    assert monitors == []


def test_project_config_fills_a_key_the_stack_does_not_set_and_requires_the_rest(tmp_path, capsys):
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "Pulumi.dev.yaml").write_text(MIN)
    head = "name: aks-dra-vgpu\nruntime: python\n"
    (tmp_path / "Pulumi.yaml").write_text(head + "config:\n  aks-dra-vgpu:samples: {value: {enabled: false}}\n")
    status, out, err = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path), "--json")
    assert (status, err) == (0, "")
    assert not [r for r in json.loads(out)["resources"] if r["type"].startswith("kubernetes:resource.k8s.io")]
    (tmp_path / "Pulumi.yaml").write_text(head + "config:\n  region: {type: string}\n")
    assert_refused(*cli(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path)), "stack 'dev'", ("region",))
    (tmp_path / "Pulumi.yaml").write_text(head + "config:\n  aks-dra-vgpu:cluster: {secret: true}\n")
    assert_refused(*cli(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path)), "cluster:", ("declared secret",))


@pytest.mark.parametrize(
    "where, says",
    [("", "empty path"), ("/nonexistent/folder", "no such folder"), ("README.md", "not a folder"),
     ("docs", "no Pulumi.yaml")],
)
def test_a_project_dir_that_is_not_a_project_is_refused(where, says, capsys):
    target = where if where in ("", "/nonexistent/folder") else str(ROOT / where)
    assert_refused(*cli(capsys, "plan", "--stack", "dev", "--project-dir", target), "", (says,))


def special_file(path: Path, kind: str) -> bool:
    """Makes `path` a folder, a FIFO or a device (True), or leaves it to the caller (False)."""
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)  # reading it would block forever
    elif kind == "device":
        path.symlink_to("/dev/zero")  # reading it would never end
    else:
        return False
    return True


@pytest.mark.parametrize("kind", ["folder", "fifo", "device", "dangling-link", "too-large"])
def test_a_stack_file_that_is_not_a_small_regular_file_is_refused(kind, project, capsys):
    path = project / "stacks" / f"Pulumi.odd-{kind}.yaml"
    if kind == "dangling-link":
        path.symlink_to(project / "nowhere")
    elif kind == "too-large":
        path.write_text("config: {}\n" + "#" * (2 << 20))
    else:
        special_file(path, kind)
    status, out, err = cli(capsys, "plan", "--stack", f"odd-{kind}", "--project-dir", str(project))
    assert_refused(status, out, err, f"Pulumi.odd-{kind}.yaml")


def test_the_pulumi_yaml_may_not_be_a_folder(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").mkdir()
    assert_refused(*cli(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path)), "Pulumi.yaml", ("folder",))


# --- argument mistakes: one line, not argparse's usage block -------------------------------------------------------------
ARGUMENTS = [
    [], ["frobnicate"], ["plan"], ["plan", "--stack"], ["plan", "--stack", "dev", "--bogus"],
    ["plan", "--stack", "dev", "--json", "--format", "tree"], ["plan", "--stack", "dev", "--format", "xml"],
    ["plan", "--stack", "dev", "--timeout", "0"], ["plan", "--stack", "dev", "--timeout", "-5"],
    ["plan", "--stack", "dev", "--timeout", "nan"], ["plan", "--stack", "dev", "--timeout", "inf"],
    ["plan", "--stack", "dev", "--timeout", "soon"], ["plan", "--stack", "dev", "--timeout", "1e12"],
    ["render", "--stack", "dev"], ["diff", "one.json"], ["docs", "--nope"],
]


@pytest.mark.parametrize("argv", ARGUMENTS, ids=[" ".join(a) or "nothing" for a in ARGUMENTS])
def test_an_argument_mistake_is_one_line(argv, capsys):
    assert_refused(*cli(capsys, *argv), "python -m components", most=1)


def test_help_is_not_an_error(capsys):
    status, out, err = cli(capsys, "--help")
    assert status == 0 and "plan" in out and err == ""


# --- output that cannot take over a terminal ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", ["\x1b[2J\x1b[31mred", "a\u202eevil", "line\nbreak", "nul\x00byte", "bell\x07", "del\x7f", "sep\u2028x", "c1\x85"]
)
def test_an_error_quoting_a_value_escapes_its_control_characters(value, project, capsys):
    write_stack(project, "escape", MIN.replace("aks-min", json.dumps(value)))
    status, out, err = cli(capsys, "plan", "--stack", "escape", "--project-dir", str(project))
    assert_refused(status, out, err, "cluster.name:")


# --- plan documents handed to `diff` ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def good_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real plan document (dev), to diff against the broken ones."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--json"]) == 0
    path = tmp_path_factory.mktemp("plans") / "good.json"
    path.write_text(buffer.getvalue())
    return path


def _resource(**changes) -> dict:
    base = {"urn": "urn:pulumi:dev::p::t:m:T::r", "type": "t:m:T", "name": "r", "custom": True, "parent": None,
            "provider": None, "dependencies": [], "inputs": {}, "options": {"protect": False, "ignoreChanges": [],
                                                                               "replaceOnChanges": []}}
    return {**base, **changes}


def _doc(*resources: dict, **top) -> str:
    return json.dumps({"project": "p", "stack": "dev", "resources": list(resources), "outputs": {}, **top})


BAD_PLANS: dict[str, tuple[str | bytes, str]] = {
    "empty": ("", "not a plan document"),
    "whitespace": ("  \n", "not a plan document"),
    "null": ("null", "no 'resources' list"),
    "a-list": ("[]", "no 'resources' list"),
    "a-string": ('"plan"', "no 'resources' list"),
    "a-number": ("42", "no 'resources' list"),
    "truncated": (_doc(_resource())[:-10], "not a plan document"),
    "resources-a-map": (json.dumps({"resources": {}}), "no 'resources' list"),
    "huge-int": ('{"resources": [], "outputs": {"x": ' + "9" * 5000 + "}}", "thousands of digits"),
    "deep": ('{"resources": [], "outputs": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
    "deep-inputs": (_doc(_resource(inputs={"a": json.loads("[" * 300 + "]" * 300)})), "nested deeper than 200"),
    "latin1": (b'{"resources": [], "outputs": {"x": "\xe9"}}', "not UTF-8"),
    "utf16": ('{"resources": []}'.encode("utf-16"), "not UTF-8"),
    "resource-null": (_doc(None), "resources[0]: must be a mapping"),  # type: ignore[arg-type]
    "resource-a-string": (json.dumps({"resources": ["x"]}), "resources[0]: must be a mapping"),
    "no-urn": (_doc({"type": "t", "name": "n"}), "resources[0] needs text values for urn, type and name"),
    "urn-a-number": (_doc(_resource(urn=5)), "resources[0] needs text values"),
    "name-a-list": (_doc(_resource(name=["r"])), "resources[0] needs text values"),
    "urn-not-a-urn": (_doc(_resource(urn="r")), "is not a Pulumi URN"),
    "urn-twice": (_doc(_resource(), _resource()), "resources[1].urn: the same URN as resources[0]"),
    "custom-a-string": (_doc(_resource(custom="yes")), "resources[0].custom: must be true or false"),
    "parent-a-number": (_doc(_resource(parent=1)), "resources[0].parent: must be text or null"),
    "provider-a-map": (_doc(_resource(provider={})), "resources[0].provider: must be text or null"),
    "dependencies-a-string": (_doc(_resource(dependencies="urn")), "resources[0].dependencies: must be a list"),
    "dependencies-numbers": (_doc(_resource(dependencies=[1])), "resources[0].dependencies: must be a list of URNs"),
    "inputs-a-list": (_doc(_resource(inputs=[1])), "resources[0].inputs: must be a mapping"),
    "options-a-list": (_doc(_resource(options=[])), "resources[0].options: must be a mapping"),
    "protect-a-string": (_doc(_resource(options={"protect": "yes"})), "resources[0].options.protect: must be true or"),
    "ignore-changes-a-string": (_doc(_resource(options={"ignoreChanges": "count"})), "options.ignoreChanges: must be"),
    "ignore-changes-numbers": (_doc(_resource(options={"ignoreChanges": [1]})), "options.ignoreChanges: must be a list"),
    "replace-on-changes-a-map": (_doc(_resource(options={"replaceOnChanges": {}})), "options.replaceOnChanges: must"),
    "project-a-number": (_doc(project=5), "project: must be text"),
    "stack-a-list": (_doc(stack=[]), "stack: must be text"),
    "outputs-a-list": (_doc(outputs=[]), "outputs: must be a mapping"),
    "many-problems": (_doc(*[_resource(urn=i) for i in range(50)]), "and 30 more problems"),
}


@pytest.mark.parametrize("name", sorted(BAD_PLANS))
@pytest.mark.parametrize("side", ["old", "new"])
def test_a_plan_document_that_is_not_one_is_refused(name, side, good_plan, tmp_path, capsys):
    content, says = BAD_PLANS[name]
    bad = tmp_path / f"{name}.json"
    bad.write_bytes(content) if isinstance(content, bytes) else bad.write_text(content)
    pair = (bad, good_plan) if side == "old" else (good_plan, bad)
    assert_refused(*cli(capsys, "diff", *map(str, pair)), "", (says,), most=21)


@pytest.mark.parametrize("kind", ["missing", "folder", "fifo", "device", "empty-name"])
def test_a_plan_path_that_is_not_a_file_is_refused(kind, good_plan, tmp_path, capsys):
    target = {"missing": tmp_path / "nope.json", "folder": tmp_path, "device": Path("/dev/zero")}.get(kind, tmp_path / "p")
    if kind == "fifo":
        os.mkfifo(target)
    arg = "" if kind == "empty-name" else str(target)
    assert_refused(*cli(capsys, "diff", arg, str(good_plan)))


K8S = "kubernetes:core/v1:ConfigMap"
CLUSTER = "azure-native:containerservice:ManagedCluster"
SELF_DIFFS: dict[str, str] = {
    "nan-output": '{"resources": [], "outputs": {"x": NaN, "y": [NaN, {"z": NaN}]}}',
    "infinities": '{"resources": [], "outputs": {"x": Infinity, "y": -Infinity}}',
    "nan-in-a-replacing-input": _doc(_resource(type=CLUSTER, urn=f"urn:pulumi:dev::p::{CLUSTER}::c",
                                               inputs={"location": float("nan")}, options={"protect": True})),
    "nan-in-replace-on-changes-path": _doc(_resource(inputs={"a": {"b": float("nan")}},
                                                     options={"replaceOnChanges": ["a.b", "*"], "protect": True})),
    "negative-zero": _doc(_resource(inputs={"a": -0.0, "b": 0})),
    "bools-and-numbers": _doc(_resource(inputs={"a": True, "b": 1, "c": [False, 0, 0.0]})),
    "aliases-to-each-other": _doc(_resource(name="a", urn="urn:pulumi:dev::p::t:m:T::a",
                                            options={"aliases": ["urn:pulumi:dev::p::t:m:T::b"]}),
                                  _resource(name="b", urn="urn:pulumi:dev::p::t:m:T::b",
                                            options={"aliases": ["urn:pulumi:dev::p::t:m:T::a"]})),
    "dangling-dependencies-and-provider": _doc(_resource(dependencies=["urn:pulumi:dev::p::t:m:T::gone"],
                                                         provider="urn:pulumi:dev::p::pulumi:providers:k::k::id")),
    "odd-paths": _doc(_resource(options={"ignoreChanges": ["[", "a..b", ""], "replaceOnChanges": ["]]", "*"]})),
    "unicode-and-controls": _doc(_resource(inputs={"\u202e": "\x1b[2J", "nul": "a\x00b"})),
    "same-local-urn-two-stacks": _doc(_resource(urn="urn:pulumi:a::p::t:m:T::r"), _resource(urn="urn:pulumi:b::p::t:m:T::r")),
    "kubernetes-object": _doc(_resource(type=K8S, urn=f"urn:pulumi:dev::p::{K8S}::cm",
                                        inputs={"metadata": {"name": float("nan")}, "data": {"k": "v"}})),
    "deep-but-allowed": _doc(_resource(inputs={"a": json.loads("[" * 150 + "]" * 150)})),
    "no-resources": '{"resources": []}',
}


@pytest.mark.parametrize("name", sorted(SELF_DIFFS))
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_plan_diffed_against_itself_is_no_change_whatever_it_holds(name, as_json, tmp_path, capsys):
    plan = tmp_path / f"{name}.json"
    plan.write_text(SELF_DIFFS[name])
    status, out, err = cli(capsys, "diff", str(plan), str(plan), *(["--json"] if as_json else []))
    assert (status, err) == (0, ""), err
    if as_json:
        doc = json.loads(out)
        assert (doc["hasChanges"], doc["resources"], doc["outputs"]) == (False, [], [])
    else:
        assert "0 resource(s) differ" in out


def test_nan_is_still_a_change_from_a_number(tmp_path, capsys):
    """The control: NaN-safe equality must not hide a real change."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text('{"resources": [], "outputs": {"x": NaN, "b": 1}}')
    new.write_text('{"resources": [], "outputs": {"x": 1.5, "b": true}}')
    status, out, _ = cli(capsys, "diff", str(old), str(new))
    assert status == 3 and "x: NaN -> 1.5" in out and "b: 1 -> True" in out.replace("true", "True")
    status, out, _ = cli(capsys, "diff", str(old), str(new), "--json")
    changes = {c["path"]: c for c in json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in --json"))["outputs"]}
    assert status == 3 and (changes["x"]["old"], changes["b"]["new"]) == ("NaN", True)


def test_a_real_plan_diffed_against_itself_is_no_change(good_plan, capsys):
    assert cli(capsys, "diff", str(good_plan), str(good_plan))[0] == 0


def test_a_plan_with_a_byte_order_mark_still_diffs(good_plan, tmp_path, capsys):
    marked = tmp_path / "bom.json"
    marked.write_bytes(b"\xef\xbb\xbf" + good_plan.read_bytes())
    assert cli(capsys, "diff", str(marked), str(good_plan))[0] == 0


# --- docs on a repository it cannot regenerate -------------------------------------------------------------------------
@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """The files `docs` reads and writes, copied."""
    for name in ("Pulumi.yaml", "__main__.py", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    return tmp_path


@pytest.mark.parametrize(
    "damage, starts, says",
    [
        (lambda r: (r / "stacks" / "Pulumi.dev.yaml").write_text(MIN.replace("westeurope", "West Europe")),
         "cluster.location:", "region"),
        (lambda r: (r / "stacks" / "Pulumi.dev.yaml").write_text("config: [\n"), "Pulumi.dev.yaml:", "not valid YAML"),
        (lambda r: (r / "stacks" / "Pulumi.dev.yaml").unlink(), "Pulumi.dev.yaml:", "no such stack file"),
        (lambda r: (r / "__main__.py").write_text("import sys\nsys.exit(0)\n"), "the program called sys.exit(0)", ""),
        (lambda r: (r / "README.md").unlink(), "README.md:", "no such file"),
        (lambda r: (r / "README.md").write_bytes(b"\xff\xfe broken"), "README.md:", "not UTF-8"),
        (lambda r: (r / "docs" / "sizing.md").write_text("no markers here\n"), "docs/sizing.md:", "generated block"),
        (lambda r: shutil.rmtree(r / "docs"), "docs/sizing.md:", "no such file"),
    ],
    ids=["invalid-stack", "broken-stack", "no-stack", "program-exits", "no-readme", "readme-not-utf8", "no-markers",
         "no-docs-folder"],
)
def test_docs_on_a_repository_it_cannot_regenerate_exits_2_in_one_line(damage, starts, says, repo_copy, capsys):
    damage(repo_copy)
    before = {p: p.read_bytes() for p in repo_copy.rglob("*") if p.is_file()}
    assert_refused(*cli(capsys, "docs", "--project-dir", str(repo_copy)), starts, (says,))
    assert {p: p.read_bytes() for p in repo_copy.rglob("*") if p.is_file()} == before  # nothing half-written


def test_docs_never_writes_through_a_link(repo_copy, tmp_path_factory, capsys):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "README.md"
    elsewhere.write_text((repo_copy / "README.md").read_text())
    (repo_copy / "README.md").unlink()
    (repo_copy / "README.md").symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    assert_refused(*cli(capsys, "docs", "--project-dir", str(repo_copy)), "README.md:", ("symbolic link",))
    assert elsewhere.read_bytes() == before


def test_the_derived_names_the_limit_checks_are_the_names_the_samples_use():
    from components.config.limits import derived_names
    from components.kubernetes.claim_templates import claim_template_name, pair_template_name, shared_claim_name

    assert derived_names("dc", [12, 6, 12], True, True) == [
        claim_template_name("dc", 6), claim_template_name("dc", 12), pair_template_name("dc"), shared_claim_name("dc")
    ]


# --- Helm releases: a name is unique per namespace, not per cluster -------------------------------------------------------
RELEASES = """import pulumi_kubernetes as k8s
for i, ns in enumerate({namespaces!r}):
    k8s.helm.v3.Release(f"r{{i}}", name="same", namespace=ns, chart="oci://example.com/c", version="1.0.0",
                        values={{"ns": ns}})
"""


@pytest.mark.parametrize(
    "namespaces, folders",
    [(["a", "b"], ["a-same", "b-same"]), (["a"], ["same"]), (["a", "b", "c"], ["a-same", "b-same", "c-same"])],
    ids=["two-namespaces", "one", "three-namespaces"],
)
def test_one_release_name_in_several_namespaces_renders_each_release(namespaces, folders, tmp_path, capsys):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(RELEASES.format(namespaces=namespaces))
    out_dir = tmp_path / "out"
    status, _out, err = cli(capsys, "render", "--stack", "dev", "--project-dir", str(folder), "--out", str(out_dir))
    assert (status, err) == (0, ""), err
    assert sorted(p.name for p in (out_dir / "helm").iterdir()) == folders
    for name in folders:
        release = (out_dir / "helm" / name / "release.yaml").read_text()
        assert "name: same" in release and f"namespace: {name.partition('-')[0] if '-' in name else 'a'}" in release
    status, plan_json, _ = cli(capsys, "plan", "--stack", "dev", "--project-dir", str(folder), "--json")
    assert status == 0
    (tmp_path / "plan.json").write_text(plan_json)
    assert cli(capsys, "diff", str(tmp_path / "plan.json"), str(tmp_path / "plan.json"))[0] == 0


def test_one_release_name_twice_in_one_namespace_is_refused(tmp_path, capsys):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (folder / "Pulumi.dev.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(RELEASES.format(namespaces=["a", "a"]))
    status, out, err = cli(capsys, "render", "--stack", "dev", "--project-dir", str(folder), "--out", str(tmp_path / "o"))
    assert_refused(status, out, err, "two Helm releases are named same in namespace a", ("unique per namespace",))


# --- files and arguments handed to `size` ---------------------------------------------------------------------------------
SIZE_FILES: dict[str, tuple[str | bytes | None, str]] = {
    "folder": (None, "is a folder"),
    "fifo": (None, "not a regular file"),
    "device": (None, "not a regular file"),
    "missing": (None, "no such file"),
    "not-utf8": (b"workloads:\n  - {name: a, memoryGiB: 3}\n# \xff\n", "not UTF-8"),
    "alias-bomb": (bomb().replace("config:\n  x:", "workloads: [{name: a, memoryGiB: 3}]\nx:"), "aliases expand"),
    "too-large": ("workloads: []\n" + "#" * (2 << 20), "too large"),
    "yaml11-word": ("workloads:\n  - {name: no, memoryGiB: 3}\n", "workloads[0].name: unquoted no"),
    "huge-number": ("workloads:\n  - {name: a, memoryGiB: " + "9" * 5000 + "}\n", "workloads[0].memoryGiB: a number of 5000"),
    "key-twice": ("workloads:\n  - {name: a, name: b, memoryGiB: 3}\n", "workloads[0].name: key 'name' is written twice"),
}


@pytest.mark.parametrize("option", ["--workloads", "--prices"])
@pytest.mark.parametrize("kind", sorted(SIZE_FILES))
def test_a_file_size_cannot_read_is_refused_in_one_line(kind, option, tmp_path, capsys):
    content, says = SIZE_FILES[kind]
    path = tmp_path / f"{kind}.yaml"
    if not special_file(path, kind) and content is not None:
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    if option == "--prices" and kind in ("yaml11-word", "huge-number", "key-twice"):
        says = says.split(": ", 1)[1] if kind != "huge-number" else "a number of 5000"
    argv = ["size", "--workloads", str(path)] if option == "--workloads" else ["size", "--workload", "a=3", "--prices", str(path)]
    assert_refused(*cli(capsys, *argv), str(path), (says,))


@pytest.mark.parametrize("workload", ["a=3x99999999999999999999", "a=3x10001", "a=1025", "a=" + "9" * 400])
def test_a_workload_beyond_the_file_forms_limits_is_refused(workload, capsys):
    assert_refused(*cli(capsys, "size", "--workload", workload), "--workload", ("at most",))


@pytest.mark.parametrize("mistakes", [51, 5000])
def test_thousands_of_mistakes_are_told_in_a_screenful(mistakes, project, capsys):
    write_stack(project, "many", MIN.replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.35"\n' + "".join(
        f"    x{i}: 1\n" for i in range(mistakes))))
    status, out, err = cli(capsys, "plan", "--stack", "many", "--project-dir", str(project))
    assert_refused(status, out, err, "cluster.x0:", ("unknown key",), most=51)
    assert err.splitlines()[-1] == f"... and {mistakes - 50} more problems (fix these first)"


@pytest.mark.parametrize("value", [5, "x", [], ["a"], None, {"name": 5}], ids=repr)
@pytest.mark.parametrize("side", ["old", "new"])
def test_a_hand_made_plan_with_odd_kubernetes_metadata_still_diffs(value, side, good_plan, tmp_path, capsys):
    doc = json.loads(good_plan.read_text())
    for res in doc["resources"]:
        if res["type"].startswith("kubernetes:") and res["custom"] and "metadata" in res["inputs"]:
            res["inputs"]["metadata"] = value
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(doc))
    pair = (odd, good_plan) if side == "old" else (good_plan, odd)
    status, _out, err = cli(capsys, "diff", *map(str, pair))
    assert status in (3, 4) and "Traceback" not in err and "not a plan document" not in err, err
    assert cli(capsys, "diff", str(odd), str(odd))[0] == 0
