"""book/bookkit.py, the book's own helpers: figures stored as vectors, the values and tables a chapter's prose
renders from its computation, the benchmarks' committed results."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book"))

import bookkit as prose  # noqa: E402


@pytest.mark.parametrize("value, fmt, text", [
    (3, None, "3"),
    (np.int64(12), None, "12"),
    (12345, ",", "12,345"),
    (0.8234, ".2f", "0.82"),
    (np.float32(0.5), ".1f", "0.5"),
    (0.953, ".0%", "95%"),
    ("3/3", None, "3/3"),
    (8.2e-15, ".1e", "8.2×10⁻¹⁵"),
    (1e-30, ".0e", "10⁻³⁰"),
    (2.5e12, ".1e", "2.5×10¹²"),
    (1.5, ".1e", "1.5"),
    (0.00056, ".2g", "0.00056"),
])
def test_format_value_against_python_format(value, fmt, text):
    assert prose.format_value(value, fmt) == text


@pytest.mark.parametrize("value, fmt, error, match", [
    (0.8234, None, ValueError, "needs fmt"),
    (float("nan"), ".2f", ValueError, "finite"),
    (float("inf"), ".2f", ValueError, "finite"),
    (True, None, TypeError, "bool"),
    ("3/3", ".2f", ValueError, "fmt"),
    ([1.0], None, TypeError, "list"),
    (1.0, 2, TypeError, "fmt"),
])
def test_format_value_refuses_what_would_show_wrong_or_machine_dependent_text(value, fmt, error, match):
    with pytest.raises(error, match=match):
        prose.format_value(value, fmt)


@pytest.mark.parametrize("name", ["Ch09-x", "ch09_x", "", "-x", "ch09 x", 9])
def test_glue_names_are_checked(name):
    with pytest.raises(ValueError, match="name"):
        prose.glue(name, 1)


def test_glue_outside_a_kernel_only_returns_the_text(capsys):
    assert prose.glue("ch00-x", 0.8234, ".2f") == "0.82"
    assert capsys.readouterr().out == ""


def test_glue_in_a_kernel_hands_the_formatted_text_to_myst_nb(monkeypatch):
    import IPython

    myst_nb = pytest.importorskip("myst_nb", reason="the book's toolchain (requirements.txt), not the library's")
    calls = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(myst_nb, "glue", lambda *args, **kw: calls.append((args, kw)))
    assert prose.glue("ch00-x", 8.2e-15, ".1e") == "8.2×10⁻¹⁵"
    assert calls == [(("ch00-x", "8.2×10⁻¹⁵"), {"display": False})]


def test_glue_without_myst_nb_returns_the_text_and_shows_nothing(monkeypatch, capsys):
    """Colab installs attnlib[viz] only: in a kernel without myst-nb, glue must not fail or display."""
    import builtins

    import IPython

    real_import = builtins.__import__

    def no_myst_nb(name, *args, **kwargs):
        if name == "myst_nb" or name.startswith("myst_nb."):
            raise ImportError("No module named 'myst_nb'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())  # as in a kernel
    monkeypatch.setattr(builtins, "__import__", no_myst_nb)
    assert prose.glue("ch00-x", 0.953, ".0%") == "95%"
    assert capsys.readouterr().out == ""


def test_markdown_table_renders_rows_and_checks_them():
    table = prose.markdown_table(["a", "b"], [[1, "x"], ["2", "y"]])
    assert table.data.splitlines() == ["| a | b |", "|---|---|", "| 1 | x |", "| 2 | y |"]
    with pytest.raises(ValueError, match=r"rows\[1\] has 1 entries, expected 2"):
        prose.markdown_table(["a", "b"], [[1, 2], [3]])
    with pytest.raises(ValueError, match=r"rows\[0\].*'\|'"):
        prose.markdown_table(["a"], [["x|y"]])
    with pytest.raises(ValueError, match="header"):
        prose.markdown_table([], [])


def _record(name="demo"):
    return {"benchmark": name, "command": f"python benchmarks/{name}.py", "date": "2026-12-03 12:00 UTC",
            "commit": "abc", "machine": "m", "threads": "1", "python": "3.11", "numpy": "2",
            "results": {"ratio": 1.5}, "sources": {}}


def test_benchmark_results_are_read_from_the_repository_around_the_chapter(tmp_path, monkeypatch):
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "book").mkdir()
    (tmp_path / "benchmarks" / "results" / "demo.json").write_text(json.dumps(_record()))
    monkeypatch.chdir(tmp_path / "book")
    found = prose.benchmark_results("demo")
    assert found.results == {"ratio": 1.5} and found.command == "python benchmarks/demo.py"


def test_benchmark_results_from_github_at_the_installed_commit(tmp_path, monkeypatch):
    """Colab: attnlib was pip-installed from GitHub, and the chapter is not in a clone."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(prose, "_local_candidates", lambda name: iter(()))

    class Dist:
        def read_text(self, name):
            return json.dumps({"url": "https://github.com/owner/repo.git", "vcs_info": {"commit_id": "c0ffee"}})

    monkeypatch.setattr(prose.metadata, "distribution", lambda name: Dist())
    asked = []

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return json.dumps(_record()).encode()

    monkeypatch.setattr(prose.urllib.request, "urlopen", lambda url, timeout: asked.append(url) or Response())
    assert prose.benchmark_results("demo").results == {"ratio": 1.5}
    assert asked == ["https://raw.githubusercontent.com/owner/repo/c0ffee/benchmarks/results/demo.json"]


def test_benchmark_results_missing_or_malformed_say_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(prose, "_local_candidates", lambda name: iter(()))
    monkeypatch.setattr(prose.metadata, "distribution",
                        lambda name: (_ for _ in ()).throw(metadata.PackageNotFoundError(name)))
    with pytest.raises(FileNotFoundError, match=r"benchmarks/results/demo\.json"):
        prose.benchmark_results("demo")
    with pytest.raises(ValueError, match="name"):
        prose.benchmark_results("../etc")
    bad = tmp_path / "benchmarks" / "results"
    bad.mkdir(parents=True)
    (bad / "demo.json").write_text(json.dumps({"benchmark": "demo"}))
    monkeypatch.setattr(prose, "_local_candidates", lambda name: iter([bad / "demo.json"]))
    with pytest.raises(ValueError, match="missing"):
        prose.benchmark_results("demo")


def test_benchmark_results_are_found_beside_the_book_from_anywhere(tmp_path, monkeypatch):
    """Binder and an editable install: the chapter's folder may be elsewhere, the repository is around bookkit."""
    monkeypatch.chdir(tmp_path)
    assert prose.benchmark_results("sculpt").name == "sculpt"


def test_figures_are_stored_as_svg_and_pdf_the_same_every_time():
    """The web page shows the SVG, the printed book the PDF; the notebook stores both and no PNG."""
    from IPython.core.interactiveshell import InteractiveShell

    from attnlib.viz import training
    from attnlib.viz._style import svg_text

    shell = InteractiveShell.instance()
    formatters = shell.display_formatter.formatters
    saved = {mime: dict(f.type_printers) for mime, f in formatters.items()}
    try:
        assert prose.show_as_vector(shell) is None
        fig = training.plot_loss_curves({"adam": [1.0, 0.5, 0.25]})
        data, _ = shell.display_formatter.format(fig)
        assert {"image/svg+xml", "application/pdf"} <= set(data) and "image/png" not in data
        assert data["image/svg+xml"] == svg_text(training.plot_loss_curves({"adam": [1.0, 0.5, 0.25]}))  # stable
        assert data["application/pdf"][:5] == b"%PDF-" and b"CreationDate" not in data["application/pdf"]
    finally:
        for mime, printers in saved.items():
            formatters[mime].type_printers.clear()
            formatters[mime].type_printers.update(printers)
    prose.show_as_vector(object())  # outside IPython: nothing to do, no error


# --------------------------------------------------------------- cost curves


def _power_law_points():
    """Repeats of a cost 0.01 d^3 with a fixed multiplicative scatter, and the fit by hand (numpy's polyfit)."""
    d = np.array([4.0, 8.0, 16.0, 32.0])
    scatter = np.array([0.9, 1.0, 1.1])
    seconds = [0.01 * v**3 * scatter for v in d]
    x = np.repeat(d[1:], 3)  # fitted from d = 8 on
    slope, intercept = np.polyfit(np.log(x), np.log(np.concatenate(seconds[1:])), 1)
    return d, seconds, {"slope": slope, "intercept": intercept, "log_x": True}


def test_cost_axes_draws_the_fit_and_the_prediction_where_they_belong():
    import matplotlib.pyplot as plt

    d, seconds, growth = _power_law_points()
    fig, ax = plt.subplots()
    try:
        lines = prose.cost_axes(ax, d, seconds, growth, from_x=8, predicted=2.5)
        # every repeat once, at its size; the medians joined
        dots = lines["repeats"].get_xydata()
        assert sorted(map(tuple, dots)) == sorted((v, s) for v, row in zip(d, seconds, strict=True) for s in row)
        np.testing.assert_allclose(lines["medians"].get_ydata(), 0.01 * d**3, rtol=1e-12)
        # the fitted line: exp(intercept) x^slope, over the sizes fitted (8 to 32), not below
        x, y = lines["fit"].get_xdata(), lines["fit"].get_ydata()
        assert x.min() == pytest.approx(8) and x.max() == pytest.approx(32)
        for at in (8.0, 32.0):
            k = np.argmin(abs(x - at))
            assert y[k] == pytest.approx(np.exp(growth["intercept"]) * at ** growth["slope"], rel=1e-9)
        # the prediction: through the last median, with the predicted slope on log-log axes
        x, y = lines["predicted"].get_xdata(), lines["predicted"].get_ydata()
        assert (x[-1], y[-1]) == pytest.approx((32, 0.01 * 32**3))
        assert np.log(y[-1] / y[0]) / np.log(x[-1] / x[0]) == pytest.approx(2.5)
        assert ax.get_xscale() == ax.get_yscale() == "log"
    finally:
        plt.close(fig)


def test_cost_axes_exponential_growth_and_units():
    """Over m: log y against m; a factor per head. The axes may show other units than the fit's."""
    import matplotlib.pyplot as plt

    m = np.array([1.0, 2.0, 3.0])
    seconds = [[0.5 * 8 ** (v - 1)] * 2 for v in m]  # a factor of 8 per head
    growth = {"slope": np.log(8), "intercept": np.log(0.5 / 8), "log_x": False}
    fig, ax = plt.subplots()
    try:
        lines = prose.cost_axes(ax, m, seconds, growth, log_x=False, predicted=np.log(4), y_unit=1e-3)
        x, y = lines["fit"].get_xdata(), lines["fit"].get_ydata()
        np.testing.assert_allclose(y, 1e3 * 0.5 * 8 ** (x - 1), rtol=1e-9)  # in milliseconds
        x, y = lines["predicted"].get_xdata(), lines["predicted"].get_ydata()
        np.testing.assert_allclose(y, 1e3 * 32 * 4.0 ** (x - 3), rtol=1e-9)
        assert ax.get_xscale() == "linear" and ax.get_yscale() == "log"
        with pytest.raises(ValueError, match="log_x"):
            prose.cost_axes(ax, m, seconds, growth)  # fitted on m, drawn as a power of m
        with pytest.raises(ValueError, match="one sequence"):
            prose.cost_axes(ax, m, seconds[:2], growth, log_x=False)
    finally:
        plt.close(fig)


def test_cost_figure_fits_the_column_with_legible_text():
    from attnlib.viz._style import COLUMN_IN, MIN_PT

    d, seconds, growth = _power_law_points()
    fig, axes = prose.cost_figure([
        dict(x=d, seconds=seconds, growth=growth, from_x=8, predicted=3, xlabel="d"),
        dict(x=d, lines={"phase 1": 0.01 * d, "phase 2": 0.02 * d**2}, xlabel="d"),
    ])
    assert len(axes) == 2 and fig.get_figwidth() <= COLUMN_IN
    sizes = [t.get_fontsize() for t in fig.findobj(lambda a: hasattr(a, "get_fontsize")) if t.get_text()]
    assert sizes and min(sizes) >= MIN_PT
