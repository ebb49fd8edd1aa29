"""Checks for the coding exercises on the loss and its gradients (chapter 2)."""

from __future__ import annotations

import numpy as np

from ..heads import Heads
from ..training import loss_and_gradient
from ._core import Case, run_check


def check_linear_attention_gradient(fn) -> None:
    """Check the gradient of the squared loss of linear attention.

    ``fn(X, Y, Theta, W)`` gets X and Y of shape (N, n, d) and Theta, W of shape
    (m, d, d), and returns ``(dTheta, dW)``, the gradients of
    ``mean((F(X) - Y)**2)`` (mean over every entry, non-causal,
    ``F = attention(X, Heads(Theta, W), kind="linear")``).

    Examples
    --------
    >>> def reference(X, Y, Theta, W):
    ...     _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear")
    ...     return dTheta, dW
    >>> check_linear_attention_gradient(reference)
    check_linear_attention_gradient: all 4 cases passed.
    """
    rng = np.random.default_rng(20260102)
    specs = [("one head, N=3, n=4, d=3", 3, 4, 3, 1), ("two heads, N=5, n=3, d=2", 5, 3, 2, 2),
             ("one example", 1, 4, 3, 2), ("non-symmetric Theta, d=4", 2, 5, 4, 1)]
    cases = []
    for name, N, n, d, m in specs:
        X, Y = rng.normal(size=(N, n, d)), rng.normal(size=(N, n, d))
        Theta, W = rng.normal(size=(m, d, d)), rng.normal(size=(m, d, d))
        _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear")
        cases.append(Case(name, (X, Y, Theta, W), (dTheta, dW), names=("dTheta", "dW")))
    run_check("check_linear_attention_gradient", fn, cases, ["X", "Y", "Theta", "W"], rtol=1e-7, atol=1e-9)
