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
    assert fig2.axes[1].get_title() == "contribution"
    plt.close("all")


def test_dfa_steps_drawn_with_room_for_the_whole_run_share_one_size():
    """The stepper draws every step with the last step's rows, so the page does not jump between steps."""
    dfa, word = am.random_dfa(3, 2, rng=0), [0, 1, 1, 0, 1]
    rows = 3 * 2 + len(word)
    sizes = {tuple(viz_tasks.plot_dfa_step(dfa, word, t, rows=rows).get_size_inches()) for t in range(len(word))}
    assert len(sizes) == 1
    grown = {tuple(viz_tasks.plot_dfa_step(dfa, word, t).get_size_inches()) for t in range(len(word))}
    assert len(grown) == len(word)  # by default each step is sized to its own context
    fig = viz_tasks.plot_dfa_step(dfa, word, 0, rows=rows)
    assert fig.axes[0].get_ylim() == (rows - 0.5, -0.5)  # the blank rows are below the context
    with pytest.raises(ValueError, match="rows must be at least the 7 tokens"):
        viz_tasks.plot_dfa_step(dfa, word, 0, rows=6)
    plt.close("all")


def _true_states(dfa, word):
    """The run of the DFA from state 0, by a loop over its table (not ``dfa.run``)."""
    states = [0]
    for a in word:
        states.append(int(dfa.delta[states[-1], a]))
    return states


def _lookup_context(dfa, word, t):
    """Table tokens [e_(s,a) | e_delta(s,a)], then the queries [e_(s_k,a_k) | 0] of steps 0..t, built by hand."""
    S, A = dfa.n_states, dfa.n_symbols
    states = _true_states(dfa, word)
    X = np.zeros((S * A + t + 1, S * A + S))
    for s in range(S):
        for a in range(A):
            X[s * A + a, s * A + a] = X[s * A + a, S * A + dfa.delta[s, a]] = 1
    for k in range(t + 1):
        X[S * A + k, states[k] * A + word[k]] = 1
    return X


def _bars(ax):
    """Width and hatch of each bar of a horizontal bar panel, by row."""
    bars = sorted(ax.patches, key=lambda p: p.get_y())
    return np.array([p.get_width() for p in bars]), [bool(p.get_hatch()) for p in bars]


@pytest.mark.parametrize("t", [0, 3, 5])
def test_plot_dfa_step_bars_and_legend_say_what_they_mean(t):
    """Solid bars are exactly the tokens holding the query's pair, and the legend says so; hatched are the rest.

    With the lookup head the bars are the logits, 1 on those tokens and 0 elsewhere; the triangle
    stands over the true next state, and the legend names the solid bars, the hatched ones and the
    triangle (the old figure hatched small bars without a word, and wrote the triangle's meaning in
    an axis label the widget cut off).
    """
    dfa = am.random_dfa(3, 2, rng=4)
    word = np.array([1, 0, 1, 1, 0, 1])
    states = _true_states(dfa, word)
    pair = (states[t], int(word[t]))
    X = _lookup_context(dfa, word, t)
    key = np.zeros(6)
    key[pair[0] * 2 + pair[1]] = 1
    holds_pair = [bool(np.array_equal(row[:6], key)) for row in X]
    assert sum(holds_pair) >= 2  # the matching table token and the query itself
    fig = viz_tasks.plot_dfa_step(dfa, word, t)
    widths, hatched = _bars(fig.axes[1])
    np.testing.assert_allclose(widths, X[:, :6] @ X[-1, :6])  # Theta: the identity on the key block
    np.testing.assert_array_equal(widths, holds_pair)  # 1 where the pairs agree, else 0
    assert hatched == [not h for h in holds_pair]
    legend = fig.legends[0]
    texts = [x.get_text() for x in legend.get_texts()]
    assert texts == [f"the query's pair ({pair[0]},{pair[1]})", "other pair", "true next state"]
    solid, other, triangle = legend.legend_handles
    assert not solid.get_hatch() and other.get_hatch() and triangle.get_marker() == "v"
    (marker,) = [line for line in fig.axes[2].lines if line.get_marker() == "v"]
    assert marker.get_xdata()[0] == states[t + 1]
    plt.close("all")


def test_plot_dfa_step_bars_sum_to_the_output_for_several_heads():
    """With several heads the bars are each token's share of the decoded coordinate: they add up to the output."""
    from attnlib import attention

    dfa = am.random_dfa(3, 2, rng=4)
    word = np.array([1, 0, 1, 1])
    heads = random_heads(3, 9, rng=2)
    fig = viz_tasks.plot_dfa_step(dfa, word, 0, heads)
    X = _lookup_context(dfa, word, 0)  # at step 0 the only query is the start state's, whatever the layer
    out = attention(X, heads, kind="linear")[-1, 6:]
    decoded = int(np.argmax(out))
    widths, _ = _bars(fig.axes[1])
    assert widths.sum() == pytest.approx(out[decoded])
    assert fig.axes[1].get_xlabel() == f"to state {decoded}" and fig.axes[2].get_title() == f"output: {decoded}"
    plt.close("all")


def _drawn(fig):
    """Texts, lines and patches that a render of ``fig`` on its canvas draws, with their boxes in pixels.

    Only what is drawn counts: matplotlib keeps tick labels past an axis's limits, visible but
    never drawn.
    """
    import itertools

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    drawn = []
    originals = {cls: cls.draw for cls in (Text, Line2D, Patch)}

    def recorder(cls):
        def draw(self, renderer):
            if self.get_visible() and self.figure is not None:
                drawn.append(self)
            return originals[cls](self, renderer)
        return draw

    try:
        for cls in originals:
            cls.draw = recorder(cls)
        canvas = FigureCanvasAgg(fig)  # a closed figure has no canvas of its own
        canvas.draw()
    finally:
        for cls, draw in originals.items():
            cls.draw = draw
    renderer = canvas.get_renderer()
    texts = [(t, Text.get_window_extent(t, renderer)) for t in drawn if isinstance(t, Text) and t.get_text().strip()]
    shapes = [(a, a.get_window_extent(renderer)) for a in drawn if not isinstance(a, Text)
              and a is not fig.patch and a not in [ax.patch for ax in fig.axes]
              and not (a.get_clip_on() and a.axes is not None)]  # what a panel clips is meant to be clipped
    overlaps = []
    for (t1, b1), (t2, b2) in itertools.combinations(texts, 2):
        if min(b1.x1, b2.x1) - max(b1.x0, b2.x0) > 0.5 and min(b1.y1, b2.y1) - max(b1.y0, b2.y0) > 0.5:
            overlaps.append((t1.get_text(), t2.get_text()))
    width, height = fig.bbox.width, fig.bbox.height
    outside = [getattr(a, "get_text", lambda a=a: type(a).__name__)() for a, box in texts + shapes
               if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5 or box.y1 > height + 0.5]
    return overlaps, outside


def test_drawn_catches_a_cut_label_and_an_overlap():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.set_xlabel("a label much too long for a figure two inches wide")
    ax.text(0.5, 0.5, "one")
    ax.text(0.5, 0.5, "two")
    overlaps, outside = _drawn(fig)
    assert ("one", "two") in overlaps and "a label much too long for a figure two inches wide" in outside
    plt.close("all")


@pytest.mark.parametrize("layer", ["lookup", "several heads"])
def test_plot_dfa_step_text_neither_overlaps_nor_leaves_the_canvas(layer):
    """On every step, no two drawn texts overlap and nothing drawn reaches past the canvas.

    The canvas, not the tight bounding box: the widget renders its frames without one, so what
    reaches past the canvas is cut off there (the old '(▼ the true one)' label was).
    """
    dfa = am.random_dfa(3, 2, rng=4)
    word = np.array([1, 0, 1, 1, 0, 1, 0, 0])
    heads = None if layer == "lookup" else random_heads(4, 9, rng=3)
    for t in range(word.size):
        overlaps, outside = _drawn(viz_tasks.plot_dfa_step(dfa, word, t, heads))
        assert overlaps == [] and outside == [], f"step {t}: overlapping {overlaps}, cut {outside}"
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
    monkeypatch.setattr(widgets_tasks.viz, "plot_dfa_step", lambda *args, **kw: calls.append((args, kw)))
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
    (_, word, t, heads), kw = calls[-1]
    assert t == 2 and heads is learned and word.tolist() == [0, 1, 0]
    assert kw == {"rows": 2 * 2 + 3}  # every step drawn with the last step's rows: the page does not jump
    plt.close("all")


def test_errors():
    with pytest.raises(ValueError, match=r"t must be a step in 0 \.\. 2; received 3"):
        viz_tasks.plot_dfa_step(am.random_dfa(2, 2, rng=0), [0, 1, 0], 3)
    with pytest.raises(TypeError, match="run must be a TMRun"):
        viz_tasks.plot_tm_run(None)
