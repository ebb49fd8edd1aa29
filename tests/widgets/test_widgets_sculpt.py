"""Tests for attnlib.widgets.sculpt: the Part III explorers build, redraw with the right data, and validate."""

import numpy as np
import pytest

from attnlib import attention, boolean_inputs
from attnlib.sculpt import planted_instance
from attnlib.widgets import _core
from attnlib.widgets import sculpt as widgets_sculpt


def controls(widget):
    """The controls of a live explorer by description (its one-line notes are an HTML widget)."""
    return {child.description: child for child in widget.children if hasattr(child, "value") and child.description}


def test_body_explorer_sculpts_from_the_chosen_number_of_examples(monkeypatch):
    heads = planted_instance(2, 4, rng=0)
    X = boolean_inputs(400, 3, 4, rng=1)
    drawn = []
    monkeypatch.setattr(widgets_sculpt.viz, "plot_body_slices",
                        lambda bodies, h, **kw: drawn.append((bodies, kw)))
    monkeypatch.setattr(_core, "display", lambda obj: None)
    w = widgets_sculpt.body_explorer(X, attention(X, heads), heads, heads.W.sum(0), live=True)
    controls(w)["examples"].value = 100
    (body,), kw = drawn[-1]
    assert kw["titles"][0].startswith("N = 100")
    from attnlib.sculpt import sculpt_body

    expected = sculpt_body(X[:100], attention(X[:100], heads), heads.W.sum(0))
    assert body.n_constraints == expected.n_constraints


def test_explorers_build_with_their_controls(monkeypatch):
    monkeypatch.setattr(_core, "display", lambda obj: None)
    calls = []
    monkeypatch.setattr(widgets_sculpt.viz, "plot_recovery", lambda *a, **kw: calls.append(a))
    w = widgets_sculpt.single_head_explorer(rng=0, live=True)
    assert {"d", "n (≤ d)", "‖Θ‖", "largest N"} <= set(controls(w))
    sizes, errors = calls[-1][0], calls[-1][1]
    assert errors["W"][-1] < 1e-8  # the default draw recovers the head
    assert len(sizes) == len(errors["W"])
    drawn = []
    monkeypatch.setattr(widgets_sculpt.viz, "plot_slice_threshold", lambda q, curves, **kw: drawn.append(curves))
    monkeypatch.setattr(widgets_sculpt, "slice_threshold_data", lambda scale, shared, **kw: scale + shared)
    w = widgets_sculpt.slice_explorer(rng=0, live=True)
    controls(w)["‖Θᵢ‖"].value = 6.0
    assert drawn[-1] == pytest.approx(6.8)  # the redraw used the slider's values


def test_report_explorer_runs_learn_and_plots_diagnostics(monkeypatch):
    monkeypatch.setattr(_core, "display", lambda obj: None)
    got = []
    monkeypatch.setattr(widgets_sculpt.viz, "plot_phase_report", lambda diag, **kw: got.append(diag))
    w = widgets_sculpt.report_explorer(rng=0, live=True)
    assert {"‖Θᵢ‖", "shared", "examples", "seed"} <= set(controls(w))
    diag = got[-1]
    assert diag.errors.final < 1e-6 and diag.geometry.proxy_cosine is not None


def test_body_explorer_validates(monkeypatch):
    heads = planted_instance(2, 4, rng=0)
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        widgets_sculpt.body_explorer(np.zeros((5, 3, 4)), np.zeros((5, 3, 4)), heads, heads.W.sum(0), live=True)
    with pytest.raises(ValueError, match="d=4"):
        widgets_sculpt.body_explorer(boolean_inputs(5, 3, 3, rng=0), np.zeros((5, 3, 3)), heads, np.eye(3))
