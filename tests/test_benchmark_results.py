"""Benchmark numbers in the chapters come from committed results files, and those are current.

Every ``benchmarks/results/<name>.json`` records the SHA-256 of each file its run executed. A
file whose code changed since the run makes the benchmark stale (``benchmarks/_freshness.py``: a
change of docstrings or comments alone does not): this test fails, naming the files and the
command that measures them again. A chapter that quotes a benchmark reads it with
``benchmark_results`` of ``book/bookkit.py``, never by typing its numbers.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import _freshness  # noqa: E402
import _results  # noqa: E402

RESULTS = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
FIELDS = {"benchmark", "command", "date", "commit", "machine", "blas_kernel", "threads", "python", "numpy", "results",
          "sources"}


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_results_file_says_how_it_was_measured(path):
    record = json.loads(path.read_text())
    assert FIELDS <= set(record), f"{path.name} lacks {sorted(FIELDS - set(record))}"
    assert record["benchmark"] == path.stem
    assert re.match(rf"(OPENBLAS_CORETYPE=\w+ )?(OPENBLAS_NUM_THREADS=\d+ )?python benchmarks/{path.stem}\.py",
                    record["command"]), record["command"]
    core = re.match(r"OPENBLAS_CORETYPE=(\w+) ", record["command"])
    assert not core or record["blas_kernel"] == core.group(1), (record["command"], record["blas_kernel"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", record["date"]), record["date"]
    assert f"benchmarks/{path.stem}.py" in record["sources"], "the benchmark script itself must be hashed"
    assert any(p.startswith("attnlib/") for p in record["sources"]), "the library code it measured must be hashed"


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_results_are_not_stale(path):
    record = json.loads(path.read_text())
    stale = _freshness.stale_code(record)
    assert not stale, (f"{path.name} was measured on other code; these changed since {record['date']}: "
                       f"{stale}. Run `{record['command']}` again and commit the new results file.")


def test_a_changed_source_makes_the_results_stale(tmp_path):
    (tmp_path / "attnlib").mkdir()
    module = tmp_path / "attnlib" / "m.py"
    module.write_text("x = 1\n")
    record = {"sources": {"attnlib/m.py": _results.sha256(module)}}
    assert _results.stale_sources(record, tmp_path) == []
    module.write_text("x = 2\n")
    assert _results.stale_sources(record, tmp_path) == ["attnlib/m.py"]
    module.unlink()
    assert _results.stale_sources(record, tmp_path) == ["attnlib/m.py (removed)"]


def test_a_change_of_docstrings_alone_leaves_the_results_current(tmp_path):
    """The measured version is found in the history; only a change of its code makes the results stale."""
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

    (tmp_path / "attnlib").mkdir()
    module = tmp_path / "attnlib" / "m.py"
    module.write_text('"""A module."""\n\n\ndef f(x):\n    """Twice x."""\n    return 2 * x  # doubled\n')
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "measured")
    record = {"sources": {"attnlib/m.py": _results.sha256(module)}}
    module.write_text('"""A module, documented anew."""\n\n\ndef f(x):\n    """2 x."""\n    return 2 * x\n')
    assert _freshness.stale_code(record, tmp_path) == []
    module.write_text('"""A module."""\n\n\ndef f(x):\n    """Twice x."""\n    return 3 * x  # doubled\n')
    assert _freshness.stale_code(record, tmp_path) == ["attnlib/m.py"]
    module.write_text('"""A module."""\n\n\ndef f(x):\n    """Twice x."""\n    x = x\n    return 2 * x\n')
    assert _freshness.stale_code(record, tmp_path) == ["attnlib/m.py"]


def test_the_writer_hashes_what_the_run_executed(tmp_path, monkeypatch):
    import attnlib.heads  # noqa: F401  (a library module this process has executed)

    monkeypatch.setattr(_results, "RESULTS", tmp_path)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    path = _results.write_results("demo", {"ratio": 1.5}, argv=[str(ROOT / "benchmarks" / "demo.py"), "--fast"])
    record = json.loads(path.read_text())
    assert record["command"] == "OPENBLAS_NUM_THREADS=1 python benchmarks/demo.py --fast"
    assert record["threads"] == "1"
    assert record["results"] == {"ratio": 1.5}
    assert record["sources"]["attnlib/heads.py"] == _results.sha256(ROOT / "attnlib" / "heads.py")
    assert "benchmarks/_results.py" in record["sources"]
    assert FIELDS <= set(record)


def test_chapters_quote_benchmarks_only_through_their_results_files():
    """A chapter that names a benchmark script in its prose loads that benchmark's results file."""
    for chapter in sorted((ROOT / "book").glob("ch*.ipynb")):
        cells = json.loads(chapter.read_text())["cells"]
        prose = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for name in sorted(set(re.findall(r"benchmarks/(\w+)\.py", prose))):
            assert (ROOT / "benchmarks" / "results" / f"{name}.json").exists(), \
                f"{chapter.name} quotes benchmarks/{name}.py, which has no committed results file"
            assert re.search(rf"benchmark_results\(\s*['\"]{name}['\"]", code), \
                f"{chapter.name} quotes benchmarks/{name}.py but never loads benchmark_results({name!r})"


def _readme_ratios(text: str) -> dict[str, list[str]]:
    section = text.split("## How fast", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    return {line: re.findall(r"\d+\.\d+|\d+(?= or more)", line.split(":", 1)[1]) for line in lines}


def readme_ratio_problems(readme: str, results: dict) -> list[str]:
    """Where the README's "How fast" lines differ from the results file (rounded as printed)."""
    a, c, e = results["a"], results["c"], results["e"]
    expected = [
        [f"{a['1']['fit_over_gemm']:.2f}", f"{a['2']['fit_over_gemm']:.2f}"],
        [f"{a['1']['fit_over_symmetric']:.2f}", f"{a['2']['fit_over_symmetric']:.2f}"],
        [f"{c['lstsq_over_fit']:.1f}"],
        [f"{int(min(run['float32_over_certificate'] for run in e['runs']))}"],
    ]
    found = list(_readme_ratios(readme).values())
    if len(found) != len(expected):
        return [f"expected {len(expected)} lines under 'How fast', found {len(found)}"]
    return [f"line {i + 1}: README says {got}, the results file gives {want}"
            for i, (got, want) in enumerate(zip(found, expected, strict=True)) if got != want]


def test_the_readme_quotes_the_current_ratios():
    record = json.loads((ROOT / "benchmarks" / "results" / "linear_regression.json").read_text())
    problems = readme_ratio_problems((ROOT / "README.md").read_text(), record["results"])
    assert not problems, "update the README's 'How fast' lines from the results file:\n" + "\n".join(problems)


def test_a_ratio_changed_in_the_results_fails_the_readme_check():
    record = json.loads((ROOT / "benchmarks" / "results" / "linear_regression.json").read_text())
    record["results"]["a"]["2"]["fit_over_gemm"] += 0.1
    assert readme_ratio_problems((ROOT / "README.md").read_text(), record["results"])


def test_the_record_names_the_kernels_a_run_chose(tmp_path, monkeypatch):
    """A run under OPENBLAS_CORETYPE records it in its command, and every record names the kernel used."""
    monkeypatch.setattr(_results, "RESULTS", tmp_path)
    monkeypatch.setattr(_results, "measured_sources", dict)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    record = json.loads(_results.write_results("x", {}, ["benchmarks/x.py", "--quick"]).read_text())
    assert record["command"] == "OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 python benchmarks/x.py --quick"
    assert record["blas_kernel"] in ("Haswell", "unknown")  # "unknown": a BLAS that does not say
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    record = json.loads(_results.write_results("x", {}, ["benchmarks/x.py"]).read_text())
    assert record["command"] == "OPENBLAS_NUM_THREADS=1 python benchmarks/x.py"
