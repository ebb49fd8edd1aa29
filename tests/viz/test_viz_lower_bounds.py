"""Tests for the chapter-10 figures and widget: what they draw, and their errors."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnlib.lower_bounds import fourier_spectrum, gd_experiment, parity_betas, parity_coefficients, parity_instance
from attnlib.viz import lower_bounds as viz_lower_bounds
from attnlib.widgets import lower_bounds as widgets_lower_bounds


def test_spectrum_figure_draws_a_dot_per_nonzero_degree_and_writes_the_zeros():
    spec = fourier_spectrum(parity_instance(4, 1, rng=0).heads)
    fig = viz_lower_bounds.plot_fourier_spectrum(spec, title="t")
    left, right = fig.axes
    assert not left.patches  # no bars on the log axis
    top = spec.max_abs_by_degree()
    dots = [line for line in left.get_lines() if line.get_marker() == "o"]
    drawn = np.concatenate([line.get_xdata() for line in dots])
    np.testing.assert_array_equal(np.sort(drawn), np.flatnonzero(top > 1e-17))
    assert sorted(drawn) == [1, 3]  # degree 1 and 3 only
    zeros = [t for t in left.texts if t.get_text() == "0"]
    assert len(zeros) == 2 * 4 + 1 - 2  # every other degree is written 0 on the floor
    assert right.get_lines()[0].get_ydata()[-1] == pytest.approx(0.0, abs=1e-20)
    assert not [line for line in left.get_lines() if line.get_marker() in ("None", "", None)
                and line.get_linestyle() == "-"]  # no unexplained verticals: only dots and the threshold
    plt.close(fig)


def test_regression_and_gd_figures():
    fig = viz_lower_bounds.plot_regression_errors({1: [0, 1, 2, 3]}, {1: [6, 2.1, 1.9, 0]},
                                                  exact={1: [6, 2, 2, 0]}, trivial=2.0)
    ys = [list(line.get_ydata()) for line in fig.axes[0].get_lines()]
    assert [6, 2.1, 1.9, 0] in ys and [6, 2, 2, 0] in ys and [2.0, 2.0] in ys  # sampled, exact, trivial
    assert [3, 3] in [list(line.get_xdata()) for line in fig.axes[0].get_lines()]  # the tick at D = 2s + 1
    # every kind of line drawn is named in the legend: the dotted exact values and the verticals too
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["s = 1 (m = 2)", "linear term only", "exact population error", r"$\delta = 2s + 1$"]
    plt.close(fig)
    run = gd_experiment(3, 1, N=32, N_test=32, epochs=2, rng=0)
    fig = viz_lower_bounds.plot_gd_runs({"s = 1": run})
    np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), run.relative_test_loss)
    plt.close(fig)
    fig = viz_lower_bounds.plot_weight_growth([1, 2], {"sum": [10, 28]})
    assert fig.axes[0].get_yscale() == "log"
    plt.close(fig)


def test_figure_errors_and_widget():
    with pytest.raises(TypeError, match="FourierSpectrum"):
        viz_lower_bounds.plot_fourier_spectrum(np.zeros(4))
    with pytest.raises(TypeError, match="GDRun"):
        viz_lower_bounds.plot_gd_runs({"x": np.zeros(3)})
    with pytest.raises(ValueError, match="s \\+ 1 <= d <= 8"):
        widgets_lower_bounds.spectrum_explorer(d=9, s=2)
    widget = widgets_lower_bounds.spectrum_explorer(d=4, s=2, rng=0, live=True)
    assert [c.description for c in widget.children[:2]] == ["d", "s (≤ d − 1)"]
    plt.close("all")


@pytest.mark.parametrize("betas", [[0.0, 20.0], parity_betas(2), parity_betas(4), [0.5, 1.0, 2.0, 4.0]])
def test_alternating_heads_sum_alternates_in_sign_at_the_integers(betas):
    fig = viz_lower_bounds.plot_alternating_heads(betas)
    top, bottom = fig.axes[:2]
    s = len(betas) - 1
    dots = bottom.get_lines()[-1]
    np.testing.assert_array_equal(dots.get_xdata(), np.arange(s + 1))
    np.testing.assert_allclose(dots.get_ydata(), (-1.0) ** np.arange(s + 1), atol=1e-8)  # +1, -1, +1, ...
    heads = [line for line in top.get_lines() if line.get_label().startswith("head")]
    assert len(heads) == s + 1
    for beta, line in zip(betas, heads, strict=True):  # each head's weight is sigmoid(2 beta l)
        ell = line.get_xdata()
        np.testing.assert_allclose(line.get_ydata(), 1 / (1 + np.exp(-2 * beta * ell)), atol=1e-12)
    # the weighted sum of the drawn head curves is the drawn total
    c = parity_coefficients(s, betas=np.asarray(betas, dtype=float))
    total = [line for line in bottom.get_lines() if len(line.get_xdata()) == len(heads[0].get_xdata())][0]
    weighted = sum(ci * h.get_ydata() for ci, h in zip(c, heads, strict=True))
    np.testing.assert_allclose(total.get_ydata(), weighted, atol=1e-9)
    plt.close(fig)


def test_alternating_heads_draws_the_weights_it_is_given_and_refuses_bad_input():
    fig = viz_lower_bounds.plot_alternating_heads([0.0, 20.0], [1.0, 1.0])  # not the parity weights
    dots = fig.axes[1].get_lines()[-1].get_ydata()
    assert dots[0] == pytest.approx(1.0) and dots[1] == pytest.approx(1.5)  # drawn as given, no longer alternating
    plt.close(fig)
    with pytest.raises(ValueError, match="at least two scales"):
        viz_lower_bounds.plot_alternating_heads([1.0])
    with pytest.raises(ValueError, match="shape of betas"):
        viz_lower_bounds.plot_alternating_heads([0.0, 1.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="distinct"):
        viz_lower_bounds.plot_alternating_heads([1.0, 1.0])
