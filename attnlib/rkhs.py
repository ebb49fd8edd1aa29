"""Linear attention as a linear model on cubic features: features, kernel, regression, certificate.

Multi-head linear attention is linear in a fixed cubic polynomial of its input
(Yau et al., 2025). At the last token of X (rows are tokens),

    y_a = sum_i x_n^T Theta_i X^T X W_i[:, a] = <c_a, phi(X)>,

with ``phi(X) = vech(X^T X) ⊗ x_n``: the psi = d^2 (d + 1) / 2 distinct products
``G[j, k] x_n[l]`` of the Gram matrix ``G = X^T X`` with the last token. So
learning the layer is least squares on ``phi`` (Algorithm 1), the least-squares
solution folds back into at most d^2 heads by an SVD, and the data determine
the function exactly when the second moment ``Lambda_D`` of the features has
full rank (Algorithm 2, Lemma A.3).

One feature order is used throughout, the paper's Algorithm 2: the Gram
entries ``G[j, k]`` with ``j < k`` row by row, then the diagonal ``G[j, j]``; feature
``p * d + l`` is the p-th entry times ``x_n[l]``. The coefficients
(:func:`parameter_map`) use the same order.

Sequences may have different lengths: pass a list of (n_i, d) arrays. With
``causal=True`` (or targets at every token) there is one feature row per token,
built from the prefix Gram matrix ``G_t = sum_{s <= t} x_s x_s^T`` (or the full
Gram for non-causal every-token targets).

Chapters 3-5 of the book develop this module.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from . import _normal_equations as _ne
from ._coefficients import _as_coef, coefficient_matrix, heads_from_coef, parameter_distance, parameter_map
from ._validation import check_positive_int
from .heads import Heads

__all__ = [
    "Certificate",
    "LinearFit",
    "certificate",
    "coefficient_matrix",
    "cubic_features",
    "fit_linear_attention",
    "heads_from_coef",
    "kernel",
    "n_features",
    "parameter_distance",
    "parameter_map",
]

n_features = _ne.n_features


# --- features and kernel --------------------------------------------------------


def cubic_features(X, *, causal: bool = False):
    """The psi = d^2 (d + 1) / 2 distinct cubic features of linear attention.

    Parameters
    ----------
    X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays
        Sequences; rows are tokens.
    causal : bool, default False
        False: one row per sequence, for the last token. True: one row per
        token t, from the prefix Gram matrix of tokens 1..t.

    Returns
    -------
    Phi : ndarray of shape (N, psi), or (N, n, psi) if causal
        (psi,) or (n, psi) for one sequence; a list of (n_i, psi) arrays for
        ragged causal input. ``Phi[..., p * d + l] = G[j_p, k_p] * x[l]`` with
        ``G = X^T X`` (prefix sums if causal), the pairs (j_p, k_p) in the
        order of Algorithm 2 (j < k row by row, then the diagonal), and x the
        last token (or token t).

    Notes
    -----
    The last-token output of any linear attention layer is ``Phi @ c`` with
    ``c = parameter_map(heads)`` (Yau et al. 2025, Algorithm 2 and Cor. A.4;
    chapter 3 of the book).

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features
    >>> X = gaussian_inputs(5, 7, 3, rng=0)
    >>> cubic_features(X).shape, cubic_features(X, causal=True).shape
    ((5, 18), (5, 7, 18))
    """
    seqs = _ne.as_sequences(X)
    mode = "causal" if causal else "last"
    psi = n_features(seqs.d)
    _ne.check_memory("cubic_features", 8 * seqs.rows(mode) * psi + 8 * _ne._CHUNK_FLOATS, seqs.d)
    return _ne.map_rows(seqs, mode, _ne.features, psi)


def kernel(X, X2):
    """The kernel of the cubic features: ``K[i, j] = <phi(X_i), phi(X2_j)>``.

    Parameters
    ----------
    X, X2 : array_like of shape (n, d) or (N, n, d), or lists of (n_i, d) arrays
        Sequence lengths may differ within and between the two.

    Returns
    -------
    K : ndarray of shape (N, N2)
        A float if both are single sequences, one axis dropped if either is.

    Notes
    -----
    With ``G = X^T X``, ``G' = X2^T X2`` and last tokens x, x',
    ``k(X, X2) = (<G, G'>_F + sum_j G_jj G'_jj) / 2 * <x, x'>``, which never
    forms the features. Without the reduction to distinct entries (every
    ``G[j, k] x[l]``, d^3 of them) the kernel is ``||X X2^T||_F^2 <x, x'>``.

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features, kernel
    >>> X = gaussian_inputs(4, 5, 3, rng=0)
    >>> bool(np.allclose(kernel(X, X), cubic_features(X) @ cubic_features(X).T))
    True
    """
    a = _ne.as_sequences(X, name="X")
    b = _ne.as_sequences(X2, name="X2", d=a.d)

    def parts(seqs):
        G = np.empty((seqs.N, seqs.d, seqs.d))
        x = np.empty((seqs.N, seqs.d))
        for idx, X3 in seqs.blocks:
            G[idx] = np.matmul(X3.swapaxes(1, 2), X3)
            x[idx] = X3[:, -1]
        return G.reshape(seqs.N, -1), np.diagonal(G, axis1=1, axis2=2), x

    Ga, Da, xa = parts(a)
    Gb, Db, xb = parts(b)
    K = 0.5 * (Ga @ Gb.T + Da @ Db.T) * (xa @ xb.T)
    if a.single and b.single:
        return float(K[0, 0])
    return K[0] if a.single else K[:, 0] if b.single else K


# --- regression -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LinearFit:
    """What :func:`fit_linear_attention` returns.

    Attributes
    ----------
    heads : Heads
        At most d^2 heads computing the fitted function (from the SVD).
    coef : ndarray of shape (psi, d)
        Coefficients on :func:`cubic_features`; ``predict`` uses them.
    train_loss : float
        Mean squared error over every target entry of the training data.
    mode : {"last", "all", "causal"}
        Last-token targets, every token with the full Gram, or every token causally.
    solver : str
        "cholesky" (normal equations), "qr" (the stable fallback) or
        "gradient descent (K steps)".
    rank : int
        Rank of the features on the training data (psi when identifiable).
    """

    heads: Heads
    coef: np.ndarray = field(repr=False)
    train_loss: float
    mode: str
    solver: str
    rank: int

    def predict(self, X):
        """Outputs of the fitted layer: (N, d) at the last token, or (N, n, d) at every token.

        Uses the same targets as the fit (last token, every token, or causal).
        """
        d = self.coef.shape[1]
        seqs = _ne.as_sequences(X, d=d)
        return _ne.map_rows(seqs, self.mode, lambda g, x: _ne.apply_coef(g, x, self.coef), d)

    def __repr__(self) -> str:
        return (f"LinearFit(d={self.coef.shape[1]}, heads={self.heads.m}, mode={self.mode!r}, "
                f"train_loss={self.train_loss:.3g}, solver={self.solver!r}, rank={self.rank}/{self.coef.shape[0]})")


def _residual_loss(seqs, mode, targets, coef) -> float:
    """Mean squared residual, streamed once more (exact even when the optimum is 0)."""
    total, count = 0.0, 0
    for b, sl, g, x in _ne.factor_chunks(seqs, mode, _ne.gram_width(seqs.d) * seqs.d):
        r = targets[b][sl] - _ne.apply_coef(g, x, coef)
        total += float(np.sum(r * r))
        count += r.size
    return total / count


def fit_linear_attention(X, Y, *, causal: bool = False, steps: int | None = None, start=None) -> LinearFit:
    """Learn multi-head linear attention by least squares on the cubic features (Algorithm 1).

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of N arrays of shape (n_i, d)
        Training sequences; lengths may differ.
    Y : array_like of shape (N, d), or (N, n, d), or a list of (n_i, d) arrays
        Last-token targets, or a target at every token. Any real numbers: the
        data need not come from an attention layer (agnostic learning).
    causal : bool, default False
        With every-token targets: token t sees tokens 1..t (prefix Grams).
        Without, every token sees the whole sequence. No effect on last-token
        targets.
    steps : int, optional
        If given, run this many full-batch gradient-descent steps (step
        ``1 / lambda_max``) from ``start`` instead of solving exactly: a
        finite-budget iterative solver, as behind the paper's Fig. 2.
    start : Heads or ndarray of shape (psi, d), optional
        Starting point of the iterations (default zero). Without ``steps``,
        the exact minimiser nearest to ``start`` is returned, which is where
        gradient descent from ``start`` converges; it differs from the
        minimum-norm one only when the minimiser is not unique.

    Returns
    -------
    LinearFit
        ``.heads`` (at most d^2), ``.coef``, ``.predict(X)``, ``.train_loss``.

    Warns
    -----
    RuntimeWarning
        If the minimiser is not unique (fewer feature rows than psi, or
        rank-deficient features): the minimum-norm solution, or the one nearest
        to ``start``, is returned. If the normal equations are ill-conditioned:
        they are solved by a streamed QR instead.

    Notes
    -----
    The normal equations are built in one pass over chunks of the data, from
    the Kronecker form ``phi = vech(G) ⊗ x`` (memory O(psi^2), independent of
    N), equilibrated, and solved by one Cholesky factorisation for all d
    outputs. If its condition estimate exceeds 1e8, or the minimiser is not
    unique, a streamed QR of ``[Phi, Y]`` and an SVD of R give the
    minimum-norm solution instead. Chapter 4 of the book.

    Examples
    --------
    >>> from attnlib.rkhs import fit_linear_attention
    >>> teacher = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(60, 7, 3, rng=1)
    >>> fit = fit_linear_attention(X, attention(X, teacher, kind="linear")[:, -1])
    >>> fit.heads.m <= 9, fit.train_loss < 1e-20
    (True, True)
    """
    seqs = _ne.as_sequences(X)
    if seqs.single:
        raise ValueError("X must be a batch of shape (N, n, d) or a list of sequences; received one sequence")
    kind, targets = _ne.as_targets(Y, seqs)
    mode = "last" if kind == "last" else ("causal" if causal else "all")
    d = seqs.d
    psi = n_features(d)
    _ne.check_memory("fit_linear_attention", _ne.solve_memory(d, d), d)
    c0 = None
    if start is not None:
        c0 = _as_coef(start)
        if c0.shape != (psi, d):
            raise ValueError(f"start must have coefficients of shape ({psi}, {d}); received shape {c0.shape}")
    A, B, yy, rows = _ne.normal_equations(seqs, mode, targets)
    count = rows * d
    loss = None
    if steps is not None:
        coef, solver, rank = _gradient_descent(A / rows, B / rows, check_positive_int("steps", steps), c0)
    else:
        solution = _ne.solve_normal_equations(A, B, rows)
        if solution is not None:
            # at the minimiser ||Y - Phi c||^2 = ||Y||^2 - <c, Phi^T Y>; trusted unless it cancels
            rss = yy - float(np.sum(solution.coef * B))
            if rss > 1e-6 * yy:
                loss = rss / count
        else:
            solution, rss = _ne.solve_by_qr(seqs, mode, targets)
            loss = rss / count
            if solution.rank < psi:
                _ne.warn_nonunique(rows, psi, solution.rank, nearest=c0 is not None)
                if c0 is not None:  # add the part of start that the data cannot see
                    V = solution.basis
                    solution.coef = solution.coef + c0 - V.T @ (V @ c0)
            else:
                warnings.warn(
                    f"the normal equations are ill-conditioned (condition number about {solution.condition:.2g}); "
                    f"solved by a streamed QR instead", RuntimeWarning, stacklevel=2)
        coef, solver, rank = solution.coef, solution.solver, solution.rank
    if loss is None:
        loss = _residual_loss(seqs, mode, targets, coef)
    return LinearFit(heads_from_coef(coef), coef, loss, mode, solver, rank)


def _gradient_descent(Lam: np.ndarray, b: np.ndarray, steps: int, start: np.ndarray | None):
    """K steps of c <- c - (Lam c - b) / lambda_max from c = start (default 0)."""
    from scipy.linalg import eigvalsh

    psi = Lam.shape[0]
    top = float(eigvalsh(Lam, subset_by_index=[psi - 1, psi - 1])[0])
    coef = np.zeros_like(b) if start is None else start.copy()
    if top > 0:
        for _ in range(steps):
            coef -= (Lam @ coef - b) / top
    rank = int(np.linalg.matrix_rank(Lam, hermitian=True))
    return coef, f"gradient descent ({steps} steps)", rank


# --- certificate ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Certificate:
    """The identifiability certificate of a data set (Algorithm 2, Lemma A.3).

    Attributes
    ----------
    lam_min, lam_max : float
        Smallest and largest eigenvalue of ``Lambda_D = Phi^T Phi / N`` (uncentred;
        ``lam_min`` clipped at 0).
    rank : int
        Numerical rank of ``Lambda_D`` (eigenvalues above ``psi * eps * lam_max``).
    psi : int
        Number of features; identifiable exactly when ``rank == psi``.
    N : int
        Number of feature rows (examples, or tokens if causal).
    identifiable : bool
        Every empirical risk minimiser computes the same function on every
        input of every length (for realisable data, or any data with d^2 heads).
    causal : bool
        Whether the features are those of every prefix.
    eigenvalues : ndarray of shape (psi,)
        The whole spectrum of ``Lambda_D``, ascending.
    """

    lam_min: float
    lam_max: float
    rank: int
    psi: int
    N: int
    identifiable: bool
    causal: bool
    eigenvalues: np.ndarray = field(repr=False)
    _basis: np.ndarray = field(repr=False)

    def span_residual(self, X):
        """Relative distance of each test feature vector from the span of the training features.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        ndarray of shape (N,) (or (N, n) if causal)
            ``||(I - P) phi|| / ||phi||``, P the projection on the range of
            ``Lambda_D`` (0 for a zero feature vector). Where it is 0, every
            least-squares fit of these training data gives the same output.
        """
        seqs = _ne.as_sequences(X, d=_d_from_psi(self.psi))
        V = self._basis
        mode = "causal" if self.causal else "last"

        def residual(g, x):
            Phi = _ne.features(g, x)
            R = Phi - (Phi @ V) @ V.T
            norm = np.linalg.norm(Phi, axis=1)
            return (np.linalg.norm(R, axis=1) / np.where(norm > 0, norm, 1.0))[:, None]

        out = _ne.map_rows(seqs, mode, residual, 1)
        return [r[:, 0] for r in out] if isinstance(out, list) else out[..., 0]

    def covers(self, X, *, tol: float = 1e-6):
        """Whether every least-squares fit agrees on each test input: ``span_residual(X) <= tol``."""
        r = self.span_residual(X)
        return [v <= tol for v in r] if isinstance(r, list) else r <= tol

    def __repr__(self) -> str:
        verdict = "identifiable" if self.identifiable else "not identifiable"
        return f"Certificate({verdict}, lam_min={self.lam_min:.3g}, rank={self.rank} of psi={self.psi}, N={self.N})"


def _d_from_psi(psi: int) -> int:
    return next(k for k in range(1, 10_000) if n_features(k) >= psi)


def certificate(X, *, causal: bool = False) -> Certificate:
    """Does the data set pin down the function? The spectrum of ``Lambda_D``.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs (targets are not needed).
    causal : bool, default False
        Certify last-token features (False) or every prefix (True).

    Returns
    -------
    Certificate
        ``.lam_min``, ``.rank``, ``.psi``, ``.identifiable``, and the span form
        ``.span_residual(X_test)`` / ``.covers(X_test)`` for singular ``Lambda_D``.

    Notes
    -----
    ``Lambda_D = (1/N) sum_i phi(X_i) phi(X_i)^T`` with the features of
    :func:`cubic_features` (eqs. 9-10 of Yau et al. 2025). If its smallest
    eigenvalue is positive and the data are realisable, every empirical risk
    minimiser computes the same function (Lemma A.3). One-hot and ±1 inputs
    always give a singular ``Lambda_D`` for d >= 2: then the span form certifies
    agreement on the test inputs whose features lie in its range. Chapter 5.

    Examples
    --------
    >>> from attnlib.rkhs import certificate
    >>> certificate(gaussian_inputs(200, 5, 2, rng=0)).identifiable
    True
    >>> certificate(boolean_inputs(200, 5, 2, rng=0))
    Certificate(not identifiable, lam_min=0, rank=4 of psi=6, N=200)
    """
    seqs = _ne.as_sequences(X)
    mode = "causal" if causal else "last"
    d = seqs.d
    psi = n_features(d)
    _ne.check_memory("certificate", _ne.solve_memory(d, 0), d)
    A, _, _, rows = _ne.normal_equations(seqs, mode)
    w, V = np.linalg.eigh(A / rows)
    top = max(float(w[-1]), 0.0)
    keep = w > psi * np.finfo(float).eps * top
    rank = int(keep.sum())
    identifiable = rank == psi
    lam_min = float(max(w[0], 0.0)) if identifiable else 0.0
    return Certificate(lam_min, top, rank, psi, rows, identifiable, bool(causal), w, V[:, keep])
