"""Figures of chapters 3 and 4: head spectra, heads against regression, learning curves, spectra."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..._arguments import arguments, mapping_of
from ...rkhs.coefficients import as_coef, coefficient_matrix
from ...rkhs.identifiability import Certificate
from .._kinds import LABEL, OPTLABEL, same_length
from .._style import COLORS, GREYS, legend_below, series, styled, subplots


def _legend(ax):
    """The axes' legend under the figure, one entry per row (labels here are long)."""
    legend_below(ax.figure, ax)


@arguments(layers="mapping", title=OPTLABEL)
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
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    floor = 1e-17
    d = None
    for j, (label, layer) in enumerate(layers.items()):
        M = coefficient_matrix(as_coef(layer))
        d = int(round(np.sqrt(M.shape[0])))
        s = np.linalg.svd(M, compute_uv=False)
        rel = np.maximum(s / s[0], floor)
        heads = int(np.sum(rel > d * d * np.finfo(float).eps))
        ax.plot(np.arange(1, rel.size + 1), rel, **series(j), ms=5, label=f"{label}: {heads} heads")
    if d is not None:
        ax.axhline(d * d * np.finfo(float).eps, color=GREYS["mid"], ls=(0, (6, 3)), lw=1)
    ax.set_yscale("log")
    ax.set_ylim(floor / 3, 3)
    ax.set_xlabel("index of the singular value")
    ax.set_ylabel(r"$s_h / s_1$")
    if title:
        ax.set_title(title)
    _legend(ax)
    return fig


#: below this, a validation MSE is rounding: the figure says "< 1e-30" rather than print the rounding noise
ROUNDING_FLOOR = 1e-30


def _regression_text(regression: float) -> str:
    """The regression's loss as the figure writes it: its order, or "< 1e-30" at the rounding floor."""
    return f"< {ROUNDING_FLOOR:.0e}" if regression < ROUNDING_FLOOR else f"{regression:.0e}"


@arguments(panels="mapping", ylabel=LABEL)
@styled
def plot_heads_vs_regression(panels: dict, *, ylabel: str = "validation MSE"):
    """Gradient training with several head counts against one regression, one row per setting.

    Parameters
    ----------
    panels : dict of str -> (dict of str -> array_like, float)
        Setting (the row's title) -> (curves by label, the regression's loss). A
        curve is a loss per epoch, shape (epochs + 1,), or one row per seed,
        shape (seeds, epochs + 1).

    Returns
    -------
    matplotlib.figure.Figure
        One row per setting. Left: the loss by epoch on a log axis, the median
        over seeds of each curve. Right: the last epoch's loss of every seed, one
        line of points per curve in the same colour and marker, with the median
        over seeds marked by a black bar, so the figure shows the statistic the
        left panel draws and every value behind it. The regression is a dashed
        line (it needs no epochs); when it lies more than a thousand times below
        every curve, the axes stop at the curves and a note gives its value, as
        "< 1e-30" at the rounding floor of float64 (``ROUNDING_FLOOR``).
    """
    for title, panel in panels.items():
        if not (isinstance(panel, tuple) and len(panel) == 2):
            raise TypeError(f"panels[{title!r}] must be a pair (curves by label, the regression's loss); "
                            f"received {type(panel).__name__}")
    nrows = len(panels)
    fig, axes = subplots(nrows, 2, width=3.2, height=3.3, constrained_layout=True,
                         gridspec_kw={"width_ratios": [1.15, 1]})
    for row, (title, (curves, regression)) in enumerate(panels.items()):
        ax, ends = axes[row]
        lowest = np.inf
        labels = list(curves)
        for j, (label, y) in enumerate(curves.items()):
            y = np.atleast_2d(np.asarray(y, dtype=float))
            epochs = np.arange(y.shape[1])
            ax.plot(epochs, np.median(y, axis=0), **series(j), markevery=max(1, y.shape[1] // 6), label=label)
            last = y[:, -1]
            # one line of points per curve, top to bottom in the legend's order, spread a little vertically
            spread = np.linspace(-0.18, 0.18, len(last)) if len(last) > 1 else np.zeros(1)
            ends.plot(last, -j + spread, **series(j, line=False), ms=5, alpha=0.8)
            ends.plot([np.median(last)], [-j], marker="|", ms=18, mew=2.2, color="black", ls="none",
                      label="median of the seeds" if j == 0 else None)
            positive = y[y > 0]
            if positive.size:
                lowest = min(lowest, float(positive.min()))
        shown = max(regression, 1e-32)
        below = np.isfinite(lowest) and shown < 1e-3 * lowest
        # the line is drawn (and named in the legend) only where it is on the axes
        if not below:
            ax.axhline(shown, color="black", ls=(0, (6, 3)), lw=1.5, label="regression")
        for a in (ax, ends):
            a.set_yscale("log") if a is ax else a.set_xscale("log")
        if below:
            # three empty decades under the curves hold the note; the line itself is off the axis
            ax.set_ylim(bottom=lowest / 1000)
            ax.annotate(f"regression {_regression_text(regression)}\n(below the axis)", xy=(0.98, 0.0),
                        xycoords="axes fraction", xytext=(0, 14), textcoords="offset points", ha="right",
                        va="bottom", arrowprops={"arrowstyle": "->", "color": "black"})
        else:
            ends.axvline(shown, color="black", ls=(0, (6, 3)), lw=1.5)
        ends.set_yticks(-np.arange(len(labels)), labels)
        ends.set_ylim(-len(labels) + 0.5, 0.5)
        ends.tick_params(axis="y", length=0)
        ends.spines["left"].set_visible(False)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ends.set_title("last epoch, by seed")
        if row == nrows - 1:
            ax.set_xlabel("epoch")
            ends.set_xlabel(ylabel)
    handles, names = axes[0, 0].get_legend_handles_labels()
    more, more_names = axes[0, 1].get_legend_handles_labels()
    fig.legend(handles + more, names + more_names, loc="outside lower center", ncol=2)
    fig.set_figheight(fig.get_figheight() + 0.27 * -(-(len(names) + len(more_names)) // 2))
    return fig


@arguments(Ns="axis", errors="series", psi="optsize", noise="opttol", ylabel=LABEL, title=OPTLABEL)
@styled
def plot_learning_curve(Ns, errors: dict, *, psi: int | None = None, noise: float | None = None,
                        ylabel: str = "relative test error", title: str | None = None):
    """Test error against the number of examples, one line per setting.

    Parameters
    ----------
    Ns : array_like of shape (K,)
    errors : dict of str -> array_like of shape (K,)
    psi : int, optional
        Draw a vertical line at N = psi, the number of features.
    noise : float, optional
        The label noise relative to the targets' RMS (needs ``psi``): draw the
        rate of least squares on psi Gaussian regressors,
        ``noise * sqrt(psi / (N - psi - 1))``, as a dashed grey line where
        N >= 2 psi (chapter 4 checks the noisy curve against it there).

    Returns
    -------
    matplotlib.figure.Figure
    """
    same_length("errors", errors, Ns.size)
    if noise is not None:
        if psi is None:
            raise ValueError("noise needs psi: the rate noise * sqrt(psi / (N - psi - 1)) depends on it; "
                             "received psi=None")
    Ns = np.asarray(Ns, dtype=float)
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, e) in enumerate(errors.items()):
        ax.plot(Ns, np.maximum(np.asarray(e, dtype=float), 1e-17), **series(j), ms=5, label=label)
    if noise is not None and np.any(Ns >= 2 * psi):
        N = np.geomspace(2 * psi, max(Ns.max(), 2 * psi), 50)
        ax.plot(N, noise * np.sqrt(psi / (N - psi - 1)), color=GREYS["dark"], ls=(0, (4, 2)), lw=1.2,
                label=r"rate $\sigma\sqrt{\psi/(N-\psi-1)}$")
    if psi is not None:
        ax.axvline(psi, color=GREYS["mid"], ls=":", lw=1.2)
        ax.text(psi, 1.0, r" $N=\psi$", transform=ax.get_xaxis_transform(), va="top", color=GREYS["dark"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training examples N")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    _legend(ax)
    return fig


@arguments(certificates=mapping_of(Certificate, where="attnlib.rkhs.certificate"), title=OPTLABEL)
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
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    floor = 1e-18
    for j, (label, cert) in enumerate(certificates.items()):
        w = np.sort(cert.eigenvalues)[::-1] / cert.lam_max
        idx = np.arange(1, w.size + 1)
        color = COLORS[j % len(COLORS)]
        ax.plot(idx[: cert.rank], w[: cert.rank], **series(j), ms=5, label=f"{label}: rank {cert.rank} of {cert.psi}")
        if cert.rank < cert.psi:
            ax.plot(idx[cert.rank:], np.full(cert.psi - cert.rank, floor), "x", ms=6, mew=1.5, color=color)
    ax.set_yscale("log")
    ax.set_ylim(floor / 5, 3)
    ax.text(0.02, floor, "× counted as zero", transform=ax.get_yaxis_transform(), ha="left", va="center",
            color=GREYS["dark"])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("index")
    ax.set_ylabel(r"$\lambda_i / \lambda_{\max}$")
    if title:
        ax.set_title(title)
    _legend(ax)
    return fig
