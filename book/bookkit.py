"""The book's own helpers for its chapters; not part of ``attnlib``.

What only the book needs lives here, so that importing the library changes
nothing for a researcher (``tests/test_imports.py``):

* :func:`show_as_vector` has IPython store every matplotlib figure as SVG,
  which the web page shows, and PDF, which the printed book typesets. Each
  chapter's hidden first cell calls it.
* :func:`glue` formats a computed value once, in the kernel, and hands the
  text to myst-nb's ``glue`` under a name; the prose shows it with
  ``{glue:text}`name```. The formatted text is what the page shows, so round
  to what the computation resolves (every OpenBLAS kernel must print the
  same). Without myst-nb (Colab installs only ``attnlib[viz]``) it glues
  nothing and shows nothing: print the returned text in the cell, and
  readers there see it right above the prose.
* :func:`format_value` is that text, and :func:`markdown_table` renders a
  table of results as the output of a cell, so that no result table is typed
  into a chapter's markdown. Both are the library's (``attnlib.viz._text``),
  which the tables of ``attnlib.viz.sculpt`` use too.
* :func:`benchmark_results` reads a benchmark's committed results file,
  ``benchmarks/results/<name>.json``, so that every chapter quoting the
  benchmark quotes the same run.
* :func:`cost_figure` draws measured cost curves from such a file, one
  :func:`cost_axes` panel each (every repeat, the medians, the fitted growth
  and the growth a theory predicts), for the chapters that compare the
  measured cost with the claimed one (4, 9 and 11).

Where a chapter runs, this file is beside it: the book's build, its nbval
tests and Binder run the kernel in ``book/``. Colab has no checkout: the
chapter's install cell downloads this file into the kernel's folder from the
commit it installs ``attnlib`` from (``scripts/pin_release.py`` pins both,
``tests/test_release.py`` checks that they agree).
"""

from __future__ import annotations

import json
import re
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from attnlib.viz._text import format_value, markdown_table

__all__ = [
    "show_as_vector",
    "glue",
    "format_value",
    "markdown_table",
    "benchmark_results",
    "BenchmarkResults",
    "cost_axes",
    "cost_figure",
]

_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
#: the repository around this file, when the chapter runs from a checkout
REPOSITORY = Path(__file__).resolve().parents[1]
#: the fields of a results file (benchmarks/_results.py writes them)
FIELDS = {"benchmark", "command", "date", "commit", "machine", "threads",
          "results", "sources"}


def show_as_vector(shell=None) -> None:
    """Have IPython display matplotlib figures as SVG and PDF, not PNG.

    The web page picks the SVG and the LaTeX build the PDF (myst-nb's render
    priorities), so the book shows vector figures in both. They are saved as
    the library's ``attnlib.viz._style.svg_text`` and ``pdf_bytes`` save them
    (tight bounding box, no date, stable ids), which the figure tests measure.
    Outside IPython it does nothing.

    Parameters
    ----------
    shell : InteractiveShell, optional
        The IPython shell whose display formatters to set (default: the
        running one, if any).
    """
    from attnlib.viz._style import pdf_bytes, svg_text
    from matplotlib.figure import Figure

    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    display = getattr(shell, "display_formatter", None)
    formatters = getattr(display, "formatters", None)
    if not formatters:
        return
    # the inline backend picks its formats once, when it loads: load it first,
    # then override
    try:
        import matplotlib_inline.backend_inline  # noqa: F401
    except ImportError:
        pass
    for mime in ("image/png", "image/jpeg", "image/svg+xml",
                 "application/pdf"):
        formatters[mime].type_printers.pop(Figure, None)
    formatters["image/svg+xml"].for_type(Figure, svg_text)
    formatters["application/pdf"].for_type(Figure, pdf_bytes)


def glue(name: str, value, fmt: str | None = None) -> str:
    """Give the prose a computed value under ``name``; return its text.

    Parameters
    ----------
    name : str
        Key of the value, lower case with hyphens, prefixed by the chapter
        (``"ch09-adam-starts"``). The prose writes
        ``{glue:text}`ch09-adam-starts```.
    value : int, float or str
        What the cell computed. A float needs ``fmt``; a string is shown as
        it is.
    fmt : str, optional
        A format spec (``".2f"``, ``".0%"``, ``".1e"``, ``","``). Scientific
        notation is shown as prose writes it, ``8.2×10⁻¹⁵``.

    Returns
    -------
    str
        The formatted text, to print in the cell as well (readers without
        myst-nb see it there).

    Examples
    --------
    >>> glue("ch00-example", 0.8234, ".2f")
    '0.82'
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            "name must be lower case letters, digits and hyphens, like "
            f"'ch09-adam-starts'; got {name!r}")
    text = format_value(value, fmt)
    try:
        from IPython import get_ipython
        from myst_nb import glue as myst_glue
    except ImportError:  # Colab and plain Python: the cell's print shows it
        return text
    if get_ipython() is not None:  # only a kernel has outputs to hold it
        myst_glue(name, text, display=False)
    return text


# ------------------------------------------------------- benchmark results


@dataclass(frozen=True)
class BenchmarkResults:
    """One committed run of a benchmark: what it measured, when, where, how.

    ``results`` is the benchmark's own JSON; ``sources`` maps every file it
    measured (paths relative to the repository) to its SHA-256, which
    ``tests/test_benchmark_results.py`` compares with the files as they are
    now.
    """

    name: str
    command: str
    date: str
    commit: str
    machine: str
    threads: str
    results: dict
    sources: dict

    def __repr__(self) -> str:
        return (f"BenchmarkResults({self.name!r}, {self.date}, "
                f"commit {self.commit[:10]}, `{self.command}`)")


def _local_candidates(name: str):
    here = Path.cwd().resolve()
    for folder in (here, *here.parents, REPOSITORY):
        yield folder / "benchmarks" / "results" / f"{name}.json"


def _installed_from():
    """(repository, commit) pip installed attnlib from, if from GitHub."""
    try:
        dist = metadata.distribution("attnlib")
        info = json.loads(dist.read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, json.JSONDecodeError):
        return None
    url = info.get("url", "")
    commit = info.get("vcs_info", {}).get("commit_id")
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?",
                         url)
    return (match.group(1), commit) if match and commit else None


def benchmark_results(name: str) -> BenchmarkResults:
    """The committed results of ``benchmarks/<name>.py``.

    The file ``benchmarks/results/<name>.json`` is looked for in the current
    folder and its parents (a chapter runs in ``book/``), then in the
    repository around this file. Where no checkout is at hand and ``attnlib``
    was installed by pip from GitHub (Colab), it is read from the repository
    at the installed commit, the one this file was downloaded from.

    Examples
    --------
    >>> benchmark_results("sculpt").name
    'sculpt'
    """
    if not (isinstance(name, str)
            and _NAME.fullmatch(name.replace("_", "-"))):
        raise ValueError(
            f"name must be a benchmark's name, like 'sculpt'; got {name!r}")
    text = None
    for path in _local_candidates(name):
        if path.is_file():
            text = path.read_text()
            break
    if text is None:
        origin = _installed_from()
        if origin is None:
            raise FileNotFoundError(
                f"benchmarks/results/{name}.json not found in {Path.cwd()} "
                f"or its parents, nor in {REPOSITORY}; run python "
                f"benchmarks/{name}.py from the repository, or open the "
                "chapter in a clone of it")
        repo, commit = origin
        url = (f"https://raw.githubusercontent.com/{repo}/{commit}/"
               f"benchmarks/results/{name}.json")
        # a fixed https host
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310
            text = response.read().decode()
    data = json.loads(text)
    missing = FIELDS - set(data)
    if missing or data["benchmark"] != name:
        raise ValueError(
            f"benchmarks/results/{name}.json is not a results file of "
            f"benchmark {name!r}: missing {sorted(missing)}, "
            f"benchmark={data.get('benchmark')!r}")
    return BenchmarkResults(
        data["benchmark"], data["command"], data["date"], data["commit"],
        data["machine"], str(data["threads"]), data["results"],
        data["sources"])


# ------------------------------------------------------------- cost curves


def cost_axes(ax, x, seconds, growth=None, *, log_x=True, from_x=None,
              predicted=None, color=0, xlabel="", ylabel="seconds",
              what="slope", each="repeat", x_unit=1.0, y_unit=1.0):
    """Draw one measured cost curve on ``ax``; return the artists drawn.

    Every repeat is a faint dot, the medians are joined, the fitted growth
    is a line over the sizes it was fitted on, and a predicted growth, if
    given, is a dashed line of that slope through the median at the largest
    size. The y axis is logarithmic; so is the x axis when ``log_x``.

    Parameters
    ----------
    ax : matplotlib Axes
    x : sequence of K sizes
        The sizes measured (``d``, ``N`` or ``m``), increasing.
    seconds : sequence of K sequences, or of K numbers
        The repeats measured at each size (a number is one repeat).
    growth : dict, optional
        What ``benchmarks/_growth.py``'s ``growth`` returned for these
        points: ``log y = intercept + slope * log x`` (or ``* x`` when its
        ``log_x`` is false), with ``slope``, ``intercept`` and ``log_x``.
    log_x : bool
        A power law (log-log axes) or an exponential (log y, linear x);
        must agree with ``growth["log_x"]``.
    from_x : float, optional
        The smallest size the fit used (default: the smallest measured).
    predicted : float, optional
        The slope a theory predicts, in the fit's coordinates: an exponent
        when ``log_x``, else the log of the factor per unit of x.
    color : int
        Index into the book's palette (``attnlib.viz._style.COLORS``) of the
        points; the prediction is vermillion (blue when the points are).
    xlabel, ylabel : str
        Axis labels.
    what : str
        What the legend calls the slope ("slope", "per head").
    each : str
        What the legend calls one measurement ("repeat", "seed").
    x_unit, y_unit : float
        The axes show ``x / x_unit`` and ``seconds / y_unit`` (``N`` in
        multiples of psi, bytes in MB); the fit and the prediction are in the
        measured units, as ``growth`` is.

    Returns
    -------
    dict
        ``repeats``, ``medians``, and, where drawn, ``fit`` and
        ``predicted``: the Line2D of each.

    Examples
    --------
    A cost of exactly ``d ** 2``, fitted and predicted: every line ends at
    the last measurement, 16.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> g = {"slope": 2.0, "intercept": 0.0, "log_x": True}
    >>> lines = cost_axes(ax, [1, 2, 4], [[1], [4], [16]], g, predicted=2.0)
    >>> {k: round(float(v.get_ydata()[-1]), 6) for k, v in lines.items()}
    {'repeats': 16.0, 'medians': 16.0, 'fit': 16.0, 'predicted': 16.0}
    >>> plt.close(fig)
    """
    import numpy as np
    from attnlib.viz._style import COLORS, GREYS, MARKERS

    x = np.asarray(x, dtype=float)
    runs = [np.atleast_1d(np.asarray(s, dtype=float)) for s in seconds]
    shown_x = x / x_unit
    if len(runs) != x.size or x.size == 0:
        raise ValueError(
            "seconds must hold one sequence of repeats per size: "
            f"{x.size} sizes, {len(runs)} sequences")
    if growth is not None and bool(growth["log_x"]) != bool(log_x):
        raise ValueError(
            f"growth was fitted with log_x={growth['log_x']}, the axes "
            f"have log_x={log_x}")
    colour = COLORS[color % len(COLORS)]
    marker = MARKERS[color % len(MARKERS)]
    drawn = {}
    xs = np.concatenate([np.full(r.size, v)
                         for v, r in zip(x, runs, strict=True)])
    (drawn["repeats"],) = ax.plot(xs / x_unit, np.concatenate(runs) / y_unit,
                                  ls="none", marker=marker, color=colour,
                                  alpha=0.3, markersize=5,
                                  label=f"each {each}")
    medians = np.array([np.median(r) for r in runs])
    (drawn["medians"],) = ax.plot(shown_x, medians / y_unit, color=colour,
                                  marker=marker, ls="-", lw=1.2,
                                  label="median")
    start = x[0] if from_x is None else float(from_x)
    grid = (np.geomspace if log_x else np.linspace)(start, x[-1], 20)
    u = np.log(grid) if log_x else grid
    if growth is not None:
        fit_y = np.exp(growth["intercept"] + growth["slope"] * u)
        label = f"fit: {what} {_slope_text(growth, log_x)}"
        (drawn["fit"],) = ax.plot(grid / x_unit, fit_y / y_unit,
                                  color=GREYS["dark"], ls="-.", lw=1.6,
                                  label=label)
    if predicted is not None:
        u_last = np.log(x[-1]) if log_x else x[-1]
        pred_y = medians[-1] * np.exp(predicted * (u - u_last))
        shown = f"{predicted:g}" if log_x else f"×{np.exp(predicted):.3g}"
        other = COLORS[0 if color % len(COLORS) == 1 else 1]
        (drawn["predicted"],) = ax.plot(grid / x_unit, pred_y / y_unit,
                                        color=other, ls="--", lw=1.6,
                                        label=f"predicted: {what} {shown}")
    _log_axes(ax, shown_x, log_x, xlabel, ylabel)
    # a flat cost (memory over N) shows flat: at least a decade of y
    every = np.concatenate(runs) / y_unit
    low, high = every.min(), every.max()
    if high / low < 10:
        centre = np.sqrt(low * high)
        ax.set_ylim(centre / np.sqrt(10), centre * np.sqrt(10))
    return drawn


def _log_axes(ax, x, log_x, xlabel, ylabel):
    """Log y, and log x if ``log_x``; a tick at each size measured."""
    from matplotlib.ticker import (
        FixedLocator,
        NullFormatter,
        NullLocator,
        ScalarFormatter,
    )

    ax.set_yscale("log")
    ax.yaxis.set_minor_formatter(NullFormatter())  # labels at the decades only
    if log_x:
        ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(x))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _slope_text(growth, log_x):
    """The fitted slope in the legend: an exponent, or a factor per unit."""
    import math

    if log_x:  # no "-0.0" for a flat cost
        return f"{growth['slope']:.1f}".replace("-0.0", "0.0")
    return f"×{math.exp(growth['slope']):.1f}"


def cost_figure(panels, *, sharey=False, height=2.9, legend=True):
    """A figure of cost curves, a panel per dict of :func:`cost_axes` keywords.

    A panel may instead be ``{"lines": {label: values}, "x": sizes, ...}``:
    one line per entry (the phases of a run, say) in the palette's series,
    on the same axes as :func:`cost_axes` draws (``log_x``, ``xlabel``,
    ``ylabel``, ``title`` are read from it too). Each panel gets its own
    legend under it. The book's figure style applies (at most the column
    wide, no text under 12 pt).

    Returns
    -------
    (Figure, list of Axes)
    """
    import matplotlib.pyplot as plt
    from attnlib.viz._style import COLUMN_IN, STYLE, series, subplots

    saved = {key: plt.rcParams[key] for key in STYLE}
    plt.rcParams.update(STYLE)
    try:
        width = COLUMN_IN / len(panels)
        fig, axes = subplots(1, len(panels), width=width, height=height,
                             sharey=sharey, layout="constrained")
        axes = list(axes[0])
        for k, (ax, panel) in enumerate(zip(axes, panels, strict=True)):
            panel = dict(panel)
            title = panel.pop("title", None)
            if "lines" in panel:
                _lines_axes(ax, panel, series)
            else:
                cost_axes(ax, **panel)
            if title:
                ax.set_title(title)
            if sharey and k:  # the first panel's label serves the row
                ax.set_ylabel("")
            if legend:
                # under the panel; two columns under a lone, wide panel
                ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.34),
                          ncol=2 if len(panels) == 1 else 1, handlelength=2.4)
    finally:
        plt.rcParams.update(saved)
    plt.close(fig)
    return fig, axes


def _lines_axes(ax, panel, series):
    x = panel["x"]
    for j, (label, values) in enumerate(panel["lines"].items()):
        ax.plot(x, values, label=label, **series(j))
    _log_axes(ax, x, panel.get("log_x", True), panel.get("xlabel", ""),
              panel.get("ylabel", "median seconds"))
