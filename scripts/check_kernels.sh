#!/usr/bin/env bash
# Run the README's test command under each OpenBLAS kernel in turn, and print a table of failures.
#
#   bash scripts/check_kernels.sh                 # the whole suite, as the README runs it
#   bash scripts/check_kernels.sh book/ch08_sculpting.ipynb tests/sculpt   # only these paths
#
# Readers' machines pick different BLAS kernels, so the last bits of a result differ between them.
# Every printed output (nbval) and every test must survive that. OPENBLAS_CORETYPE forces a kernel:
# unset (what this CPU picks), Haswell (AVX2), SkylakeX (AVX-512) and Sandybridge (AVX). A kernel
# this CPU cannot run is skipped and said so. This is a developer's check: CI runs the machine as it
# is, so never put OPENBLAS_CORETYPE into .ci/run or the tests. Then every chapter checked is run a
# second time in the same kernel, cell by cell (scripts/rerun_cells.py). Logs go to _build/kernels/ (or $KERNEL_LOGS).
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
logs="${KERNEL_LOGS:-_build/kernels}"  # KERNEL_LOGS: another folder, for runs side by side
mkdir -p "$logs"

python -m pip install -q -r requirements.txt || { echo "pip install -r requirements.txt failed"; exit 2; }

flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
needs() {  # the instruction set a kernel needs
  case "$1" in
    SkylakeX) echo avx512f ;;
    Haswell) echo avx2 ;;
    Sandybridge) echo avx ;;
    *) echo "" ;;
  esac
}

# the kernel OpenBLAS really runs (needs threadpoolctl, which is optional: "?" without it)
probe='import numpy, threadpoolctl; print(",".join(sorted({i.get("architecture") or "?" for i in threadpoolctl.threadpool_info() if i.get("internal_api") == "openblas"})))'
corename() {
  if [[ "$1" == unset ]]; then env -u OPENBLAS_CORETYPE python -c "$probe" 2>/dev/null || echo "?"
  else OPENBLAS_CORETYPE="$1" python -c "$probe" 2>/dev/null || echo "?"; fi
}

declare -a rows
status=0
rm -f "$logs/failures.txt"
for kernel in unset Haswell SkylakeX Sandybridge; do
  need="$(needs "$kernel")"
  if [[ -n "$need" && " $flags " != *" $need "* ]]; then
    rows+=("$(printf '%-12s %-8s %s' "$kernel" skipped "this CPU has no $need")")
    continue
  fi
  log="$logs/$kernel.log"
  start=$SECONDS
  if [[ "$kernel" == unset ]]; then
    env -u OPENBLAS_CORETYPE python -m pytest -p no:cacheprovider -q -rf "$@" >"$log" 2>&1
  else
    OPENBLAS_CORETYPE="$kernel" python -m pytest -p no:cacheprovider -q -rf "$@" >"$log" 2>&1
  fi
  code=$?
  picked="$(corename "$kernel")"
  summary="$(grep -E '(passed|failed|error)' "$log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')"
  failed="$(grep -c '^FAILED ' "$log" || true)"
  errors="$(grep -c '^ERROR ' "$log" || true)"
  rows+=("$(printf '%-12s %-8s %-9s %s (%d s)' "$kernel" "$((failed + errors))" "$picked" "$summary" "$((SECONDS - start))")")
  if [[ $code -ne 0 ]]; then
    status=1
    grep -E '^(FAILED|ERROR) ' "$log" | sed "s/^/    [$kernel] /" | cut -c1-200 >>"$logs/failures.txt"
  fi
done

echo
printf '%-12s %-8s %-9s %s\n' "kernel" "failures" "openblas" "pytest summary"
for row in "${rows[@]}"; do echo "$row"; done
if [[ -s "$logs/failures.txt" ]]; then
  echo; echo "failures (full logs in $logs/):"; cat "$logs/failures.txt"; rm -f "$logs/failures.txt"
fi

# Every cell of the chapters checked runs again after the chapter ran (a reader goes back):
# scripts/rerun_cells.py, once, on this CPU's own kernel (the README's command does not: it doubles
# the chapters' time).
chapters=()
if [[ $# -eq 0 ]]; then chapters=(book/ch[0-9][0-9]_*.ipynb); else
  for path in "$@"; do [[ "$path" == book/ch*.ipynb ]] && chapters+=("$path"); done
fi
if [[ ${#chapters[@]} -gt 0 ]]; then
  echo
  env -u OPENBLAS_CORETYPE python scripts/rerun_cells.py "${chapters[@]}" || status=1
fi
exit $status
