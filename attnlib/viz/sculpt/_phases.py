"""Figures and tables of chapter 9: the phase report, sculpting against local optimisation, sweeps."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from ..._arguments import arguments, instance, sequence_of
from ..._validation import as_float_array
from ...sculpt import METHOD_LABELS
from ...sculpt.diagnostics import PhaseDiagnostics, phase_report_entries
from .._kinds import OPTLABEL
from .._style import COLORS, COLUMN_IN, GREYS, MARKERS, MIN_PT, styled, subplots


@arguments(diagnostics=instance(PhaseDiagnostics, where="attnlib.sculpt.diagnostics.phase_diagnostics"),
           title=OPTLABEL)
@styled
def plot_phase_report(diagnostics: PhaseDiagnostics, *, title: str | None = None):
    """Per-phase diagnostics of one run of :func:`attnlib.sculpt.learn`, in four panels (two by two).

    Parameters
    ----------
    diagnostics : PhaseDiagnostics
        From :func:`attnlib.sculpt.diagnostics.phase_diagnostics`: relative errors of the estimates of
        sum_i W_i; the geometry (proxy cosine, span alignment, random baseline, each in [0, 1]);
        relative test errors (candidates, pre-polish, final); seconds per phase. Each entry is
        named by ``attnlib.sculpt.diagnostics.PHASE_REPORT_LABELS``.

    Returns
    -------
    matplotlib.figure.Figure
        One row per entry, named on the left, with its value written beside it. The
        errors (log axes) are dots: a bar's length on a log axis means nothing. The
        cosines and seconds (linear axes, from 0) are bars. Values below ``ROUNDING``
        are drawn at it and written "< 1e-16".
    """
    diagnostics = phase_report_entries(diagnostics)
    fig, axes = subplots(2, 2, width=3.4, height=2.6, constrained_layout=True)
    panels = [
        ("sum_W", r"error of $\sum_i W_i$", True, "{:.0e}"),
        ("geometry", "cosine / alignment", False, "{:.2f}"),
        ("errors", "relative test error", True, "{:.0e}"),
        ("seconds", "seconds", False, "{:.2g}"),
    ]
    for ax, (key, label, logx, fmt) in zip(axes.flat, panels, strict=True):
        items = diagnostics.get(key, {})
        names = list(items)
        values = np.array([items[k] for k in names], dtype=float)
        rows = np.arange(len(names))
        ax.set_yticks(rows, names)
        ax.set_ylim(len(names) - 0.5, -0.5)
        ax.set_title(label)
        if logx:
            # a bar's length on a log axis means nothing: a dot at each value, on a faint line per row
            shown = np.maximum(values, ROUNDING)
            for row in rows:
                ax.axhline(row, color=GREYS["faint"], lw=1, zorder=0)
            ax.plot(shown, rows, "o", color=COLORS[0], ms=8, ls="none")
            ax.set_xscale("log")
            low = float(shown.min()) if shown.size else ROUNDING
            top = float(shown.max()) if shown.size else 1.0
            ax.set_xlim(low / 30, top * 3e4)
            ax.xaxis.set_major_locator(_log_ticks())
            ax.tick_params(axis="y", length=0)
        else:
            shown = values
            ax.barh(rows, values, color=COLORS[0], height=0.6)
            if key == "geometry":
                ax.set_xlim(0, 1.35)
                ax.set_xticks([0, 0.5, 1])
            else:
                ax.set_xlim(0, 1.45 * float(values.max()) if values.size and values.max() > 0 else 1.0)
        for row, (v, w) in enumerate(zip(values, shown, strict=True)):
            text = fmt.format(v) if not (logx and v < ROUNDING) else f"< {ROUNDING:.0e}"
            ax.text(w, row, "  " + text, va="center", ha="left")
    if title:
        fig.suptitle(title)
    return fig


#: below this an error is rounding: drawn at it, written "< 1e-16"
ROUNDING = 1e-16


def _log_ticks():
    from matplotlib.ticker import LogLocator

    return LogLocator(base=10.0, numticks=4)


@arguments(errors="series", seconds="series", success="tol", title=OPTLABEL)
@styled
def plot_method_comparison(errors: dict, seconds: dict, *, success: float = 1e-3, title: str | None = None):
    """Relative test error and time of several methods over seeds.

    Parameters
    ----------
    errors : dict of str -> array_like of shape (S,)
        One entry per method (an identifier of :data:`attnlib.sculpt.METHOD_LABELS`, shown by its label, or a label):
        its relative test error on each seed.
    seconds : dict of str -> array_like of shape (S,)
    success : float, default 1e-3
        Errors at or below this count as success (dashed line).

    Returns
    -------
    matplotlib.figure.Figure
        One row per method (named on the left), one point per seed, jittered
        vertically; left: the error (log axis), right: the seconds (log axis).
    """
    if set(errors) != set(seconds):
        raise ValueError(f"errors and seconds must have the same methods; received {sorted(errors)} and "
                         f"{sorted(seconds)}")
    names = list(errors)
    fig, axes = subplots(1, 2, width=3.4, height=max(2.6, 0.55 * len(names) + 1.3), constrained_layout=True,
                         sharey=True, gridspec_kw={"width_ratios": [1.2, 1.0]})
    rng = np.random.default_rng(0)  # vertical jitter only
    for j, name in enumerate(names):
        e = np.maximum(np.asarray(errors[name], dtype=float), 1e-16)
        s = np.asarray(seconds[name], dtype=float)
        jitter = rng.uniform(-0.15, 0.15, size=len(e))
        style = {"ls": "none", "marker": MARKERS[j % len(MARKERS)], "color": COLORS[j % len(COLORS)], "ms": 6}
        axes[0, 0].plot(e, j + jitter, **style)
        axes[0, 1].plot(s, j + jitter, **style)
    axes[0, 0].axvline(success, color=GREYS["mid"], ls=(0, (6, 3)), lw=1.2)
    axes[0, 0].set_xscale("log")
    axes[0, 0].set_xlabel("relative test error")
    axes[0, 0].xaxis.set_major_locator(_log_ticks())
    axes[0, 1].set_xscale("log")
    axes[0, 1].set_xlabel("seconds")
    axes[0, 0].set_yticks(range(len(names)), [METHOD_LABELS.get(name, name) for name in names])
    axes[0, 0].set_ylim(len(names) - 0.5, -0.5)
    if title:
        fig.suptitle(title)
    return fig


#: how :func:`plot_sweep` shades a cell: every seed succeeded (faint), some failed, every one failed (strong)
_SWEEP_SHADES = {"success": (COLORS[2], 0.14), "some": (COLORS[1], 0.3), "none": (COLORS[1], 0.7)}


def _size_label(N: float) -> str:
    """A sample size short enough for a narrow column: 500, 1k, 1.5k, 30k."""
    return f"{N / 1000:g}k" if N >= 1000 else f"{N:g}"


def _sweep_mark(rate: float, seeds: int | None) -> str:
    """What a cell of :func:`plot_sweep` reads: nothing (every seed succeeded), ✗ (none) or the successes."""
    if rate >= 1:
        return ""
    if rate <= 0:
        return "✗"
    return f"{round(rate * seeds):d}/{seeds}" if seeds else f"{np.floor(rate * 100):.0f}%"


def _two_lines(label: str) -> str:
    """A title broken at the space that makes its longer line shortest (a narrow panel's title)."""
    words = label.split(" ")
    if len(words) < 2:
        return label
    # ties go to the later line: "sculpt" over "+ polish"
    k = min(range(1, len(words)), key=lambda k: (max(len(" ".join(words[:k])), len(" ".join(words[k:]))), k))
    return " ".join(words[:k]) + "\n" + " ".join(words[k:])


@arguments(scales="axis", sizes="axis", success="mapping", title=OPTLABEL, seeds="optsize")
@styled
def plot_sweep(scales, sizes, success: dict, *, title: str | None = None, seeds: int | None = None):
    """Where each method fails over a grid of attention sharpness and sample size.

    Parameters
    ----------
    scales : array_like of shape (A,)
        ``||Theta_i||_F`` of the planted heads.
    sizes : array_like of shape (B,)
        Numbers of examples N.
    success : dict of str -> ndarray of shape (A, B)
        Fraction of seeds that succeeded, per method (an identifier of :data:`attnlib.sculpt.METHOD_LABELS`, shown by
        its label, or a label).
    seeds : int, optional
        Seeds per cell: a cell where some seeds failed then reads "k/seeds" instead of a percentage.

    Returns
    -------
    matplotlib.figure.Figure
        One small grid per method, side by side (four per row): rows the sharpness
        (sharpest on top), columns N; every grid has the same rows, named on the left.
        A cell where every seed succeeded is blank on a faint green; one where every
        seed failed reads ✗ on a strong orange; one where some failed reads the
        successes ("k/seeds", or the percentage) on a light orange. So the failures,
        and only they, carry a mark. A key under the grids says so (the third kind of
        cell only where there is one).
    """
    from matplotlib.patches import Patch

    for name, rate in success.items():
        rate = as_float_array(f"success[{name!r}]", rate)
        if rate.shape != (scales.size, sizes.size):
            raise ValueError(f"success[{name!r}] must have shape (len(scales), len(sizes)) = "
                             f"({scales.size}, {sizes.size}); received {rate.shape}")
    names = list(success)
    ncols = min(4, len(names))
    nrows = -(-len(names) // ncols)
    # a row of cells per sharpness, 0.2 in: a 12-pt mark fits; titles, ticks and the key take the rest
    height = nrows * (0.2 * scales.size + 1.0) + 0.35 + (0.3 if title else 0.0)
    fig, axes = plt.subplots(nrows, ncols, figsize=(COLUMN_IN, height), squeeze=False, sharey=True,
                             layout="constrained")
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    for k, (ax, name) in enumerate(zip(axes.flat[: len(names)], names, strict=True)):
        S = np.asarray(success[name], dtype=float)
        for a in range(S.shape[0]):
            for b in range(S.shape[1]):
                rate = S[a, b]
                shade = "success" if rate >= 1 else "none" if rate <= 0 else "some"
                colour, alpha = _SWEEP_SHADES[shade]
                ax.add_patch(Rectangle((b - 0.47, a - 0.45), 0.94, 0.9, facecolor=colour, alpha=alpha, lw=0))
                mark = _sweep_mark(rate, seeds)
                if mark:
                    ax.text(b, a, mark, ha="center", va="center", weight="bold" if shade == "none" else "normal")
        ax.set_xlim(-0.5, S.shape[1] - 0.5)
        ax.set_ylim(-0.5, S.shape[0] - 0.5)
        ax.set_xticks(range(len(sizes)), [_size_label(s) for s in sizes])
        ax.set_yticks(range(len(scales)), [f"{s:g}" for s in scales])
        ax.tick_params(length=0, pad=2)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(_two_lines(METHOD_LABELS.get(name, name)), fontsize=MIN_PT)
        if k % ncols == 0:
            ax.set_ylabel(r"sharpness $\|\Theta_i\|_F$")
    for i, ax in enumerate(axes.flat[: len(names)]):
        if i + ncols >= len(names):  # the lowest grid of its column
            ax.set_xlabel("examples N")
    # the key: the two kinds of cell always, the third where some cell has it
    key = {"success": "blank: all succeed", "none": "✗: all fail",
           "some": f"k/{seeds}: k of {seeds} succeed" if seeds else "%: share that succeed"}
    if not any(((S > 0) & (S < 1)).any() for S in map(np.asarray, success.values())):
        del key["some"]
    fig.legend(handles=[Patch(facecolor=_SWEEP_SHADES[k][0], alpha=_SWEEP_SHADES[k][1], label=label)
                        for k, label in key.items()],
               loc="outside lower center", ncol=len(key), handlelength=1.4, columnspacing=1.2)
    if title:
        fig.suptitle(title)
    return fig


# --------------------------------------------------------------------------- tables of the benchmark


def _seconds(s) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.2f} s" if s < 1 else f"{s:.1f} s"


def _error(e) -> str:
    from .._text import format_value

    if e is None:
        return "none"
    return format_value(float(e), ".0e") if e < 1e-3 else format_value(float(e), ".2g")


def _check_results(name: str, results, keys) -> dict:
    """``results`` (a dict) has ``keys``, or a named error."""
    missing = [k for k in keys if k not in results]
    if missing:
        raise ValueError(f"{name} lacks the keys {missing}: pass the entry of the results file, e.g. "
                         f"bench[{name!r}]; it has {sorted(results)}")
    return results


@arguments(size="mapping")
def comparison_table(size: dict):
    """The benchmark's comparison at one size as a Markdown table (``bench["sizes"]["small"]``).

    Parameters
    ----------
    size : dict
        One entry of ``results["sizes"]`` of ``benchmarks/results/sculpt.json``.

    Returns
    -------
    IPython.display.Markdown
        One row per method: successes with restarts, starts used, accepted starts among them,
        median test error, median seconds.

    Examples
    --------
    >>> from attnlib.viz.sculpt import comparison_table
    >>> row = {"label": "polish from random", "successes": 3, "runs": 3, "starts": 4, "accepted_starts": 3,
    ...        "median_error": 2e-16, "median_seconds": 0.14}
    >>> print(comparison_table({"methods": {"polish_random": row}}).data.splitlines()[-1])
    | polish from random | 3/3 | 4 | 3/4 | 2×10⁻¹⁶ | 0.14 s |
    """
    from .._text import markdown_table

    size = _check_results("size", size, ["methods"])
    rows = [[r["label"], f"{r['successes']}/{r['runs']}", r["starts"], f"{r['accepted_starts']}/{r['starts']}",
             _error(r["median_error"]), _seconds(r["median_seconds"])] for r in size["methods"].values()]
    return markdown_table(["method", "success", "starts", "accepted", "median error", "median time"], rows)


@arguments(settings="mapping", kinds=sequence_of(str, optional=True), names="optmapping")
def single_start_table(settings: dict, *, kinds=None, names=None):
    """Single-start success rates with their intervals, one row per kind of start and one column per setting.

    Parameters
    ----------
    settings : dict
        ``results["single_start"]["settings"]`` of ``benchmarks/results/sculpt.json``, or a
        sub-dict of it (the columns, in order).
    kinds : sequence of str, optional
        The rows (default: every kind of start of the first setting).
    names : dict of str -> str, optional
        Column titles by setting (default: each setting's ``label``).

    Returns
    -------
    IPython.display.Markdown
        Cells ``k/n [low, high]``: successes of trials and the interval of the file
        (95% Wilson).

    Examples
    --------
    >>> from attnlib.viz.sculpt import single_start_table
    >>> cell = {"label": "random heads", "successes": 44, "trials": 48, "low": 0.80, "high": 0.967}
    >>> out = single_start_table({"small": {"label": "d=4", "starts": {"random": cell}}})
    >>> print(out.data.splitlines()[-1])
    | random heads | 44/48 [0.80, 0.97] |
    """
    from .._text import markdown_table

    for name, s in settings.items():
        if not isinstance(s, dict):
            raise TypeError(f"settings[{name!r}] must be a dict read from benchmarks/results/sculpt.json; "
                            f"received {type(s).__name__}")
        _check_results(name, s, ["label", "starts"])
    first = next(iter(settings.values()))
    if kinds is not None and (isinstance(kinds, str) or not all(
            isinstance(k, str) and all(k in s["starts"] for s in settings.values()) for k in kinds)):
        raise ValueError(f"kinds must be a sequence of kinds of start that every setting has, from "
                         f"{list(first['starts'])}; received {kinds!r}")
    kinds = list(first["starts"]) if kinds is None else list(kinds)
    names = {} if names is None else dict(names)
    header = ["start", *[names.get(k, s["label"]) for k, s in settings.items()]]
    rows = []
    for kind in kinds:
        row = [first["starts"][kind]["label"]]
        for s in settings.values():
            c = s["starts"][kind]
            row.append(f"{c['successes']}/{c['trials']} [{c['low']:.2f}, {c['high']:.2f}]")
        rows.append(row)
    return markdown_table(header, rows)


@arguments(sweep="mapping")
def sweep_failure_table(sweep: dict):
    """Where each method of the benchmark's sweep failed (``results["sweep"]``), as a Markdown table.

    Returns
    -------
    IPython.display.Markdown
        One row per method: cells with a failure (of all), where (norm, N and seeds failed),
        starts used in all runs.

    Examples
    --------
    >>> from attnlib.viz.sculpt import sweep_failure_table
    >>> sweep = {"seeds": 3, "scales": [0.5, 1.0], "sizes": [500], "methods": {"lbfgs": {
    ...     "label": "L-BFGS restarts", "failed_cells": [{"scale": 0.5, "N": 500, "failed_seeds": 2}],
    ...     "starts": 9, "runs": 6}}}
    >>> print(sweep_failure_table(sweep).data.splitlines()[-1])
    | L-BFGS restarts | 1 of 2 | norm 0.5, N = 500: 2 of 3 seeds | 9 in 6 runs |
    """
    from .._text import markdown_table

    sweep = _check_results("sweep", sweep, ["seeds", "scales", "sizes", "methods"])
    cells = len(sweep["scales"]) * len(sweep["sizes"])
    rows = []
    for r in sweep["methods"].values():
        failed = r["failed_cells"]
        if len(failed) == cells:
            where = "everywhere"
        elif not failed:
            where = "nowhere"
        else:
            where = "; ".join(f"norm {c['scale']:g}, N = {c['N']}: {c['failed_seeds']} of {sweep['seeds']} seeds"
                              for c in failed)
        rows.append([r["label"], f"{len(failed)} of {cells}", where, f"{r['starts']} in {r['runs']} runs"])
    return markdown_table(["method", "cells with a failure", "where", "starts used"], rows)


@arguments(cell="mapping")
def rate_text(cell: dict) -> str:
    """One single-start rate of the results file as prose: ``"44 of 48 (95% interval 0.80-0.97)"``.

    Parameters
    ----------
    cell : dict
        One kind of start of one setting: ``starts[kind]`` of an entry of
        ``results["single_start"]["settings"]``, with ``successes``, ``trials``, ``low``, ``high``.

    Examples
    --------
    >>> from attnlib.viz.sculpt import rate_text
    >>> rate_text({"successes": 44, "trials": 48, "low": 0.8037, "high": 0.9672})
    '44 of 48 (95% interval 0.80–0.97)'
    """
    cell = _check_results("cell", cell, ["successes", "trials", "low", "high"])
    return f"{cell['successes']} of {cell['trials']} (95% interval {cell['low']:.2f}–{cell['high']:.2f})"
