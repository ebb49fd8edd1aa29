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
    assert ax.get_yscale() == "log" and ax.get_xscale() == "linear"
    assert ax.get_legend_handles_labels()[1][:2] == ["$W$", r"$\Theta$"]  # typeset, not ASCII


def test_recovery_on_a_geometric_grid_has_a_log_axis():
    Ns = np.unique(np.geomspace(2, 200, 12).astype(int))
    fig = viz_sculpt.plot_recovery(Ns, {"W": np.where(Ns < 9, 1.0, 1e-12)}, threshold=9.0, xscale="log")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    # the drop at N = 9 sits near the middle of the axis, not in its left 5% as on a linear axis
    lo, hi = np.log(ax.get_xlim())
    assert 0.3 < (np.log(9.0) - lo) / (hi - lo) < 0.6
    with pytest.raises(ValueError, match="xscale"):
        viz_sculpt.plot_recovery(Ns, {"W": Ns * 1.0}, xscale="symlog")


def _on_canvas(fig) -> bool:
    """Whether everything drawn lies on the canvas (the tight box of what is drawn; ticks outside the view are not)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)  # a closed figure has no canvas of its own
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer())
    width, height = fig.get_size_inches()
    return box.x0 >= -0.005 and box.y0 >= -0.005 and box.x1 <= width + 0.005 and box.y1 <= height + 0.005


def _plane(heads):
    """The plane of the first two heads, computed here: Theta* along the first axis."""
    star, _ = min_norm_point(heads.Theta[:2])
    B1 = star / np.linalg.norm(star)
    other = heads.Theta[0] - star
    return np.stack([B1, other / np.linalg.norm(other)])


def _slice_fills(ax):
    """The coloured fills of the slices, in drawing order (the white under each is not a slice's shade)."""
    return [p for p in ax.patches if p.get_facecolor()[:3] != (1.0, 1.0, 1.0)]


def _tip(body, B, half):
    """The point of a slice furthest left (smallest coordinate along Theta*), by a linear programme."""
    from scipy.optimize import linprog

    A = np.einsum("jpq,kpq->kj", B, body.Z)  # (K, 2): <B_j, Z_k>
    res = linprog([1.0, 0.0], A_ub=-A, b_ub=-np.full(len(A), body.gamma), bounds=[(-half, half)] * 2)
    assert res.status == 0
    return res.x


def test_body_slices_draw_the_heads_the_faces_and_the_projected_proxy():
    from attnlib.sculpt import min_norm_proxy
    from attnlib.sculpt.geometry import clip_edges

    heads = planted_instance(2, 4, rng=0)
    X = boolean_inputs(1000, 3, 4, rng=1)
    body = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    small = sculpt_body(X[:300], attention(X[:300], heads), heads.W.sum(0))
    proxy = min_norm_proxy(body)
    fig = viz_sculpt.plot_body_slices([small, body], heads, titles=["a", "b"], proxies=[proxy, proxy])
    assert len(fig.axes) == 1  # the bodies overlaid, so that the shrinking shows
    ax = fig.axes[0]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["a", "b"]  # the key names the outlines only
    # the heads in plane coordinates: first axis along Theta*, so both have the same first coordinate
    star, _ = min_norm_point(heads.Theta)
    dots = [line for line in ax.get_lines() if line.get_marker() == "o"][0]
    np.testing.assert_allclose(dots.get_xdata(), np.linalg.norm(star), rtol=1e-10)
    assert {t.get_text() for t in ax.texts} >= {r"$\Theta_1$", r"$\Theta_2$"}  # named where they are
    B = _plane(heads)
    half = 1.4 * np.abs(np.einsum("ipq,jpq->ij", heads.Theta, B)).max()
    poly = body_slice(body, np.zeros((4, 4)), B, box=half)
    np.testing.assert_allclose(_slice_fills(ax)[1].get_xy()[: len(poly)], poly)
    # the outline runs along the body's faces only: no edge is drawn on the frame where the body goes on
    faces = [line.get_xydata() for line in ax.get_lines() if line.get_linestyle() != ":" and len(line.get_xdata()) == 2]
    drawn = {tuple(np.round(np.sort(f, axis=0).ravel(), 9)) for f in faces}
    closed = np.vstack([poly, poly[:1]])
    clipped = clip_edges(poly, half)
    assert clipped.any() and not clipped.all()
    for k in range(len(poly)):
        edge = tuple(np.round(np.sort(closed[k:k + 2], axis=0).ravel(), 9))
        assert (edge in drawn) == (not clipped[k]), f"edge {k}: clipped {clipped[k]}"
    # the proxy is drawn where it projects, as an open star, and the figure says how far off the plane it is
    star_marks = [line for line in ax.get_lines() if line.get_marker() == "*"]
    q = np.einsum("pq,jpq->j", proxy, B)
    np.testing.assert_allclose(star_marks[0].get_xydata()[0], q)
    assert star_marks[0].get_markerfacecolor() in ("white", (1.0, 1.0, 1.0, 1.0))
    off = np.linalg.norm(proxy - np.einsum("j,jpq->pq", q, B))
    assert any(f"{off:.2f} off the plane" in t.get_text() for t in ax.texts)


def test_body_slices_zoom_on_the_tip_and_show_it_move():
    """The chapter's point: as examples arrive the tip moves right; the view is fixed by the heads alone."""
    from test_diagrams import _overlaps

    heads = planted_instance(2, 4, rng=0)
    X = boolean_inputs(3000, 3, 4, rng=1)
    Y = attention(X, heads)
    bodies = [sculpt_body(X[:N], Y[:N], heads.W.sum(0)) for N in (300, 3000)]
    titles = [f"N = {N}: {b.n_constraints} halfspaces" for N, b in zip((300, 3000), bodies, strict=True)]
    fig = viz_sculpt.plot_body_slices(bodies, heads, titles=titles)
    ax = fig.axes[0]
    B = _plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta, B)
    half = 1.4 * np.abs(pts).max()
    tips = [_tip(b, B, half) for b in bodies]
    assert tips[1][0] > tips[0][0] + 0.05 * half  # the data: more examples, a tip further right
    # an arrow from the first tip to the last, named
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None and not t.get_text()]
    assert len(arrows) == 1
    (start_x, _), (end_x, _) = arrows[0].xyann, arrows[0].xy
    assert start_x == pytest.approx(tips[0][0], abs=1e-6) and end_x == pytest.approx(tips[1][0], abs=1e-6)
    assert any(t.get_text() == "tip moves" for t in ax.texts)
    # zoomed: the origin, the tips and the heads are in view, and the panel is to scale
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < 0 < tips[0][0] < pts[0, 0] < x1 < half
    assert y0 < pts[:, 1].min() and pts[:, 1].max() < y1 < half
    assert ax.get_aspect() == 1.0
    # the view depends on the heads only, so the explorer's frames (one body each) compare
    one = viz_sculpt.plot_body_slices(bodies[:1], heads).axes[0]
    assert one.get_xlim() == ax.get_xlim() and one.get_ylim() == ax.get_ylim()
    # the key breaks each title after its colon; nothing overlaps or leaves the canvas
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [t.replace(": ", ":\n") for t in titles]
    assert _overlaps(fig) == [] and _on_canvas(fig)
    with pytest.raises(ValueError, match=r"titles must give one title per body \(2\); received 1"):
        viz_sculpt.plot_body_slices(bodies, heads, titles=["a"])


def test_slice_threshold_and_sweep_and_comparison():
    fig = viz_sculpt.plot_slice_threshold([0.01, 0.1], {"a": [1e-3, 1e-2]}, crude=0.5)
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [1e-3, 1e-2])
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), [0.5, 0.5])
    low, high = ax.get_ylim()  # one scale for every such figure
    assert low <= viz_sculpt.ERROR_RANGE[0] and high >= viz_sculpt.ERROR_RANGE[1]
    other = viz_sculpt.plot_slice_threshold([0.01, 0.1], {"a": [0.2, 0.3]}, crude=0.05).axes[0]
    assert other.get_ylim() == pytest.approx(ax.get_ylim())
    rates = {"x": np.array([[1.0, 0.5], [0.0, 1.0]])}
    fig = viz_sculpt.plot_sweep([1, 2], [10, 20], rates)
    assert [t.get_text() for t in fig.axes[0].texts] == ["50%", "✗"]  # a mark on the failures only
    assert not fig.axes[0].images and len(fig.axes) == 1  # a small table, no heat map and no colour bar
    fig = viz_sculpt.plot_sweep([1, 2], [10, 20], {"x": np.array([[1.0, 2 / 3], [0.0, 1 / 3]])}, seeds=3)
    assert [t.get_text() for t in fig.axes[0].texts] == ["2/3", "✗", "1/3"]
    fig = viz_sculpt.plot_method_comparison({"m": [1e-9, 1e-2], "n": [1.0, 1.0]}, {"m": [0.1, 0.2], "n": [1, 2]})
    np.testing.assert_allclose(sorted(fig.axes[0].get_lines()[0].get_xdata()), [1e-9, 1e-2])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["m", "n"]
    # the methods of compare_methods are shown by their labels
    fig = viz_sculpt.plot_method_comparison({"sculpt_polish": [1e-9], "adam": [0.5]}, {"sculpt_polish": [1.0],
                                                                                       "adam": [2.0]})
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["sculpt + polish", "Adam"]


def test_phase_report_has_four_panels_with_the_given_values():
    from attnlib.sculpt import PhaseSeconds
    from attnlib.sculpt.diagnostics import Geometry, LayerErrors, PhaseDiagnostics, SumWErrors, phase_report_entries

    diag = PhaseDiagnostics(SumWErrors(crude=1.0, final=1e-6), Geometry(proxy_cosine=0.9),
                            LayerErrors(pre_polish=0.3, final=1e-20), PhaseSeconds(sum_w=0.1))
    assert phase_report_entries(diag) == {
        "sum_W": {"crude": 1.0, "final": 1e-6}, "geometry": {"proxy cosine": 0.9},
        "errors": {"pre-polish": 0.3, "final": 1e-20}, "seconds": {"phase 1": 0.1}}
    fig = viz_sculpt.plot_phase_report(diag, title="t")
    assert len(fig.axes) == 4
    # errors on log axes are dots, never bars (a bar's length on a log axis means nothing)
    assert not fig.axes[0].patches and not fig.axes[2].patches
    dots = [line for line in fig.axes[0].get_lines() if line.get_marker() == "o"][0]
    np.testing.assert_allclose(dots.get_xdata(), [1.0, 1e-6])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["crude", "final"]
    assert [t.get_text().strip() for t in fig.axes[0].texts] == ["1e+00", "1e-06"]  # the value at each dot
    rounding = [line for line in fig.axes[2].get_lines() if line.get_marker() == "o"][0]
    np.testing.assert_allclose(rounding.get_xdata(), [0.3, viz_sculpt.ROUNDING])  # drawn at the floor ...
    assert fig.axes[2].texts[1].get_text().strip() == "< 1e-16"                  # ... and said so
    assert fig.axes[1].get_xlim()[0] == 0 and fig.axes[1].patches[0].get_width() == pytest.approx(0.9)
    # one colour for every bar and dot: colour means nothing that differs between panels
    assert len({p.get_facecolor() for ax in fig.axes for p in ax.patches}) == 1


def test_sweep_marks_where_each_method_of_the_benchmark_failed_and_only_there():
    """Fig 9.4: every cell with a failure in the results file carries a mark, no other cell does; compact."""
    import json
    from pathlib import Path

    from test_diagrams import _overlaps

    sweep = json.loads((Path(__file__).parents[2] / "benchmarks/results/sculpt.json").read_text())["results"]["sweep"]
    seeds = sweep["seeds"]
    success = {k: np.array(v["success"]) for k, v in sweep["methods"].items()}
    fig = viz_sculpt.plot_sweep(sweep["scales"], sweep["sizes"], success, seeds=seeds, title="t")
    panels = {ax.get_title().replace("\n", " "): ax for ax in fig.axes if ax.axison}
    assert set(panels) == {v["label"] for v in sweep["methods"].values()}
    # the grids share their rows, named on the left of the first: row k at height k
    rows = [float(t.get_text()) for t in fig.axes[0].get_yticklabels()]
    assert list(fig.axes[0].get_yticks()) == list(range(len(rows)))
    for method in sweep["methods"].values():
        ax = panels[method["label"]]
        marks = {(rows[round(t.get_position()[1])], sweep["sizes"][round(t.get_position()[0])]): t.get_text()
                 for t in ax.texts}
        # from the file's list of failed cells, not from the success rates the figure drew
        expected = {(c["scale"], c["N"]): "✗" if c["failed_seeds"] == seeds else f"{seeds - c['failed_seeds']}/{seeds}"
                    for c in method["failed_cells"]}
        assert marks == expected, method["label"]
        cols = [t.get_text() for t in ax.get_xticklabels()]  # short, for narrow columns
        assert rows == sweep["scales"] and cols == [f"{N / 1000:g}k" if N >= 1000 else str(N) for N in sweep["sizes"]]
    # the caption's claims, read off the figure: no polish fails everywhere, with it nowhere, random-start
    # polish only at soft attention, L-BFGS only at very sharp attention with few examples
    cells = len(sweep["scales"]) * len(sweep["sizes"])
    assert len(panels["sculpt, no polish"].texts) == cells and not panels["sculpt + polish"].texts
    assert all(rows[round(t.get_position()[1])] <= 1 for t in panels["polish from random"].texts)
    # compact: one row of four grids, at most ~3 in (300 px at 100 dpi) tall, inside the column
    assert len(panels) == 4 and len({round(ax.get_position().y0, 3) for ax in panels.values()}) == 1
    assert _overlaps(fig) == [] and _on_canvas(fig)
    box = fig.get_tightbbox()
    assert box.height <= 3.1 and box.width <= 6.1, (box.width, box.height)


def _rows(markdown):
    """The cells of a Markdown table, row by row, header first (the separator dropped)."""
    lines = markdown.data.splitlines()
    return [[c.strip() for c in line.strip("|").split("|")] for k, line in enumerate(lines) if k != 1]


def _entry(label, successes, runs, starts, accepted, error, seconds):
    return {"label": label, "successes": successes, "runs": runs, "starts": starts, "accepted_starts": accepted,
            "median_error": error, "median_seconds": seconds}


def test_comparison_table_shows_every_method_of_the_results_file():
    size = {"methods": {"sculpt_polish": _entry("sculpt + polish", 20, 20, 21, 20, 8.2e-15, 0.823),
                        "adam": _entry("Adam", 0, 20, 100, 0, 0.0131, 74.4),
                        "lbfgs": _entry("L-BFGS restarts", 19, 20, 24, 19, None, 3.4)}}
    rows = _rows(viz_sculpt.comparison_table(size))
    assert rows[0] == ["method", "success", "starts", "accepted", "median error", "median time"]
    assert rows[1] == ["sculpt + polish", "20/20", "21", "20/21", "8×10⁻¹⁵", "0.82 s"]
    assert rows[2] == ["Adam", "0/20", "100", "0/100", "0.013", "74 s"]
    assert rows[3] == ["L-BFGS restarts", "19/20", "24", "19/24", "none", "3.4 s"]
    with pytest.raises(ValueError, match="size lacks the keys"):
        viz_sculpt.comparison_table({"sizes": {}})


def test_single_start_table_and_rate_text_read_the_intervals():
    from attnlib.sculpt import binomial_interval

    def cell(label, k, n):
        low, high = binomial_interval(k, n)
        return {"label": label, "successes": k, "trials": n, "low": low, "high": high}

    settings = {"a": {"label": "A", "starts": {"sculpted": cell("sculpted candidate", 12, 12),
                                               "random": cell("random heads", 44, 48)}},
                "b": {"label": "B", "starts": {"sculpted": cell("sculpted candidate", 5, 10),
                                               "random": cell("random heads", 0, 40)}}}
    rows = _rows(viz_sculpt.single_start_table(settings, names={"b": "bee"}))
    assert rows[0] == ["start", "A", "bee"]
    lo, hi = binomial_interval(44, 48)
    assert rows[2] == ["random heads", f"44/48 [{lo:.2f}, {hi:.2f}]", "0/40 [0.00, 0.09]"]
    assert viz_sculpt.rate_text(settings["a"]["starts"]["sculpted"]).startswith("12 of 12 (95% interval 0.7")
    with pytest.raises(ValueError, match="settings must have at least one entry"):
        viz_sculpt.single_start_table({})


def test_sweep_failure_table_says_where_each_method_failed():
    sweep = {"seeds": 3, "scales": [0.5, 32.0], "sizes": [500, 1000], "methods": {
        "sculpt_polish": {"label": "sculpt + polish", "failed_cells": [], "starts": 13, "runs": 12},
        "lbfgs": {"label": "L-BFGS restarts", "starts": 20, "runs": 12,
                  "failed_cells": [{"scale": 32.0, "N": 500, "failed_seeds": 2}]},
        "sculpt_no_polish": {"label": "sculpt, no polish", "starts": 12, "runs": 12,
                             "failed_cells": [{"scale": s, "N": n, "failed_seeds": 3}
                                              for s in (0.5, 32.0) for n in (500, 1000)]}}}
    rows = _rows(viz_sculpt.sweep_failure_table(sweep))
    assert rows[1] == ["sculpt + polish", "0 of 4", "nowhere", "13 in 12 runs"]
    assert rows[2] == ["L-BFGS restarts", "1 of 4", "norm 32, N = 500: 2 of 3 seeds", "20 in 12 runs"]
    assert rows[3][1:3] == ["4 of 4", "everywhere"]


def test_arguments_with_a_structure_of_their_own_are_named():
    """bodies, proxies, titles (plot_body_slices), errors (plot_slice_threshold), kinds (single_start_table):
    structures no declared kind expresses, checked by hand."""
    from attnlib.sculpt import Body

    heads = planted_instance(2, 4, rng=0)
    body = Body(np.eye(4)[None], gamma=1.0, bound=None, certified=1)
    with pytest.raises(TypeError, match=r"bodies must be a list of Body"):
        viz_sculpt.plot_body_slices(body, heads)
    with pytest.raises(ValueError, match=r"bodies must hold at least one Body"):
        viz_sculpt.plot_body_slices([], heads)
    with pytest.raises(TypeError, match=r"bodies must be a Body"):
        viz_sculpt.plot_body_slices(["body"], heads)
    with pytest.raises(ValueError, match=r"proxies must give one proxy per body \(1\); received 2"):
        viz_sculpt.plot_body_slices([body], heads, proxies=[np.eye(4), np.eye(4)])
    with pytest.raises(TypeError, match=r"errors must be a dict"):
        viz_sculpt.plot_slice_threshold([0.1, 0.2], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"errors\['a'\] must have shape \(2,\)"):
        viz_sculpt.plot_slice_threshold([0.1, 0.2], {"a": [1.0]})
    cell = {"label": "random heads", "successes": 1, "trials": 2, "low": 0.1, "high": 0.9}
    with pytest.raises(ValueError, match=r"kinds must be a sequence of kinds of start"):
        viz_sculpt.single_start_table({"s": {"label": "S", "starts": {"random": cell}}}, kinds=["bogus"])
