"""What the figures' arguments are, beyond the kinds of :mod:`attnlib._arguments`, and their shape checks.

A figure's labels may be empty (an axis without a label), which the ``"text"`` kind refuses:
``LABEL`` is any string, ``OPTLABEL`` any string or None (a title left out). The shape checks
below compare already converted arrays with each other, without scanning their entries again.
"""

from __future__ import annotations

import numpy as np

from .._arguments import Kind
from .._validation import describe


def _label(name, value):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string (a label, possibly empty); received {describe(value)}")
    return value


#: a label: any string, possibly empty
LABEL = Kind("text", _label)
#: a label or None (left out)
OPTLABEL = Kind("text", _label, optional=True)


def one_sequence(X, d: int, where: str, name: str = "X"):
    """``X`` (a float array) as one sequence of shape (n, d) for ``d``-dimensional heads, or a named error."""
    if X.ndim != 2 or 0 in X.shape:
        raise ValueError(f"{name} must be one sequence of shape (n, d), as {where} draws; received shape {X.shape}")
    if X.shape[1] != d:
        raise ValueError(f"{name} has token dimension {X.shape[1]} (shape {X.shape}) but the heads expect d={d}; "
                         f"expected shape (n, {d})")
    return X


def same_length(name: str, series: dict, length: int) -> dict:
    """Every line of ``series`` (a dict of 1-D arrays) has ``length`` points, or a named error."""
    for label, values in series.items():
        if np.shape(values) != (length,):
            raise ValueError(f"{name}[{label!r}] must have shape ({length},); received shape {np.shape(values)}")
    return series
