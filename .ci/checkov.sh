#!/usr/bin/env bash
# Scans the Kubernetes manifests that both stacks render (`python -m components render`) with checkov, a real IaC
# security scanner. Fails on any failed check; the sample Job's deliberate exceptions carry their reasons as checkov
# skip annotations in the manifest itself (components/dra_samples.py: scanner_skips).
#
# checkov pins its own dependencies (it downgrades `packaging`), so it lives in a virtualenv of its own, never the
# project's. Environment:
#   PYTHON        the project's interpreter, with this package installed (default: python)
#   CHECKOV_VENV  a folder to keep checkov's virtualenv in between runs (default: a fresh one, removed afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
venv="${CHECKOV_VENV:-$work/checkov-venv}"

if [ ! -x "$venv/bin/checkov" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q 'checkov>=3.2,<4'
fi

for stack in dev prod; do
    "$python" -m components render --stack "$stack" --out "$work/$stack" > /dev/null
    echo "checkov: stack $stack"
    # One run per stack: given several -d folders, checkov 3.x reports the first one twice.
    # --skip-download: no guideline or policy downloads from the vendor's platform; the built-in checks only.
    "$venv/bin/checkov" --skip-download --framework kubernetes --compact --quiet -d "$work/$stack"
done
echo "checkov: dev and prod manifests pass"
