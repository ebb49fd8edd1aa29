"""Shared pieces of :mod:`attnlib.sculpt`: the error type, input checks, row helpers, the LP call."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from .._validation import as_float_array, check_positive_int
from .._validation import check_cube_data as check_data  # noqa: F401  (the sculpt modules' name)
from ..heads import as_heads as check_heads  # noqa: F401  (the sculpt modules' name for it)


class SculptError(RuntimeError):
    """A phase of the sculpting pipeline could not produce a trustworthy answer.

    Attributes
    ----------
    phase : str
        Which phase failed, e.g. ``"phase 2"``.
    n_constraints : int or None
        Number of halfspaces in the body when a linear program failed.
    report : dict or None
        The diagnostics gathered before the failure (see :func:`attnlib.sculpt.learn`).
    """

    def __init__(self, phase: str, message: str, *, n_constraints: int | None = None, report: dict | None = None):
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
    """A finite square (d, d) matrix."""
    A = as_float_array(name, A)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or (d is not None and A.shape[0] != d):
        want = f"({d}, {d})" if d is not None else "(d, d)"
        raise ValueError(f"{name} must be a square matrix of shape {want}; received shape {A.shape}")
    return A


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


class ItemAccess:
    """Read-only ``result["name"]`` for the frozen result dataclasses, which were dicts before 0.2.

    The item form still works, with a DeprecationWarning naming the attribute to use; a field that
    the run did not reach (``None``) raises KeyError, as the missing key of the old dict did.
    """

    def __getitem__(self, key: str):
        value = self._item(key, "[" + repr(key) + "]")
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default=None):
        """Deprecated dict-style access: the attribute, or ``default`` if the run did not reach it."""
        try:
            value = self._item(key, f".get({key!r})")
        except KeyError:
            return default
        return default if value is None else value

    def _item(self, key: str, how: str):
        import warnings

        if key not in {f.name for f in fields(self)} and not isinstance(getattr(type(self), key, None), property):
            raise KeyError(key)
        warnings.warn(f"{type(self).__name__}{how} is deprecated; use the attribute .{key}",
                      DeprecationWarning, stacklevel=3)
        return getattr(self, key)
