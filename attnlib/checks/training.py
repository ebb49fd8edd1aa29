"""Checks for the coding exercises on the loss and its gradients (chapter 2)."""

from __future__ import annotations

from .._arguments import arguments
from ..heads import Heads
from ..training import loss_and_gradient
from ._core import Case, case_rng, run_check


@arguments(fn="function")
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
    rng = case_rng(102)
    specs = [("one head, N=3, n=4, d=3", 3, 4, 3, 1), ("two heads, N=5, n=3, d=2", 5, 3, 2, 2),
             ("one example", 1, 4, 3, 2), ("non-symmetric Theta, d=4", 2, 5, 4, 1)]
    cases = []
    for name, N, n, d, m in specs:
        X, Y = rng.normal(size=(N, n, d)), rng.normal(size=(N, n, d))
        Theta, W = rng.normal(size=(m, d, d)), rng.normal(size=(m, d, d))
        _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear")
        cases.append(Case(name, (X, Y, Theta, W), (dTheta, dW), names=("dTheta", "dW")))

    def variants(case):
        X, Y, Theta, W = case.args
        _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear", causal=True)
        return {"the gradient of the causal layer (prefix sums): this loss is non-causal": (dTheta, dW)}

    run_check("check_linear_attention_gradient", fn, cases, ["X", "Y", "Theta", "W"], rtol=1e-7, atol=1e-9,
              sizes=_sizes, variants=variants,
              slip="the loss is a mean over all N n d entries, so dL/dF = 2 (F - Y) / (N n d); "
                   "dTheta_i = sum X^T E W_i^T G and dW_i = sum G Theta_i^T X^T E with G = X^T X.")


@arguments(fn="function")
def check_gradient_descent(fn) -> None:
    """Check plain gradient descent on the squared loss of linear attention.

    ``fn(X, Y, Theta, W, step, steps)`` gets X and Y of shape (N, n, d), a
    starting layer Theta, W of shape (m, d, d), a fixed step size and a number
    of steps, and returns ``(Theta, W)`` after ``steps`` updates
    ``Theta <- Theta - step * dTheta``, ``W <- W - step * dW``, both gradients
    taken at the current point (the loss of
    :func:`~attnlib.checks.check_linear_attention_gradient`). It must not change
    its inputs in place: copy them first.

    Examples
    --------
    A step uphill is caught on the first case:

    >>> from attnlib.checks import CheckFailure
    >>> def ascend(X, Y, Theta, W, step, steps):
    ...     for _ in range(steps):
    ...         _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear")
    ...         Theta, W = Theta + step * dTheta, W + step * dW
    ...     return Theta, W
    >>> try:
    ...     check_gradient_descent(ascend)
    ... except CheckFailure as failure:
    ...     print(failure)
    check_gradient_descent: on case 'one step, one head (step=0.05, steps=1)' (X of shape (4, 3, 2), Y of
    shape (4, 3, 2), Theta of shape (1, 2, 2), W of shape (1, 2, 2), step=0.05, steps=1), Theta at index (0,
    1, 1) is 0.393424; expected 0.295899 (4 of 4 entries differ). Your Theta equals gradient ascent (Theta +
    step * dTheta): the step must go downhill. Common slip: copy Theta and W first, step downhill (minus
    step times the gradient), take both gradients at the current point, and make exactly `steps` updates.
    """
    rng = case_rng(103)
    specs = [("one step, one head", 4, 3, 2, 1, 0.05, 1), ("five steps, two heads", 3, 4, 3, 2, 0.02, 5),
             ("zero steps", 2, 3, 2, 1, 0.1, 0), ("twenty small steps", 5, 3, 2, 2, 0.01, 20)]
    cases = []
    for name, N, n, d, m, step, steps in specs:
        X, Y = rng.normal(size=(N, n, d)), rng.normal(size=(N, n, d))
        Theta, W = 0.5 * rng.normal(size=(m, d, d)), 0.5 * rng.normal(size=(m, d, d))
        T, V = Theta, W
        for _ in range(steps):
            _, dTheta, dW = loss_and_gradient(X, Y, Heads(T, V), kind="linear")
            T, V = T - step * dTheta, V - step * dW
        cases.append(Case(f"{name} (step={step}, steps={steps})", (X, Y, Theta, W, step, steps), (T, V),
                          names=("Theta", "W")))

    def descend(X, Y, T, V, step, steps, sequential=False):
        for _ in range(steps):
            _, dTheta, dW = loss_and_gradient(X, Y, Heads(T, V), kind="linear")
            T = T - step * dTheta
            if sequential:
                _, _, dW = loss_and_gradient(X, Y, Heads(T, V), kind="linear")
            V = V - step * dW
        return T, V

    def variants(case):
        X, Y, Theta, W, step, steps = case.args
        return {"gradient ascent (Theta + step * dTheta): the step must go downhill": descend(X, Y, Theta, W, -step,
                                                                                              steps),
                f"{steps + 1} steps, one too many": descend(X, Y, Theta, W, step, steps + 1),
                f"{steps - 1} steps, one too few": descend(X, Y, Theta, W, step, steps - 1) if steps else None,
                "updates in sequence, dW taken at the new Theta: take both gradients at the current point":
                    descend(X, Y, Theta, W, step, steps, sequential=True)}

    run_check("check_gradient_descent", fn, cases, ["X", "Y", "Theta", "W", "step", "steps"], rtol=1e-7,
              atol=1e-10, variants=variants, sizes=_sizes,
              slip="copy Theta and W first, step downhill (minus step times the gradient), take both "
                   "gradients at the current point, and make exactly `steps` updates.")


def _sizes(case):
    X, _, Theta = case.args[:3]
    N, n, d = X.shape
    return {"N": N, "n": n, "d": d, "m": Theta.shape[0], "N n d": N * n * d, "n d": n * d}
