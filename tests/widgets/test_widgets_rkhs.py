"""Tests for attnlib.widgets.rkhs: the explorers build and redraw with the right arguments."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnlib import Heads
from attnlib.rkhs import n_features
from attnlib.widgets import _core
from attnlib.widgets import rkhs as widgets_rkhs


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setattr(_core, "display", lambda obj: None)
    yield
    plt.close("all")


def controls(widget):
    """The controls of a live explorer by description (its one-line notes are an HTML widget)."""
    return {child.description: child for child in widget.children if hasattr(child, "value") and child.description}


def test_head_spectrum_explorer(monkeypatch):
    calls = []
    monkeypatch.setattr(widgets_rkhs.viz, "plot_head_spectrum", lambda layers, **kw: calls.append(layers))
    w = widgets_rkhs.head_spectrum_explorer(rng=0, live=True)
    c = controls(w)
    assert set(c) == {"d", "heads m"}
    c["d"].value = 4
    c["heads m"].value = 3
    layers = calls[-1]
    teacher, generic = layers.values()
    assert isinstance(teacher, Heads) and teacher.m == 3 and teacher.d == 4
    assert generic.shape == (n_features(4), 4)


def test_sample_size_explorer(monkeypatch):
    calls = []
    monkeypatch.setattr(widgets_rkhs.viz, "plot_learning_curve",
                        lambda Ns, errors, **kw: calls.append((Ns, errors, kw)))
    w = widgets_rkhs.sample_size_explorer(rng=0, live=True)
    c = controls(w)
    c["d"].value = 2
    Ns, errors, kw = calls[-1]
    assert kw["psi"] == 6 and list(errors) == ["no noise"]
    curve = errors["no noise"]
    assert np.all(curve[Ns >= 6] < 1e-8) and curve[0] > 1e-3  # exact once N >= psi


def test_identifiability_explorer(monkeypatch):
    calls = []
    monkeypatch.setattr(widgets_rkhs.viz, "plot_identifiability", lambda sweep: calls.append(sweep))
    w = widgets_rkhs.identifiability_explorer(rng=0, live=True)
    c = controls(w)
    c["tables N"].value = 1024
    sweep = calls[-1]
    assert sweep.shares.size == 6 and sweep.steps == 3000 and sweep.rank[-1] < 40
