"""Tests for attnlib.viz.tasks and attnlib.widgets.tasks: figures are drawn, bad input is refused."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnlib import random_heads
from attnlib.tasks import automata as am
from attnlib.tasks import turing as tu
from attnlib.viz import tasks as viz_tasks
from attnlib.widgets import tasks as widgets_tasks


def test_plot_dfa_step_draws_three_panels():
    dfa = am.random_dfa(3, 2, rng=0)
    fig = viz_tasks.plot_dfa_step(dfa, [0, 1, 1], 2)
    assert len(fig.axes) == 3
    # the middle panel has one bar per token of the context: 6 table tokens + 3 queries
    assert len(fig.axes[1].patches) == 9
    fig2 = viz_tasks.plot_dfa_step(dfa, [0, 1, 1], 0, random_heads(3, 9, rng=1))
    assert "contribution" in fig2.axes[1].get_xlabel()
    plt.close("all")


def test_plot_tm_run():
    run = tu.run(tu.busy_beaver(), [0] * 5, 2, 3)
    fig = viz_tasks.plot_tm_run(run)
    machine, context = fig.axes
    assert "d = " in context.get_xlabel() and machine.get_title() == "the machine"
    # one block per written token, one row per step, on the machine's rows; the columns name the program
    per_step = len(run.names) // (len(run.configs) - 1)
    assert [t.get_text() for t in context.get_xticklabels()] == run.names[:per_step]
    numbers = [int(t.get_text()) for t in context.texts if t.get_text().isdigit()]
    n0 = run.X.shape[0] - len(run.names)
    assert numbers == list(range(n0 + 1, run.X.shape[0] + 1))
    rows = sorted({round(t.get_position()[1]) for t in context.texts if t.get_text().isdigit()})
    assert rows == list(range(1, len(run.configs)))
    assert context.get_ylim() == machine.get_ylim()
    plt.close("all")


def test_dfa_stepper_redraws_the_chosen_step_and_layer(monkeypatch):
    import attnlib.widgets._core as core_widgets

    calls = []
    monkeypatch.setattr(widgets_tasks.viz, "plot_dfa_step", lambda *args: calls.append(args))
    monkeypatch.setattr(core_widgets, "display", lambda obj: None)
    dfa = am.random_dfa(2, 2, rng=0)
    learned = random_heads(2, 6, rng=1)
    w = widgets_tasks.dfa_stepper(dfa, np.array([0, 1, 0]), {"explicit": am.lookup_heads(2, 2), "learned": learned},
                                   live=True)
    c = {child.description: child for child in w.children if hasattr(child, "value")}
    assert [v for _, v in c["step t"].options] == [0, 1, 2]
    assert [v for _, v in c["layer"].options] == ["explicit", "learned"]
    c["step t"].value = 2
    c["layer"].value = "learned"
    _, word, t, heads = calls[-1]
    assert t == 2 and heads is learned and word.tolist() == [0, 1, 0]
    plt.close("all")


def test_errors():
    with pytest.raises(ValueError, match=r"t must be a step in 0 \.\. 2; received 3"):
        viz_tasks.plot_dfa_step(am.random_dfa(2, 2, rng=0), [0, 1, 0], 3)
    with pytest.raises(TypeError, match="run must be a TMRun"):
        viz_tasks.plot_tm_run(None)
