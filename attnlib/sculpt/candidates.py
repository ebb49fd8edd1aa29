"""Phase 5 of the book's reconstruction: candidate heads in the span, certified by least squares.

Given attention matrices, the layer is *linear* in the projections, so
:func:`fit_W` solves for all W_i at once and its residual certifies (or
rejects) a candidate tuple. Candidates come from the vertices of the body's face
(:func:`face_candidates`) and from a net over the span (:func:`net_candidates`),
each tried at several overall scales, because the body only knows the heads up
to a positive factor.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance
from .._linalg import lstsq
from .._validation import sequences_shape
from ..attention import forward
from ..heads import Heads
from ._common import check_data, check_m, check_nonzero_labels
from .body import Body, support
from .proxy import min_norm_proxy
from .span import Span

_SPAN = instance(Span, where="face_span, spectral_span, random_span or find_span")


def _thetas(Theta: np.ndarray, d: int) -> np.ndarray:
    """Theta (checked finite) as a stack (m, d, d) of at least one head."""
    if Theta.ndim == 2:
        Theta = Theta[None]
    if Theta.ndim != 3 or Theta.shape[1:] != (d, d) or Theta.shape[0] == 0:
        raise ValueError(f"Theta must have shape (m, {d}, {d}) with m >= 1 heads; received shape {Theta.shape}")
    return Theta


def _check_span_holds(span: Span, m: int) -> None:
    if m > span.dim:
        raise ValueError(f"m must be at most the span's dimension {span.dim} (one direction per head); received m={m}")


@dataclass(frozen=True, eq=False)
class Candidates:
    """Phase 5 (:func:`span_candidates`): the best candidate layer of each source, W fit by least squares.

    Attributes
    ----------
    face : Heads
        The best tuple of vertices of the body's face (:func:`face_candidates`), at its best scale
        (:func:`best_scale`).
    face_residual : float
        Its relative residual ``||F(X) - Y|| / ||Y||`` on all the training data.
    net : Heads
        The best tuple of a net over the span (:func:`net_candidates`, :func:`certify_candidates`).
    net_residual : float
    """

    face: Heads
    face_residual: float
    net: Heads
    net_residual: float

    @property
    def source(self) -> str:
        """``"face"`` or ``"net"``: the source of the better candidate (the face on a tie)."""
        return "face" if self.face_residual <= self.net_residual else "net"

    @property
    def best(self) -> Heads:
        """The better candidate: the answer of phase 5."""
        return self.face if self.source == "face" else self.net

    @property
    def best_residual(self) -> float:
        """The better candidate's relative training residual."""
        return self.face_residual if self.source == "face" else self.net_residual

    @property
    def other(self) -> Heads:
        """The other candidate (the second start of the polish)."""
        return self.net if self.source == "face" else self.face

    def __repr__(self) -> str:
        return (f"Candidates(face_residual={self.face_residual:.2g}, net_residual={self.net_residual:.2g}, "
                f"source={self.source!r})")


@arguments(X="array", Theta="array")
def design_matrix(X, Theta) -> np.ndarray:
    """The design of :func:`fit_W`: ``[A_1(X) X | ... | A_m(X) X]``, one row per token of every example.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Theta : array_like of shape (m, d, d) or (d, d)

    Returns
    -------
    ndarray of shape (N n, m d)
        Row ``(k, a)`` holds the averaged tokens ``(A_i(X_k) X_k)[a]`` of every head side by side,
        so ``attention(X, Heads(Theta, W))`` is this matrix times ``[W_1; ...; W_m]``.

    Notes
    -----
    The design has full column rank unless some combination ``sum_i A_i(X) X v_i``, with vectors
    ``v_i`` not all zero, vanishes on every example (the kernel of the matrix is exactly the set of
    such ``(v_1, ..., v_m)``); two heads that coincide give one, with ``v_2 = -v_1``.

    Examples
    --------
    >>> from attnlib.sculpt import design_matrix
    >>> heads = random_heads(2, 3, scale=3.0, rng=0)
    >>> X = boolean_inputs(50, 4, 3, rng=1)
    >>> D = design_matrix(X, heads.Theta)
    >>> D.shape, bool(np.allclose(D @ heads.W.reshape(6, 3), attention(X, heads).reshape(200, 3)))
    ((200, 6), True)
    >>> int(np.linalg.matrix_rank(design_matrix(X, np.stack([heads.Theta[0]] * 2))))
    3
    """
    X, single = sequences_shape(X)
    if single:
        raise ValueError(f"X must be a batch of shape (N, n, d); received one sequence of shape {X.shape[1:]}")
    N, n, d = X.shape
    Theta = _thetas(Theta, d)
    m = Theta.shape[0]
    _, _, AX = forward(X, Theta, np.zeros((m, d, d)), "softmax", False)  # (N, m, n, d)
    return AX.transpose(0, 2, 1, 3).reshape(N * n, m * d)


@arguments(X="array", Y="array", Theta="array")
def fit_W(X, Y, Theta) -> tuple[np.ndarray, float]:
    """Least squares for the projections given the attention matrices.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Y : array_like of shape (N, n, d)
    Theta : array_like of shape (m, d, d)

    Returns
    -------
    W : ndarray of shape (m, d, d)
    residual : float
        Relative residual ``||F - Y|| / ||Y||`` of the fitted layer.

    Notes
    -----
    ``F(X) = [A_1(X) X | ... | A_m(X) X] [W_1; ...; W_m]`` (:func:`design_matrix`): stack the rows
    of all examples and solve one least-squares problem with m d unknowns per output coordinate.
    The design loses rank exactly when some combination ``sum_i A_i(X) X v_i`` (the ``v_i`` not
    all zero) vanishes on every example, e.g. when two heads coincide; the fitted layer is then
    still a least-squares fit, its W one of many.

    Examples
    --------
    >>> from attnlib.sculpt import fit_W
    >>> heads = random_heads(2, 3, scale=3.0, rng=0)
    >>> X = boolean_inputs(200, 3, 3, rng=1)
    >>> W, res = fit_W(X, attention(X, heads), heads.Theta)
    >>> bool(np.allclose(W, heads.W) and res < 1e-10)
    True
    """
    X, Y = check_data(X, Y)
    check_nonzero_labels("Y", Y)
    N, n, d = X.shape
    Theta = _thetas(Theta, d)
    m = Theta.shape[0]
    design = design_matrix(X, Theta)
    W = lstsq(design, Y.reshape(N * n, d)).x.reshape(m, d, d)
    resid = design @ W.reshape(m * d, d) - Y.reshape(N * n, d)
    return W, float(np.linalg.norm(resid) / np.linalg.norm(Y))


@arguments(X="array", Y="array", Theta="array", scales="optarray", max_examples="size")
def best_scale(X, Y, Theta, *, scales=None, max_examples: int = 400) -> tuple[Heads, float, float]:
    """Try ``c * Theta`` for every c in ``scales``, refine the best c, and fit W each time.

    The search uses the first ``max_examples`` examples; the final W is fit on all.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    Theta : array_like of shape (m, d, d)
        The candidate's attention matrices, known up to an overall positive factor.
    scales : array_like of positive numbers, optional
        The factors tried first (default ``geomspace(0.25, 16, 25)``).
    max_examples : int, default 400

    Returns
    -------
    heads : Heads
    residual : float
        Relative residual on all the data.
    c : float

    Examples
    --------
    >>> from attnlib.sculpt import best_scale
    >>> heads = random_heads(2, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(200, 3, 3, rng=1)
    >>> _, residual, c = best_scale(X, attention(X, heads), heads.Theta / 2)
    >>> round(c, 3), bool(residual < 1e-6)
    (2.0, True)
    """
    X, Y = check_data(X, Y)
    Theta = _thetas(Theta, X.shape[-1])
    scales = np.geomspace(0.25, 16.0, 25) if scales is None else _check_scales(scales)
    X_all, Y_all = X, Y
    X, Y = X[:max_examples], Y[:max_examples]
    residuals = np.array([fit_W(X, Y, c * Theta)[1] for c in scales])
    j = int(np.argmin(residuals))
    lo = np.log(scales[max(j - 1, 0)])
    hi = np.log(scales[min(j + 1, len(scales) - 1)])
    golden = (np.sqrt(5.0) - 1.0) / 2.0
    for _ in range(15):  # golden-section search on log c
        a = hi - golden * (hi - lo)
        b = lo + golden * (hi - lo)
        if fit_W(X, Y, np.exp(a) * Theta)[1] < fit_W(X, Y, np.exp(b) * Theta)[1]:
            hi = b
        else:
            lo = a
    c = float(np.exp(0.5 * (lo + hi)))
    if residuals[j] < fit_W(X, Y, c * Theta)[1]:
        c = float(scales[j])
    W, res = fit_W(X_all, Y_all, c * Theta)
    return Heads(c * Theta, W), res, c


def _check_scales(scales: np.ndarray) -> np.ndarray:
    scales = scales.ravel()
    if scales.size == 0 or (scales <= 0).any():
        raise ValueError(f"scales must be a non-empty list of positive factors; received {scales.tolist()}")
    return scales


@arguments(body=instance(Body, where="sculpt_body"), span=_SPAN, m="size", eps="tol", directions="optsize",
           bound="opttol")
def face_candidates(body: Body, span: Span, m: int, *, eps: float = 0.2, directions: int | None = None,
                    bound: float | None = None) -> np.ndarray:
    """Vertices of the face of the body, found along directions inside the estimated span.

    Parameters
    ----------
    body : Body
    span : Span
        ``span.basis[0]`` is the proxy's direction.
    m : int
    eps, bound
        As in :func:`attnlib.sculpt.face_span`.
    directions : int, optional
        Directions in the span (orthogonal to the proxy) to maximise along;
        default 2 for m = 2 (both ends of the segment), else ``3 m``.

    Returns
    -------
    ndarray of shape (m, d, d)
        m extreme points chosen greedily to be far apart, in the body's units
        (so only up to an overall positive factor).
    """
    if span.basis.shape[1] != body.d:
        raise ValueError(f"span must be of the body's dimension d={body.d}; received a span with "
                         f"d={span.basis.shape[1]}")
    _check_span_holds(span, m)
    basis = span.basis[:m]
    P = basis[0]
    proxy = min_norm_proxy(body, phase="phase 5")
    norm = float(np.linalg.norm(proxy))
    if m == 1:
        return proxy[None]
    box = bound if bound is not None else (body.bound if body.bound is not None else 2.0 * norm)
    boxed = body.with_bound(box)
    cap = (P[None], np.array([(1.0 + eps) * norm]))
    if m == 2:
        dirs = np.array([basis[1], -basis[1]])
    else:
        k = 3 * m if directions is None else directions
        angles = np.random.default_rng(0).standard_normal((k, m - 1))
        dirs = np.einsum("kj,jpq->kpq", angles, basis[1:])
    points = np.array([support(boxed, U, extra=cap, phase="phase 5")[1] for U in dirs])
    # greedy farthest-point choice of m vertices, starting from the point farthest from the proxy
    chosen = [int(np.argmax(np.linalg.norm(points - proxy, axis=(1, 2))))]
    while len(chosen) < m:
        dist = np.min([np.linalg.norm(points - points[i], axis=(1, 2)) for i in chosen], axis=0)
        chosen.append(int(np.argmax(dist)))
    return points[chosen]


@arguments(span=_SPAN, m="size", radius="tol", steps="size", budget="size", rng="rng")
def net_candidates(span: Span, m: int, *, radius: float = 1.5, steps: int = 9, budget: int = 500,
                   rng=None) -> np.ndarray:
    """A net of candidate tuples in the span, in units of the proxy direction.

    Every head is ``basis[0] + sum_j beta_ij basis[j]`` (the min-norm lemma says
    all heads share their component along the proxy); the beta_ij run over a
    grid of ``steps`` values in ``[-radius, radius]``. The net has
    ``steps^(m (m - 1))`` tuples up to order; beyond ``budget`` a random subset is used.

    Returns
    -------
    ndarray of shape (T, m, d, d)

    Examples
    --------
    >>> from attnlib.sculpt import net_candidates, random_span
    >>> net_candidates(random_span(np.eye(3), 2, rng=0), 2, rng=1).shape
    (36, 2, 3, 3)
    """
    _check_span_holds(span, m)
    basis = span.basis[:m]
    grid = np.linspace(-radius, radius, steps)
    if m == 1:
        return basis[:1][None]
    count = len(grid) ** (m * (m - 1))
    if count <= budget:
        betas = np.array(list(itertools.product(grid, repeat=m * (m - 1))))
    else:
        betas = rng.choice(grid, size=(budget, m * (m - 1)))
    betas = betas.reshape(-1, m, m - 1)
    if m == 2:  # heads are unordered: keep beta_1 < beta_2
        betas = betas[betas[:, 0, 0] < betas[:, 1, 0]]
    return basis[0][None, None] + np.einsum("tij,jpq->tipq", betas, basis[1:])


@arguments(X="array", Y="array", candidates="array", scales="optarray", max_examples="size")
def certify_candidates(X, Y, candidates, *, scales=None, max_examples: int = 400) -> tuple[Heads, float, int]:
    """Phase 5: fit W for every candidate tuple at every scale; return the best-certified one.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    candidates : array_like of shape (T, m, d, d)
    scales : array_like, optional
        Overall factors tried on the net (default ``geomspace(0.5, 8, 9)``).
    max_examples : int, default 400
        The net is scored on this many examples; the winner is refit on all.

    Returns
    -------
    heads : Heads
    residual : float
        Relative residual of the winner on all data.
    scored : int
        Number of (candidate, scale) pairs tried.
    """
    X, Y = check_data(X, Y)
    cands = candidates
    d = X.shape[-1]
    if cands.ndim != 4 or cands.shape[-2:] != (d, d) or 0 in cands.shape:
        raise ValueError(f"candidates must have shape (k, m, {d}, {d}): k tuples of m heads' Theta; "
                         f"received shape {cands.shape}")
    scales = np.geomspace(0.5, 8.0, 9) if scales is None else _check_scales(scales)
    Xs, Ys = X[:max_examples], Y[:max_examples]
    best, best_res = None, np.inf
    for T in cands:
        for c in scales:
            res = fit_W(Xs, Ys, c * T)[1]
            if res < best_res:
                best, best_res = c * T, res
    heads, res, _ = best_scale(X, Y, best, scales=np.array([0.8, 0.9, 1.0, 1.1, 1.25]))
    return heads, res, len(cands) * len(scales)


@arguments(X="array", Y="array", heads="heads", span=_SPAN, max_examples="size")
def refine_in_span(X, Y, heads: Heads, span: Span, *, max_examples: int = 400) -> tuple[Heads, float]:
    """Local least squares over the m x m coefficients of the heads in the span (W by least squares inside).

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    heads : Heads
        Start; its Theta_i are projected onto the span.
    span : Span
    max_examples : int, default 400
        The coefficients are fitted on these; W is refit on all data at the end.

    Returns
    -------
    heads : Heads
    residual : float
        Relative residual on all the data.

    Notes
    -----
    Levenberg-Marquardt on the m^2 coefficients ``C`` with ``Theta_i = sum_j C_ij
    basis_j``, each residual evaluated with the best W (variable projection).
    Chapter 9 uses it to test whether a better search *inside* the estimated
    span would bring the candidate closer: it does not, because the span, not
    the search, limits the candidate.
    """
    from scipy.optimize import least_squares

    X, Y = check_data(X, Y)
    if heads.d != X.shape[-1] or span.basis.shape[1] != X.shape[-1]:
        raise ValueError(f"heads and span must be of the data's dimension d={X.shape[-1]}; received {heads!r} "
                         f"and {span!r}")
    B = span.basis.reshape(len(span.basis), -1)  # (k, d^2)
    m, d = heads.m, heads.d
    Xs, Ys = X[:max_examples], Y[:max_examples]

    def thetas(c):
        return (c.reshape(m, -1) @ B).reshape(m, d, d)

    def resid(c):
        T = thetas(c)
        W, _ = fit_W(Xs, Ys, T)
        return (forward(Xs, T, W, "softmax", False)[0] - Ys).ravel()

    c0 = heads.Theta.reshape(m, -1) @ B.T  # (m, k)
    res = least_squares(resid, c0.ravel(), method="lm")
    T = thetas(res.x)
    W, r = fit_W(X, Y, T)
    return Heads(T, W), r


@arguments(X="cube", Y="array", body=instance(Body, where="sculpt_body"), span=_SPAN, m="size", rng="rng")
def span_candidates(X, Y, body: Body, span: Span, m: int, *, rng=None) -> Candidates:
    """Phase 5: the best candidate from the body's face and from a net over the span, W by least squares.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    body : Body
        Phase 2's body (its face gives the first candidates).
    span : Span
        Phase 4's span.
    m : int
    rng : int, numpy.random.Generator or None
        Draws the net when it is larger than its budget.

    Returns
    -------
    Candidates

    Examples
    --------
    >>> from attnlib.sculpt import carve, face_span, planted_instance, span_candidates
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> Y = attention(X, teacher)
    >>> s = carve(X, Y).sculpted
    >>> found = span_candidates(X, Y, s.body, face_span(s.body, s.proxy, 2, rng=2), 2, rng=3)
    >>> found.best, bool(found.best_residual < 1)
    (Heads(m=2, d=4), True)
    """
    X, Y = check_data(X, Y)
    m = check_m(m, X.shape[-1])
    face, face_residual, _ = best_scale(X, Y, face_candidates(body, span, m))
    net, net_residual, _ = certify_candidates(X, Y, net_candidates(span, m, rng=rng))
    return Candidates(face, face_residual, net, net_residual)
