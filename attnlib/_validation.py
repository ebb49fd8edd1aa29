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
