"""Diagrams of chapters 8 and 9: the phases of Part III, and the face phase 4 searches."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Polygon

from ..._arguments import arguments, instance
from ...heads import Heads
from ...sculpt import Body, Span
from ...sculpt.geometry import FaceGeometry, face_geometry
from .._style import COLORS, GREYS, styled
from ._canvas import SMALL, WIDTH, canvas, draw_arrow, draw_box, edge_on, side_of

#: where a Span comes from
SPANS = "face_span, spectral_span, random_span or find_span"

# --------------------------------------------------------------------------- chapter 9: the phases

#: the five phases of the book's reconstruction: name, what it does, its calls, what it hands on, chapter
PHASES = (
    ("phase 1", "estimate $W_1+\\dots+W_m$ from the labels: crude, from\n"
     "constant sequences, or by trimmed atom regression",
     "estimate_sum_W", "$S\\approx W_1+\\dots+W_m$", "ch. 8"),
    ("phase 2", "certify rows whose label is an atom $x_b^\\top S$;\nintersect the halfspaces they give",
     "sculpt_body, prune", "a body $K$ around the $\\Theta_i$", "ch. 8"),
    ("phase 3", "the min-norm point of $K$; regress on the slices\nwhere it is confident (2 and 3 repeat)",
     "min_norm_proxy, refine_sum_W", "a proxy $P$ and a refined $S$", "ch. 8"),
    ("phase 4", "the face of $K$ nearest the origin: the span\nof the heads",
     "face_span", "the span of the $\\Theta_i$", "ch. 9"),
    ("phase 5", "candidates in the span; least squares for the $W_i$;\na zero residual certifies a candidate",
     "face_candidates, fit_W, best_scale", "heads $(\\Theta_i,W_i)_{i=1}^m$", "ch. 9"),
    ("polish", "the book's addition: Levenberg-Marquardt with\nrestarts, one of them from the sculpted candidate",
     "polish", "certified heads, or an error naming the phase", "ch. 9"),
)


@styled
def plot_phase_flow():
    """The five phases of Part III as a flow: what each does, its library calls, and what it hands on.

    Returns
    -------
    matplotlib.figure.Figure
        One box per phase, top to bottom, with the ``attnlib.sculpt`` functions that carry it out
        and the chapter; right of each box, what the phase hands to the next. The examples
        ``(X, Y)`` feed every phase. The last box, dashed, is the local polish the book adds:
        Levenberg-Marquardt with restarts, one of whose starts is the sculpted candidate (the
        others are the second candidate and perturbations of the first; chapter 9).

    Notes
    -----
    The phases are the book's reconstruction of the idea of Chen and Li (STOC 2025), not the
    paper's algorithm; the figure says so in its heading.

    Examples
    --------
    >>> len(plot_phase_flow().axes)
    1
    """
    # one box per phase, full width; what a phase hands on labels the arrow to the next box
    boxh, step = 0.9, 1.3
    count = len(PHASES)
    top = 0.12 + count * step
    fig, ax = canvas(WIDTH, top + 0.95)
    ax.text(WIDTH / 2, top + 0.92,
            "Part III: the book's reconstruction of the idea of Chen and Li,\nnot the paper's algorithm",
            ha="center", va="top", fontsize=SMALL, style="italic", linespacing=1.3)
    ax.text(0.05, top + 0.08, "examples $(X,Y)$", ha="left", va="bottom", fontsize=SMALL)
    bus = 0.3
    ax.plot([bus, bus], [top + 0.05, top - count * step + boxh / 2 + (step - boxh)], color="0.35", lw=1.5)
    bx, bw = 0.62, WIDTH - 0.7
    ax.text(bx + bw, top + 0.08, "learn(X, Y, m) runs them all", ha="right", va="bottom", fontsize=SMALL,
            family="monospace")
    boxes = []
    for k, (name, what, calls, hands, chapter) in enumerate(PHASES):
        y = top - (k + 1) * step + (step - boxh)
        last = k == count - 1
        b = draw_box(ax, bx, y, bw, boxh, "", color=2 if last else k % 2, ls="--" if last else "-")
        ax.text(bx + 0.1, y + boxh - 0.07, f"{name} ({chapter})", ha="left", va="top", fontsize=SMALL,
                weight="bold")
        ax.text(bx + bw - 0.1, y + boxh - 0.07, calls, ha="right", va="top", fontsize=SMALL, family="monospace",
                color="0.15")
        ax.text(bx + 0.1, y + 0.07, what, ha="left", va="bottom", fontsize=SMALL, linespacing=1.25)
        draw_arrow(ax, (bus, y + boxh / 2), side_of(b, "left"), lw=1.0, color="0.35")
        end = (b[0] + 0.5, y - (step - boxh) + 0.04) if last else None
        x_out = bx + 0.5
        if boxes:
            draw_arrow(ax, (x_out, boxes[-1][1]), (x_out, y + boxh))
        if last:
            draw_arrow(ax, (x_out, y), end)
        ax.text(x_out + 0.12, y - (step - boxh) / 2 + (0.02 if last else 0), f"hands on: {hands}", ha="left",
                va="center", fontsize=SMALL)
        boxes.append(b)
    return fig


# --------------------------------------------------------------------------- chapter 9: the face


def _face_panel(ax, geo: FaceGeometry):
    """One panel of :func:`plot_face`: the slice, the strip phase 4 searches, and the face or the tip, named.

    Few marks, each named on the panel rather than in a legend: the body, the heads and their line,
    ``Theta_star``, ``P``, the origin, the hatched strip with its far edge, the extreme points, and
    the face (idealised body) or the tip (a body from data). The labels of the face, the tip and the
    extreme points sit in the empty corners left of the body, off every line.
    """
    s_lo, s_hi, t_lo, t_hi = geo.view
    poly, cap, pts, star, p = geo.slice, geo.cap, geo.heads, geo.star, geo.proxy
    width, height = s_hi - s_lo, t_hi - t_lo
    if len(poly):
        ax.fill(poly[:, 0], poly[:, 1], color=COLORS[0], alpha=0.2, lw=0, gid="slice")
        # named just left of the heads' segment, which lies in both bodies
        low = pts[np.argmin(pts[:, 1])]
        ax.text(0.5 * (star[0] + low[0]) - 0.04 * width, 0.5 * (star[1] + low[1]), "body $K$", ha="right",
                va="center", fontsize=SMALL, color=GREYS["dark"], gid="body-label")
    u, v, c = geo.slab
    if len(cap):  # the strip phase 4 searches: the body inside the slab <P, Theta> <= (1 + eps) ||P||^2
        ax.add_patch(Polygon(cap, closed=True, facecolor="none", edgecolor=COLORS[2], hatch="////", lw=0,
                             gid="cap"))
        edge = edge_on(cap, u, v, c)  # the slab's far edge, only where it crosses the body
        if len(edge):  # a wide slab (large eps) holds all of the body in view: no edge to draw
            ax.plot(edge[:, 0], edge[:, 1], color=COLORS[2], ls="--", lw=1.2, gid="slab")
    # the affine line of the two heads, with Theta_star on it, nearest the origin
    direction = (pts[1] - pts[0]) / np.linalg.norm(pts[1] - pts[0])
    line = np.array([star - 4 * t_hi * direction, star + 4 * t_hi * direction])
    ax.plot(line[:, 0], line[:, 1], color=GREYS["dark"], ls=":", lw=1.3, gid="affine")
    face = geo.face
    if face is not None:
        ax.plot(face[:, 0], face[:, 1], color=COLORS[1], lw=3.2, solid_capstyle="butt", gid="face")
    q = geo.points
    ax.plot(q[:, 0], q[:, 1], "o", color="black", ms=2.2, ls="none", gid="points")
    ax.plot(pts[:, 0], pts[:, 1], "o", color=COLORS[1], mec="black", ms=7, ls="none", gid="heads")
    for i, h in enumerate(pts, start=1):
        up = h[1] > 0
        ax.annotate(f"$\\Theta_{i}$", h, xytext=(-6, 6 if up else -7), textcoords="offset points",
                    ha="right", va="bottom" if up else "top", fontsize=SMALL)
    ax.plot([star[0]], [star[1]], "D", color="white", mec="black", ms=5, gid="star")
    ax.annotate(r"$\Theta^\star$", star, xytext=(7, 3), textcoords="offset points", ha="left", va="bottom",
                fontsize=SMALL)
    ax.plot([p[0]], [p[1]], "*", color=COLORS[3], mec="black", ms=11, gid="proxy")
    ax.annotate("$P$", p, xytext=(-7, -3), textcoords="offset points", ha="right", va="top", fontsize=SMALL)
    ax.plot([0], [0], "+", color="black", ms=8, gid="origin")
    ax.annotate("0", (0, 0), xytext=(-3, -4), textcoords="offset points", ha="right", va="top", fontsize=SMALL)
    upper, lower = (s_lo + 0.2 * width, t_hi - 0.17 * height), (s_lo + 0.2 * width, t_lo + 0.17 * height)
    if len(q):  # lower left: a leader to the lowest extreme point
        ax.annotate("LP extreme\npoints", q[np.argmin(q[:, 1])], xytext=lower, ha="center", va="center",
                    fontsize=SMALL, linespacing=1.1, arrowprops=dict(arrowstyle="-", color="black", lw=0.8),
                    gid="points-label")
    named = dict(ha="center", va="center", fontsize=SMALL, color=COLORS[1], weight="bold",
                 arrowprops=dict(arrowstyle="-", color=COLORS[1], lw=1.0))
    if face is not None:  # upper left: a leader to the face's upper end
        ax.annotate("face", face[np.argmax(face[:, 1])], xytext=upper, gid="face-label", **named)
    elif len(poly):
        tip = poly[np.argmin(poly @ np.array([u, v]))]  # the slice's vertex nearest the slab's edge
        ax.annotate("tip", tip, xytext=upper, gid="tip", **named)
    ax.set_xlim(s_lo, s_hi)
    ax.set_ylim(t_lo, t_hi)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(True)
        spine.set_color(GREYS["light"])
    ax.set_xlabel(r"along $\Theta^\star$", fontsize=SMALL, labelpad=2)


@arguments(heads="heads", ideal=instance(Body, where="sculpt_body"), ideal_span=instance(Span, where=SPANS),
           real=instance(Body, where="sculpt_body"), real_span=instance(Span, where=SPANS), kappa="tol",
           ideal_proxy="optarray", real_proxy="optarray", eps="tol")
@styled
def plot_face(heads: Heads, ideal: Body, ideal_span: Span, real: Body, real_span: Span, *, kappa: float,
              ideal_proxy=None, real_proxy=None, eps: float = 0.2):
    """What phase 4 searches: the idealised body has a face along the heads, a body from data a tip.

    Both panels are the plane of ``Theta_1`` and ``Theta_2`` (``Theta_star`` along the horizontal
    axis, the origin at the left), computed by :func:`face_geometry`. Every mark is named on the
    panel (no legend); each title states the panel's point.

    Parameters
    ----------
    heads : Heads
        The planted layer (m >= 2).
    ideal : Body
        A body close to the idealised one of the two heads (e.g. from many Gaussian features on
        which both heads have large gaps); ``ideal_span`` is its ``face_span``.
    real : Body
        A body sculpted from data for the same heads; ``real_span`` its ``face_span``.
    kappa : float
        ``gamma / gamma'`` of the idealised body: the left panel draws ``kappa (conv + cone)``.
    ideal_proxy, real_proxy : array_like of shape (d, d), optional
        The bodies' min-norm points (default: computed).
    eps : float, default 0.2
        The slab of ``face_span``.

    Returns
    -------
    matplotlib.figure.Figure
        Left, titled "idealised: a face along Theta_1 - Theta_2": the idealised body
        ``kappa (conv + cone)`` (shaded, "body K") and its face ``kappa [Theta_1, Theta_2]``
        (thick, labelled "face"), parallel to the heads' affine line (dotted) on which
        ``Theta_star`` is the point nearest 0; the min-norm point ``P`` of ``ideal`` (star), the
        part of the body inside the slab ``<P, Theta> <= (1 + eps) ||P||^2`` (hatched, its far edge
        dashed) and the extreme points of ``ideal_span`` projected on the plane (dots, labelled
        "LP extreme points"): they spread along the face. Right, titled "from data: only a tip":
        the same for the slice of ``real``, whose vertex nearest the slab's edge is labelled "tip";
        the extreme points bunch near it. The second line of each title gives the span's mean
        alignment with the offsets ``Theta_i - Theta_star``.

    Raises
    ------
    TypeError, ValueError
        As :func:`face_geometry`: a body or span of the wrong type, fewer than two heads, a
        dimension that does not match, a proxy of the wrong shape, a non-positive ``eps`` or
        ``kappa``.

    Examples
    --------
    >>> from attnlib.sculpt import Body, face_span, min_norm_proxy, planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> Z = np.random.default_rng(1).normal(size=(20000, 4, 4))
    >>> keep = np.einsum("kpq,ipq->ki", Z, heads.Theta).min(axis=1) >= 2.0
    >>> ideal = Body(Z[keep], gamma=1.0, bound=None, certified=int(keep.sum()))
    >>> X = boolean_inputs(2000, 3, 4, rng=2)
    >>> real = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    >>> spans = [face_span(b, min_norm_proxy(b), 2, rng=3) for b in (ideal, real)]
    >>> len(plot_face(heads, ideal, spans[0], real, spans[1], kappa=0.5).axes)
    2
    """
    for name, proxy in (("ideal_proxy", ideal_proxy), ("real_proxy", real_proxy)):
        if proxy is not None and proxy.shape != (heads.d, heads.d):
            raise ValueError(f"{name} must be a ({heads.d}, {heads.d}) matrix, the heads' d; "
                             f"received shape {proxy.shape}")
    left = face_geometry(heads, ideal, ideal_span, proxy=ideal_proxy, eps=eps, kappa=kappa)
    right = face_geometry(heads, real, real_span, proxy=real_proxy, eps=eps)
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.7))
    fig.subplots_adjust(left=0.01, right=0.99, top=0.86, bottom=0.08, wspace=0.05)
    _face_panel(axes[0], left)
    _face_panel(axes[1], right)
    axes[0].set_title(f"idealised: a face along $\\Theta_1-\\Theta_2$\noffsets captured: {left.offsets:.2f}",
                      fontsize=SMALL)
    axes[1].set_title(f"from data: only a tip\noffsets captured: {right.offsets:.2f}", fontsize=SMALL)
    return fig
