"""The gradient baseline: Adam on the squared loss, with hand-derived gradients.

This is what a practitioner would do, and the book compares every provable
learner against it. Both kinds of attention are supported, causal or not, with
targets at every position or at the last token only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ._validation import (
    as_float_array,
    check_choice,
    check_positive_float,
    check_positive_int,
    check_sequences,
)
from .attention import KINDS, _check_heads, _forward
from .heads import Heads, random_heads


def _check_targets(X, Y, d: int | None = None):
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


def _loss_grad(X, Y, last, Theta, W, kind, causal, need_grad=True):
    """Mean squared error over all target entries, and its gradients in Theta and W."""
    F, A, AX = _forward(X, Theta, W, kind, causal)
    N, n, d = X.shape
    if last:
        E = np.zeros_like(F)
        E[:, -1] = F[:, -1] - Y
    else:
        E = F - Y
    count = Y.size
    loss = float(np.sum(E * E) / count)
    if not need_grad:
        return loss, None, None
    m = Theta.shape[0]
    R = 2.0 * E / count  # dL/dF, (N, n, d)
    # dW_i = sum over examples of (A_i X)^T R
    dW = AX.transpose(1, 3, 0, 2).reshape(m, d, N * n) @ R.reshape(N * n, -1)  # (m, d, d)
    # dA_i = R W_i^T X^T
    dA = np.matmul(np.matmul(R[:, None], W.swapaxes(-1, -2)[None]), X[:, None].swapaxes(-1, -2))  # (N, m, n, n)
    if kind == "softmax":
        dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))  # masked entries have A = 0
    else:
        dS = np.tril(dA) if causal else dA
    # dTheta_i = sum over examples of X^T dS_i X
    dTheta = np.matmul(np.matmul(X[:, None].swapaxes(-1, -2), dS), X[:, None]).sum(axis=0)  # (m, d, d)
    return loss, dTheta, dW


def squared_loss(X, Y, heads: Heads, *, kind: str = "softmax", causal: bool = False) -> float:
    """Mean squared error of the layer on (X, Y), averaged over every target entry.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Y : array_like of shape (N, n, d) or (N, d)
        Targets at every position, or at the last token only.
    heads : Heads
    kind : {"softmax", "linear"}
    causal : bool

    Examples
    --------
    >>> heads = random_heads(1, 3, rng=0)
    >>> X = gaussian_inputs(4, 5, 3, rng=1)
    >>> squared_loss(X, attention(X, heads), heads)
    0.0
    """
    heads = _check_heads(heads)
    check_choice("kind", kind, KINDS)
    X, Y, last = _check_targets(X, Y, heads.d)
    return _loss_grad(X, Y, last, heads.Theta, heads.W, kind, bool(causal), need_grad=False)[0]


def loss_and_gradient(X, Y, heads: Heads, *, kind: str = "softmax", causal: bool = False):
    """The squared loss and its exact gradients with respect to Theta and W.

    Returns
    -------
    loss : float
    dTheta, dW : ndarray of shape (m, d, d)

    Notes
    -----
    With residual R = 2 (F - Y) / (number of target entries),
    ``dW_i = sum (A_i X)^T R`` and ``dTheta_i = sum X^T dS_i X``, where
    ``dS_i = A_i * (dA_i - rowsum(dA_i * A_i))`` for softmax and ``dS_i = dA_i``
    (masked if causal) for linear attention, with ``dA_i = R W_i^T X^T``.

    Examples
    --------
    >>> heads = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(4, 5, 3, rng=1)
    >>> loss, dTheta, dW = loss_and_gradient(X, np.zeros((4, 3)), heads)
    >>> dTheta.shape, dW.shape
    ((2, 3, 3), (2, 3, 3))
    """
    heads = _check_heads(heads)
    check_choice("kind", kind, KINDS)
    X, Y, last = _check_targets(X, Y, heads.d)
    return _loss_grad(X, Y, last, heads.Theta, heads.W, kind, bool(causal))


@dataclass(frozen=True)
class TrainResult:
    """What :func:`train` returns; unpacks as ``heads, loss = result``.

    Attributes
    ----------
    heads : Heads
        The trained parameters.
    loss : ndarray of shape (epochs + 1,)
        Training loss before the first step and after every epoch.
    val_loss : ndarray of shape (epochs + 1,) or None
        The same on the validation set, if one was given.
    seconds : float
        Wall-clock time of the run.
    """

    heads: Heads
    loss: np.ndarray
    val_loss: np.ndarray | None
    seconds: float

    def __iter__(self):
        return iter((self.heads, self.loss))


def train(
    X,
    Y,
    m: int | None = None,
    *,
    kind: str = "softmax",
    causal: bool = False,
    epochs: int = 200,
    lr: float = 1e-2,
    batch_size: int | None = None,
    schedule: str = "constant",
    init: Heads | None = None,
    init_scale: float = 1.0,
    X_val=None,
    Y_val=None,
    rng=None,
) -> TrainResult:
    """Fit an m-head attention layer by Adam on the squared loss.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Y : array_like of shape (N, n, d) or (N, d)
        Targets at every position, or last-token targets.
    m : int, optional
        Number of heads of the student. Required unless ``init`` is given.
    kind : {"softmax", "linear"}, default "softmax"
    causal : bool, default False
    epochs : int, default 200
        Passes over the data.
    lr : float, default 1e-2
        Adam step size (beta1 = 0.9, beta2 = 0.999, eps = 1e-8).
    batch_size : int, optional
        Minibatch size; None means full batch (one step per epoch).
    schedule : {"constant", "cosine"}
        Step size held fixed, or decayed to 0 by a cosine over all steps.
    init : Heads, optional
        Starting point; by default ``random_heads(m, d, scale=init_scale, rng=rng)``.
    init_scale : float, default 1.0
    X_val, Y_val : array_like, optional
        A validation set, evaluated after every epoch.
    rng : int, numpy.random.Generator or None
        Drives the initialisation and the minibatch order.

    Returns
    -------
    TrainResult
        ``.heads``, ``.loss`` (per epoch, starting with the initial loss),
        ``.val_loss`` and ``.seconds``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> teacher = random_heads(1, 3, rng=rng)
    >>> X = gaussian_inputs(64, 4, 3, rng=rng)
    >>> heads, loss = train(X, attention(X, teacher, kind="linear"), 1, kind="linear", epochs=50, rng=rng)
    >>> bool(loss[-1] < loss[0])
    True
    """
    rng = np.random.default_rng(rng)
    check_choice("kind", kind, KINDS)
    check_choice("schedule", schedule, ("constant", "cosine"))
    causal = bool(causal)
    epochs = check_positive_int("epochs", epochs)
    lr = check_positive_float("lr", lr)
    X, Y, last = _check_targets(X, Y)
    N, n, d = X.shape
    if init is None:
        if m is None:
            raise ValueError("give the number of heads m, or a starting point init")
        init = random_heads(check_positive_int("m", m), d, scale=init_scale, rng=rng)
    init = _check_heads(init)
    if m is not None and check_positive_int("m", m) != init.m:
        raise ValueError(f"m={m} but init has {init.m} heads")
    if init.d != d:
        raise ValueError(f"init has d={init.d} but X has token dimension d={d} (shape {X.shape})")
    batch = N if batch_size is None else min(check_positive_int("batch_size", batch_size), N)
    val = None
    if X_val is not None or Y_val is not None:
        if X_val is None or Y_val is None:
            raise ValueError("give both X_val and Y_val, or neither")
        val = _check_targets(X_val, Y_val, d)

    params = [init.Theta.copy(), init.W.copy()]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    steps_per_epoch = -(-N // batch)
    total = epochs * steps_per_epoch

    def evaluate(data):
        return _loss_grad(*data, params[0], params[1], kind, causal, need_grad=False)[0]

    def record(history, data):
        history.append(evaluate(data))
        if not np.isfinite(history[-1]):
            raise FloatingPointError(
                f"training diverged: the loss is {history[-1]} after {len(history) - 1} epochs; "
                f"lower lr (now {lr}) or rescale the data"
            )

    start = time.perf_counter()
    history = []
    record(history, (X, Y, last))
    val_history = [evaluate(val)] if val else None
    t = 0
    for _ in range(epochs):
        order = rng.permutation(N) if batch < N else np.arange(N)
        for lo in range(0, N, batch):
            idx = order[lo : lo + batch]
            _, dTheta, dW = _loss_grad(X[idx], Y[idx], last, params[0], params[1], kind, causal)
            t += 1
            step = lr if schedule == "constant" else lr * 0.5 * (1.0 + np.cos(np.pi * (t - 1) / total))
            for p, g, mom, sq in zip(params, (dTheta, dW), moments, squares, strict=False):
                mom *= beta1
                mom += (1 - beta1) * g
                sq *= beta2
                sq += (1 - beta2) * g * g
                p -= step * (mom / (1 - beta1**t)) / (np.sqrt(sq / (1 - beta2**t)) + eps)
        record(history, (X, Y, last))
        if val:
            val_history.append(evaluate(val))
    seconds = time.perf_counter() - start
    return TrainResult(
        heads=Heads(params[0], params[1]),
        loss=np.array(history),
        val_loss=None if val_history is None else np.array(val_history),
        seconds=seconds,
    )
