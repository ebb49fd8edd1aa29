"""Shared pieces of :mod:`attnlib.sculpt`: the error type, input checks, row helpers, the LP call."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from .._validation import cube_data_shape as check_data  # noqa: F401  (the sculpt modules' name)
from ..heads import as_heads as check_heads  # noqa: F401  (the sculpt modules' name for it)


class SculptError(RuntimeError):
    """A phase of the sculpting pipeline could not produce a trustworthy answer.

    Attributes
    ----------
    phase : str
        Which phase failed, e.g. ``"phase 2"``.
    n_constraints : int or None
        Number of halfspaces in the body when a linear program failed.
    report : SculptReport or None
        The phases completed before the failure, when :func:`attnlib.sculpt.carve` or
        :func:`attnlib.sculpt.learn` raised (``None`` from a single phase function).
    """

    def __init__(self, phase: str, message: str, *, n_constraints: int | None = None, report=None):
        self.phase = phase
        self.n_constraints = n_constraints
        self.report = report
        super().__init__(f"{phase}: {message}")


def check_nonzero_labels(name: str, Y: np.ndarray) -> None:
    """Raise if ``Y`` is all zero: a relative residual ``||F - Y|| / ||Y||`` is then undefined."""
    if not np.any(Y):
        raise ValueError(
            f"{name} is all zero, so the relative residual ||F - {name}|| / ||{name}|| is undefined; "
            f"use labels of a layer with nonzero output"
        )


def check_m(m, d: int | None = None) -> int:
    """The number of heads, a positive integer (at most d**2 when the heads must span distinct directions)."""
    m = check_positive_int("m", m)
    if d is not None and m > d * d:
        raise ValueError(
            f"m must be at most d**2 = {d * d} for tokens of dimension d={d}: the attention matrices of the "
            f"heads are directions in the d**2-dimensional space of (d, d) matrices; received m={m}"
        )
    return m


def check_matrix(name: str, A, d: int | None = None) -> np.ndarray:
    """A square (d, d) matrix: the shape only, its entries checked by the argument's declaration."""
    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or (d is not None and A.shape[0] != d):
        want = f"({d}, {d})" if d is not None else "(d, d)"
        raise ValueError(f"{name} must be a square matrix of shape {want}; received shape {A.shape}")
    return A


def spanning_prefix(tokens: np.ndarray, order: np.ndarray, count: int, *, phase: str) -> np.ndarray:
    """The first ``count`` or more rows of ``order`` whose tokens span R^d with condition number <= 30.

    A regression on tokens that do not span R^d leaves part of S undetermined,
    so the slice grows (by half each time) until they do. Phases 1 and 3 share it.
    """
    d = tokens.shape[-1]
    count = min(max(count, d), len(order))
    while True:
        rows = order[:count]
        sv = singular_values(tokens[rows])
        if len(sv) == d and sv[-1] >= sv[0] / 30.0:
            return rows
        if count == len(order):
            raise SculptError(phase, f"the tokens of all {len(order)} candidate rows do not span R^{d}")
        count = min(len(order), count + max(count // 2, d))


def atom_distances(X: np.ndarray, Y: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """On checked arrays: for every row, the token b whose atom ``x_b^T S`` is nearest to ``Y[N, a]``; the distance."""
    R = np.linalg.norm(Y[:, :, None, :] - (X @ S)[:, None, :, :], axis=-1)  # (N, a, b)
    return R.argmin(axis=-1), R.min(axis=-1)


def score_of(X: np.ndarray, Y: np.ndarray, S: np.ndarray, q: float = 0.05) -> float:
    """:func:`attnlib.sculpt.atom_score` on checked arrays; inf (the worst) when S maps most tokens to 0."""
    _, r = atom_distances(X, Y, S)
    scale = float(np.median(np.linalg.norm(X @ S, axis=-1)))
    return float(np.quantile(r, q) / scale) if scale > 0 else float("inf")


def check_finite(what: str, value, inputs: str):
    """Raise if a result is not finite: the inputs ``inputs`` overflowed on the way (never a silent NaN)."""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} is not finite (the computation overflowed float64); rescale {inputs}")
    return value


def check_proxy(proxy, d: int | None = None) -> np.ndarray:
    """A finite nonzero (d, d) proxy: only its direction is used, and the zero matrix has none."""
    P = check_matrix("proxy", proxy, d)
    if not np.any(P):
        raise ValueError("proxy is the zero matrix: it has no direction to cut slices (or spans) along; "
                         "pass the body's min-norm point")
    return P


def gather_tokens(X: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``out[N, a] = X[N, b[N, a]]`` for X (N, n, d) and an index array b (N, n)."""
    return np.take_along_axis(X, b[..., None], axis=1)  # (N, n, d)


def distinct_from(X: np.ndarray, xb: np.ndarray) -> np.ndarray:
    """``out[N, a, c]`` is True when token c of example N differs from the vector ``xb[N, a]``."""
    return np.any(X[:, None, :, :] != xb[:, :, None, :], axis=-1)  # (N, n, n)


def gap_features(x_a: np.ndarray, x_b: np.ndarray, x_c: np.ndarray) -> np.ndarray:
    """``Z = x_a (x_b - x_c)^T``, row by row: the halfspace normals, on arrays already checked.

    The one computation behind :func:`attnlib.sculpt.gap_feature` (which checks its input)
    and the phases; ``<Theta, Z>_F`` is the logit gap of query a between tokens b and c.
    Shapes (..., d) each, broadcast; returns (..., d, d).
    """
    return x_a[..., :, None] * (x_b - x_c)[..., None, :]


def singular_values(A: np.ndarray) -> np.ndarray:
    """Singular values of a tall matrix, largest first, from the eigenvalues of ``A^T A``."""
    eig = np.linalg.eigvalsh(A.T @ A)
    return np.sqrt(np.clip(eig[::-1], 0.0, None))


_HIGHS_STATUS = {
    1: "the iteration or time limit was reached",
    2: "the body is infeasible (empty)",
    3: "the linear program is unbounded: the body is not bounded in this direction",
    4: "HiGHS reported numerical difficulties",
}


def linprog_highs(c, A_ub, b_ub, bounds, *, phase: str, n_constraints: int):
    """Solve ``min c.x s.t. A_ub x <= b_ub`` with scipy's HiGHS; raise SculptError on failure."""
    from scipy.optimize import linprog

    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        why = _HIGHS_STATUS.get(res.status, res.message)
        raise SculptError(
            phase,
            f"{why} (LP in {len(c)} variables with {n_constraints} halfspace constraints; HiGHS status "
            f"{res.status}: {res.message})",
            n_constraints=n_constraints,
        )
    return res
