"""Figures of chapter 5: identifiability, the bounds against what runs show, the certificate's landscape."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..._arguments import arguments, instance, sequence_of, structure
from ..._validation import as_float_array
from ...rkhs.experiments import Sweep
from .._kinds import LABEL, OPTLABEL
from .._style import COLORS, COLUMN_IN, GREYS, legend_below, series, styled, subplots

_SOLVER_LABELS = {"minimum norm": "exact, minimum norm", "exact": "exact, nearest the start"}


def _axis_break(left, right):
    """Two short slashes on the bottom spines where the axis of ``left`` stops and ``right`` starts."""
    kw = {"marker": [(-1, -1.5), (1, 1.5)], "markersize": 10, "linestyle": "none", "color": "black",
          "mec": "black", "mew": 1.2, "clip_on": False}
    left.plot([1], [0], transform=left.transAxes, **kw)
    right.plot([0], [0], transform=right.transAxes, **kw)


@arguments(sweep=instance(Sweep, where="attnlib.rkhs.experiments.identifiability_sweep"),
           solvers=structure("a list of names of sweep.distance"), log_distance="flag")
@styled
def plot_identifiability(sweep, *, solvers=None, log_distance: bool = False):
    """The paper's Fig. 2, regenerated: certificate against distance and out-of-distribution error.

    Parameters
    ----------
    sweep : attnlib.rkhs.experiments.Sweep
    solvers : list of str, optional
        Which of ``sweep.distance`` to draw (default all).
    log_distance : bool, default False
        Log scale for the distance (the paper's Fig. 2a uses a linear one).

    Returns
    -------
    matplotlib.figure.Figure
        Top: ``||p(Theta) - p(Theta_hat)||_F`` against ``lambda_min`` (log2 axis).
        Bottom: mean squared error on fresh Gaussian tables (log axis). Data sets
        whose ``Lambda_D`` is singular have no log2 lambda_min: they sit in a
        narrow panel of their own on the left, marked "singular", separated
        from the log axis by an axis break.
    """
    if solvers is not None:
        if isinstance(solvers, str) or not isinstance(solvers, (list, tuple)) or not solvers \
                or any(name not in sweep.distance for name in solvers):
            raise ValueError(f"solvers must be a non-empty list of names from sweep.distance {list(sweep.distance)}; "
                             f"received {solvers!r}")
    solvers = list(sweep.distance) if solvers is None else list(solvers)
    lam = np.asarray(sweep.lam_min, dtype=float)
    zero = lam <= 0
    x = np.log2(np.where(zero, 1.0, lam))
    order = np.argsort(x)
    fig = plt.figure(figsize=(COLUMN_IN, 6.6), constrained_layout=True)
    grid = fig.add_gridspec(2, 2, width_ratios=[1, 6] if zero.any() else [0.001, 6])
    rows = ((sweep.distance, r"$\|p(\Theta)-p(\hat\Theta)\|_F$", log_distance, "distance to the truth"),
            (sweep.ood, "MSE on Gaussian tables", True, "out-of-distribution error"))
    for r, (values, ylabel, log, title) in enumerate(rows):
        main = fig.add_subplot(grid[r, 1])
        side = fig.add_subplot(grid[r, 0], sharey=main) if zero.any() else None
        for j, key in enumerate(solvers):
            y = np.asarray(values[key], dtype=float)
            if log:
                y = np.maximum(y, 1e-30)
            label = _SOLVER_LABELS.get(key, key)
            if key == "iterative":
                label = f"{sweep.steps} gradient steps, from the start"
            keep = order[~zero[order]]
            # the two exact fits coincide wherever the data certify: the minimum-norm fit is drawn on top,
            # in large open markers, so the other shows through it
            look = {**series(j), **({"mfc": "white", "ms": 10, "mew": 1.8, "zorder": 3} if key == "minimum norm"
                                    else {"ms": 5})}
            main.plot(x[keep], y[keep], **look, label=label)
            if side is not None:
                side.plot(np.zeros(int(zero.sum())), y[zero], **{**look, "ls": "none"})
        if log:
            main.set_yscale("log")
        else:
            main.set_ylim(bottom=0)
        main.set_xlabel(r"$\log_2 \lambda_{\min}(\Lambda_D)$")
        main.set_title(title)
        if side is None:
            main.set_ylabel(ylabel)
            continue
        side.set_xlim(-0.5, 0.5)
        side.set_xticks([0], ["singular"])
        side.set_ylabel(ylabel)
        side.spines["right"].set_visible(False)
        main.spines["left"].set_visible(False)
        main.tick_params(axis="y", which="both", left=False, labelleft=False)
        _axis_break(side, main)
    handles, labels = fig.axes[0].get_legend_handles_labels()  # the first main panel
    fig.legend(handles, labels, loc="outside lower center")
    return fig


#: the lowest share of its bound a run is drawn at; below it a run is rounding error
RATIO_FLOOR = 1e-6


@arguments(actual="array", bound="array", xlabel=LABEL, ylabel=LABEL, title=OPTLABEL)
@styled
def plot_bound_check(actual, bound, *, xlabel: str = "bound", ylabel: str = "observed", title: str | None = None):
    """How much of its bound each observed value uses: observed / bound against the bound.

    Parameters
    ----------
    actual, bound : array_like of shape (K,)
        One pair per run; the bound must hold, ``actual <= bound``.
    xlabel : str
        What the bound is (the x-axis, log scale).
    ylabel : str
        What is observed; the y-axis is this divided by the bound.

    Returns
    -------
    matplotlib.figure.Figure
        One dot per run at (bound, observed / bound), both on log axes, with the bound
        itself as the dashed line at 1: a dot on the line uses all of its bound, a dot a
        decade below it uses a tenth, so the slack of every run can be read off. Runs
        whose share is below ``RATIO_FLOOR`` (rounding error, or 0) sit on the floor as
        downward triangles.
    """
    if actual.shape != bound.shape or actual.size == 0:
        raise ValueError(f"actual and bound must be non-empty and of one shape, one pair per run; "
                         f"received shapes {actual.shape} and {bound.shape}")
    if np.any(bound <= 0):
        raise ValueError(f"bound must be positive, one bound per run; received {bound[bound <= 0][:3]}")
    fig, axes = subplots(1, 1, width=5.6, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    ratio = actual / bound
    positive = ratio[ratio > 0]
    floor = max(float(positive.min()) / 3 if positive.size else RATIO_FLOOR, RATIO_FLOOR)
    low = ratio < floor
    ax.plot(bound[~low], ratio[~low], "o", ms=7, color=COLORS[0], alpha=0.8, ls="none", label="a run")
    if low.any():  # rounding error, or zero: on the floor, pointing down
        ax.plot(bound[low], np.full(int(low.sum()), floor), "v", ms=8, color=COLORS[0], ls="none",
                label=f"below {floor:.0e}")
    ax.axhline(1.0, color=GREYS["dark"], ls=(0, (6, 3)), lw=1.2, label="observed = bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(floor / 2, 3.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel} / bound")
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=3)
    return fig


@arguments(levels="axis", observed="array", bound="array",
           runs=sequence_of(str, optional=True), xlabel=LABEL, ylabel=OPTLABEL,
           title=OPTLABEL)
@styled
def plot_noise_bound(levels, observed, bound, *, runs=None, xlabel: str = "noise standard deviation",
                     ylabel: str | None = None, title: str | None = None):
    """Squared distance to the teacher against the label-noise level, with its bound (Lemma E.2).

    Parameters
    ----------
    levels : array_like of shape (K,)
        Noise levels (the x-axis).
    observed, bound : array_like of shape (K,) or (K, R)
        Observed squared distances and their bounds, one column per run.
    runs : sequence of R str, optional
        A name for each column (each fit), e.g. ``("least squares", "100 steps")``. Each run gets
        its own colour and marker, filled for the observed distance and open on a dashed line for
        the bound, and the legend names both. Without names, every run is drawn alike and the
        legend says only "observed" and "bound".
    xlabel, ylabel, title : str, optional
        The y label defaults to the squared distance of the coefficients, ``||p(Theta) - p(Theta_star)||_F^2``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from attnlib.viz.rkhs import plot_noise_bound
    >>> levels = np.array([0.1, 1.0])
    >>> fig = plot_noise_bound(levels, np.c_[levels**2, 2 * levels**2], np.c_[4 * levels**2, 8 * levels**2],
    ...                        runs=("least squares", "100 steps"))
    >>> len(fig.legends[0].get_texts())
    4
    """
    for name, arr in (("observed", observed), ("bound", bound)):
        if arr.shape[:1] != levels.shape:
            raise ValueError(f"{name} must have one row per noise level, shape ({levels.size},) or "
                             f"({levels.size}, runs); received shape {arr.shape}")
    observed, bound = observed.reshape(levels.size, -1), bound.reshape(levels.size, -1)
    if observed.shape != bound.shape:
        raise ValueError(f"observed and bound must have the same shape; received {observed.shape} and {bound.shape}")
    if runs is not None:
        if isinstance(runs, str) or not all(isinstance(r, str) for r in runs) or len(runs) != observed.shape[1]:
            raise TypeError(f"runs must be a sequence of {observed.shape[1]} str, one name per column of "
                            f"observed; received {runs!r}")
    fig, axes = subplots(1, 1, width=5.4, height=3.8, constrained_layout=True)
    ax = axes[0, 0]
    for r in range(observed.shape[1]):
        if runs is None:
            ax.loglog(levels, np.maximum(observed[:, r], 1e-300), "o", ms=5, color=COLORS[0], alpha=0.7,
                      label="observed" if r == 0 else None)
            ax.loglog(levels, bound[:, r], "s--", ms=5, lw=1.2, color=COLORS[1], alpha=0.7,
                      label="bound" if r == 0 else None)
            continue
        style = series(r, line=False)
        ax.loglog(levels, np.maximum(observed[:, r], 1e-300), ms=6, label=f"{runs[r]}: observed", **style)
        ax.loglog(levels, bound[:, r], marker=style["marker"], color=style["color"], ms=6, mfc="white",
                  ls="--", lw=1.2, label=f"{runs[r]}: bound")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"$\|p(\Theta)-p(\Theta^\star)\|_F^2$" if ylabel is None else ylabel)
    if title:
        ax.set_title(title)
    if runs is None:
        ax.legend(loc="upper left")
    else:
        legend_below(fig, ax, ncol=2)
    return fig


def _two_by_two(label, A) -> np.ndarray:
    """``A`` as a symmetric positive semidefinite 2 x 2 matrix that is not zero, or a ValueError naming it."""
    A = as_float_array(f"matrices[{label!r}]", A)
    if A.shape != (2, 2):
        raise ValueError(f"matrices[{label!r}] must have shape (2, 2), the matrix of a loss over two coefficients; "
                         f"received shape {A.shape}")
    if not np.allclose(A, A.T, rtol=1e-12, atol=1e-12 * np.abs(A).max(initial=0.0)):
        raise ValueError(f"matrices[{label!r}] must be symmetric, as a second moment is; received {A.tolist()}")
    w = np.linalg.eigvalsh(A)
    if w[-1] <= 0 or w[0] < -2 * np.finfo(float).eps * w[-1]:
        raise ValueError(f"matrices[{label!r}] must be positive semidefinite and not zero; its eigenvalues are "
                         f"{w[0]:.3g} and {w[1]:.3g}")
    return (A + A.T) / 2


def certificate_descent(A, start, *, steps: int = 25, rate: float = 0.8) -> np.ndarray:
    """Gradient descent on ``L(c) = c^T A c`` from ``start``: ``c <- c - (rate / lam_max) A c``, all the iterates.

    The step is ``rate / (2 lam_max)`` on L. Along an eigenvector of A with eigenvalue lam
    the iterate shrinks by ``1 - rate * lam / lam_max`` per step: the stiff direction
    (lam_max) goes first, a soft one slowly, and a direction of ``ker A`` never.

    Returns
    -------
    ndarray of shape (steps + 1, 2)
        Row t is the iterate after t steps; row 0 is ``start``.
    """
    A = np.asarray(A, dtype=float)
    top = np.linalg.eigvalsh(A)[-1]
    path = [np.asarray(start, dtype=float)]
    for _ in range(steps):
        path.append(path[-1] - rate / top * (A @ path[-1]))
    return np.array(path)


@arguments(matrices="mapping", start="array", steps="size", rate="fraction", extent="tol")
@styled
def plot_certificate_landscape(matrices: dict, *, start=(-1.6, -0.6), steps: int = 40, rate: float = 0.8,
                               extent: float = 2.0):
    """The training loss over two coefficients: a bowl when the matrix is positive definite, a valley when singular.

    Parameters
    ----------
    matrices : dict of str -> array_like of shape (2, 2)
        Symmetric positive semidefinite matrices Lambda, one panel each (the panel's title is
        the key). The panel draws ``L(c) = (c - c_star)^T Lambda (c - c_star)``, the loss of
        coefficients c on data realizable by ``c_star = 0`` (the proof of the certificate
        lemma), over ``[-extent, extent]^2``.
    start : pair of float, default (-1.6, -0.6)
        Where gradient descent starts.
    steps : int, default 40
        Gradient steps drawn.
    rate : float in (0, 1], default 0.8
        Step size as a share of ``1 / lam_max`` (see :func:`certificate_descent`).
    extent : float, default 2.0
        Half-width of the square drawn.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per matrix: contour lines of L (grey); the set of minimisers in vermillion,
        one point when both eigenvalues exceed ``2 * eps * lam_max`` and otherwise the line
        ``c_star + ker Lambda`` (a valley floor); and the gradient-descent path in blue, one
        dot per step, from the start (a square). The first steps run along the stiff
        eigenvector (the larger eigenvalue) and the rest creep along the soft one; in a
        valley the path stops on the floor, at a minimiser that depends on the start.

    Examples
    --------
    >>> fig = plot_certificate_landscape({"bowl": [[2, 0], [0, 0.3]], "valley": [[2, 0], [0, 0]]})
    >>> len(fig.axes)
    2
    """
    matrices = {label: _two_by_two(label, A) for label, A in matrices.items()}
    if start.shape != (2,):
        raise ValueError(f"start must be a pair (c_1, c_2); received shape {start.shape}")
    if np.abs(start).max() > extent:
        raise ValueError(f"extent must be positive and hold the start {start.tolist()}; received {extent:g}")
    k = len(matrices)
    fig, axes = subplots(1, k, width=3.0, height=3.3, constrained_layout=True)
    grid = np.linspace(-extent, extent, 121)
    C1, C2 = np.meshgrid(grid, grid)
    eps = np.finfo(float).eps
    for ax, (label, A) in zip(axes[0], matrices.items(), strict=True):
        w, V = np.linalg.eigh(A)
        loss = A[0, 0] * C1**2 + 2 * A[0, 1] * C1 * C2 + A[1, 1] * C2**2
        levels = w[-1] * extent**2 * np.array([0.01, 0.04, 0.1, 0.2, 0.35, 0.55, 0.8])
        ax.contour(C1, C2, loss, levels=levels, colors=GREYS["light"], linewidths=1.0)
        if w[0] > 2 * eps * w[-1]:
            ax.plot([0.0], [0.0], "o", ms=9, color=COLORS[1], ls="none", label="minimisers", zorder=3)
        else:
            kernel = V[:, 0]
            ends = np.outer([-2 * extent, 2 * extent], kernel)
            ax.plot(ends[:, 0], ends[:, 1], "-", lw=4, color=COLORS[1], alpha=0.85, label="minimisers", zorder=2)
        path = certificate_descent(A, start, steps=steps, rate=rate)
        ax.plot(path[:, 0], path[:, 1], "-", marker="o", ms=3.5, lw=1.2, color=COLORS[0],
                label="gradient descent", zorder=4)
        ax.plot([start[0]], [start[1]], "s", ms=8, color=COLORS[0], ls="none", label="start", zorder=5)
        ax.set_xlim(-extent, extent)
        ax.set_ylim(-extent, extent)
        ax.set_aspect("equal")
        ax.set_xlabel("$c_1$")
        ax.set_title(f"{label}\n" + r"$\lambda_{\min}$" + f" = {max(w[0], 0.0):.2g}")
    axes[0, 0].set_ylabel("$c_2$")
    legend_below(fig, axes[0, 0], ncol=3)
    return fig
