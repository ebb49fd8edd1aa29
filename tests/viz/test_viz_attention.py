"""Tests for attnlib.viz: each figure shows the numbers it claims to show."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnlib import Heads, attention_weights, boolean_inputs, random_heads, softmax
from attnlib.viz import attention as viz
from attnlib.viz import training as viz_training


def test_attention_maps_show_the_weights():
    heads = random_heads(2, 4, scale=2.0, rng=0)
    X = boolean_inputs(1, 4, 4, rng=1)[0]
    fig = viz.plot_attention_maps(X, heads)
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2
    A = attention_weights(X, heads)
    for i, ax in enumerate(panels):
        np.testing.assert_allclose(ax.images[0].get_array(), A[i])
        assert ax.get_title() == f"head {i + 1}"
        assert [t.get_text() for t in ax.texts] == [viz._cell_text(a) for a in A[i].ravel()]  # one per weight
    # three heads of five tokens: a cell is too narrow for its text, so none is written
    three = viz.plot_attention_maps(boolean_inputs(1, 5, 4, rng=1)[0], random_heads(3, 4, rng=0))
    assert not any(ax.texts for ax in three.axes)


def test_cell_text_fits_four_characters():
    assert [viz._cell_text(v) for v in (0.25, -0.25, 0.999, 1.0, -3.14, 42.4, -230.9, 2309.0)] == \
        [".25", "-.25", "1.0", "1.0", "-3.1", "42", "-231", "2k"]
    # the linear frame of chapter 1 wrote "-230.9118.5357.1": every cell now fits its text
    X = boolean_inputs(1, 4, 4, rng=1)[0]
    fig = viz.plot_attention_maps(X, random_heads(2, 4, scale=100.0, rng=0), kind="linear")
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts and max(len(t) for t in texts) <= 4


def test_attention_maps_linear_kind_uses_a_symmetric_colour_scale():
    heads = random_heads(1, 3, rng=0)
    fig = viz.plot_attention_maps(boolean_inputs(1, 4, 3, rng=1)[0], heads, kind="linear", causal=True)
    im = fig.axes[0].images[0]
    lo, hi = im.get_clim()
    assert lo == -hi and hi > 0
    assert np.all(np.triu(im.get_array(), k=1) == 0)


def test_sharpness_curves_are_softmax_of_scaled_logits():
    heads = random_heads(2, 4, scale=3.0, rng=2)
    X = boolean_inputs(1, 4, 4, rng=3)[0]
    scales = np.array([0.0, 0.5, 2.0])
    fig = viz.plot_sharpness(X, heads, query=2, head=1, scales=scales)
    lines = fig.axes[0].get_lines()[:4]
    logits = X[2] @ heads.Theta[1] @ X.T
    expected = np.array([softmax(c * logits) for c in scales])
    for b, line in enumerate(lines):
        np.testing.assert_allclose(line.get_ydata(), expected[:, b])


def test_loss_curves_and_errorbars():
    fig = viz_training.plot_loss_curves({"a": [1.0, 0.1, 0.01], "b": [2.0, 1.0, 0.5]},
                                        bands={"a": ([0.5] * 3, [2.0] * 3)})
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and [t.get_text() for t in fig.legends[0].get_texts()] == ["a", "b"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), [2.0, 1.0, 0.5])
    fig = viz_training.plot_errorbars([1, 10], {"m": [1.0, 2.0]}, {"m": [0.1, 0.2]}, reference={"r": 1.5}, logx=True)
    assert fig.axes[0].get_xscale() == "log"


def test_loss_along_line_draws_chords_through_the_endpoints():
    ts = np.linspace(-0.5, 1.5, 21)
    y = (ts * (1 - ts)) ** 2
    fig = viz_training.plot_loss_along_line(ts, {"line": y})
    chord = fig.axes[0].get_lines()[1]
    np.testing.assert_allclose(chord.get_xdata(), [0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(chord.get_ydata(), [0.0, 0.0], atol=1e-12)


def test_styling_does_not_leak_and_keeps_interactive_mode():
    before = dict(plt.rcParams)
    viz_training.plot_loss_curves({"a": [1.0, 0.5]})
    after = dict(plt.rcParams)
    assert before == after


def test_errors_name_the_shape():
    heads = Heads(np.zeros((1, 3, 3)), np.eye(3))
    with pytest.raises(ValueError, match=r"^X must be one sequence of shape \(n, d\), as plot_attention_maps draws; "
                                         r"received shape \(2, 4, 3\)"):
        viz.plot_attention_maps(np.ones((2, 4, 3)), heads)
    with pytest.raises(ValueError, match=r"token dimension 2"):
        viz.plot_sharpness(np.ones((4, 2)), heads)
