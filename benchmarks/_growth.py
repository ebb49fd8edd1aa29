"""How a measured cost grows: straight-line fits on log axes, with confidence intervals.

A cost that grows like ``c x^b`` is a straight line of slope b on log-log axes; one that grows
like ``c r^x`` is a straight line of slope log r on log-linear axes. ``growth`` fits either by
ordinary least squares on every measured point (repeats included, so their scatter enters the
interval) and returns the slope with a two-sided Student-t interval. The benchmarks that draw
cost curves (``linear_regression.py``, ``sculpt_cost.py``) store what it returns in their results
files; the chapters draw the points and read the slopes from there.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def growth(x, y, *, log_x: bool = True, confidence: float = 0.95) -> dict:
    """Fit ``log y = a + b * (log x or x)`` by least squares: the slope b and its interval.

    Parameters
    ----------
    x, y : sequences of positive numbers, the same length (at least 3 points, at least 2 distinct x)
    log_x : fit against log x (a power law, b is the exponent) or against x (b = log of the factor per unit)
    confidence : of the two-sided interval

    Returns
    -------
    dict with ``slope``, ``low``, ``high``, ``intercept``, ``points``, ``confidence``, ``log_x``;
    with ``log_x=False`` also ``factor`` = exp(slope) and its interval ``factor_low``, ``factor_high``.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of the same length; received shapes {x.shape} and {y.shape}")
    if x.size < 3 or np.unique(x).size < 2:
        raise ValueError(f"a slope with an interval needs at least 3 points at 2 distinct x; received {x.size} "
                         f"points at {np.unique(x).size} distinct x")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y)) and np.all(y > 0) and (not log_x or np.all(x > 0))):
        raise ValueError("x and y must be finite and positive (x may be any finite number when log_x=False)")
    u = np.log(x) if log_x else x
    v = np.log(y)
    fit = stats.linregress(u, v)
    half = stats.t.ppf(0.5 + confidence / 2, u.size - 2) * fit.stderr
    out = {"slope": float(fit.slope), "low": float(fit.slope - half), "high": float(fit.slope + half),
           "intercept": float(fit.intercept), "points": int(u.size), "confidence": confidence, "log_x": log_x}
    if not log_x:
        out.update(factor=float(np.exp(fit.slope)), factor_low=float(np.exp(out["low"])),
                   factor_high=float(np.exp(out["high"])))
    return out
