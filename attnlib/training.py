"""The gradient baseline: Adam on the squared loss, with hand-derived gradients.

This is what a practitioner would do, and the book compares every provable
learner against it. Both kinds of attention are supported, causal or not, with
targets at every position or at the last token only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ._arguments import arguments, choice
from ._validation import targets_shape
from .attention import KINDS, forward
from .heads import Heads, random_heads

# loss_and_gradient_arrays is package-internal: the learners' kernel, not part of the reader's API
__all__ = ["TrainResult", "loss_and_gradient", "squared_loss", "train"]

#: the learning-rate schedules of :func:`train`
SCHEDULES = ("constant", "cosine")


def loss_and_gradient_arrays(X, Y, last, Theta, W, kind, causal, need_grad=True):
    """:func:`loss_and_gradient` on arrays that are already checked (the learners' inner loop).

    Parameters
    ----------
    X : ndarray of shape (N, n, d)
    Y : ndarray of shape (N, n, d), or (N, d) if ``last``
    last : bool
        Whether ``Y`` holds last-token targets.
    Theta, W : ndarray of shape (m, d, d)
    kind : {"softmax", "linear"}
    causal : bool
    need_grad : bool, default True
        False: compute the loss only, and return None for both gradients.

    Returns
    -------
    loss : float
        Mean squared error over every target entry.
    dTheta, dW : ndarray of shape (m, d, d), or None

    Examples
    --------
    >>> from attnlib.training import loss_and_gradient_arrays
    >>> heads = random_heads(1, 3, rng=0)
    >>> X = gaussian_inputs(4, 5, 3, rng=1)
    >>> loss_and_gradient_arrays(X, np.zeros((4, 3)), True, heads.Theta, heads.W, "linear", False)[0] > 0
    True
    """
    F, A, AX = forward(X, Theta, W, kind, causal)
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


@arguments(X="array", Y="array", heads="heads", kind=choice(*KINDS), causal="flag")
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
    X, Y, last = targets_shape(X, Y, heads.d)
    with np.errstate(over="ignore", invalid="ignore"):
        loss = loss_and_gradient_arrays(X, Y, last, heads.Theta, heads.W, kind, causal, need_grad=False)[0]
    return _representable(loss)


@arguments(X="array", Y="array", heads="heads", kind=choice(*KINDS), causal="flag")
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
    X, Y, last = targets_shape(X, Y, heads.d)
    with np.errstate(over="ignore", invalid="ignore"):
        loss, dTheta, dW = loss_and_gradient_arrays(X, Y, last, heads.Theta, heads.W, kind, causal)
    _representable(loss, dTheta, dW)
    return loss, dTheta, dW


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


@arguments(X="array", Y="array", m="optsize", kind=choice(*KINDS), causal="flag", epochs="size", lr="tol",
           batch_size="optsize", schedule=choice(*SCHEDULES), init="optheads",
           init_scale="tol", X_val="optarray", Y_val="optarray", rng="rng")
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
    data = targets_shape(X, Y)
    X, Y, last = data
    N, _, d = X.shape
    init = _initial_heads(m, init, init_scale, d, X.shape, rng)
    batch = N if batch_size is None else min(batch_size, N)
    val = _validation_set(X_val, Y_val, d)

    adam = _Adam([init.Theta.copy(), init.W.copy()])
    total = epochs * -(-N // batch)

    def loss_on(data):
        return loss_and_gradient_arrays(*data, *adam.params, kind, causal, need_grad=False)[0]

    start = time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):
        first = loss_on(data)
    if not np.isfinite(first):  # before any step: the data, not the learning rate, are to blame
        raise ValueError(
            f"the squared loss of the initial layer on X, Y overflows float64 (X has entries up to "
            f"{np.max(np.abs(X)):.3g}, Y up to {np.max(np.abs(Y)):.3g}; the loss is quadratic in the outputs, "
            f"and linear attention's outputs are cubic in X); rescale X and Y, e.g. Y / Y.std()"
        )
    history = [first]
    val_history = [loss_on(val)] if val else None
    for epoch in range(1, epochs + 1):
        order = rng.permutation(N) if batch < N else np.arange(N)
        for lo in range(0, N, batch):
            idx = order[lo : lo + batch]
            _, dTheta, dW = loss_and_gradient_arrays(X[idx], Y[idx], last, *adam.params, kind, causal)
            step = lr if schedule == "constant" else lr * 0.5 * (1.0 + np.cos(np.pi * adam.t / total))
            adam.step((dTheta, dW), step)
        history.append(_finite(loss_on(data), epoch, lr))
        if val:
            val_history.append(loss_on(val))
    seconds = time.perf_counter() - start
    return TrainResult(
        heads=Heads(*adam.params),
        loss=np.array(history),
        val_loss=None if val_history is None else np.array(val_history),
        seconds=seconds,
    )


def _initial_heads(m, init, init_scale, d: int, shape, rng) -> Heads:
    """The starting point of :func:`train`: ``init``, or m random heads, checked against the data."""
    if init is None:
        if m is None:
            raise ValueError("give the number of heads m, or a starting point init")
        init = random_heads(m, d, scale=init_scale, rng=rng)
    if m is not None and m != init.m:
        raise ValueError(f"m={m} but init has {init.m} heads")
    if init.d != d:
        raise ValueError(f"init has d={init.d} but X has token dimension d={d} (shape {shape})")
    return init


def _validation_set(X_val, Y_val, d: int):
    """The checked validation set (X, Y, last) of :func:`train`, or None."""
    if X_val is None and Y_val is None:
        return None
    if X_val is None or Y_val is None:
        raise ValueError("give both X_val and Y_val, or neither")
    return targets_shape(X_val, Y_val, d, names=("X_val", "Y_val"))


def _representable(loss: float, *grads: np.ndarray) -> float:
    """``loss``, after checking that it and the gradients did not overflow float64."""
    if not (np.isfinite(loss) and all(np.isfinite(g).all() for g in grads)):
        raise ValueError(
            "the squared loss of X, Y and heads overflows float64 (it is quadratic in the outputs); "
            "rescale X, Y or the heads"
        )
    return loss


def _finite(loss: float, epoch: int, lr: float) -> float:
    if not np.isfinite(loss):
        raise FloatingPointError(
            f"training diverged: the loss is {loss} after {epoch} epochs; lower lr (now {lr}) or rescale the data"
        )
    return loss


class _Adam:
    """Adam (beta1 = 0.9, beta2 = 0.999, eps = 1e-8) on a list of arrays, updated in place."""

    beta1, beta2, eps = 0.9, 0.999, 1e-8

    def __init__(self, params: list):
        self.params = params
        self.moments = [np.zeros_like(p) for p in params]
        self.squares = [np.zeros_like(p) for p in params]
        self.t = 0  # steps taken

    def step(self, grads, lr: float) -> None:
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        for p, g, mom, sq in zip(self.params, grads, self.moments, self.squares, strict=True):
            mom *= b1
            mom += (1 - b1) * g
            sq *= b2
            sq += (1 - b2) * g * g
            p -= lr * (mom / (1 - b1**self.t)) / (np.sqrt(sq / (1 - b2**self.t)) + self.eps)
