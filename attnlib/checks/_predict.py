"""Predict, then run: compare a reader's prediction with the run (placeholder until the lead's version lands)."""

from __future__ import annotations

import numpy as np


def compare_prediction(prediction, actual, *, what: str = "the result") -> None:
    """Print how close ``prediction`` (a number or a tuple of numbers) came to ``actual``.

    Examples
    --------
    >>> compare_prediction((6, 9), (6, 8), what="the heads")
    the heads: you predicted (6, 9), the run gives (6, 8); 1 of 2 exact, the largest miss is 1.
    """
    pred = np.atleast_1d(np.asarray(prediction, dtype=float))
    got = np.atleast_1d(np.asarray(actual, dtype=float))
    if pred.shape != got.shape:
        print(f"{what}: you predicted {prediction!r}, the run gives {actual!r} (a different number of values).")
        return
    miss = np.abs(pred - got)
    exact = int(np.sum(miss <= 1e-12 * np.maximum(1.0, np.abs(got))))
    if exact == pred.size:
        print(f"{what}: you predicted {prediction!r}, the run gives {actual!r}: exact.")
        return
    if pred.size == 1:
        ratio = float(pred[0] / got[0]) if got[0] != 0 else float("inf")
        print(f"{what}: you predicted {prediction!r}, the run gives {actual!r}; "
              f"your prediction is {ratio:.2g} times the run's value.")
        return
    print(f"{what}: you predicted {prediction!r}, the run gives {actual!r}; "
          f"{exact} of {pred.size} exact, the largest miss is {float(miss.max()):.3g}.")
