"""Diagrams of chapters 7 and 8: the logit gap is linear in Theta; halfspaces of a sculpted body."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Polygon, Rectangle

from ..._arguments import arguments, instance, structure
from ..._validation import as_float_array
from ...attention import attention_weights
from ...heads import Heads, as_heads
from ...sculpt import Body, body_slice, gap_feature, min_norm_proxy
from ...sculpt.geometry import clip_edges, head_plane, plane_coordinates
from .._style import COLORS, GREYS, styled
from ._canvas import SMALL, WIDTH, canvas, draw_arrow, draw_box, draw_matrix, edge_on, short_number, side_of

# --------------------------------------------------------------------------- chapter 7: logit gaps


def _digits(M) -> int:
    """Decimals a matrix's cells need: none when every entry is an integer, else two."""
    return 0 if np.allclose(M, np.round(M), rtol=0, atol=1e-12) else 2


def _weight(w: float) -> str:
    """A softmax weight to what it resolves: two decimals, or two significant digits below 0.01."""
    if w >= 0.01:
        return f"{w:.2f}"
    return f"{w:.2g}" if w >= 1e-4 else f"{w:.1e}"


def _factor(value: float, digits: int) -> str:
    """One factor of a product in mathtext: a negative number in parentheses."""
    text = short_number(value, digits)
    return f"({text})" if text.startswith("-") else text


def _width(fig, text: str, size: float = SMALL) -> float:
    """The width in inches of ``text`` drawn at ``size`` points on ``fig``."""
    probe = fig.text(0, 0, text, fontsize=size)
    width = probe.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
    probe.remove()
    return width


@arguments(X="array", Theta=structure("an attnlib.Heads or a (d, d) matrix"), a="index", b="index", c="index",
           head="index")
@styled
def plot_logit_gap(X, Theta, a: int = 0, b: int = 1, c: int = 2, *, head: int = 0):
    """The weights of a row are nonlinear in ``Theta``; the log-ratio of two is linear in it.

    Parameters
    ----------
    X : array_like of shape (n, d)
        One sequence, tokens as rows (n <= 3, d <= 3, so that every number fits).
    Theta : Heads or array_like of shape (d, d)
        The head: an ``attnlib.Heads`` (head ``head`` is drawn; its ``W`` plays no part) or its
        attention matrix.
    a, b, c : int, default 0, 1, 2
        The query token, the token whose weight is the numerator and the competing token
        (0-based, as in code; ``b != c``, and ``a`` may be either). The figure names them
        ``x_a``, ``x_b``, ``x_c``, and a token with no role ``x_k`` by its 1-based index.
    head : int, default 0
        Which head of a ``Heads`` (0-based).

    Returns
    -------
    matplotlib.figure.Figure
        Top, left to right: the tokens ``X``, the head ``Theta`` and, after the softmax of row
        ``a``, the weights ``A[a, k]`` as bars with their values (``attnlib.attention_weights``),
        the two of the ratio in colour: nonlinear in ``Theta``. Bottom left: the gap feature
        ``Z = x_a (x_b - x_c)^T`` (``attnlib.sculpt.gap_feature``), built from the tokens.
        Bottom right, fed by the bars and by ``Z``: the equation
        ``log A[a,b] - log A[a,c] = <Theta, Z>_F`` and the number of each side, the left one from
        the two weights, the right one as the sum of the products ``Theta_pq Z_pq`` (written out
        when they fit): the same number, linear in ``Theta``.

    Raises
    ------
    TypeError
        ``Theta`` neither a ``Heads`` nor an array of numbers, or an index not an integer.
    ValueError
        ``X`` not one sequence with n <= 3 and d <= 3, ``Theta`` of the wrong shape, an index out
        of range, ``b == c``, or a weight ``A[a, b]`` or ``A[a, c]`` that underflows to 0.

    Examples
    --------
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])
    >>> fig = plot_logit_gap(X, np.diag([2.0, 1.0]), 0, 1, 2)
    >>> len(fig.axes)
    1
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() in ("lhs", "rhs")]
    ['left side: $\\\\log 0.12-\\\\log 0.0022=4.00$', 'right side: $2\\\\cdot2+0\\\\cdot2=4.00$']
    """
    if X.ndim != 2 or 0 in X.shape:
        raise ValueError(f"X must be one sequence of shape (n, d), as plot_logit_gap draws; received shape {X.shape}")
    n, d = X.shape
    if n > 3 or d > 3:
        raise ValueError(f"plot_logit_gap draws n <= 3 tokens of dimension d <= 3 so that every number fits; "
                         f"received n={n}, d={d}")
    if isinstance(Theta, Heads):
        heads = as_heads(Theta, d=d, name="Theta")
        if head >= heads.m:
            raise ValueError(f"head must be in 0..{heads.m - 1}; received {head}")
        Theta = heads.Theta[head]
    else:
        Theta = as_float_array("Theta", Theta)
        if Theta.shape != (d, d):
            raise ValueError(f"Theta must be an attnlib.Heads or a ({d}, {d}) matrix for tokens of dimension "
                             f"d = {d}; received shape {Theta.shape}")
    for name, value in (("a", a), ("b", b), ("c", c)):
        if value >= n:
            raise ValueError(f"{name} must be a token index in 0..{n - 1}; received {value}")
    if b == c:
        raise ValueError(f"b and c must be two different tokens; received b = c = {b}")
    row = attention_weights(X, Heads(Theta, np.eye(d)))[0][a]      # (n,) the weights of row a
    if row[b] <= 0 or row[c] <= 0:
        raise ValueError(f"the weights A[a,b] = {row[b]:.1e} and A[a,c] = {row[c]:.1e} must be positive to take "
                         "their logarithms; received a head so sharp that one underflows")
    Z = gap_feature(X[a], X[b], X[c])                               # (d, d) x_a (x_b - x_c)^T
    lhs = float(np.log(row[b]) - np.log(row[c]))                    # from the weights
    rhs = float(np.sum(Theta * Z))                                  # <Theta, Z>_F, entry by entry

    def label(k: int) -> str:
        roles = [r for r, i in (("a", a), ("b", b), ("c", c)) if i == k]
        return "$" + "{=}".join(f"x_{r}" for r in roles) + "$" if roles else f"$x_{k + 1}$"

    # top: tokens, Theta, and the bars of row a; bottom: Z, and the equation both of them feed
    cx, ct, cz = (0.4 if _digits(M) == 0 else 0.5 for M in (X, Theta, Z))
    bar_h, pitch, bar_w = 1.15, 0.68, 0.4
    eq_h = 1.2
    top_h = max(n * cx, d * ct, 0.3 + bar_h + 0.3)                # the bars, their labels and values
    bottom_h = max(d * cz, eq_h)
    y_bot = 0.1
    y_top = y_bot + bottom_h + 0.95                                 # room for the headings between the rows
    fig, ax = canvas(WIDTH, y_top + top_h + 0.72)
    head_kw = dict(ha="center", va="bottom", fontsize=SMALL, linespacing=1.25)
    left = 0.12 + max(_width(fig, label(k)) for k in range(n))      # room for the token labels

    bx = draw_matrix(ax, left, y_top + top_h - n * cx, X, cell=cx, digits=_digits(X))
    for k in range(n):
        ax.text(left - 0.07, bx[1] + (n - 1 - k) * cx + cx / 2, label(k), ha="right", va="center", fontsize=SMALL)
    ax.text(bx[0] + bx[2] / 2, y_top + top_h + 0.08, "tokens", **head_kw)
    bt = draw_matrix(ax, bx[0] + bx[2] + 0.3, y_top + top_h - d * ct, Theta, cell=ct, digits=_digits(Theta))
    ax.text(bt[0] + bt[2] / 2, y_top + top_h + 0.08, "head $\\Theta$", **head_kw)

    # the bars of row a, flush right: the two of the ratio in colour, any other grey
    values = [_weight(w) for w in row]
    half = max(bar_w, *(_width(fig, v) for v in values)) / 2       # a value is centred on its bar
    centres = [WIDTH - 0.05 - half - (n - 1 - k) * pitch for k in range(n)]
    base = y_top + 0.3
    for k, x in enumerate(centres):
        ax.add_patch(Rectangle((x - bar_w / 2, base), bar_w, bar_h * float(row[k]), edgecolor="black", lw=0.8,
                               facecolor=COLORS[0] if k in (b, c) else GREYS["light"], gid=f"bar-{k}"))
        ax.text(x, base + bar_h * float(row[k]) + 0.04, values[k], ha="center", va="bottom", fontsize=SMALL,
                gid=f"weight-{k}")
        ax.text(x, base - 0.05, label(k), ha="center", va="top", fontsize=SMALL)
    ax.plot([centres[0] - half, centres[-1] + half], [base, base], color="black", lw=0.8)
    bars_mid = (centres[0] + centres[-1]) / 2
    title = "softmax of row $a$ of $A$:\nnonlinear in $\\Theta$"
    ax.text(min(bars_mid, WIDTH - 0.05 - _width(fig, title) / 2), y_top + top_h + 0.08, title, **head_kw)
    mid = bt[1] + bt[3] / 2
    draw_arrow(ax, (bt[0] + bt[2] + 0.08, mid), (centres[0] - half - 0.08, mid))

    # bottom left: the gap feature, from the tokens
    bz = draw_matrix(ax, left, y_bot + bottom_h - d * cz, Z, cell=cz, digits=_digits(Z))
    ax.text(bz[0] - 0.05, y_bot + bottom_h + 0.08, "gap feature\n$Z=x_a(x_b-x_c)^\\top$", **{**head_kw, "ha": "left"})
    draw_arrow(ax, (bx[0] + bx[2] / 2, bx[1] - 0.08), (bz[0] + bz[2] / 2, y_bot + bottom_h + 0.62))

    # bottom right: the equation; its left side from the bars, its right side from Z
    ex = bz[0] + bz[2] + 0.4
    inner = WIDTH - 0.05 - ex - 0.24                                # the box's width for text
    products = [(Theta[p, q], Z[p, q]) for p in range(d) for q in range(d) if short_number(Z[p, q], _digits(Z)) != "0"]
    terms = "+".join(f"{_factor(t, _digits(Theta))}\\cdot{_factor(z, _digits(Z))}" for t, z in products) or "0"
    for prefix in ("left side", "left"):
        lhs_text = f"{prefix}: $\\log {values[b]}-\\log {values[c]}={lhs:.2f}$"
        if _width(fig, lhs_text) <= inner:
            break
    for body in (terms, "\\Sigma_{pq}\\Theta_{pq}Z_{pq}"):
        rhs_text = f"right side: ${body}={rhs:.2f}$"
        if _width(fig, rhs_text) <= inner:
            break
    eb = draw_box(ax, ex, y_bot + bottom_h - eq_h, WIDTH - 0.05 - ex, eq_h, color=2)
    lines = [("claim", "$\\log A[a,b]-\\log A[a,c]=\\langle\\Theta,Z\\rangle_F$"), ("lhs", lhs_text), ("rhs", rhs_text)]
    for k, (gid, text) in enumerate(lines):
        ax.text(ex + 0.12, eb[1] + eq_h - 0.2 - k * 0.38, text, ha="left", va="center", fontsize=SMALL, gid=gid)
    ax.text(ex + eb[2] / 2, eb[1] + eq_h + 0.08, "linear in $\\Theta$: both sides agree", **head_kw)
    draw_arrow(ax, (bars_mid, base - 0.36), (bars_mid, eb[1] + eq_h + 0.4))
    draw_arrow(ax, (bz[0] + bz[2] + 0.08, bz[1] + bz[3] / 2), (ex - 0.04, bz[1] + bz[3] / 2))
    return fig


# --------------------------------------------------------------------------- chapter 8: halfspaces


def _bounding_lines(body: Body, basis: np.ndarray, poly: np.ndarray, tol: float = 1e-7) -> list[tuple]:
    """The halfspaces whose lines carry an edge of the slice polygon, one per distinct line.

    Returns (k, u, v) with the line ``u s + v t = gamma`` of halfspace k in plane coordinates.
    """
    U = np.einsum("jpq,kpq->kj", basis, body.Z)          # (K, 2): <B1, Z_k>, <B2, Z_k>
    found, seen = [], []
    for p0, p1 in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        for k, (u, v) in enumerate(U):
            norm = np.hypot(u, v)
            if norm < 1e-12:
                continue
            on = abs(u * p0[0] + v * p0[1] - body.gamma) < tol * norm * 10 and \
                abs(u * p1[0] + v * p1[1] - body.gamma) < tol * norm * 10
            if on:
                key = np.array([u, v]) / body.gamma
                if not any(np.allclose(key, s, atol=1e-9) for s in seen):
                    seen.append(key)
                    found.append((k, u, v))
                break
    return found


@arguments(body=instance(Body, where="sculpt_body"), heads="heads", box="opttol")
@styled
def plot_halfspaces(body: Body, heads: Heads, *, box: float | None = None):
    """How certified rows become halfspaces, and the halfspaces that bound a real slice of the body.

    Parameters
    ----------
    body : Body
        A sculpted body (``attnlib.sculpt.sculpt_body``).
    heads : Heads
        The planted layer (m >= 2); the slice is the plane through the origin spanned by
        ``Theta_1`` and ``Theta_2``, with ``Theta_star`` (their min-norm point) along the horizontal axis.
    box : float, optional
        Half-width of the square drawn; default 1.5 times the largest head coordinate.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the rule, from a certified row to a halfspace ``<Theta, Z>_F >= gamma``. Right:
        the slice (shaded), the line ``<Theta, Z_k>_F = gamma`` of every halfspace that carries
        one of its edges, hatched on the side the halfspace cuts away and numbered, the heads
        and the body's min-norm point (projected onto the plane).

    Examples
    --------
    >>> from attnlib import attention, boolean_inputs
    >>> from attnlib.sculpt import planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(2000, 3, 4, rng=1)
    >>> len(plot_halfspaces(sculpt_body(X, attention(X, heads), heads.W.sum(0)), heads).axes)
    2
    """
    if heads.m < 2 or heads.d != body.d:
        raise ValueError(f"plot_halfspaces needs a layer with m >= 2 heads of dimension d = {body.d}; "
                         f"received m = {heads.m}, d = {heads.d}")
    basis = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], basis)          # (2, 2): heads in the plane
    half = box if box is not None else 1.5 * float(np.abs(pts).max())
    poly = body_slice(body, np.zeros((body.d, body.d)), basis, box=half)
    lines = _bounding_lines(body, basis, poly) if len(poly) else []
    proxy, off = plane_coordinates(min_norm_proxy(body), basis)
    # the view: the slice's tip and the heads; the origin lies to the left, marked by an arrow
    tip = float(poly[:, 0].min()) if len(poly) else 0.0
    s_lo, s_hi = min(0.55 * tip, tip - 0.35), float(pts[:, 0].max()) + 0.55
    t_hi = 0.62 * (s_hi - s_lo)
    t_lo = -t_hi

    # left the rule, three steps one under the other; right the slice, in its own axes
    bw, boxh, gap = 2.6, 1.18, 0.34
    height = 3 * boxh + 2 * gap + 0.2
    steps = [
        ("certified row $a$ of an\nexample $X$: its label\n$F(X)_a$ is close to the atom\n"
         "$x_b^\\top(W_1+\\dots+W_m)$, so\nevery head attends to $x_b$", 0),
        ("each competitor token $c$\nwith $x_c\\neq x_b$ gives a\ngap feature $Z=x_a(x_b-x_c)^\\top$", 1),
        ("halfspace $H=\\{\\Theta:$\n$\\langle\\Theta,Z\\rangle_F\\geq\\gamma\\}$; every\nhead lies in it; the body\n"
         "$K$ is the intersection", 3),
    ]
    fig, ax = canvas(WIDTH, height)
    boxes = [draw_box(ax, 0.05, height - 0.1 - (k + 1) * boxh - k * gap, bw, boxh, text, color=color, size=SMALL)
             for k, (text, color) in enumerate(steps)]
    for b0, b1 in zip(boxes, boxes[1:], strict=False):
        draw_arrow(ax, side_of(b0, "bottom"), side_of(b1, "top"))
    left, below = bw + 0.45, 0.4                                    # room for the axis labels
    side = min(WIDTH - left - 0.05, (height - below - 0.6) * (s_hi - s_lo) / (t_hi - t_lo))
    high = side * (t_hi - t_lo) / (s_hi - s_lo)                     # equal aspect
    sub = fig.add_axes((left / WIDTH, below / height, side / WIDTH, high / height))
    if len(poly):
        sub.fill(poly[:, 0], poly[:, 1], color=COLORS[0], alpha=0.22, lw=0, label="slice of $K$")
        closed = np.vstack([poly, poly[:1]])
        for k, clipped in enumerate(clip_edges(poly, half)):
            if not clipped:   # a face of the body; the square's edge is where the drawing stops
                sub.plot(closed[k:k + 2, 0], closed[k:k + 2, 1], color=COLORS[0], lw=2.2, zorder=3,
                         solid_capstyle="round")
    width, span = 0.022 * (s_hi - s_lo), s_hi - s_lo
    view = (s_lo, s_hi, t_lo, t_hi)
    placed, number = [p for p in pts] + [proxy], 0
    for k, u, v in lines:
        normal = np.array([u, v]) / np.hypot(u, v)                  # points into H
        along = np.array([-normal[1], normal[0]])
        edge = edge_on(poly, u, v, body.gamma)                     # the face this halfspace carries
        reach = max(0.45 * np.linalg.norm(edge[1] - edge[0]), 0.12 * span)
        a0, a1 = sorted((e - edge[0]) @ along for e in edge)
        ends = _clip_segment(edge[0] + (a0 - reach) * along, edge[0] + (a1 + reach) * along, view)
        if ends is None:
            continue
        number += 1
        sub.plot(ends[:, 0], ends[:, 1], color=COLORS[1], lw=1.2, gid=f"halfspace-{k}")
        strip = np.array([ends[0], ends[1], ends[1] - width * normal, ends[0] - width * normal])
        sub.add_patch(Polygon(strip, closed=True, facecolor="none", edgecolor=COLORS[1], hatch="////", lw=0))
        # the label: outside the body, by one end of the drawn line, away from what is placed already
        margin = 0.06 * span
        candidates = [np.clip(e + 0.15 * (ends[1 - i] - e) - 0.07 * span * normal, [s_lo + margin, t_lo + margin],
                              [s_hi - margin, t_hi - margin]) for i, e in enumerate(ends)]
        best = max(candidates, key=lambda q: min(np.linalg.norm(q - p) for p in placed))
        placed.append(best)
        sub.text(best[0], best[1], f"$H_{{{number}}}$", ha="center", va="center", fontsize=SMALL,
                 bbox=dict(facecolor="white", edgecolor="none", pad=0.3), zorder=4)
    sub.plot(pts[:, 0], pts[:, 1], "o", color="black", ms=7, label=r"heads $\Theta_1,\Theta_2$")
    for i, p in enumerate(pts, start=1):
        sub.annotate(f"$\\Theta_{i}$", p, xytext=(0, 7 if p[1] > 0 else -8), textcoords="offset points",
                     ha="center", va="bottom" if p[1] > 0 else "top", fontsize=SMALL)
    sub.plot([proxy[0]], [proxy[1]], "*", color=COLORS[2], mfc="white", mew=1.5, ms=13, zorder=5)
    sub.annotate(f"min-norm point\nof $K$, projected\n({off:.2f} off the plane)", proxy,
                 xytext=(proxy[0] + 0.25 * span, 0.0), ha="left", va="center",
                 fontsize=SMALL, arrowprops=dict(arrowstyle="-", color="0.3", lw=0.8),
                 bbox=dict(facecolor="white", edgecolor="none", pad=0.4), zorder=4)
    sub.annotate("to 0", (s_lo, t_hi - 0.12 * (t_hi - t_lo)), xytext=(s_lo + 0.2 * (s_hi - s_lo),
                 t_hi - 0.12 * (t_hi - t_lo)), ha="left", va="center", fontsize=SMALL,
                 arrowprops=dict(arrowstyle="->", color="0.3", lw=1))
    sub.set_xlim(s_lo, s_hi)
    sub.set_ylim(t_lo, t_hi)
    sub.set_aspect("equal")
    sub.set_xticks([])
    sub.set_yticks([])
    sub.set_xlabel(r"along $\Theta^\star$", fontsize=SMALL, labelpad=2)
    sub.set_ylabel(r"along $\Theta_1-\Theta^\star$", fontsize=SMALL, labelpad=2)
    sub.set_title(f"a slice: {len(lines)} of the {body.n_constraints} halfspaces\nbound it, {number} in this view",
                  fontsize=SMALL)
    return fig


def _clip_segment(p0: np.ndarray, p1: np.ndarray, view: tuple) -> np.ndarray | None:
    """The part of the segment p0 -> p1 inside the rectangle ``view = (s_lo, s_hi, t_lo, t_hi)`` (Liang-Barsky)."""
    lo, hi, d = 0.0, 1.0, p1 - p0
    for p, q in ((-d[0], p0[0] - view[0]), (d[0], view[1] - p0[0]), (-d[1], p0[1] - view[2]), (d[1], view[3] - p0[1])):
        if abs(p) < 1e-15:
            if q < 0:
                return None
            continue
        r = q / p
        lo, hi = (max(lo, r), hi) if p < 0 else (lo, min(hi, r))
    return None if lo >= hi else np.array([p0 + lo * d, p0 + hi * d])
