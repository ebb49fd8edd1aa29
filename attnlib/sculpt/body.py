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

from .._arguments import arguments, instance, structure
from .._validation import as_float_array, sequences_shape
from ._common import SculptError, check_data, check_matrix, distinct_from, gap_features, gather_tokens, linprog_highs

# Above this many halfspaces, a bounded LP is solved by adding violated constraints in rounds.
_CUTTING_PLANE_ABOVE = 3000


@dataclass(frozen=True, eq=False)
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

    def __post_init__(self):
        arrays = {"example": self.example, "query": self.query, "token": self.token, "residual": self.residual}
        shapes = {name: a.shape for name, a in arrays.items()}
        if any(a.ndim != 1 for a in arrays.values()) or len(set(shapes.values())) != 1:
            raise ValueError(f"example, query, token and residual must be 1-D arrays of one length C; "
                             f"received shapes {shapes}")
        if np.any(self.example < 0) or np.any(self.query < 0) or np.any(self.token < 0):
            raise ValueError("example, query and token must be indices >= 0")
        if len(self.example) > self.rows:
            raise ValueError(f"rows ({self.rows}) must be at least the number of certified rows ({len(self.example)})")

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

    def __post_init__(self):
        if self.Z.ndim != 3 or self.Z.shape[1] != self.Z.shape[2] or self.Z.shape[1] == 0:
            raise ValueError(f"Z must have shape (K, d, d): K halfspace normals; received shape {self.Z.shape}")

    @property
    def d(self) -> int:
        """Token dimension."""
        return self.Z.shape[-1]

    @property
    def n_constraints(self) -> int:
        """Number of distinct halfspaces."""
        return self.Z.shape[0]

    @arguments(Theta="array")
    def slack(self, Theta) -> np.ndarray:
        """``<Theta, Z_k> - gamma`` for every halfspace k; Theta of shape (..., d, d)."""
        if Theta.ndim < 2 or Theta.shape[-2:] != (self.d, self.d):
            raise ValueError(f"Theta must have shape (..., {self.d}, {self.d}); received {Theta.shape}")
        return np.einsum("...pq,kpq->...k", Theta, self.Z) - self.gamma

    @arguments(Theta="array", tol="tol")
    def contains(self, Theta, tol: float = 1e-9) -> np.ndarray | bool:
        """Whether Theta (shape (..., d, d)) satisfies every halfspace (and the box), up to tol."""
        inside = np.all(self.slack(Theta) >= -tol, axis=-1)
        if self.bound is not None:
            inside &= np.all(np.abs(Theta) <= self.bound + tol, axis=(-2, -1))
        return inside if np.ndim(inside) else bool(inside)

    @arguments(bound="opttol")
    def with_bound(self, bound: float | None) -> Body:
        """The same halfspaces inside the box ``|Theta[p, q]| <= bound``."""
        return Body(self.Z, self.gamma, bound, self.certified)

    def __repr__(self) -> str:
        box = "" if self.bound is None else f", bound={self.bound:.3g}"
        return f"Body(d={self.d}, halfspaces={self.n_constraints}, certified_rows={self.certified}{box})"


@arguments(X="cube", Y="array", sum_W="array", delta="tol")
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
    atoms = X @ S  # (N, n, d): atom of each token
    scale = float(np.median(np.linalg.norm(atoms, axis=-1)))
    if not 0 < scale < np.inf:
        raise ValueError(f"sum_W gives atoms x^T S of median norm {scale:g}: no label can be matched to them; "
                         f"pass a nonzero, finite estimate of sum_i W_i")
    tol = delta * scale
    R = np.linalg.norm(Y[:, :, None, :] - atoms[:, None, :, :], axis=-1)  # (N, a, b)
    b = R.argmin(axis=-1)  # (N, a)
    r = R.min(axis=-1)
    other = distinct_from(X, gather_tokens(X, b))  # (N, a, c): token c has a different value
    ambiguous = np.any(other & (R <= 2 * tol), axis=-1)
    ok = (r <= tol) & ~ambiguous
    e, a = np.nonzero(ok)
    return Certificates(e, a, b[e, a], r[e, a], tol, N * n)


@arguments(X="array", certificates=instance(Certificates, where="certify"))
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
    X, _ = sequences_shape(X)
    e, a, b = certificates.example, certificates.query, certificates.token
    N, n, d = X.shape
    if len(e) and (e.max() >= N or max(a.max(), b.max()) >= n):
        raise ValueError(f"certificates index example {e.max()}, query {a.max()}, token {b.max()}, outside X "
                         f"of shape {X.shape}: certify them on this X")
    xa, xb = X[e, a], X[e, b]  # (C, d)
    blocks = []
    for c in range(X.shape[1]):
        xc = X[e, c]
        keep = np.any(xc != xb, axis=-1)
        blocks.append(gap_features(xa[keep], xb[keep], xc[keep]).reshape(-1, d * d))
    Z = np.concatenate(blocks) if blocks else np.zeros((0, d * d))
    Z = np.unique(Z, axis=0) if len(Z) else Z
    return Z.reshape(-1, d, d)


@arguments(X="cube", Y="array", sum_W="array", delta="tol", gamma="tol", bound="opttol")
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
    cert = certify(X, Y, sum_W, delta=delta)
    Z = halfspaces(X, cert)
    return Body(Z, gamma, bound, len(cert))


@arguments(body=instance(Body, where="sculpt_body"), U="array",
           extra=structure("a pair (A of shape (k, d, d), c of shape (k,))"), phase="text")
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
    A_extra, b_extra = _check_extra(extra, d)
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


def _check_extra(extra, d: int) -> tuple[np.ndarray, np.ndarray]:
    if extra is None:
        return np.zeros((0, d * d)), np.zeros(0)
    if not isinstance(extra, (tuple, list)) or len(extra) != 2:
        raise TypeError(f"extra must be a pair (A, c) of constraints <A_j, Theta> <= c_j; received "
                        f"{type(extra).__name__}")
    A, c = as_float_array("extra[0]", extra[0]), as_float_array("extra[1]", extra[1]).ravel()
    if A.ndim != 3 or A.shape[1:] != (d, d) or A.shape[0] != c.size:
        raise ValueError(f"extra must be A of shape (k, {d}, {d}) and c of shape (k,); received {A.shape} and "
                         f"{c.shape}")
    return A.reshape(-1, d * d), c


@arguments(body=instance(Body, where="sculpt_body"), phase="text")
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


@arguments(body=instance(Body, where="sculpt_body"), phase="text")
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


@arguments(body=instance(Body, where="sculpt_body"), origin="array", basis="array", box="tol")
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
    if basis.shape != (2, d, d):
        raise ValueError(f"basis must have shape (2, {d}, {d}); received {basis.shape}")
    P = np.array([[-box, -box], [box, -box], [box, box], [-box, box]], dtype=float)
    lines = [(np.einsum("pq,kpq->k", B, body.Z)) for B in basis]
    rhs = body.gamma - np.einsum("pq,kpq->k", origin, body.Z)
    for u, v, c in zip(lines[0], lines[1], rhs, strict=True):
        P = clip_polygon(P, u, v, c)
        if len(P) == 0:
            break
    return P


@arguments(polygon="array", u="real", v="real", c="real")
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
    P = polygon
    if P.size == 0:
        return np.zeros((0, 2))
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"polygon must have shape (V, 2), vertices (s, t); received shape {P.shape}")
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
