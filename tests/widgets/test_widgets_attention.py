"""Tests for attnlib.widgets: the explorers build, redraw, and validate their input."""

import numpy as np
import pytest

from attnlib import attention, boolean_inputs, gaussian_inputs, random_heads
from attnlib.widgets import _core
from attnlib.widgets import attention as widgets
from attnlib.widgets import training as widgets_training


def controls(widget):
    """The controls of a live explorer by description (its one-line notes are an HTML widget)."""
    return {child.description: child for child in widget.children if hasattr(child, "value") and child.description}


def test_attention_explorer_controls_and_redraw(monkeypatch):
    heads = random_heads(2, 4, rng=0)
    X = boolean_inputs(3, 4, 4, rng=1)
    calls = []
    monkeypatch.setattr(widgets.viz, "plot_attention_maps", lambda x, h, **kw: calls.append((x, h, kw)))
    monkeypatch.setattr(_core, "display", lambda obj: None)
    w = widgets.attention_explorer(X, heads, live=True)
    c = controls(w)
    assert set(c) == {"log₁₀ c", "kind", "causal", "example"}
    assert c["example"].max == 2
    w.update()
    c["log₁₀ c"].value = 1.0
    c["example"].value = 2
    c["kind"].value = "linear"
    x, h, kw = calls[-1]
    np.testing.assert_array_equal(x, X[2])
    np.testing.assert_allclose(h.Theta, 10.0 * heads.Theta)
    assert kw == {"kind": "linear", "causal": False}


def test_loss_landscape_explorer_redraws_the_chosen_line(monkeypatch):
    teacher = random_heads(2, 3, rng=0)
    X = gaussian_inputs(20, 4, 3, rng=1)
    drawn = []
    monkeypatch.setattr(widgets_training.viz, "plot_loss_along_line",
                        lambda ts, losses, **kw: drawn.append((ts, losses)))
    monkeypatch.setattr(_core, "display", lambda obj: None)
    w = widgets_training.loss_landscape_explorer(X, attention(X, teacher, kind="linear"), teacher, kind="linear",
                                                 rng=2, live=True)
    c = controls(w)
    assert set(c["line to"].options) == {"heads permuted", "gauge c = -1", "random heads"}
    c["line to"].value = "gauge c = -1"
    c["N"].value = 5
    ts, losses = drawn[-1]
    (curve,) = losses.values()
    # loss along the gauge line is (1 - (1 - 2t)^2)^2 times the mean squared target
    Y = attention(X[:5], teacher, kind="linear")
    np.testing.assert_allclose(curve, (1 - (1 - 2 * ts) ** 2) ** 2 * np.mean(Y**2), rtol=1e-9, atol=1e-12)


def test_widget_errors():
    heads = random_heads(1, 3, rng=0)
    with pytest.raises(ValueError, match="token dimension 4"):
        widgets.attention_explorer(np.ones((2, 3, 4)), heads)
    with pytest.raises(ValueError, match="kind must be one of"):
        widgets.attention_explorer(np.ones((2, 3, 3)), heads, kind="relu")
