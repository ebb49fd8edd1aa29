"""Predict, then run: say how close a learner's prediction was to what the run gives.

A predict-then-run exercise asks for ``prediction = ...`` before the code runs; the run cell
ends with :func:`compare_prediction`, which prints what was predicted and what the run gives,
and a verdict, for each value. It never raises on a wrong prediction (a prediction is not an
answer to grade), only on a prediction of the wrong kind.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._arguments import arguments, structure

__all__ = ["compare_prediction"]

#: Two numbers this close (relative) count as the same prediction.
CLOSE = 1e-9


def _kind(value, name: str):
    """``value`` as a tuple of scalars (bool, str or real number), or a TypeError naming ``name``."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold numbers or booleans, got an array of dtype {value.dtype}")
        value = tuple(value.ravel().tolist())
    elif isinstance(value, (list, tuple)):
        value = tuple(value)
    else:
        value = (value,)
    out = []
    for item in value:
        if isinstance(item, np.generic):
            item = item.item()
        if isinstance(item, (bool, str)):
            out.append(item)
        elif isinstance(item, numbers.Real):
            if not np.isfinite(item):
                raise ValueError(f"{name} must be finite, got {item!r}")
            out.append(float(item))
        else:
            raise TypeError(f"{name} must be a number, a boolean, a word, or a tuple of them; "
                            f"got {type(item).__name__} {item!r}")
    return tuple(out)


def _number(x: float) -> str:
    return f"{x:.4g}"


def _one(predicted, actual) -> tuple[str, str]:
    """(what was predicted and what the run gives, the verdict)."""
    if isinstance(actual, (str, bool)) or isinstance(predicted, (str, bool)):
        if isinstance(actual, str) or isinstance(predicted, str):
            same = str(predicted).strip().lower() == str(actual).strip().lower()
            said = f"you predicted {predicted!r}, the run gives {actual!r}"
        else:
            same = bool(predicted) == bool(actual)
            said = f"you predicted {predicted}, the run gives {actual}"
        return said, "right." if same else "not this time."
    said = f"you predicted {_number(predicted)}, the run gives {_number(actual)}"
    scale = max(abs(predicted), abs(actual))
    if abs(predicted - actual) <= CLOSE * scale:
        return said, "exactly right."
    off = f"off by {_number(abs(predicted - actual))}"
    if actual != 0 and predicted != 0 and np.sign(actual) == np.sign(predicted):
        ratio = actual / predicted
        off += (f" (the run is {_number(ratio)} times yours)" if ratio >= 1
                else f" (the run is 1/{_number(1 / ratio)} of yours)")
    elif actual != 0 and predicted != 0:
        off += " (the sign is the other one)"
    return said, off + "."


_VALUES = structure("a number, boolean or word, or a tuple, list or array of them")


@arguments(prediction=_VALUES, actual=_VALUES, what="text")
def compare_prediction(prediction, actual, *, what: str = "the result") -> None:
    """Print how close ``prediction`` was to ``actual``, the value the run computed.

    Parameters
    ----------
    prediction : number, bool, str, or a tuple, list or array of them
        What the learner predicted before running. ``None`` or ``...`` (the exercise's blank)
        prints a reminder to predict first.
    actual : the same kind and length as ``prediction``
        What the run gives.
    what : str
        What is predicted, in words, for the message (``"the number of heads"``).

    Raises
    ------
    TypeError
        If a value is not a number, boolean or word, or ``what`` is not a non-empty string.
    ValueError
        If the two have different lengths, or a number is not finite.

    Examples
    --------
    >>> compare_prediction(6, 6, what="the number of heads")
    the number of heads:
      you predicted 6, the run gives 6
        exactly right.
    >>> compare_prediction((2, 0.5), (2, 0.25), what="the two slopes")
    the two slopes:
      value 1: you predicted 2, the run gives 2
        exactly right.
      value 2: you predicted 0.5, the run gives 0.25
        off by 0.25 (the run is 1/2 of yours).
    """
    if prediction is None or prediction is Ellipsis:
        print(f"{what}:\n  write your prediction first (prediction = ...), then run this cell again.")
        return
    got, want = _kind(prediction, "prediction"), _kind(actual, "actual")
    if len(got) != len(want):
        raise ValueError(f"prediction has {len(got)} value(s) but actual has {len(want)}: "
                         f"predict one value for each ({what})")
    print(f"{what}:")
    for i, (g, w) in enumerate(zip(got, want, strict=True), start=1):
        said, verdict = _one(g, w)
        print(f"  {f'value {i}: ' if len(want) > 1 else ''}{said}")
        print(f"    {verdict}")
