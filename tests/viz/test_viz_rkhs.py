"""Tests for attnlib.viz.rkhs: each figure shows the numbers it claims to show."""

import numpy as np
import pytest

from attnlib import boolean_inputs, gaussian_inputs, random_heads
from attnlib.rkhs import certificate, coefficient_matrix, parameter_map
from attnlib.rkhs.experiments import Sweep
from attnlib.viz import rkhs as viz_rkhs


def test_head_spectrum_plots_relative_singular_values_and_counts_heads():
    heads = random_heads(2, 3, rng=0)
    fig = viz_rkhs.plot_head_spectrum({"layer": heads})
    ax = fig.axes[0]
    s = np.linalg.svd(coefficient_matrix(parameter_map(heads)), compute_uv=False)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), np.maximum(s / s[0], 1e-17))
    count = int(np.sum(s / s[0] > 9 * np.finfo(float).eps))
    assert fig.legends[0].get_texts()[0].get_text() == f"layer: {count} heads"


def test_heads_vs_regression_draws_one_row_per_setting_with_every_seed():
    four = [[1.0, 1e-3], [3.0, 1e-5], [2.0, 1e-4]]
    panels = {"d = 2": ({"1 head": [1.0, 0.1], "4 heads": four}, 1e-34),
              "d = 4": ({"1 head": [2.0, 0.5]}, 1e-28)}
    fig = viz_rkhs.plot_heads_vs_regression(panels)
    curves, ends = fig.axes[0], fig.axes[1]
    assert [ax.get_title() for ax in fig.axes[::2]] == ["d = 2", "d = 4"]
    np.testing.assert_array_equal(curves.get_lines()[1].get_ydata(), [2.0, 1e-4])  # median over seeds, per epoch
    # the right panel: every seed's last value, on the curve's own line of points, and the median bar
    points = [line for line in ends.get_lines() if line.get_marker() not in ("|", "None", None)]
    np.testing.assert_array_equal(points[1].get_xdata(), [1e-3, 1e-5, 1e-4])
    assert np.all(np.abs(points[1].get_ydata() + 1) < 0.5)  # the second curve's row
    bars = [line for line in ends.get_lines() if line.get_marker() == "|"]
    assert [float(b.get_xdata()[0]) for b in bars] == [0.1, 1e-4]
    # a regression at the rounding floor is written "< 1e-30", never as its rounding noise
    notes = [t.get_text() for t in curves.texts]
    assert notes == ["regression < 1e-30\n(below the axis)"]
    assert [t.get_text() for t in fig.axes[2].texts] == ["regression 1e-28\n(below the axis)"]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["1 head", "4 heads", "median of the seeds"]  # no entry for a line below the axis
    fig = viz_rkhs.plot_heads_vs_regression({"d = 2": ({"1 head": [1.0, 0.1]}, 0.05)})
    assert "regression" in [t.get_text() for t in fig.legends[0].get_texts()]  # drawn, so named


def test_heads_vs_regression_writes_a_regression_above_the_floor_as_its_order():
    fig = viz_rkhs.plot_heads_vs_regression({"d = 2": ({"1 head": [1.0, 0.1]}, 2e-20)})
    assert [t.get_text() for t in fig.axes[0].texts] == ["regression 2e-20\n(below the axis)"]


def test_learning_curve_and_bound_check():
    fig = viz_rkhs.plot_learning_curve([10, 20, 40], {"a": [1.0, 0.5, 0.0]}, psi=18)
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), [10, 20, 40])
    assert ax.get_lines()[0].get_ydata()[-1] == 1e-17  # zero drawn at the floor of the log axis
    assert ax.get_lines()[1].get_xdata()[0] == 18
    fig = viz_rkhs.plot_bound_check([1e-3, 5e-2, 0.0, 1e-22], [1e-2, 1e-1, 1.0, 1.0])
    dots, floor, line = fig.axes[0].get_lines()
    np.testing.assert_array_equal(dots.get_xdata(), [1e-2, 1e-1])  # the bound along x
    np.testing.assert_allclose(dots.get_ydata(), [0.1, 0.5])       # the share of the bound used
    # a zero and a rounding error on the floor, pointing down, and said so in the legend
    assert floor.get_marker() == "v" and list(floor.get_xdata()) == [1.0, 1.0]
    assert list(floor.get_ydata()) == [viz_rkhs.RATIO_FLOOR] * 2
    assert fig.axes[0].get_ylim()[0] < viz_rkhs.RATIO_FLOOR and fig.axes[0].get_ylim()[0] > 1e-7
    np.testing.assert_array_equal(line.get_ydata(), [1.0, 1.0])   # the bound itself
    with pytest.raises(ValueError, match="bound must be positive"):
        viz_rkhs.plot_bound_check([1.0], [0.0])


def test_spectra_split_nonzero_and_zero_eigenvalues():
    gauss = certificate(gaussian_inputs(100, 4, 2, rng=0))
    cube = certificate(boolean_inputs(100, 4, 2, rng=0))
    fig = viz_rkhs.plot_spectra({"Gaussian": gauss, "cube": cube})
    lines = fig.axes[0].get_lines()
    assert len(lines[0].get_ydata()) == 6 and len(lines[1].get_ydata()) == cube.rank
    assert len(lines[2].get_ydata()) == 6 - cube.rank
    np.testing.assert_allclose(lines[0].get_ydata(), np.sort(gauss.eigenvalues)[::-1] / gauss.lam_max)


def test_identifiability_puts_singular_data_in_a_panel_of_their_own():
    sweep = Sweep(np.array([0.9, 1.0, 0.8]), np.array([2.0**-6, 0.0, 2.0**-3]), np.array([40, 36, 40]),
                  {"exact": np.array([1e-14, 0.5, 1e-15])}, {"exact": np.array([1e-28, 0.1, 1e-29])}, 100)
    fig = viz_rkhs.plot_identifiability(sweep)
    main, side, main_ood, side_ood = fig.axes[:4]
    line = main.get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), [-6.0, -3.0])  # log2 lambda_min, singular data left out
    np.testing.assert_allclose(line.get_ydata(), [1e-14, 1e-15])
    np.testing.assert_allclose(side.get_lines()[0].get_ydata(), [0.5])
    assert [t.get_text() for t in side.get_xticklabels()] == ["singular"]
    assert "0" not in [t.get_text() for t in main.get_xticklabels()]  # no fake "0" on a log axis
    np.testing.assert_allclose(main_ood.get_lines()[0].get_ydata(), [1e-28, 1e-29])
    np.testing.assert_allclose(side_ood.get_lines()[0].get_ydata(), [0.1])
    assert main_ood.get_yscale() == "log"


def test_identifiability_without_singular_data_has_no_side_panel():
    sweep = Sweep(np.array([0.9]), np.array([2.0**-6]), np.array([40]), {"exact": np.array([1e-14])},
                  {"exact": np.array([1e-28])}, 100)
    fig = viz_rkhs.plot_identifiability(sweep)
    assert len(fig.axes) == 2 and all(ax.get_lines() for ax in fig.axes)


def test_noise_bound_tells_each_run_and_observed_from_bound():
    import pytest

    levels = np.array([0.1, 1.0])
    observed, bound = np.c_[levels**2, 2 * levels**2], np.c_[4 * levels**2, 8 * levels**2]
    fig = viz_rkhs.plot_noise_bound(levels, observed, bound, runs=("least squares", "100 steps"))
    lines = fig.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["least squares: observed", "least squares: bound",
                                                    "100 steps: observed", "100 steps: bound"]
    np.testing.assert_array_equal(lines[2].get_ydata(), observed[:, 1])
    np.testing.assert_array_equal(lines[3].get_ydata(), bound[:, 1])
    assert lines[0].get_marker() != lines[2].get_marker()              # runs differ by marker, not colour alone
    assert lines[0].get_linestyle() == "None" and lines[1].get_linestyle() == "--"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [line.get_label() for line in lines]
    unnamed = viz_rkhs.plot_noise_bound(levels, observed, bound)
    assert [t.get_text() for t in unnamed.axes[0].get_legend().get_texts()] == ["observed", "bound"]
    with pytest.raises(TypeError, match="runs must be a sequence of 2 str"):
        viz_rkhs.plot_noise_bound(levels, observed, bound, runs=("only one",))
