"""Tests for attnlib.viz.diagrams: every diagram is legible and draws the numbers it claims.

Legibility is checked on the drawn figure: no two pieces of text overlap, every text lies on the
figure and none is smaller than the book's ``MIN_PT`` (16 px at 100 dpi); the canvas is at most
``COLUMN_IN`` wide, so the page never shrinks it (``test_viz_legible.py`` checks the stored PNG).
The numbers are checked against computations written here,
independently of the library code that drew them.
"""

import itertools
import math
import re
from collections import Counter

import numpy as np
import pytest

from attnlib import Heads, attention, boolean_inputs, gaussian_inputs, random_heads
from attnlib.rkhs import cubic_features, parameter_map
from attnlib.sculpt import Body, body_slice, face_span, min_norm_proxy, planted_instance, sculpt_body
from attnlib.sculpt.geometry import clip_edges
from attnlib.tasks.automata import DFA, random_dfa
from attnlib.viz import diagrams
from attnlib.viz._style import COLUMN_IN, MIN_PT
from attnlib.viz.diagrams._hypercube import _bounding_lines


def _texts(fig):
    """Every visible, non-empty text of the figure with its box in pixels (drawn first)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = FigureCanvasAgg(fig)  # a closed figure has no canvas of its own
    canvas.draw()
    renderer = canvas.get_renderer()
    found = []
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.figure is not None:
            found.append((t, Text.get_window_extent(t, renderer)))  # an annotation's text, not its arrow
    return found


def _overlaps(fig, tol=0.5):
    """Pairs of texts whose boxes overlap by more than ``tol`` pixels each way."""
    found = _texts(fig)
    bad = []
    for (t1, b1), (t2, b2) in itertools.combinations(found, 2):
        dx = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
        dy = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
        if dx > tol and dy > tol:
            bad.append((t1.get_text(), t2.get_text()))
    return bad


def _outside(fig):
    """Texts, boxes and lines that reach past the figure's edge by more than half a pixel."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    width, height = fig.bbox.width, fig.bbox.height

    def off(b):
        return b.x0 < -0.5 or b.y0 < -0.5 or b.x1 > width + 0.5 or b.y1 > height + 0.5

    found = [t.get_text() for t, b in _texts(fig) if off(b)]
    renderer = fig.canvas.get_renderer()
    backgrounds = {fig.patch, *(ax.patch for ax in fig.axes)}
    hidden = {part for ax in fig.axes if not ax.axison  # the spines and ticks of a diagram's canvas: never drawn
              for part in (*ax.spines.values(), *ax.xaxis.findobj(), *ax.yaxis.findobj())}
    for artist in fig.findobj(lambda a: isinstance(a, (Patch, Line2D)) and a.get_visible() and a not in hidden):
        # a diagram's box is drawn whole or it is cut; what a data panel clips (a halfspace, a guide
        # across the panel) is meant to be clipped
        in_panel = artist.get_clip_on() and artist.axes is not None and artist.axes.axison
        if artist not in backgrounds and not in_panel and off(artist.get_window_extent(renderer)):
            found.append(f"{type(artist).__name__} at {artist.get_window_extent(renderer).bounds}")
    return found


def _strings(fig):
    return [t.get_text() for t, _ in _texts(fig)]


@pytest.fixture(scope="module")
def sculpted():
    rng = np.random.default_rng(8)
    heads = planted_instance(2, 4, rng=rng)
    X = boolean_inputs(3000, 3, 4, rng=rng)
    return sculpt_body(X, attention(X, heads), heads.W.sum(0), delta=0.02), heads


@pytest.fixture(scope="module")
def face(sculpted):
    """The face figure's inputs: an idealised body of the planted heads and the sculpted one."""
    body, heads = sculpted
    Z = np.random.default_rng(3).normal(size=(30_000, 4, 4))
    keep = np.einsum("kpq,ipq->ki", Z, heads.Theta).min(axis=1) >= 2.0
    ideal = Body(Z[keep], gamma=1.0, bound=None, certified=int(keep.sum()))
    proxies = [min_norm_proxy(ideal), min_norm_proxy(body)]
    spans = [face_span(b, P, 2, rng=4) for b, P in zip((ideal, body), proxies, strict=True)]
    return heads, ideal, spans[0], body, spans[1], proxies


def _head_example():
    rng = np.random.default_rng(1)
    X = boolean_inputs(1, 4, 4, rng=rng)[0]
    return X, random_heads(1, 4, scale=1.5, rng=rng)


def _gap_example():
    """Chapter 7's triple worked by hand: x_a = (1, 1), x_b = (1, -1), x_c = (-1, -1), Theta = diag(2, 1)."""
    return np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]]), Heads(np.diag([2.0, 1.0]), np.eye(2)), 0, 1, 2


def _all_diagrams(sculpted, face):
    X, heads = _head_example()
    body, planted = sculpted
    heads_f, ideal, ideal_span, real, real_span, proxies = face
    return {
        "face": diagrams.plot_face(heads_f, ideal, ideal_span, real, real_span, kappa=0.5, ideal_proxy=proxies[0],
                                   real_proxy=proxies[1]),
        "head": diagrams.plot_head(X, heads),
        "lift2": diagrams.plot_cubic_lift(2),
        "lift3": diagrams.plot_cubic_lift(3),
        "dfa": diagrams.plot_dfa_lookup(random_dfa(3, 2, rng=6), 1, 0),
        "dfa4": diagrams.plot_dfa_lookup(DFA([[1, 0], [3, 2], [0, 0], [2, 1]]), 3, 1),
        "gap": diagrams.plot_logit_gap(*_gap_example()),
        # the widest: d = 3, two decimals in Theta, a token with two roles, a weight near 1
        "gap3": diagrams.plot_logit_gap(boolean_inputs(1, 3, 3, rng=3)[0], random_heads(1, 3, scale=9.0, rng=1), 1, 1,
                                        0),
        "halfspaces": diagrams.plot_halfspaces(body, planted),
        "phases": diagrams.plot_phase_flow(),
        "roads": diagrams.plot_two_roads(),
    }


def test_no_text_overlaps_and_everything_is_on_the_figure_and_legible(sculpted, face):
    for name, fig in _all_diagrams(sculpted, face).items():
        assert not _overlaps(fig), f"{name}: overlapping texts {_overlaps(fig)}"
        assert not _outside(fig), f"{name}: off the figure {_outside(fig)}"
        sizes = [t.get_fontsize() for t, _ in _texts(fig)]
        assert min(sizes) >= MIN_PT, f"{name}: text at {min(sizes)} pt"
        assert fig.get_figwidth() <= COLUMN_IN, f"{name} is {fig.get_figwidth()} in wide; the column is {COLUMN_IN} in"


def test_the_overlap_check_can_fail():
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    fig = plt.figure(figsize=(2, 1))
    fig.text(0.1, 0.5, "one label")
    fig.text(0.15, 0.5, "another label")
    fig.text(0.9, 0.5, "off the edge")
    fig.patches.append(Rectangle((0.95, 0.1), 0.2, 0.2, transform=fig.transFigure, figure=fig))
    assert _overlaps(fig) == [("one label", "another label")]
    outside = _outside(fig)
    assert outside[0] == "off the edge" and outside[1].startswith("Rectangle at") and len(outside) == 2
    plt.close(fig)


def _fmt(v, digits):
    text = f"{v:.0f}" if abs(v) >= 10 else f"{v:.{digits}f}"
    return text[1:] if text in ("-0", "-0.0", "-0.00") else text


def test_head_shows_the_logits_weights_and_output_of_a_naive_head():
    X, heads = _head_example()
    fig = diagrams.plot_head(X, heads, query=2)
    Theta, W = heads.Theta[0], heads.W[0]
    S = np.array([[X[a] @ Theta @ X[b] for b in range(4)] for a in range(4)])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    F = A @ X @ W
    shown = Counter(_strings(fig))
    for M, digits in ((S, 1), (A, 2), (F, 1), (X @ W, 1), (X @ Theta, 1)):
        need = Counter(_fmt(v, digits) for v in M.ravel())
        missing = need - shown
        assert not missing, f"numbers not drawn: {dict(missing)}"
    assert any("a=3" in s for s in _strings(fig))  # 0-based query 2 is token a = 3


def _naive_weights(X, Theta, a):
    """Row a of softmax(X Theta X^T), one logit at a time."""
    n, d = X.shape
    logits = [sum(X[a, p] * Theta[p, q] * X[k, q] for p in range(d) for q in range(d)) for k in range(n)]
    top = max(logits)
    e = [math.exp(s - top) for s in logits]
    return [v / sum(e) for v in e]


def _shown_weight(w):
    return f"{w:.2f}" if w >= 0.01 else f"{w:.2g}"


_PRODUCT = re.compile(r"\(?(-?[\d.]+)\)?\\cdot\(?(-?[\d.]+)\)?")


@pytest.mark.parametrize("case", ["chapter", "random"])
def test_logit_gap_draws_weights_and_both_sides_computed_here(case):
    """The bars' values are a naive softmax's; Z's cells are x_a (x_b - x_c)^T entry by entry; the left
    side is the log-ratio of the naive weights, the right side the double sum of Theta_pq Z_pq, each
    written-out product is an entry of Theta times the entry of Z, and the two sides agree."""
    if case == "chapter":
        X, heads, a, b, c = _gap_example()
    else:
        X, heads, a, b, c = (boolean_inputs(1, 3, 3, rng=5)[0], random_heads(2, 3, scale=2.0, rng=6), 2, 0, 1)
    Theta = heads.Theta[-1]
    fig = diagrams.plot_logit_gap(X, heads, a, b, c, head=heads.m - 1)
    texts = {t.get_gid(): t.get_text() for t, _ in _texts(fig) if t.get_gid()}
    n, d = X.shape
    w = _naive_weights(X, Theta, a)
    for k in range(n):
        assert texts[f"weight-{k}"] == _shown_weight(w[k]), (k, texts[f"weight-{k}"], w[k])
        bar = next(p for p in fig.axes[0].patches if p.get_gid() == f"bar-{k}")
        assert bar.get_height() == pytest.approx(1.15 * w[k])
    Z = [[X[a, p] * (X[b, q] - X[c, q]) for q in range(d)] for p in range(d)]
    shown = Counter(_strings(fig))
    assert not Counter(_fmt(v, 0) for r in Z for v in r) - shown, "the cells of Z are not x_a (x_b - x_c)^T"
    log_ratio = math.log(w[b]) - math.log(w[c])
    inner = sum(Theta[p, q] * Z[p][q] for p in range(d) for q in range(d))
    lhs, rhs = texts["lhs"], texts["rhs"]
    assert f"\\log {_shown_weight(w[b])}-\\log {_shown_weight(w[c])}=" in lhs
    assert lhs.endswith(f"={log_ratio:.2f}$") and rhs.endswith(f"={inner:.2f}$")
    assert lhs.rsplit("=", 1)[1] == rhs.rsplit("=", 1)[1]          # both sides of the drawn equation agree
    products = _PRODUCT.findall(rhs)
    if case == "chapter":
        assert rhs == "right side: $2\\cdot2+0\\cdot2=4.00$"
    entries = [(Theta[p, q], Z[p][q]) for p in range(d) for q in range(d) if Z[p][q] != 0]
    if products:
        drawn = [float(v) for pair in products for v in pair]
        assert drawn == pytest.approx([float(v) for pair in entries for v in pair], abs=0.005)
    else:
        assert "\\Sigma_{pq}" in rhs
    assert texts["claim"] == "$\\log A[a,b]-\\log A[a,c]=\\langle\\Theta,Z\\rangle_F$"


_ROW = re.compile(r"^\$\((\d)(\d),(\d)\)\$$")
_PAIR = re.compile(r"\\Theta_\{i,(\d)(\d)\}W_\{i,(\d)a\}")


@pytest.mark.parametrize("d", [2, 3])
def test_cubic_lift_rows_are_the_features_and_coefficients_of_the_library(d):
    fig = diagrams.plot_cubic_lift(d)
    texts = _texts(fig)
    rows = sorted(((b.y0, t.get_text()) for t, b in texts if _ROW.match(t.get_text())), reverse=True)
    coefs = sorted(((b.y0, t.get_text()) for t, b in texts if "W_{i," in t.get_text()), reverse=True)
    psi = d * d * (d + 1) // 2
    assert len(rows) == len(coefs) == psi
    rng = np.random.default_rng(0)
    X = gaussian_inputs(3, 5, d, rng=rng)
    layer = random_heads(2, d, rng=rng)
    Phi, P = cubic_features(X), parameter_map(layer)
    for r, ((_, label), (_, coef)) in enumerate(zip(rows, coefs, strict=True)):
        j, k, l = (int(c) - 1 for c in _ROW.match(label).groups())
        G = np.einsum("Nbj,Nbk->Njk", X, X)
        np.testing.assert_allclose(G[:, j, k] * X[:, -1, l], Phi[:, r], rtol=1e-12)
        for a in range(d):
            value = sum(layer.Theta[i, int(p) - 1, int(q) - 1] * layer.W[i, int(s) - 1, a]
                        for p, q, s in _PAIR.findall(coef) for i in range(layer.m))
            np.testing.assert_allclose(value, P[r, a], rtol=1e-12, atol=1e-12)


def test_dfa_lookup_scores_match_the_keys_and_the_output_is_the_transition():
    dfa = DFA([[1, 0], [3, 2], [0, 0], [2, 1]])
    fig = diagrams.plot_dfa_lookup(dfa, 3, 1)
    texts = _texts(fig)
    # the score column: the texts right of the grid that are a bare 0 or 1, top to bottom
    right = max(b.x0 for t, b in texts if t.get_text() == "1" and b.y0 > 0)
    scores = [t.get_text() for t, b in sorted(texts, key=lambda tb: -tb[1].y0)
              if t.get_text() in ("0", "1") and abs(b.x0 - right) < 2]
    expected = [str(int((s, a) == (3, 1))) for s in range(4) for a in range(2)] + ["1"]  # the query matches itself
    assert scores == expected
    assert any("state 1" in s for s in _strings(fig))          # delta(3, 1) = 1
    assert any("(3,1)" in s for s in _strings(fig))


def test_halfspace_lines_pass_where_the_body_says(sculpted):
    body, heads = sculpted
    fig = diagrams.plot_halfspaces(body, heads)
    ax = fig.axes[1]
    # the plane, computed here: the min-norm point of the segment Theta_1 Theta_2, then Gram-Schmidt
    T1, T2 = heads.Theta[0], heads.Theta[1]
    lam = np.clip(np.sum(T2 * (T2 - T1)) / np.sum((T1 - T2) ** 2), 0, 1)
    star = lam * T1 + (1 - lam) * T2
    B1 = star / np.linalg.norm(star)
    other = T1 - star - np.sum((T1 - star) * B1) * B1
    B2 = other / np.linalg.norm(other)
    lines = [line for line in ax.get_lines() if (line.get_gid() or "").startswith("halfspace-")]
    assert lines, "no halfspace drawn"
    pts = np.array([[np.sum(T * B1), np.sum(T * B2)] for T in (T1, T2)])
    half = 1.5 * np.abs(pts).max()
    poly = body_slice(body, np.zeros((4, 4)), np.stack([B1, B2]), box=half)
    for line in lines:
        k = int(line.get_gid().split("-")[1])
        u, v = np.sum(B1 * body.Z[k]), np.sum(B2 * body.Z[k])
        xy = np.column_stack([line.get_xdata(), line.get_ydata()])
        np.testing.assert_allclose(xy @ [u, v], body.gamma, rtol=1e-9)       # the line <Theta, Z_k> = gamma
        on = np.abs(poly @ [u, v] - body.gamma) < 1e-7 * np.hypot(u, v)
        assert on.sum() >= 2, f"halfspace {k} carries no edge of the slice"
        assert (pts @ [u, v] >= body.gamma - 1e-9).all()                     # the heads are inside
    assert ax.get_title().endswith(f"{len(lines)} in this view")
    assert ax.get_title().startswith(f"a slice: {len(_bounding_lines(body, np.stack([B1, B2]), poly))} of the "
                                     f"{body.n_constraints}")
    # the slice is outlined along its faces, and not along the square where the drawing stops
    faces = [line for line in ax.get_lines() if line.get_linewidth() > 2 and not line.get_gid()]
    assert len(faces) == int((~clip_edges(poly, half)).sum()) >= 2


def _by_gid(ax, gid):
    found = [a for a in [*ax.get_lines(), *ax.patches, *ax.texts] if a.get_gid() == gid]
    assert found, f"nothing drawn with gid {gid!r}"
    return found[0]


def _xy(artist):
    if hasattr(artist, "get_xdata"):
        return np.column_stack([artist.get_xdata(), artist.get_ydata()]).astype(float)
    return np.asarray(artist.get_xy(), dtype=float)


def test_a_slab_wider_than_the_view_draws_no_edge(face):
    """eps so large that the slab holds all of the body in view: the strip, without its far edge (it crashed)."""
    heads, ideal, ideal_span, real, real_span, proxies = face
    fig = diagrams.plot_face(heads, ideal, ideal_span, real, real_span, kappa=0.5, ideal_proxy=proxies[0],
                             real_proxy=proxies[1], eps=50.0)
    for ax in fig.axes[:2]:
        assert _by_gid(ax, "cap") and not [line for line in ax.get_lines() if line.get_gid() == "slab"]
    narrow = diagrams.plot_face(heads, ideal, ideal_span, real, real_span, kappa=0.5, ideal_proxy=proxies[0],
                                real_proxy=proxies[1])
    assert [line for ax in narrow.axes[:2] for line in ax.get_lines() if line.get_gid() == "slab"]


def test_face_draws_the_geometry_computed_here(face):
    """Every point and line of the face figure, against a closed-form computation written here."""
    heads, ideal, ideal_span, real, real_span, proxies = face
    T1, T2 = heads.Theta[0], heads.Theta[1]
    lam = np.clip(np.sum(T2 * (T2 - T1)) / np.sum((T1 - T2) ** 2), 0, 1)
    star = T2 + lam * (T1 - T2)                                        # min-norm point of the segment
    B1 = star / np.linalg.norm(star)
    B2 = (T1 - star) - np.sum((T1 - star) * B1) * B1
    B2 /= np.linalg.norm(B2)

    def coords(A):
        return np.array([np.sum(A * B1), np.sum(A * B2)])

    fig = diagrams.plot_face(heads, ideal, ideal_span, real, real_span, kappa=0.5, ideal_proxy=proxies[0],
                             real_proxy=proxies[1])
    h = np.array([coords(T1), coords(T2)])
    for ax, span, P, kind in zip(fig.axes[:2], (ideal_span, real_span), proxies, ("ideal", "real"), strict=True):
        np.testing.assert_allclose(_xy(_by_gid(ax, "heads")), h, atol=1e-9)
        s_star = _xy(_by_gid(ax, "star"))[0]
        np.testing.assert_allclose(s_star, [np.linalg.norm(star), 0.0], atol=1e-9)
        assert abs(s_star @ (h[0] - h[1])) < 1e-9                      # the foot of the perpendicular
        affine = _xy(_by_gid(ax, "affine"))
        e = h[1] - h[0]
        for q in affine:                                               # the line through both heads
            assert abs(e[0] * (q - h[0])[1] - e[1] * (q - h[0])[0]) < 1e-9 * np.linalg.norm(e) * (1 + np.abs(q).max())
        p = coords(P)
        c = 1.2 * np.sum(P * P)
        slabs = [line for line in ax.get_lines() if line.get_gid() == "slab"]
        for slab in slabs:                                             # drawn where it crosses the body
            np.testing.assert_allclose(_xy(slab) @ p, c, rtol=1e-9)
        np.testing.assert_allclose(_xy(_by_gid(ax, "proxy"))[0], p, atol=1e-9)
        projected = np.array([coords(Q) for Q in span.points])
        np.testing.assert_allclose(_xy(_by_gid(ax, "points")), projected, atol=1e-9)
        # the offsets captured, as the title says: D_i = Theta_i - Theta*, proxy direction removed
        Q = span.basis.reshape(span.basis.shape[0], -1)
        u = span.basis[0].ravel()
        captured = []
        for T in (T1, T2):
            D = (T - star).ravel()
            D = D - (D @ u) * u
            captured.append(np.linalg.norm(Q.T @ (Q @ D)) / np.linalg.norm(D))
        assert ax.get_title().endswith(f"offsets captured: {np.mean(captured):.2f}")
        caps = [a for a in ax.patches if a.get_gid() == "cap"]          # the slice can miss the slab
        assert caps or kind == "real"
        for cap in caps:
            assert (_xy(cap) @ p <= c + 1e-9 * c).all()                # the hatched part is inside the slab
        assert len(slabs) == len(caps)                                 # its far edge is dashed
        if kind == "ideal":
            np.testing.assert_allclose(_xy(_by_gid(ax, "face")), 0.5 * h, atol=1e-9)
            for q in _xy(slabs[0]):                                    # ends on the body's edges: the rays 0 -> Theta_i
                assert min(abs(q[0] * g[1] - q[1] * g[0]) / np.linalg.norm(g) for g in h) < 1e-9 * (1 + np.abs(q).max())
        else:
            poly = _xy(_by_gid(ax, "slice"))
            s_lo, s_hi = ax.get_xlim()
            t_lo, t_hi = ax.get_ylim()
            plane = np.einsum("vj,jpq->vpq", poly, np.stack([B1, B2]))
            gaps = np.einsum("vpq,kpq->vk", plane, real.Z).min(axis=1)
            on_view = np.isclose(poly[:, 0], s_lo) | np.isclose(poly[:, 0], s_hi) | \
                np.isclose(poly[:, 1], t_lo) | np.isclose(poly[:, 1], t_hi)
            assert ((gaps >= real.gamma - 1e-7) | on_view).all()         # vertices lie in the body
            tip = _by_gid(ax, "tip")
            np.testing.assert_allclose(tip.xy, poly[np.argmin(poly @ p)], atol=1e-12)
    assert "face" not in {a.get_gid() for a in [*fig.axes[1].get_lines()]}


def test_face_names_its_point_on_the_panels_not_in_a_legend(face):
    """Fig 9.1 reads at a glance: no legend, few marks, the face and the tip named where they are."""
    heads, ideal, ideal_span, real, real_span, proxies = face
    T1, T2 = heads.Theta[0], heads.Theta[1]
    S = T2 + np.sum(T2 * (T2 - T1)) / np.sum((T1 - T2) ** 2) * (T1 - T2)   # Theta_star: nearest 0 on the line
    B1 = S / np.linalg.norm(S)
    B2 = (T1 - S) - np.sum((T1 - S) * B1) * B1
    B2 /= np.linalg.norm(B2)
    fig = diagrams.plot_face(heads, ideal, ideal_span, real, real_span, kappa=0.5, ideal_proxy=proxies[0],
                             real_proxy=proxies[1])
    left, right = fig.axes
    assert not fig.legends and left.get_legend() is None and right.get_legend() is None
    # each title states the panel's point on its first line
    assert left.get_title().split("\n")[0] == r"idealised: a face along $\Theta_1-\Theta_2$"
    assert right.get_title().split("\n")[0] == "from data: only a tip"
    # few marks, every one of them named (a gid): no perpendicular, no right-angle mark, no unnamed line
    marks = {"affine", "points", "heads", "star", "proxy", "origin"}
    for ax, extra in ((left, {"face", "slab"}), (right, set())):
        gids = [line.get_gid() for line in ax.get_lines()]
        assert None not in gids and len(gids) == len(set(gids))
        assert marks | extra <= set(gids) <= marks | extra | {"slab"}

    def named(ax, text):
        found = [t for t in ax.texts if t.get_text() == text]
        assert len(found) == 1, f"{text!r} drawn {len(found)} times"
        return found[0]

    # the face's label points at an end of kappa [Theta_1, Theta_2], computed here in the heads' plane
    label = named(left, "face")
    ends = [0.5 * np.array([np.sum(T * B1), np.sum(T * B2)]) for T in (T1, T2)]
    assert min(np.linalg.norm(np.asarray(label.xy) - e) for e in ends) < 1e-9
    assert not [t for t in left.texts if t.get_text() == "tip"]
    # the tip's label points at a vertex of the data body's slice on the body's edge (a certified row is tight)
    tip = np.asarray(named(right, "tip").xy)
    assert not [t for t in right.texts if t.get_text() == "face"]
    poly = _xy(_by_gid(right, "slice"))
    assert np.min(np.linalg.norm(poly - tip, axis=1)) < 1e-12
    lifted = tip[0] * B1 + tip[1] * B2
    assert abs(np.einsum("pq,kpq->k", lifted, real.Z).min() - real.gamma) < 1e-7   # on the body's boundary
    P = proxies[1]
    p = np.array([np.sum(P * B1), np.sum(P * B2)])
    assert tip @ p <= (poly @ p).min() + 1e-9                          # the slice's vertex nearest the slab's edge
    # both panels name the extreme points, with a leader to one of them
    for ax, span in ((left, ideal_span), (right, real_span)):
        points = _xy(_by_gid(ax, "points"))
        assert len(points) == len(span.points)
        assert np.min(np.linalg.norm(points - np.asarray(named(ax, "LP extreme\npoints").xy), axis=1)) < 1e-12


def test_face_labels_stay_off_the_slab_edge_and_the_face(face):
    """No text sits over the lines the figure is about: the slab's edge and the face."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    heads, ideal, ideal_span, real, real_span, proxies = face
    fig = diagrams.plot_face(heads, ideal, ideal_span, real, real_span, kappa=0.5, ideal_proxy=proxies[0],
                             real_proxy=proxies[1])
    FigureCanvasAgg(fig).draw()
    boxes = [b for _, b in _texts(fig)]
    for ax in fig.axes:
        view = ax.bbox
        for line in ax.get_lines():
            if line.get_gid() not in {"slab", "face"}:
                continue
            xy = _xy(line)
            along = np.linspace(0, 1, 200)[:, None]
            pix = ax.transData.transform(xy[0] + along * (xy[-1] - xy[0]))
            pix = pix[(pix[:, 0] >= view.x0) & (pix[:, 0] <= view.x1) & (pix[:, 1] >= view.y0) & (pix[:, 1] <= view.y1)]
            for b in boxes:
                inside = (pix[:, 0] > b.x0) & (pix[:, 0] < b.x1) & (pix[:, 1] > b.y0) & (pix[:, 1] < b.y1)
                assert not inside.any(), f"a text covers the {line.get_gid()} line"


def test_phase_flow_names_real_functions_and_says_it_is_a_reconstruction():
    import attnlib.sculpt

    fig = diagrams.plot_phase_flow()
    strings = _strings(fig)
    calls = [t.get_text() for t, _ in _texts(fig) if t.get_fontfamily()[0] == "monospace"]
    names = {name.strip() for text in calls if "(" not in text for name in text.split(",")}
    assert {"estimate_sum_W", "sculpt_body", "min_norm_proxy", "face_span", "fit_W", "polish"} <= names
    missing = [name for name in names if not hasattr(attnlib.sculpt, name)]
    assert not missing, f"not in attnlib.sculpt: {missing}"
    assert any("reconstruction" in s and "not the paper" in s for s in strings)
    for k in range(1, 6):
        assert any(s.startswith(f"phase {k} (ch.") for s in strings)


def test_two_roads_monomial_counts_are_binomial_sums():
    """The chart's two lines are the numbers of monomials of degree <= D in 2d variables, summed here
    from binomial coefficients: flat at D = 3 for linear attention, D = 2m - 1 for the softmax family,
    whose points carry their degree."""
    fig = diagrams.plot_two_roads(d=8, heads=(2, 3, 4))
    lines = {line.get_gid(): line for ax in fig.axes for line in ax.lines if line.get_gid()}
    texts = {t.get_gid(): t.get_text() for t, _ in _texts(fig) if t.get_gid()}
    for gid, degree in (("linear", lambda m: 3), ("softmax", lambda m: 2 * m - 1)):
        xs, ys = lines[f"monomials-{gid}"].get_data()
        assert list(xs) == [2, 3, 4]
        assert list(ys) == [sum(math.comb(16, k) for k in range(degree(m) + 1)) for m in (2, 3, 4)]
    assert texts["degree-softmax-3"] == "$D=5$" and texts["degree-softmax-4"] == "$D=7$"
    assert "D = 3" in texts["label-linear"] and "2m-1" in texts["label-softmax"]


def test_bad_input_is_named():
    X, heads = _head_example()
    with pytest.raises(ValueError, match="one sequence of shape"):
        diagrams.plot_head(np.stack([X, X]), heads)
    with pytest.raises(ValueError, match="query must be a token index"):
        diagrams.plot_head(X, heads, query=4)
    with pytest.raises(ValueError, match="n, d <= 6"):
        diagrams.plot_head(np.ones((7, 4)), heads)
    G, heads_g, *_ = _gap_example()
    with pytest.raises(ValueError, match=r"n <= 3 tokens of dimension d <= 3.*received n=4, d=2"):
        diagrams.plot_logit_gap(np.ones((4, 2)), heads_g)
    with pytest.raises(ValueError, match=r"Theta must be an attnlib.Heads or a \(2, 2\) matrix.*shape \(3, 3\)"):
        diagrams.plot_logit_gap(G, np.eye(3))
    with pytest.raises(TypeError, match="Theta must be an array of numbers"):
        diagrams.plot_logit_gap(G, "Theta")
    with pytest.raises(ValueError, match="c must be a token index in 0..2; received 3"):
        diagrams.plot_logit_gap(G, heads_g, 0, 1, 3)
    with pytest.raises(TypeError, match="b must be an integer >= 0; received 1.0"):
        diagrams.plot_logit_gap(G, heads_g, 0, 1.0, 2)
    with pytest.raises(ValueError, match="b and c must be two different tokens; received b = c = 1"):
        diagrams.plot_logit_gap(G, heads_g, 0, 1, 1)
    with pytest.raises(ValueError, match="head must be in 0..0; received 1"):
        diagrams.plot_logit_gap(G, heads_g, head=1)
    with pytest.raises(ValueError, match="one sequence of shape"):
        diagrams.plot_logit_gap(G[None], heads_g)
    with pytest.raises(ValueError, match="must be positive to take their logarithms"):
        diagrams.plot_logit_gap(G, np.diag([500.0, 500.0]), 0, 2, 1)
    with pytest.raises(ValueError, match="d = 2 or d = 3"):
        diagrams.plot_cubic_lift(4)
    with pytest.raises(TypeError, match="dfa must be a DFA"):
        diagrams.plot_dfa_lookup([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="at most 8 table tokens"):
        diagrams.plot_dfa_lookup(random_dfa(3, 3, rng=0))
    with pytest.raises(ValueError, match=r"\(state, symbol\) must be in"):
        diagrams.plot_dfa_lookup(DFA([[0, 1], [1, 0]]), 2, 0)
    with pytest.raises(TypeError, match="body must be a Body"):
        diagrams.plot_halfspaces("body", Heads(np.eye(2), np.eye(2)))
    with pytest.raises(ValueError, match="heads must be a non-empty list of positive integers"):
        diagrams.plot_two_roads(heads=())
