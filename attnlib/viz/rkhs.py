"""Figures for Part II (chapters 3-5): spectra, learning curves, and the certificate sweep.

Same conventions as :mod:`attnlib.viz`: each function draws one static figure
from arrays or results and returns the ``matplotlib.figure.Figure``; the
widgets in :mod:`attnlib.widgets.rkhs` call these same functions.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_array_dtype, check_axis_values, check_series
from ..rkhs.coefficients import as_coef, coefficient_matrix
from ._style import COLORS, styled, subplots

__all__ = [
    "plot_bound_check",
    "plot_head_spectrum",
    "plot_heads_vs_regression",
    "plot_identifiability",
    "plot_learning_curve",
    "plot_noise_bound",
    "plot_spectra",
]


def _legend(ax):
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))


@styled
def plot_head_spectrum(layers: dict, *, title: str | None = None):
    """Singular values of the coefficient matrix M: how many heads each layer needs.

    Parameters
    ----------
    layers : dict of str -> Heads, LinearFit or ndarray of shape (psi, d)

    Returns
    -------
    matplotlib.figure.Figure
        One line per layer: the singular values of :func:`attnlib.rkhs.coefficient_matrix`
        in decreasing order, relative to the largest, on a log axis. Values
        below ``d^2 * eps`` (the dashed line) are zero: the rest count the heads
        that :func:`attnlib.rkhs.heads_from_coef` returns.
    """
    fig, axes = subplots(1, 1, width=5.2, height=3.2, constrained_layout=True)
    ax = axes[0, 0]
    floor = 1e-17
    d = None
    for j, (label, layer) in enumerate(layers.items()):
        M = coefficient_matrix(as_coef(layer))
        d = int(round(np.sqrt(M.shape[0])))
        s = np.linalg.svd(M, compute_uv=False)
        rel = np.maximum(s / s[0], floor)
        heads = int(np.sum(rel > d * d * np.finfo(float).eps))
        ax.plot(np.arange(1, rel.size + 1), rel, "o-", ms=3, color=COLORS[j % len(COLORS)],
                label=f"{label}: {heads} heads")
    if d is not None:
        ax.axhline(d * d * np.finfo(float).eps, color="0.6", ls="--", lw=1)
    ax.set_yscale("log")
    ax.set_ylim(floor / 3, 3)
    ax.set_xlabel("index of the singular value")
    ax.set_ylabel(r"$s_h / s_1$")
    if title:
        ax.set_title(title)
    _legend(ax)
    return fig


@styled
def plot_heads_vs_regression(panels: dict, *, ylabel: str = "validation MSE"):
    """Gradient training with several head counts against one regression, panel by panel.

    Parameters
    ----------
    panels : dict of str -> (dict of str -> array_like, float)
        Panel title -> (curves by label, the regression's loss). A curve is a
        loss per epoch, shape (epochs + 1,), or one row per seed, shape
        (seeds, epochs + 1).

    Returns
    -------
    matplotlib.figure.Figure
        Log-scale loss by epoch: the median over seeds, with the range over
        seeds shaded; the regression is a dashed horizontal line (it needs no
        epochs).
    """
    fig, axes = subplots(1, len(panels), width=4.0, height=3.2, constrained_layout=True)
    for ax, (title, (curves, regression)) in zip(axes[0], panels.items(), strict=True):
        for j, (label, y) in enumerate(curves.items()):
            y = np.atleast_2d(np.asarray(y, dtype=float))
            epochs = np.arange(y.shape[1])
            color = COLORS[j % len(COLORS)]
            ax.plot(epochs, np.median(y, axis=0), color=color, label=label)
            if y.shape[0] > 1:
                ax.fill_between(epochs, y.min(axis=0), y.max(axis=0), color=color, alpha=0.2, lw=0)
        ax.axhline(max(regression, 1e-32), color="black", ls="--", lw=1.2, label="regression")
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_title(title)
    axes[0, 0].set_ylabel(ylabel)
    _legend(axes[0, -1])
    return fig


@styled
def plot_learning_curve(Ns, errors: dict, *, psi: int | None = None, ylabel: str = "relative test error",
                        title: str | None = None):
    """Test error against the number of examples, one line per setting.

    Parameters
    ----------
    Ns : array_like of shape (K,)
    errors : dict of str -> array_like of shape (K,)
    psi : int, optional
        Draw a vertical line at N = psi, the number of features.

    Returns
    -------
    matplotlib.figure.Figure
    """
    Ns = check_axis_values("Ns", Ns)
    errors = check_series("errors", errors, length=Ns.size)
    Ns = np.asarray(Ns, dtype=float)
    fig, axes = subplots(1, 1, width=5.2, height=3.2, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, e) in enumerate(errors.items()):
        ax.plot(Ns, np.maximum(np.asarray(e, dtype=float), 1e-17), "o-", ms=3, color=COLORS[j % len(COLORS)],
                label=label)
    if psi is not None:
        ax.axvline(psi, color="0.5", ls=":", lw=1)
        ax.text(psi, 1.0, r" $N=\psi$", transform=ax.get_xaxis_transform(), va="top", fontsize=8, color="0.4")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training examples N")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    _legend(ax)
    return fig


@styled
def plot_spectra(certificates: dict, *, title: str | None = None):
    """The eigenvalues of Lambda_D for several data sets, in decreasing order.

    Parameters
    ----------
    certificates : dict of str -> Certificate

    Returns
    -------
    matplotlib.figure.Figure
        Eigenvalues relative to the largest, on a log axis; those the
        certificate counts as zero are drawn as crosses on the bottom line.
    """
    fig, axes = subplots(1, 1, width=5.2, height=3.2, constrained_layout=True)
    ax = axes[0, 0]
    floor = 1e-18
    for j, (label, cert) in enumerate(certificates.items()):
        w = np.sort(cert.eigenvalues)[::-1] / cert.lam_max
        idx = np.arange(1, w.size + 1)
        color = COLORS[j % len(COLORS)]
        ax.plot(idx[: cert.rank], w[: cert.rank], "o-", ms=3, color=color,
                label=f"{label}: rank {cert.rank} of {cert.psi}")
        if cert.rank < cert.psi:
            ax.plot(idx[cert.rank:], np.full(cert.psi - cert.rank, floor), "x", ms=4, color=color)
    ax.set_yscale("log")
    ax.set_ylim(floor / 5, 3)
    ax.set_xlabel("index")
    ax.set_ylabel(r"$\lambda_i / \lambda_{\max}$")
    if title:
        ax.set_title(title)
    _legend(ax)
    return fig


_SOLVER_LABELS = {"minimum norm": "exact, minimum norm", "exact": "exact, nearest the start"}


@styled
def plot_identifiability(sweep, *, solvers=None, log_distance: bool = False):
    """The paper's Fig. 2, regenerated: certificate against distance and out-of-distribution error.

    Parameters
    ----------
    sweep : attnlib.tasks.associative_memory.Sweep
    solvers : list of str, optional
        Which of ``sweep.distance`` to draw (default all).
    log_distance : bool, default False
        Log scale for the distance (the paper's Fig. 2a uses a linear one).

    Returns
    -------
    matplotlib.figure.Figure
        Left: ``||p(Theta) - p(Theta_hat)||_F`` against ``lambda_min`` (log2 axis).
        Right: mean squared error on fresh Gaussian tables (log axis). Data sets
        whose ``Lambda_D`` is singular sit on the separate column marked "0".
    """
    solvers = list(sweep.distance) if solvers is None else list(solvers)
    lam = np.asarray(sweep.lam_min, dtype=float)
    zero = lam <= 0
    positive = lam[~zero]
    left = np.log2(positive.min()) - 1.5 if positive.size else -10.0
    x = np.where(zero, left, np.log2(np.where(zero, 1.0, lam)))
    order = np.argsort(x)
    fig, axes = subplots(1, 2, width=4.0, height=3.2, constrained_layout=True)
    panels = ((axes[0, 0], sweep.distance, r"$\|p(\Theta)-p(\hat\Theta)\|_F$", log_distance),
              (axes[0, 1], sweep.ood, "MSE on Gaussian tables", True))
    for ax, values, ylabel, log in panels:
        for j, key in enumerate(solvers):
            y = np.asarray(values[key], dtype=float)
            if log:
                y = np.maximum(y, 1e-30)
            label = _SOLVER_LABELS.get(key, key)
            if key == "iterative":
                label = f"{sweep.steps} gradient steps, from the start"
            ax.plot(x[order], y[order], "o-", ms=4, color=COLORS[j % len(COLORS)], label=label)
        if log:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel(ylabel)
        ax.set_xlabel(r"$\log_2 \lambda_{\min}(\Lambda_D)$")
        if zero.any():
            ax.axvline(left + 0.75, color="0.6", ls=":", lw=1)
            ticks = [t for t in ax.get_xticks() if left + 1.25 < t <= x.max() + 0.5]
            ax.set_xticks([left, *ticks], ["0", *[f"{t:g}" for t in ticks]])
    axes[0, 0].set_title("distance to the truth")
    axes[0, 1].set_title("out-of-distribution error")
    _legend(axes[0, 1])
    return fig


@styled
def plot_bound_check(actual, bound, *, xlabel: str = "bound", ylabel: str = "observed", title: str | None = None):
    """Observed values against the bound that should hold for each: every point below the diagonal.

    Parameters
    ----------
    actual, bound : array_like of shape (K,)

    Returns
    -------
    matplotlib.figure.Figure
    """
    actual, bound = check_array_dtype("actual", actual), check_array_dtype("bound", bound)
    actual = np.asarray(actual, dtype=float)
    bound = np.asarray(bound, dtype=float)
    fig, axes = subplots(1, 1, width=4.2, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    ax.loglog(bound, np.maximum(actual, 1e-300), "o", ms=3, color=COLORS[0], alpha=0.7)
    lo = min(bound.min(), actual[actual > 0].min() if np.any(actual > 0) else bound.min())
    hi = max(bound.max(), actual.max())
    ax.plot([lo, hi], [lo, hi], color="0.4", ls="--", lw=1, label="observed = bound")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    plt.setp(ax.get_xticklabels(), rotation=0)
    return fig


@styled
def plot_noise_bound(levels, observed, bound, *, xlabel: str = "noise standard deviation",
                     ylabel: str | None = None, title: str | None = None):
    """Squared distance to the teacher against the label-noise level, with its bound (Lemma E.2).

    Parameters
    ----------
    levels : array_like of shape (K,)
        Noise levels (the x-axis).
    observed, bound : array_like of shape (K,) or (K, R)
        Observed squared distances and their bounds, one column per run.
    xlabel, ylabel, title : str, optional
        The y label defaults to the squared distance of the coefficients, ``||p(Theta) - p(Theta_star)||_F^2``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    levels = np.asarray(levels, dtype=float)
    observed = np.asarray(observed, dtype=float).reshape(levels.size, -1)
    bound = np.asarray(bound, dtype=float).reshape(levels.size, -1)
    fig, axes = subplots(1, 1, width=4.6, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    for r in range(observed.shape[1]):
        ax.loglog(levels, np.maximum(observed[:, r], 1e-300), "o", ms=3, color=COLORS[0], alpha=0.7,
                  label="observed" if r == 0 else None)
        ax.loglog(levels, bound[:, r], "s--", ms=3, lw=1, color=COLORS[1], alpha=0.7,
                  label="bound" if r == 0 else None)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"$\|p(\Theta)-p(\Theta^\star)\|_F^2$" if ylabel is None else ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    return fig
