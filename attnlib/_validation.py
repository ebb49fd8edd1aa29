"""Input checks shared by the public functions.

Every public function validates its arguments once, here, and raises a
``ValueError`` or ``TypeError`` that names what was received and what was
expected. Nothing in this module prints.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as an int, or raise if it is not a positive integer."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer; received {value!r} of type {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer; received {value}")
    return int(value)


def check_positive_float(name: str, value) -> float:
    """Return ``value`` as a float, or raise if it is not a finite positive number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number; received {value!r} of type {type(value).__name__}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite positive number; received {value}")
    return float(value)


def as_float_array(name: str, A, *, allow_neg_inf: bool = False) -> np.ndarray:
    """Convert ``A`` to a float64 array and check that every entry is finite.

    With ``allow_neg_inf`` the value ``-inf`` is accepted (a masked logit).
    """
    if isinstance(A, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers; received a {type(A).__name__}")
    try:
        arr = np.asarray(A, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of real numbers; received {type(A).__name__} ({err})") from None
    bad = np.isnan(arr) | (arr == np.inf) if allow_neg_inf else ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        allowed = "finite or -inf" if allow_neg_inf else "finite"
        raise ValueError(
            f"{name} must be {allowed}; received {arr[where]} at index {where} "
            f"({int(bad.sum())} bad entries in an array of shape {arr.shape})"
        )
    return arr


def check_sequences(X, *, d: int | None = None, name: str = "X") -> tuple[np.ndarray, bool]:
    """Validate a sequence or a batch of sequences.

    Returns the batch as an array of shape (N, n, d) and whether the input was a
    single sequence of shape (n, d).
    """
    X = as_float_array(name, X)
    if X.ndim not in (2, 3):
        raise ValueError(
            f"{name} must have shape (n, d) for one sequence or (N, n, d) for a batch; "
            f"received shape {X.shape}"
        )
    if 0 in X.shape:
        raise ValueError(f"{name} must be non-empty; received shape {X.shape}")
    single = X.ndim == 2
    X3 = X[None] if single else X
    if d is not None and X3.shape[-1] != d:
        expected = f"(n, {d}) or (N, n, {d})"
        raise ValueError(
            f"{name} has token dimension {X3.shape[-1]} (shape {X.shape}) but the heads expect d={d}; "
            f"expected shape {expected}"
        )
    return X3, single


def check_boolean(name: str, X: np.ndarray) -> None:
    """Raise if ``X`` has an entry other than +1 or -1."""
    bad = np.abs(X) != 1.0
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must have entries +1 or -1 (the hypercube); received {X[where]} at index {where}"
        )


def check_choice(name: str, value, choices: tuple[str, ...]) -> str:
    """Raise unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; received {value!r}")
    return value


def check_targets(X, Y, d: int | None = None):
    """Validate a batch X (N, n, d) and targets Y of shape (N, n, d) or (N, d).

    Returns X, Y and a boolean ``last`` that is True for last-token targets.
    """
    X3, single = check_sequences(X, d=d)
    if single:
        raise ValueError(f"X must be a batch of shape (N, n, d); received one sequence of shape {X3.shape[1:]}")
    Y = as_float_array("Y", Y)
    N, n, d = X3.shape
    if Y.shape == (N, n, d):
        return X3, Y, False
    if Y.shape == (N, d):
        return X3, Y, True
    raise ValueError(
        f"Y must have shape {(N, n, d)} (a target at every position) or {(N, d)} "
        f"(last-token targets) for X of shape {X3.shape}; received shape {Y.shape}"
    )


def check_cube_data(X, Y, *, boolean: bool = True, d: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch X (N, n, d) on the hypercube (unless ``boolean=False``) and targets Y of the same shape."""
    X, single = check_sequences(X, d=d)
    if single:
        raise ValueError(f"X must be a batch of shape (N, n, d); received one sequence of shape {X.shape[1:]}")
    if boolean:
        check_boolean("X", X)
    Y = as_float_array("Y", Y)
    if Y.shape != X.shape:
        raise ValueError(
            f"Y must hold the layer's output at every position, shape {X.shape} like X; received shape {Y.shape}"
        )
    return X, Y
