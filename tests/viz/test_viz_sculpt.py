"""Tests for attnlib.viz.sculpt: each Part III figure shows the numbers it claims to show."""

import numpy as np
import pytest

from attnlib import attention, boolean_inputs
from attnlib.sculpt import body_slice, min_norm_point, planted_instance, sculpt_body
from attnlib.viz import sculpt as viz_sculpt


def test_recovery_plots_every_curve_and_the_threshold():
    fig = viz_sculpt.plot_recovery([1, 2, 3], {"W": [1.0, 1e-3, 0.0], "Theta": [1.0, 1e-2, 1e-9]}, threshold=2.5)
    ax = fig.axes[0]
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[0].get_ydata(), [1.0, 1e-3, 1e-16])  # zero drawn at the floor
    np.testing.assert_allclose(lines[2].get_xdata(), [2.5, 2.5])
    assert ax.get_yscale() == "log"


def test_body_slices_draw_the_heads_and_the_slice_polygon():
    heads = planted_instance(2, 4, rng=0)
    X = boolean_inputs(1000, 3, 4, rng=1)
    body = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    fig = viz_sculpt.plot_body_slices([body, body], heads, titles=["a", "b"])
    assert len(fig.axes) == 2 and fig.axes[1].get_title() == "b"
    ax = fig.axes[0]
    # the heads in plane coordinates: first axis along Theta*, so both have the same first coordinate
    star, _ = min_norm_point(heads.Theta)
    dots = [line for line in ax.get_lines() if line.get_marker() == "o"][0]
    np.testing.assert_allclose(dots.get_xdata(), np.linalg.norm(star), rtol=1e-10)
    B1 = star / np.linalg.norm(star)
    other = heads.Theta[0] - star
    B = np.stack([B1, other / np.linalg.norm(other)])
    half = 1.4 * np.abs(np.einsum("ipq,jpq->ij", heads.Theta, B)).max()
    poly = body_slice(body, np.zeros((4, 4)), B, box=half)
    np.testing.assert_allclose(ax.patches[0].get_xy()[: len(poly)], poly)


def test_slice_threshold_and_sweep_and_comparison():
    fig = viz_sculpt.plot_slice_threshold([0.01, 0.1], {"a": [1e-3, 1e-2]}, crude=0.5)
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [1e-3, 1e-2])
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), [0.5, 0.5])
    rates = {"x": np.array([[1.0, 0.5], [0.0, 1.0]])}
    fig = viz_sculpt.plot_sweep([1, 2], [10, 20], rates)
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), rates["x"])
    assert [t.get_text() for t in fig.axes[0].texts] == ["1.0", "0.5", "0.0", "1.0"]
    fig = viz_sculpt.plot_sweep([1, 2], [10, 20], {"x": np.array([[1.0, 2 / 3], [0.0, 1 / 3]])}, seeds=3)
    assert [t.get_text() for t in fig.axes[0].texts] == ["3/3", "2/3", "0/3", "1/3"]
    assert fig.axes[0].images[0].get_cmap().name == "viridis"
    fig = viz_sculpt.plot_method_comparison({"m": [1e-9, 1e-2], "n": [1.0, 1.0]}, {"m": [0.1, 0.2], "n": [1, 2]})
    np.testing.assert_allclose(sorted(fig.axes[0].get_lines()[0].get_xdata()), [1e-9, 1e-2])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["m", "n"]


def test_phase_report_has_four_panels_with_the_given_values():
    diag = {"sum_W": {"crude": 1.0, "final": 1e-6}, "geometry": {"proxy cosine": 0.9},
            "errors": {"pre-polish": 0.3, "final": 1e-12}, "seconds": {"phase 1": 0.1}}
    fig = viz_sculpt.plot_phase_report(diag, title="t")
    assert len(fig.axes) == 4
    ends = [p.get_x() + p.get_width() for p in fig.axes[0].patches]  # horizontal bars on a log axis
    np.testing.assert_allclose(ends, [1.0, 1e-6])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["crude", "final"]
    assert [t.get_text().strip() for t in fig.axes[0].texts] == ["1e+00", "1e-06"]  # the value at each bar
    assert fig.axes[1].get_xlim()[0] == 0 and fig.axes[1].patches[0].get_width() == pytest.approx(0.9)
    # one colour for every bar: colour means nothing that differs between panels
    assert len({p.get_facecolor() for ax in fig.axes for p in ax.patches}) == 1
