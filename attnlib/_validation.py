"""Input checks shared by the public functions.

Every public function validates its arguments once, here, and raises a
``ValueError`` or ``TypeError`` that names what was received and what was
expected. Nothing in this module prints.
"""

from __future__ import annotations

import numbers

import numpy as np


def describe(value) -> str:
    """``'abc' (str)``: what a caller passed, for an error message."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as an int, or raise if it is not a positive integer.

    A float (even ``2.0``) or a bool is refused: a size is never one in disguise.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer; received {describe(value)}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer; received {value}")
    return int(value)


def check_nonnegative_int(name: str, value) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= 0 (bools refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 0; received {describe(value)}")
    if value < 0:
        raise ValueError(f"{name} must be an integer >= 0; received {value}")
    return int(value)


def check_positive_float(name: str, value) -> float:
    """Return ``value`` as a float, or raise if it is not a finite positive number."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number; received {describe(value)}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite positive number; received {value}")
    return float(value)


def check_tolerance(name: str, value) -> float:
    """A tolerance: a finite positive number (NaN, inf, 0 and negatives are refused)."""
    return check_positive_float(name, value)


def check_real(name: str, value, *, low: float | None = None, high: float | None = None) -> float:
    """Return ``value`` as a finite float in ``[low, high]`` (either bound optional)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; received {describe(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; received {value}")
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name} must lie in [{lo}, {hi}]; received {value:g}")
    return value


def check_flag(name: str, value) -> bool:
    """Return ``value`` as a bool; only ``True``/``False`` (numpy booleans included) are accepted.

    A truthy string such as ``"False"`` is refused rather than read as True.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; received {describe(value)}")
    return bool(value)


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``None``, an int >= 0 or a Generator (returned as is)."""
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng(rng)
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, numbers.Integral):
        raise TypeError(
            f"{name} must be None, an integer seed >= 0 or a numpy.random.Generator; received {describe(rng)}"
        )
    if rng < 0:
        raise ValueError(f"{name} must be None, an integer seed >= 0 or a numpy.random.Generator; received {rng}")
    return np.random.default_rng(int(rng))


def check_array_dtype(name: str, A) -> np.ndarray:
    """``A`` as an array of real numbers (bool, int or float), refusing None, text, objects and complex."""
    if A is None:
        raise TypeError(f"{name} must be an array of real numbers; received None")
    if isinstance(A, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be an array of numbers (real); received a {type(A).__name__}")
    try:
        arr = np.asarray(A)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of real numbers; received {type(A).__name__} ({err})") from None
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} must be real; received a complex array of shape {arr.shape}")
    if kind not in "biuf":
        what = {"U": "strings", "S": "bytes", "O": "Python objects (None or mixed types?)"}.get(kind, arr.dtype)
        raise TypeError(f"{name} must be an array of real numbers; received an array of {what}")
    return arr


def check_int_array(name: str, values, *, low: int | None = None, upper: int | None = None) -> np.ndarray:
    """``values`` as an int64 array, refusing floats (even integral ones), bools, text and None.

    With ``low`` and ``upper`` every entry must lie in ``low .. upper - 1``.
    """
    arr = check_array_dtype(name, values)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers; received an array of dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and ((low is not None and arr.min() < low) or (upper is not None and arr.max() >= upper)):
        lo = "-inf" if low is None else low
        hi = "inf" if upper is None else upper - 1
        raise ValueError(f"{name} must lie in {lo} .. {hi}; received values {arr.min()} .. {arr.max()}")
    return arr


def as_float_array(name: str, A, *, allow_neg_inf: bool = False) -> np.ndarray:
    """Convert ``A`` to a float64 array and check that every entry is finite.

    ``None``, strings, arrays of objects and complex arrays are refused with a
    ``TypeError`` naming ``name``. With ``allow_neg_inf`` the value ``-inf`` is
    accepted (a masked logit).
    """
    arr = check_array_dtype(name, A).astype(np.float64, copy=False)
    bad = np.isnan(arr) | (arr == np.inf) if allow_neg_inf else ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        allowed = "finite or -inf" if allow_neg_inf else "finite"
        raise ValueError(
            f"{name} must be {allowed}; received {arr[where]} at index {where} "
            f"({int(bad.sum())} bad entries in an array of shape {arr.shape})"
        )
    return arr


def check_instance(name: str, value, cls, where: str = ""):
    """Return ``value`` if it is an instance of ``cls``, else a TypeError naming ``name`` (and ``where`` from)."""
    if not isinstance(value, cls):
        source = f" (from {where})" if where else ""
        raise TypeError(f"{name} must be a {cls.__name__}{source}; received {describe(value)}")
    return value


def check_mapping(name: str, value, *, of=None, where: str = "") -> dict:
    """A non-empty dict of label -> entry, as a figure draws one line or panel per entry.

    With ``of`` (a class or tuple of classes), every entry must be an instance of it.
    """
    if not isinstance(value, dict):
        raise TypeError(
            f"{name} must be a dict of label -> entry, one per line or panel; received {describe(value)}"
        )
    if not value:
        raise ValueError(f"{name} must have at least one entry; received an empty dict")
    if of is not None:
        for label, entry in value.items():
            if not isinstance(entry, of):
                kinds = of.__name__ if isinstance(of, type) else " or ".join(c.__name__ for c in of)
                source = f" (from {where})" if where else ""
                raise TypeError(f"{name}[{label!r}] must be a {kinds}{source}; received {describe(entry)}")
    return value


def check_series(name: str, series, *, length: int | None = None) -> dict:
    """A dict of label -> 1-D array of real numbers (each of ``length`` entries, if given), as for a figure.

    NaN is allowed (a gap in a line); None, text, objects and complex numbers are not.
    """
    if not isinstance(series, dict):
        raise TypeError(f"{name} must be a dict of label -> 1-D array; received {describe(series)}")
    if not series:
        raise ValueError(f"{name} must have at least one line (label -> 1-D array); received an empty dict")
    out = {}
    for label, values in series.items():
        arr = check_array_dtype(f"{name}[{label!r}]", values).astype(float)
        if arr.ndim != 1 or (length is not None and arr.size != length):
            want = f"shape ({length},)" if length is not None else "a 1-D array"
            raise ValueError(f"{name}[{label!r}] must have {want}; received shape {arr.shape}")
        out[label] = arr
    return out


def check_axis_values(name: str, values) -> np.ndarray:
    """A non-empty 1-D array of finite real numbers: the positions along a figure's axis."""
    arr = as_float_array(name, values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array; received shape {arr.shape}")
    return arr


def check_sequences(X, *, d: int | None = None, name: str = "X") -> tuple[np.ndarray, bool]:
    """Validate a sequence or a batch of sequences.

    Returns the batch as an array of shape (N, n, d) and whether the input was a
    single sequence of shape (n, d).
    """
    return sequences_shape(as_float_array(name, X), d=d, name=name)


def sequences_shape(X: np.ndarray, *, d: int | None = None, name: str = "X") -> tuple[np.ndarray, bool]:
    """:func:`check_sequences` of an array whose entries are checked already: its shape only.

    For a body whose argument was declared (``attnlib._arguments``): the entries are not scanned again.
    """
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
    """Raise unless ``value`` is one of ``choices`` (the one message format for choices)."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; received {value!r}")
    return value


def check_targets(X, Y, d: int | None = None):
    """Validate a batch X (N, n, d) and targets Y of shape (N, n, d) or (N, d).

    Returns X, Y and a boolean ``last`` that is True for last-token targets.
    """
    return targets_shape(as_float_array("X", X), as_float_array("Y", Y), d)


def targets_shape(X: np.ndarray, Y: np.ndarray, d: int | None = None, names: tuple[str, str] = ("X", "Y")):
    """:func:`check_targets` of arrays whose entries are checked already: their shapes only."""
    x_name, y_name = names
    X3, single = sequences_shape(X, d=d, name=x_name)
    if single:
        raise ValueError(f"{x_name} must be a batch of shape (N, n, d); received one sequence of shape "
                         f"{X3.shape[1:]}")
    N, n, d = X3.shape
    if Y.shape == (N, n, d):
        return X3, Y, False
    if Y.shape == (N, d):
        return X3, Y, True
    raise ValueError(
        f"{y_name} must have shape {(N, n, d)} (a target at every position) or {(N, d)} "
        f"(last-token targets) for {x_name} of shape {X3.shape}; received shape {Y.shape}"
    )


def check_cube_data(X, Y, *, boolean: bool = True, d: int | None = None,
                    names: tuple[str, str] = ("X", "Y")) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch X (N, n, d) on the hypercube (unless ``boolean=False``) and targets Y of the same shape."""
    x_name, y_name = names
    X = as_float_array(x_name, X)
    if boolean:
        check_boolean(x_name, X)
    return cube_data_shape(X, as_float_array(y_name, Y), d=d, names=names)


def cube_data_shape(X: np.ndarray, Y: np.ndarray, *, d: int | None = None,
                    names: tuple[str, str] = ("X", "Y")) -> tuple[np.ndarray, np.ndarray]:
    """:func:`check_cube_data` of arrays whose entries are checked already: a batch X and Y of its shape."""
    x_name, y_name = names
    X, single = sequences_shape(X, d=d, name=x_name)
    if single:
        raise ValueError(f"{x_name} must be a batch of shape (N, n, d); received one sequence of shape {X.shape[1:]}")
    Y = np.asarray(Y)
    if Y.shape != X.shape:
        raise ValueError(
            f"{y_name} must hold the layer's output at every position, shape {X.shape} like X; received shape {Y.shape}"
        )
    return X, Y


def wrap_fields(name: str, fields: list[str], width: int = 79) -> str:
    """``name(field, field, ...)``, broken after a comma into lines of at most ``width`` characters.

    For the ``__repr__`` of results that chapters print: the book's code column holds 79
    characters, and a longer line would be cut off at the edge of the page. A single field
    longer than the width keeps its own line.

    >>> print(wrap_fields("Fit", ["a=1", "b=2"], width=12))
    Fit(a=1,
        b=2)
    """
    indent = " " * (len(name) + 1)
    lines, line = [], name + "("
    for k, field in enumerate(fields):
        piece = field + ("," if k < len(fields) - 1 else ")")
        if line.endswith("(") or len(line) + 1 + len(piece) <= width:
            line += ("" if line.endswith("(") else " ") + piece
        else:
            lines.append(line)
            line = indent + piece
    if not fields:
        line += ")"
    return "\n".join([*lines, line])
