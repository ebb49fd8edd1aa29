"""Checks for the coding exercises on the definitions of attention (chapter 1)."""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from ..attention import attention, softmax
from ..heads import Heads
from ._core import Case, case_rng, run_check


@arguments(fn="function")
def check_softmax(fn) -> None:
    """Check a softmax over the last axis: ``fn(S)`` must equal ``attnlib.softmax(S)``.

    Cases include a single row, batches, equal logits, logits of size 1e4, a
    large common shift, and masked (-inf) entries.

    Examples
    --------
    >>> check_softmax(softmax)
    check_softmax: all 7 cases passed.
    """
    rng = case_rng(101)
    inputs = {
        "one row of logits": rng.normal(size=5),
        "a batch of rows": rng.normal(size=(3, 6)),
        "a 3-D array (softmax over the last axis)": rng.normal(size=(2, 3, 4)),
        "equal logits": np.zeros((2, 4)),
        "logits as large as 1e4": np.array([[1e4, 0.0, -1e4, 5e3], [-1e4, -1e4, -1e4, -1e4]]),
        "every logit shifted by 1000": rng.normal(size=(2, 5)) + 1000.0,
        "masked entries (-inf)": np.array([[0.0, -np.inf, 1.0], [-np.inf, 2.0, -np.inf]]),
    }
    cases = [Case(name, (S,), softmax(S)) for name, S in inputs.items()]
    run_check("check_softmax", fn, cases, ["S"], rtol=1e-9, atol=1e-12,
              sizes=lambda case: {"n": case.args[0].shape[-1]},
              slip="subtract each row's maximum before exp (a row of -inf needs a guard), then divide by "
                   "the row's sum, both along the last axis.")


@arguments(fn="function")
def check_attention_head(fn) -> None:
    """Check one softmax head on one sequence: ``fn(X, Theta, W)`` with X (n, d), Theta and W (d, d).

    Examples
    --------
    >>> check_attention_head(lambda X, Theta, W: attention(X, Heads(Theta, W)))
    check_attention_head: all 5 cases passed.
    """
    rng = case_rng(101)
    specs = [("Gaussian tokens, n=5, d=3", rng.normal(size=(5, 3)), 1.0),
             ("Boolean tokens, n=4, d=4", rng.choice([-1.0, 1.0], size=(4, 4)), 1.0),
             ("more dimensions than tokens, n=2, d=6", rng.normal(size=(2, 6)), 1.0),
             ("one token", rng.normal(size=(1, 3)), 1.0),
             ("sharp attention (large Theta)", rng.choice([-1.0, 1.0], size=(4, 3)), 30.0)]
    cases = []
    for name, X, scale in specs:
        d = X.shape[1]
        Theta, W = scale * rng.normal(size=(d, d)) / d, rng.normal(size=(d, d))
        cases.append(Case(name, (X, Theta, W), attention(X, Heads(Theta, W))))

    def variants(case):
        X, Theta, W = case.args
        S = X @ Theta @ X.T
        return {"the head with Theta transposed (scores x_b^T Theta x_a)": softmax(S.T) @ X @ W,
                "the head with the attention matrix A transposed (A^T X W)": softmax(S).T @ X @ W,
                "the head with the softmax taken down the columns instead of along the rows": softmax(S.T).T @ X @ W,
                "the head with Theta and W swapped": softmax(X @ W @ X.T) @ X @ Theta,
                "A X, without the projection W": softmax(S) @ X,
                "X Theta X^T X W, without the softmax": S @ X @ W,
                "the head with scores scaled by 1/sqrt(d)": softmax(S / np.sqrt(X.shape[1])) @ X @ W}

    run_check("check_attention_head", fn, cases, ["X", "Theta", "W"], rtol=1e-8, atol=1e-10, variants=variants,
              sizes=lambda case: dict(zip("nd", case.args[0].shape, strict=True)), axes=("token", "coordinate"),
              slip="A = softmax(X Theta X^T) row by row, output A X W; Theta is fused (it stands for the "
                   "product of query and key matrices), so there is no 1/sqrt(d).")


@arguments(fn="function")
def check_linear_attention(fn) -> None:
    """Check multi-head linear attention on a batch: ``fn(X, Theta, W)`` with X (N, n, d), Theta and W (m, d, d).

    Examples
    --------
    >>> check_linear_attention(lambda X, Theta, W: attention(X, Heads(Theta, W), kind="linear"))
    check_linear_attention: all 5 cases passed.
    """
    rng = case_rng(101)
    specs = [("one head, N=3, n=4, d=3", 3, 4, 3, 1), ("three heads, N=2, n=5, d=4", 2, 5, 4, 3),
             ("one token per sequence", 2, 1, 3, 2), ("d=1", 4, 3, 1, 2), ("d=2, n=7, four heads", 2, 7, 2, 4)]
    cases = []
    for name, N, n, d, m in specs:
        X = rng.normal(size=(N, n, d))
        Theta, W = rng.normal(size=(m, d, d)), rng.normal(size=(m, d, d))
        cases.append(Case(name, (X, Theta, W), attention(X, Heads(Theta, W), kind="linear")))

    def variants(case):
        X, Theta, W = case.args
        return {"the layer with every Theta_i transposed": attention(X, Heads(Theta.swapaxes(1, 2), W), kind="linear"),
                "the layer with every W_i transposed": attention(X, Heads(Theta, W.swapaxes(1, 2)), kind="linear"),
                "the layer with Theta and W swapped": attention(X, Heads(W, Theta), kind="linear"),
                "the causal layer (prefix sums): this check wants every token attending to all n":
                    attention(X, Heads(Theta, W), kind="linear", causal=True)}

    run_check("check_linear_attention", fn, cases, ["X", "Theta", "W"], rtol=1e-8, atol=1e-9, variants=variants,
              sizes=lambda case: {**dict(zip("Nnd", case.args[0].shape, strict=True)), "m": case.args[1].shape[0]},
              axes=("example", "token", "coordinate"),
              slip="F = sum over heads i (not a mean) of X Theta_i X^T X W_i: no softmax, no 1/n, no mask.")


@arguments(fn="function")
def check_softmax_jacobian(fn) -> None:
    """Check the Jacobian of softmax: ``fn(s)`` with s of shape (n,) returns J of shape (n, n).

    ``J[b, c]`` is the derivative of ``softmax(s)[b]`` with respect to ``s[c]``.
    Cases include equal logits, one logit, and logits of size 1e3 (compute it
    stably).

    Examples
    --------
    >>> def jacobian(s):
    ...     p = softmax(s)
    ...     return np.diag(p) - np.outer(p, p)
    >>> check_softmax_jacobian(jacobian)
    check_softmax_jacobian: all 5 cases passed.
    """
    rng = case_rng(101)
    inputs = {
        "five random logits": rng.normal(size=5),
        "equal logits": np.zeros(4),
        "one logit": np.array([0.7]),
        "one large gap": np.array([3.0, -2.0, 0.5]),
        "logits of size 1e3": np.array([1000.0, 999.0, -1000.0, 998.5]),
    }
    cases = []
    for name, s in inputs.items():
        p = softmax(s)
        cases.append(Case(name, (s,), np.diag(p) - np.outer(p, p)))

    def variants(case):
        s = case.args[0]
        p = softmax(s)
        return {"diag(p) alone: the term -p p^T is missing": np.diag(p),
                "diag(p (1 - p)) alone: the off-diagonal entries -p_b p_c are missing": np.diag(p * (1 - p)),
                "the formula applied to the logits s instead of p = softmax(s)": np.diag(s) - np.outer(s, s)}

    run_check("check_softmax_jacobian", fn, cases, ["s"], rtol=1e-8, atol=1e-12, variants=variants,
              sizes=lambda case: {"n": case.args[0].size},
              slip="J = diag(p) - p p^T with p = softmax(s), computed stably (subtract the maximum).")
