"""The results file a benchmark writes, which the chapters quote: ``benchmarks/results/<name>.json``.

A chapter never types a benchmark's numbers: it reads them with ``benchmark_results(name)`` of the
book's helpers (``book/bookkit.py``), so every chapter quoting a benchmark quotes the same run.
Besides the results, the file records when, where and how they were measured (date, commit,
machine, BLAS threads, the exact command), and the SHA-256 of every source file the run executed
(the benchmark, its helpers and every ``attnlib`` module it imported).
``tests/test_benchmark_results.py`` fails when one of those files has changed since: a stale
benchmark is a failing test, not a stale page.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def measured_sources() -> dict[str, str]:
    """SHA-256 of every file of the repository that this process has executed, by relative path."""
    files = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path:
            continue
        path = Path(path).resolve()
        try:
            relative = path.relative_to(ROOT)
        except ValueError:
            continue
        if relative.parts[0] in ("attnlib", "benchmarks") and path.suffix == ".py":
            files.add(relative)
    main = Path(sys.argv[0]).resolve()
    if main.is_file() and ROOT in main.parents:
        files.add(main.relative_to(ROOT))
    return {p.as_posix(): sha256(ROOT / p) for p in sorted(files)}


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def blas_kernel() -> str:
    """The kernel OpenBLAS runs on this CPU ("Haswell", "SkylakeX", ...): AVX-512's GEMM is several
    times AVX2's, so a ratio to the GEMM means little without it. Asked of a fresh interpreter,
    which OpenBLAS tells when ``OPENBLAS_VERBOSE=2``; "unknown" if it does not say."""
    import subprocess

    env = {**os.environ, "OPENBLAS_VERBOSE": "2"}
    run = subprocess.run([sys.executable, "-c", "import numpy; numpy.ones((2, 2)) @ numpy.ones((2, 2))"],
                         env=env, capture_output=True, text=True, timeout=60)
    for line in (run.stdout + run.stderr).splitlines():
        if line.startswith("Core:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def write_results(name: str, results: dict, argv: list[str] | None = None) -> Path:
    """Write ``benchmarks/results/<name>.json`` with ``results`` and how they were measured."""
    import numpy as np

    argv = sys.argv if argv is None else argv
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    command = " ".join(["python", f"benchmarks/{Path(argv[0]).name}", *map(shlex.quote, argv[1:])])
    if threads != "unset":  # the run is reproduced with the same BLAS threads
        command = f"OPENBLAS_NUM_THREADS={threads} {command}"
    core = os.environ.get("OPENBLAS_CORETYPE")
    if core:  # ... and with the same kernels, when the run chose them
        command = f"OPENBLAS_CORETYPE={core} {command}"
    commit = _git("rev-parse", "HEAD")
    if _git("status", "--porcelain", "--", "attnlib", "benchmarks") not in ("", "unknown"):
        commit += " (with uncommitted changes; the source hashes below are exact)"
    record = {
        "benchmark": name,
        "command": command,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "machine": _machine(),
        "blas_kernel": blas_kernel(),
        "threads": threads,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "results": results,
        "sources": measured_sources(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=False, allow_nan=False) + "\n")
    return path


def stale_sources(record: dict, root: Path = ROOT) -> list[str]:
    """The files of ``record["sources"]`` that are missing or have changed since the run."""
    stale = []
    for relative, digest in record["sources"].items():
        path = root / relative
        if not path.is_file():
            stale.append(f"{relative} (removed)")
        elif sha256(path) != digest:
            stale.append(relative)
    return stale
