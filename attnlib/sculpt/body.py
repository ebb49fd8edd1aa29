"""Phase 2 of the book's reconstruction: certified examples, halfspaces, and the convex body.

An example row is *certified* for token b when its label is, up to a tolerance,
the "atom" ``x_b^T S`` that every head attending to b would produce, where S is
the current estimate of ``sum_i W_i``. Then every head's logit gap
``<Theta_i, x_a (x_b - x_c)^T>`` must be large for every competitor c, and each
such gap is a halfspace containing all the Theta_i. Their intersection is the
body K. The linear programs over K use scipy's HiGHS solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_float_array, check_positive_float, check_real
from ._common import SculptError, check_data, check_matrix, distinct_from, gap_features, gather_tokens, linprog_highs

# Above this many halfspaces, a bounded LP is solved by adding violated constraints in rounds.
_CUTTING_PLANE_ABOVE = 3000


@dataclass(frozen=True)
class Certificates:
    """Rows of the data whose labels match an atom ``x_b^T S``.

    Attributes
    ----------
    example, query, token : ndarray of int, shape (C,)
        Certified row ``(example, query)`` and the token b it attends to.
    residual : ndarray of shape (C,)
        ``||Y[example, query] - x_b^T S||``.
    delta : float
        The absolute tolerance used.
    rows : int
        Number of rows examined (N n).
    """

    example: np.ndarray
    query: np.ndarray
    token: np.ndarray
    residual: np.ndarray
    delta: float
    rows: int

    def __len__(self) -> int:
        return len(self.example)

    def __repr__(self) -> str:
        return f"Certificates({len(self)} of {self.rows} rows, delta={self.delta:.3g})"


@dataclass(frozen=True, eq=False)
class Body:
    """The sculpted body ``K = {Theta : <Theta, Z_k>_F >= gamma for all k}``, optionally boxed.

    Attributes
    ----------
    Z : ndarray of shape (K, d, d)
        Distinct halfspace normals ``x_a (x_b - x_c)^T``.
    gamma : float
        Required logit gap.
    bound : float or None
        If set, also ``|Theta[p, q]| <= bound`` for every entry (an assumed norm window).
    certified : int
        Number of certified rows the halfspaces came from.
    """

    Z: np.ndarray
    gamma: float
    bound: float | None
    certified: int

    @property
    def d(self) -> int:
        """Token dimension."""
        return self.Z.shape[-1]

    @property
    def n_constraints(self) -> int:
        """Number of distinct halfspaces."""
        return self.Z.shape[0]

    def slack(self, Theta) -> np.ndarray:
        """``<Theta, Z_k> - gamma`` for every halfspace k; Theta of shape (..., d, d)."""
        Theta = as_float_array("Theta", Theta)
        if Theta.shape[-2:] != (self.d, self.d):
            raise ValueError(f"Theta must have shape (..., {self.d}, {self.d}); received {Theta.shape}")
        return np.einsum("...pq,kpq->...k", Theta, self.Z) - self.gamma

    def contains(self, Theta, tol: float = 1e-9) -> np.ndarray | bool:
        """Whether Theta (shape (..., d, d)) satisfies every halfspace (and the box), up to tol."""
        inside = np.all(self.slack(Theta) >= -tol, axis=-1)
        if self.bound is not None:
            inside &= np.all(np.abs(np.asarray(Theta)) <= self.bound + tol, axis=(-2, -1))
        return inside if np.ndim(inside) else bool(inside)

    def with_bound(self, bound: float | None) -> Body:
        """The same halfspaces inside the box ``|Theta[p, q]| <= bound``."""
        if bound is not None:
            bound = check_positive_float("bound", bound)
        return Body(self.Z, self.gamma, bound, self.certified)

    def __repr__(self) -> str:
        box = "" if self.bound is None else f", bound={self.bound:.3g}"
        return f"Body(d={self.d}, halfspaces={self.n_constraints}, certified_rows={self.certified}{box})"


def certify(X, Y, sum_W, *, delta: float = 0.05) -> Certificates:
    """Find the rows whose label is, within a tolerance, the atom of a single token.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    sum_W : array_like of shape (d, d)
        Current estimate S of ``sum_i W_i``.
    delta : float, default 0.05
        Tolerance relative to the median atom norm ``||x^T S||``.

    Returns
    -------
    Certificates

    Notes
    -----
    Row a of example X is certified for token b when ``||F(X)_a - x_b^T S|| <= delta'``
    (delta' = delta times the median atom norm) and no token with a different
    value fits within ``2 delta'``. If every head puts weight at least 1 - eta on
    b, the label is within ``2 eta sqrt(d) sum_i ||W_i||`` of the atom, so
    certification is evidence, not proof, of near-hard attention: a certified row
    can be a coincidence. Chapter 8 measures how often the planted heads violate
    the resulting halfspaces.

    Examples
    --------
    >>> from attnlib.sculpt import certify, planted_instance
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(500, 3, 4, rng=1)
    >>> cert = certify(X, attention(X, heads), heads.W.sum(0))
    >>> bool(len(cert) > 0)
    True
    """
    X, Y = check_data(X, Y)
    N, n, d = X.shape
    S = check_matrix("sum_W", sum_W, d)
    delta = check_positive_float("delta", delta)
    atoms = X @ S  # (N, n, d): atom of each token
    scale = float(np.median(np.linalg.norm(atoms, axis=-1)))
    tol = delta * scale
    R = np.linalg.norm(Y[:, :, None, :] - atoms[:, None, :, :], axis=-1)  # (N, a, b)
    b = R.argmin(axis=-1)  # (N, a)
    r = R.min(axis=-1)
    other = distinct_from(X, gather_tokens(X, b))  # (N, a, c): token c has a different value
    ambiguous = np.any(other & (R <= 2 * tol), axis=-1)
    ok = (r <= tol) & ~ambiguous
    e, a = np.nonzero(ok)
    return Certificates(e, a, b[e, a], r[e, a], tol, N * n)


def halfspaces(X, certificates: Certificates) -> np.ndarray:
    """The distinct normals ``Z = x_a (x_b - x_c)^T`` of every certified row and competitor c.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    certificates : Certificates

    Returns
    -------
    Z : ndarray of shape (K, d, d)
        Competitors equal to x_b give Z = 0 and are skipped; duplicates are removed.
    """
    X = as_float_array("X", X)
    e, a, b = certificates.example, certificates.query, certificates.token
    d = X.shape[-1]
    xa, xb = X[e, a], X[e, b]  # (C, d)
    blocks = []
    for c in range(X.shape[1]):
        xc = X[e, c]
        keep = np.any(xc != xb, axis=-1)
        blocks.append(gap_features(xa[keep], xb[keep], xc[keep]).reshape(-1, d * d))
    Z = np.concatenate(blocks) if blocks else np.zeros((0, d * d))
    Z = np.unique(Z, axis=0) if len(Z) else Z
    return Z.reshape(-1, d, d)


def sculpt_body(X, Y, sum_W, *, delta: float = 0.05, gamma: float = 1.0, bound: float | None = None) -> Body:
    """Certify rows and intersect their halfspaces: the body K of phase 2.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    sum_W : array_like of shape (d, d)
        Estimate of ``sum_i W_i`` (phase 1 or phase 3).
    delta : float, default 0.05
        Relative certification tolerance, see :func:`certify`.
    gamma : float, default 1.0
        Required gap. Its value only rescales K about the origin, so directions
        computed from K do not depend on it.
    bound : float, optional
        Box ``|Theta[p, q]| <= bound`` (an assumed norm window), which makes K bounded.

    Returns
    -------
    Body

    Notes
    -----
    ``K = {Theta : <Theta, x_a (x_b - x_c)^T> >= gamma}`` over certified rows
    (a, b) and competitors c. Every halfspace that truly reflects near-hard
    attention of all heads contains every Theta_i, so K contains their convex
    hull. Book section 8.2.

    Examples
    --------
    >>> from attnlib.sculpt import planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(2000, 3, 4, rng=1)
    >>> body = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    >>> body.d, bool(body.n_constraints > 10)
    (4, True)
    """
    gamma = check_positive_float("gamma", gamma)
    if bound is not None:
        bound = check_positive_float("bound", bound)
    cert = certify(X, Y, sum_W, delta=delta)
    Z = halfspaces(np.asarray(X, dtype=float), cert)
    return Body(Z, gamma, bound, len(cert))


def support(body: Body, U, *, extra=None, phase: str = "phase 2") -> tuple[float, np.ndarray]:
    """Maximise ``<U, Theta>`` over the body: one linear program (HiGHS).

    Parameters
    ----------
    body : Body
    U : array_like of shape (d, d)
        Direction.
    extra : (ndarray of shape (k, d, d), ndarray of shape (k,)), optional
        Extra constraints ``<A_j, Theta> <= c_j``.
    phase : str
        Named in the error if the LP fails.

    Returns
    -------
    value : float
    Theta : ndarray of shape (d, d)
        A maximiser.

    Raises
    ------
    SculptError
        If the body is empty or unbounded along U, naming the phase and the
        number of halfspaces.

    Examples
    --------
    >>> from attnlib.sculpt import Body, support
    >>> body = Body(np.eye(2)[None], gamma=1.0, bound=3.0, certified=1)
    >>> value, Theta = support(body, -np.eye(2))
    >>> round(value, 6)
    -1.0
    """
    d = body.d
    U = check_matrix("U", U, d).ravel()
    Zf = body.Z.reshape(-1, d * d)
    K = len(Zf)
    if K == 0 and body.bound is None:
        raise SculptError(phase, "the body has no halfspaces and no box: it is all of R^(d x d)", n_constraints=0)
    A_extra = np.zeros((0, d * d)) if extra is None else np.asarray(extra[0], dtype=float).reshape(-1, d * d)
    b_extra = np.zeros(0) if extra is None else np.asarray(extra[1], dtype=float).ravel()
    bounds = [(-body.bound, body.bound)] * (d * d) if body.bound is not None else [(None, None)] * (d * d)
    rhs = -body.gamma * np.ones(K)
    if K <= _CUTTING_PLANE_ABOVE or body.bound is None:
        res = linprog_highs(-U, np.vstack([-Zf, A_extra]), np.concatenate([rhs, b_extra]), bounds,
                            phase=phase, n_constraints=K)
        return float(-res.fun), res.x.reshape(d, d)
    # Cutting planes: start from the halfspaces most opposed to U, add violated ones until none is.
    order = np.argsort(-(Zf @ -U) / np.linalg.norm(Zf, axis=1))
    active = np.zeros(K, dtype=bool)
    active[order[:1000]] = True
    for _ in range(50):
        res = linprog_highs(-U, np.vstack([-Zf[active], A_extra]), np.concatenate([rhs[active], b_extra]),
                            bounds, phase=phase, n_constraints=K)
        violation = body.gamma - Zf @ res.x
        worst = np.argsort(-violation)
        new = worst[(violation[worst] > 1e-9) & ~active[worst]][:1000]
        if len(new) == 0:
            return float(-res.fun), res.x.reshape(d, d)
        active[new] = True
    raise SculptError(phase, "the cutting-plane LP did not converge in 50 rounds", n_constraints=K)  # pragma: no cover


def prune(body: Body, *, phase: str = "phase 2") -> tuple[Body, int]:
    """Drop the halfspaces that contradict the others (false certifications).

    Parameters
    ----------
    body : Body

    Returns
    -------
    body : Body
        The same body without the dropped halfspaces (unchanged if it was feasible).
    dropped : int

    Notes
    -----
    Solve the LP ``min sum_k xi_k`` subject to ``<Theta, Z_k> + xi_k >= gamma``,
    ``xi >= 0`` (and the box, if any), with HiGHS; drop every halfspace with
    ``xi_k > 0`` and repeat until the rest is feasible. A certified row is only
    evidence of near-hard attention, so a few certificates can be wrong; this
    keeps the consistent majority.

    Examples
    --------
    >>> from attnlib.sculpt import Body, prune
    >>> Z = np.stack([np.eye(2), np.eye(2), -np.eye(2)])
    >>> prune(Body(Z, gamma=1.0, bound=None, certified=3))[1]
    1
    """
    from scipy import sparse

    d, K = body.d, body.n_constraints
    Z = body.Z.reshape(K, d * d)
    keep = np.ones(K, dtype=bool)
    box = body.bound if body.bound is not None else 1e6
    for _ in range(20):
        k = int(keep.sum())
        A = sparse.hstack([sparse.csr_matrix(-Z[keep]), -sparse.identity(k, format="csr")], format="csr")
        c = np.concatenate([np.zeros(d * d), np.ones(k)])
        bounds = [(-box, box)] * (d * d) + [(0, None)] * k
        res = linprog_highs(c, A, -body.gamma * np.ones(k), bounds, phase=phase, n_constraints=K)
        xi = res.x[d * d:]
        bad = xi > 1e-9 * max(1.0, body.gamma)
        if not bad.any():
            break
        keep[np.flatnonzero(keep)[bad]] = False
    pruned = Body(body.Z[keep], body.gamma, body.bound, body.certified)
    return pruned, K - int(keep.sum())


def feasible_point(body: Body, *, phase: str = "phase 2") -> np.ndarray:
    """A point of the body, or a SculptError naming the phase if it is empty.

    Returns
    -------
    Theta : ndarray of shape (d, d)
    """
    d = body.d
    if body.bound is None:
        body = body.with_bound(1e6)
    return support(body, np.zeros((d, d)), phase=phase)[1]


def body_slice(body: Body, origin, basis, *, box: float = 10.0) -> np.ndarray:
    """The polygon ``{(s, t) : origin + s basis[0] + t basis[1] in K}``, clipped to a square.

    Parameters
    ----------
    body : Body
    origin : array_like of shape (d, d)
    basis : array_like of shape (2, d, d)
    box : float, default 10
        The polygon is clipped to ``|s|, |t| <= box`` (the body may be unbounded).

    Returns
    -------
    vertices : ndarray of shape (V, 2)
        Counter-clockwise; empty (0, 2) if the slice is empty.

    Notes
    -----
    Each halfspace becomes a half-plane ``s <B1, Z> + t <B2, Z> >= gamma - <origin, Z>``;
    the square is clipped by each in turn (Sutherland-Hodgman). No LP is needed.

    Examples
    --------
    >>> from attnlib.sculpt import Body, body_slice
    >>> body = Body(np.eye(2)[None], gamma=1.0, bound=None, certified=1)
    >>> body_slice(body, np.zeros((2, 2)), np.stack([np.eye(2), np.diag([1.0, -1.0])]), box=2).shape
    (4, 2)
    """
    d = body.d
    origin = check_matrix("origin", origin, d)
    basis = as_float_array("basis", basis)
    if basis.shape != (2, d, d):
        raise ValueError(f"basis must have shape (2, {d}, {d}); received {basis.shape}")
    box = check_positive_float("box", box)
    P = np.array([[-box, -box], [box, -box], [box, box], [-box, box]], dtype=float)
    lines = [(np.einsum("pq,kpq->k", B, body.Z)) for B in basis]
    rhs = body.gamma - np.einsum("pq,kpq->k", origin, body.Z)
    for u, v, c in zip(lines[0], lines[1], rhs, strict=True):
        P = clip_polygon(P, u, v, c)
        if len(P) == 0:
            break
    return P


def clip_polygon(polygon, u: float, v: float, c: float) -> np.ndarray:
    """The part of a convex polygon in the half-plane ``u s + v t >= c`` (one Sutherland-Hodgman step).

    Parameters
    ----------
    polygon : array_like of shape (V, 2)
        Vertices (s, t) in order around the polygon; V may be 0.
    u, v, c : float
        The half-plane ``u s + v t >= c``.

    Returns
    -------
    ndarray of shape (V', 2)
        The clipped polygon's vertices, in the same order; empty if nothing is left.

    Examples
    --------
    >>> from attnlib.sculpt import clip_polygon
    >>> clip_polygon([[0, 0], [1, 0], [1, 1], [0, 1]], 1.0, 0.0, 0.5)
    array([[0.5, 0. ],
           [1. , 0. ],
           [1. , 1. ],
           [0.5, 1. ]])
    """
    P = as_float_array("polygon", polygon)
    if P.size == 0:
        return np.zeros((0, 2))
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"polygon must have shape (V, 2), vertices (s, t); received shape {P.shape}")
    u, v, c = (check_real(name, value) for name, value in (("u", u), ("v", v), ("c", c)))
    f = P @ np.array([u, v]) - c
    out = []
    for i in range(len(P)):
        j = (i + 1) % len(P)
        if f[i] >= 0:
            out.append(P[i])
        if (f[i] >= 0) != (f[j] >= 0):
            t = f[i] / (f[i] - f[j])
            out.append(P[i] + t * (P[j] - P[i]))
    return np.array(out).reshape(-1, 2)
