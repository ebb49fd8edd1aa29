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
    a, c, e, floor = results["a"], results["c"], results["e"], results["floor"]
    expected = [
        [f"{floor['Haswell'][k][d]['fit_over_floor']:.2f}" for k, d in (("1", "16"), ("2", "16"), ("1", "32"))],
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


# --- the cost curves: slopes, reach ---------------------------------------------------------


def test_growth_recovers_a_power_law_and_an_exponential_exactly():
    """Noise-free data give the slope of the closed form and an interval of width zero."""
    from _growth import growth

    x = [4, 8, 12, 16, 24, 32]
    power = growth(x, [3.0 * v**9 for v in x])
    assert power["slope"] == pytest.approx(9, abs=1e-9) and power["high"] - power["low"] < 1e-6
    exp = growth([1, 2, 3, 4], [0.5 * 8.0**m for m in (1, 2, 3, 4)], log_x=False)
    assert exp["factor"] == pytest.approx(8, rel=1e-9) and exp["intercept"] == pytest.approx(-0.6931471805599, rel=1e-9)


def test_growth_interval_is_the_t_interval_of_the_least_squares_slope():
    """Against the textbook formula: slope +- t(0.975, n - 2) * sqrt(RSS / (n - 2) / Sxx), on log axes."""
    import numpy as np
    from _growth import growth

    rng = np.random.default_rng(0)
    x = np.repeat([4.0, 8.0, 16.0, 32.0], 3)
    y = 2 * x**3 * np.exp(0.1 * rng.standard_normal(x.size))
    u, v = np.log(x), np.log(y)
    b = np.sum((u - u.mean()) * (v - v.mean())) / np.sum((u - u.mean()) ** 2)
    a = v.mean() - b * u.mean()
    se = np.sqrt(np.sum((v - a - b * u) ** 2) / (u.size - 2) / np.sum((u - u.mean()) ** 2))
    t = 2.228138851986  # Student's t, 0.975 quantile, 10 degrees of freedom (tables)
    g = growth(x, y)
    assert g["slope"] == pytest.approx(b, rel=1e-12)
    assert (g["low"], g["high"]) == pytest.approx((b - t * se, b + t * se), rel=1e-9)
    with pytest.raises(ValueError, match="3 points"):
        growth([1, 2], [1, 2])
    with pytest.raises(ValueError, match="positive"):
        growth([1, 2, 3], [1, 0, 2])


def _reach_block(text: str) -> str:
    match = re.search(r"<!-- reach:[^>]*-->\n(.*?)<!-- /reach -->", text, re.S)
    assert match, "benchmarks/README.md lacks its <!-- reach --> block"
    return match.group(1).strip()


def test_the_benchmarks_readme_shows_the_reach_of_the_results_file():
    import linear_regression

    record = json.loads((ROOT / "benchmarks" / "results" / "linear_regression.json").read_text())
    want = linear_regression.reach_markdown(record["results"]["reach"])
    assert _reach_block((ROOT / "benchmarks" / "README.md").read_text()) == want, (
        "paste linear_regression.reach_markdown(results['reach']) between the reach markers:\n" + want)


def test_the_reach_table_is_the_memory_check_and_the_flop_count():
    """Against hand counts: psi, 8 psi^2, the memory the fit checks for, the flops at N = 2 psi."""
    import linear_regression

    from attnlib.rkhs._normal_equations import solve_memory

    r = linear_regression.reach(50.0)
    row = {x["d"]: x for x in r["rows"]}[32]
    P, psi = 32 * 33 // 2, 32 * 32 * 33 // 2
    assert row["psi"] == 16_896 and row["gram_bytes"] == 8 * 16_896**2
    flops = 2 * (2 * psi) * (P * (P + 1) // 2) * P + 2 * (2 * psi) * P * 32 * 32 + psi**3 / 3
    assert row["flops"] == pytest.approx(flops) and row["hours"] == pytest.approx(flops / 50e9 / 3600)
    assert solve_memory(r["largest_d"], r["largest_d"]) <= 0.8 * r["memory_bytes"]
    assert solve_memory(r["largest_d"] + 1, r["largest_d"] + 1) > 0.8 * r["memory_bytes"]
    assert "| 32 | 16,896 | 2.28 GB |" in linear_regression.reach_markdown(r)


def test_the_record_has_the_fit_against_its_floor_at_both_sizes():
    """d = 16 at one and two threads, d = 32 at one (the command's kernel), each exact on held-out inputs."""
    record = json.loads((ROOT / "benchmarks" / "results" / "linear_regression.json").read_text())["results"]
    for threads, d in (("1", "16"), ("2", "16"), ("1", "32")):
        r = record["floor"]["Haswell"][threads][d]
        assert r["fit_over_floor"] == pytest.approx(r["median_seconds"] / r["flop_floor_seconds"])
        assert r["held_out_error"] < 1e-8 and r["solver"] == "cholesky" and r["warnings"] == []
    assert record["curves"]["over_d"]["d"] == [4, 8, 12, 16, 24, 32]
