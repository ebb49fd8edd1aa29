#!/usr/bin/env bash
# Build the release: the sdist and the wheel of attnlib into OUTDIR, then check them as PyPI will.
#
#     bash scripts/build_release.sh OUTDIR
#
# Called by .ci/run (its release step) and by .github/workflows/release.yml (the files a tag
# publishes), so that CI checks exactly what is published. It uses the first python on PATH, which
# must have build==1.6.1 and twine==7.0.0 (the pins .ci/run's release step installs, and the
# release workflow installs the same). `python -m build` builds in an isolated environment: the sdist,
# then the wheel from the sdist; `twine check --strict` fails on any warning about the metadata or
# the README the index would render. OUTDIR must be empty or absent, so that no older file is checked
# or published with the new ones.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: bash scripts/build_release.sh OUTDIR" >&2
  exit 2
fi
mkdir -p "$1"
outdir="$(cd "$1" && pwd)"
if [ -n "$(ls -A "$outdir")" ]; then
  echo "build_release.sh: $outdir is not empty; remove it first (older files would be checked and published)" >&2
  exit 1
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."

echo "$(python --version); $(python -m build --version); $(python -m twine --version | head -n 1)"
python -m build --quiet --outdir "$outdir" .
python -m twine check --strict "$outdir"/*
