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
    # with noise, the least-squares rate from N = 2 psi on, against its closed form at N = 36 and 40
    fig = viz_rkhs.plot_learning_curve([10, 20, 40], {"a": [1.0, 0.5, 0.1]}, psi=18, noise=0.01)
    rate = [line for line in fig.axes[0].get_lines() if "rate" in line.get_label()][0]
    N, y = rate.get_xdata(), rate.get_ydata()
    assert N[0] == 36 and N[-1] == 40
    np.testing.assert_allclose(y[[0, -1]], [0.01 * np.sqrt(18 / 17), 0.01 * np.sqrt(18 / 21)])
    with pytest.raises(ValueError, match="noise needs psi"):
        viz_rkhs.plot_learning_curve([10, 20, 40], {"a": [1.0, 0.5, 0.1]}, noise=0.01)
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


def _lines_by_label(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_certificate_landscape_draws_a_point_for_a_bowl_and_the_kernel_line_for_a_valley():
    bowl, valley = np.array([[1.6, 0.6], [0.6, 0.5]]), np.array([[1.6, 0.8], [0.8, 0.4]])
    fig = viz_rkhs.plot_certificate_landscape({"bowl": bowl, "valley": valley})
    point = _lines_by_label(fig.axes[0])["minimisers"]
    np.testing.assert_array_equal(np.c_[point.get_xdata(), point.get_ydata()], [[0.0, 0.0]])   # one minimiser
    line = _lines_by_label(fig.axes[1])["minimisers"]
    xy = np.c_[line.get_xdata(), line.get_ydata()]
    assert len(xy) >= 2 and np.ptp(xy, axis=0).max() > 2        # a line, not a point
    np.testing.assert_allclose(xy @ valley, 0, atol=1e-12)       # every point drawn is in ker Lambda: a minimiser
    assert [ax.get_title().split("\n")[0] for ax in fig.axes] == ["bowl", "valley"]


def test_certificate_landscape_descent_takes_the_stiff_direction_first():
    bowl = np.array([[1.6, 0.6], [0.6, 0.5]])
    w, V = np.linalg.eigh(bowl)
    fig = viz_rkhs.plot_certificate_landscape({"bowl": bowl}, start=(-1.6, 1.2), steps=25)
    path = _lines_by_label(fig.axes[0])["gradient descent"]
    xy = np.c_[path.get_xdata(), path.get_ydata()]
    np.testing.assert_array_equal(xy[0], [-1.6, 1.2])
    along = xy @ V                                                # coordinates on the soft and the stiff eigenvector
    cut = 1 - np.abs(along[1] / along[0])                         # the share of each the first step removes
    assert cut[1] > 5 * cut[0]                                    # the first step removes the stiff part first
    assert abs(along[3, 1]) < 0.01 * abs(along[0, 1]) and abs(along[3, 0]) > 0.5 * abs(along[0, 0])
    late = xy[-1] - xy[-2]
    assert abs(late @ V[:, 0]) > 5 * abs(late @ V[:, 1])          # the last steps creep along the soft one
    assert np.all(np.diff(np.einsum("ti,ij,tj->t", xy, bowl, xy)) < 0)   # the loss falls at every step
    # in a valley the path stops on the floor, away from c_star = 0
    valley = np.array([[1.6, 0.8], [0.8, 0.4]])
    end = viz_rkhs.certificate_descent(valley, (-1.6, 1.2), steps=200)[-1]
    assert end @ valley @ end < 1e-20 and np.linalg.norm(end) > 0.5


@pytest.mark.parametrize("kwargs, error, message", [
    ({"matrices": {"a": [[1.0, 0.0], [0.0, -1.0]]}}, ValueError, r"positive semidefinite"),
    ({"matrices": {"a": [[1.0, 2.0], [0.0, 1.0]]}}, ValueError, r"must be symmetric"),
    ({"matrices": {"a": np.eye(3)}}, ValueError, r"must have shape \(2, 2\)"),
    ({"matrices": {"a": np.zeros((2, 2))}}, ValueError, r"not zero"),
    ({"matrices": [np.eye(2)]}, TypeError, r"must be a dict"),
    ({"matrices": {"a": np.eye(2)}, "start": (0.0, 0.0, 1.0)}, ValueError, r"start must be a pair"),
    ({"matrices": {"a": np.eye(2)}, "steps": 0}, ValueError, r"steps"),
    ({"matrices": {"a": np.eye(2)}, "rate": 1.5}, ValueError, r"rate"),
    ({"matrices": {"a": np.eye(2)}, "start": (3.0, 0.0)}, ValueError, r"hold the start"),
])
def test_certificate_landscape_refuses_bad_input(kwargs, error, message):
    matrices = kwargs.pop("matrices")
    with pytest.raises(error, match=message):
        viz_rkhs.plot_certificate_landscape(matrices, **kwargs)


def test_solvers_must_name_lines_of_the_sweep():
    """``solvers`` has a structure of its own (names of ``sweep.distance``): checked by hand."""
    from attnlib.rkhs.experiments import Sweep

    sweep = Sweep(np.linspace(0, 1, 3), np.array([0.0, 2.0**-6, 2.0**-3]), np.array([30, 36, 36]),
                  {"exact": np.array([0.6, 1e-13, 1e-15])}, {"exact": np.array([0.08, 1e-28, 1e-30])}, 100)
    with pytest.raises(ValueError, match=r"solvers must be a non-empty list of names from sweep.distance \['exact'\]"):
        viz_rkhs.plot_identifiability(sweep, solvers=["bogus"])
    with pytest.raises(ValueError, match=r"solvers must be"):
        viz_rkhs.plot_identifiability(sweep, solvers="exact")
    assert len(viz_rkhs.plot_identifiability(sweep, solvers=["exact"]).axes) >= 2
