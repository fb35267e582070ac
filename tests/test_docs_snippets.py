"""Every Python snippet in docs/ runs as written: as the program of a consumer's Pulumi project that has its own
`components/` package, with this package installed (not the checkout) and planned offline by the installed CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.test_package import IMPORT_NAME, _run

SNIPPET = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
SNIPPETS = {
    f"{path.name}:{text[: m.start()].count(chr(10)) + 2}": m[1]
    for path in sorted((ROOT / "docs").glob("*.md"))
    for text in [path.read_text(encoding="utf-8")]
    for m in SNIPPET.finditer(text)
}
# The consumer's stack: a kubeconfig of its own (the offline plan never connects) and, for snippets that read the
# package's settings in the consumer's namespace, a cluster and a tainted 8 GiB pool.
CONFIG = {
    "consumer-gpu:kubeconfig": "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n",
    "consumer-gpu:cluster": {"name": "aks-shared", "location": "westeurope", "resourceGroup": {"name": "rg-shared"},
                             "kubernetesVersion": "1.34"},
    "consumer-gpu:gpuPools": [{"name": "third", "vmSize": "Standard_NV12ads_A10_v5", "count": 1,
                               "taints": ["sku=gpu:NoSchedule"]}],
}


def test_docs_have_python_snippets_and_each_imports_the_installed_name():
    assert len(SNIPPETS) >= 2
    for where, code in SNIPPETS.items():
        assert f"from {IMPORT_NAME}" in code or f"import {IMPORT_NAME}" in code, where
        assert not re.search(r"^\s*(from|import) components\b", code, re.M), where


@pytest.mark.parametrize("where", sorted(SNIPPETS))
def test_a_docs_snippet_runs_beside_a_consumers_own_components(installed, tmp_path: Path, where):
    python, _ = installed
    consumer = tmp_path / "consumer"
    (consumer / "components").mkdir(parents=True)
    (consumer / "components" / "__init__.py").write_text('"""The consumer\'s own components."""\n')
    (consumer / "Pulumi.yaml").write_text("name: consumer-gpu\nruntime: python\n")
    (consumer / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": CONFIG}))
    (consumer / "__main__.py").write_text(SNIPPETS[where])
    result = _run(python, consumer, "-m", IMPORT_NAME, "plan", "--project-dir", str(consumer), "--stack", "dev", "--json")
    assert result.returncode == 0, (where, result.stderr)
    doc = json.loads(result.stdout)
    if "pulumi.export(\"tolerations\"" in SNIPPETS[where]:
        assert doc["outputs"]["tolerations"] == [{"key": "sku", "operator": "Equal", "value": "gpu",
                                                  "effect": "NoSchedule"}]
    if "DraClaimTemplates(" in SNIPPETS[where]:
        kinds = {r["type"] for r in doc["resources"]}
        assert "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate" in kinds, kinds
