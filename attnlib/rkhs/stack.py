"""Stacks of causal linear-attention layers, with optional MLP sublayers, trained by Adam (the layers arm of Fig. 1).

Layer l reads the residual stream H_l (rows are tokens) and adds to it:

    H_l' = H_l + sum_i causal(H_l Theta_i H_l^T) H_l W_i          (attention)
    H_{l+1} = H_l' + relu(H_l' P) Q                              (MLP, if ``mlp``)

and the prediction is what the layers add, ``H_L - X``. With one layer and no
MLP this is exactly :func:`attnlib.attention` with ``kind="linear", causal=True``,
so the heads arm and the layers arm fit the same targets with the same loss.
Gradients are written out by hand (the backward rule of each sublayer next to
its forward rule); :func:`stack_loss_and_gradient` exposes them for tests.
No layer norm: a "Transformer-style" stack here means attention plus MLP
sublayers on a residual stream, at reduced scale.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance
from .._validation import cube_data_shape, sequences_shape

__all__ = ["Stack", "StackRun", "init_stack", "stack_forward", "stack_loss_and_gradient", "train_stack"]


@dataclass(frozen=True, eq=False)
class Stack:
    """Parameters of a stack: per layer, attention matrices and projections, and MLP weights.

    Attributes
    ----------
    Theta, W : list of ndarray of shape (m, d, d)
        One entry per layer.
    P, Q : list of ndarray of shape (d, h) and (h, d), or empty lists
        MLP weights per layer (empty without MLP sublayers).
    """

    Theta: list
    W: list
    P: list
    Q: list

    @property
    def layers(self) -> int:
        return len(self.Theta)

    def params(self) -> list:
        return [*self.Theta, *self.W, *self.P, *self.Q]

    def __repr__(self) -> str:
        m, d = self.Theta[0].shape[:2]
        return f"Stack(layers={self.layers}, heads={m}, d={d}, mlp={bool(self.P)})"


@arguments(d="size", layers="size", heads="size", mlp="flag", hidden="optsize", scale="tol", rng="rng")
def init_stack(d: int, *, layers: int = 2, heads: int = 1, mlp: bool = False, hidden: int | None = None,
               scale: float = 1.0, rng=None) -> Stack:
    """A random stack: Gaussian entries of variance scale^2 / d (attention) and 1 / fan-in (MLP).

    Examples
    --------
    >>> from attnlib.rkhs.stack import init_stack
    >>> init_stack(3, layers=2, heads=2, mlp=True, rng=0)
    Stack(layers=2, heads=2, d=3, mlp=True)
    """
    h = 4 * d if hidden is None else hidden
    s = scale / np.sqrt(d)
    Theta = [s * rng.standard_normal((heads, d, d)) for _ in range(layers)]
    W = [s * rng.standard_normal((heads, d, d)) for _ in range(layers)]
    P = [rng.standard_normal((d, h)) / np.sqrt(d) for _ in range(layers)] if mlp else []
    Q = [rng.standard_normal((h, d)) / np.sqrt(h) for _ in range(layers)] if mlp else []
    return Stack(Theta, W, P, Q)


def _attention(H, Theta, W, mask):
    # batched matmuls rather than einsum: the arrays are small, and einsum's path search would cost more
    # than the products
    Hm = H[:, None]                                                                  # (B, 1, n, d)
    S = (Hm @ Theta) @ Hm.swapaxes(-1, -2) * mask                                    # (B, m, n, n) causal scores
    HW = Hm @ W                                                                      # (B, m, n, d)
    return (S @ HW).sum(axis=1), S, HW                                               # (B, n, d)


#: a stack of the library's making
STACK = instance(Stack, where="init_stack or train_stack")


@arguments(stack=STACK, X="array")
def stack_forward(stack: Stack, X):
    """The prediction ``H_L - X`` at every token, shape (N, n, d).

    Examples
    --------
    >>> from attnlib import attention, gaussian_inputs, random_heads
    >>> from attnlib.rkhs.stack import Stack, stack_forward
    >>> heads = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(4, 5, 3, rng=1)
    >>> one = Stack([heads.Theta], [heads.W], [], [])
    >>> bool(np.allclose(stack_forward(one, X), attention(X, heads, kind="linear", causal=True)))
    True
    """
    X = _stack_inputs(stack, X)
    return _forward(stack, X)[0] - X


def _stack_inputs(stack, X):
    """A batch X (N, n, d) of the stack's width (both declared: shapes only)."""
    d = stack.Theta[0].shape[-1]
    X, single = sequences_shape(X, d=d)
    if single:
        raise ValueError(f"X must be a batch of shape (N, n, {d}); received one sequence of shape {X.shape[1:]}")
    return X


def _forward(stack: Stack, X):
    n = X.shape[1]
    mask = np.tril(np.ones((n, n)))
    H, cache = X, []
    for layer in range(stack.layers):
        A, S, HW = _attention(H, stack.Theta[layer], stack.W[layer], mask)
        H1 = H + A
        entry = {"H": H, "S": S, "HW": HW, "H1": H1}
        if stack.P:
            Z = H1 @ stack.P[layer]                                    # (B, n, h)
            entry["Z"] = Z
            H1 = H1 + np.maximum(Z, 0.0) @ stack.Q[layer]
        cache.append(entry)
        H = H1
    return H, cache, mask


@arguments(stack=STACK, X="array", Y="array")
def stack_loss_and_gradient(stack: Stack, X, Y):
    """Mean squared error of the stack on targets at every token, and its gradient.

    Returns
    -------
    loss : float
    grads : Stack
        Gradients, in the same layout as the parameters.

    Examples
    --------
    >>> from attnlib.rkhs.stack import init_stack, stack_loss_and_gradient
    >>> stack = init_stack(2, layers=2, mlp=True, rng=0)
    >>> X = np.random.default_rng(1).standard_normal((3, 4, 2))
    >>> loss, grads = stack_loss_and_gradient(stack, X, np.zeros_like(X))
    >>> [g.shape for g in grads.params()][:2]
    [(1, 2, 2), (1, 2, 2)]
    """
    X, Y = cube_data_shape(_stack_inputs(stack, X), Y)
    H, cache, mask = _forward(stack, X)
    R = H - X - Y
    loss = float(np.mean(R**2))
    dH = 2.0 * R / R.size
    gT, gW, gP, gQ = [None] * stack.layers, [None] * stack.layers, [None] * stack.layers, [None] * stack.layers
    for layer in reversed(range(stack.layers)):
        c = cache[layer]
        if stack.P:                                                    # MLP: H_out = H1 + relu(H1 P) Q
            Z, H1 = c["Z"], c["H1"]
            act = np.maximum(Z, 0.0)
            gQ[layer] = act.reshape(-1, act.shape[-1]).T @ dH.reshape(-1, dH.shape[-1])           # (h, d)
            dZ = (dH @ stack.Q[layer].T) * (Z > 0)
            gP[layer] = H1.reshape(-1, H1.shape[-1]).T @ dZ.reshape(-1, dZ.shape[-1])             # (d, h)
            dH = dH + dZ @ stack.P[layer].T
        # attention: H1 = H + sum_i S_i (H W_i), S_i = mask * (H Theta_i H^T)
        Hl, S, HW = c["H"], c["S"], c["HW"]
        Theta, W = stack.Theta[layer], stack.W[layer]
        Hm, dHm = Hl[:, None], dH[:, None]                                            # (B, 1, n, d)
        HmT = Hm.swapaxes(-1, -2)                                                     # (B, 1, d, n)
        StdH = S.swapaxes(-1, -2) @ dHm                                               # (B, m, n, d): S_i^T dH
        gW[layer] = (HmT @ StdH).sum(axis=0)                                          # (S_i H)^T dH, per head
        dS = dHm @ HW.swapaxes(-1, -2) * mask                                         # (B, m, n, n)
        dSH = dS @ Hm                                                                 # (B, m, n, d)
        gT[layer] = (HmT @ dSH).sum(axis=0)                                           # H^T dS_i H, per head
        dHl = dH + (StdH @ W.swapaxes(-1, -2)).sum(axis=1)                            # through H W_i
        dHl = dHl + (dSH @ Theta.swapaxes(-1, -2)).sum(axis=1)                        # through the query side of S_i
        dHl = dHl + ((dS.swapaxes(-1, -2) @ Hm) @ Theta).sum(axis=1)                  # through the key side of S_i
        dH = dHl
    return loss, Stack(gT, gW, gP if stack.P else [], gQ if stack.P else [])


@dataclass(frozen=True, eq=False)
class StackRun:
    """What :func:`train_stack` returns.

    Attributes
    ----------
    stack : Stack
    loss, val_loss : ndarray of shape (epochs + 1,)
        Training and validation MSE before training and after every epoch.
    seconds : float
    """

    stack: Stack
    loss: np.ndarray
    val_loss: np.ndarray
    seconds: float


@arguments(X="array", Y="array", layers="size", heads="size", mlp="flag", epochs="size", lr="tol", batch_size="size",
           X_val="optarray", Y_val="optarray", rng="rng")
def train_stack(X, Y, *, layers: int = 2, heads: int = 1, mlp: bool = False, epochs: int = 100,
                lr: float = 1e-2, batch_size: int = 64, X_val=None, Y_val=None, rng=None) -> StackRun:
    """Fit a stack to targets at every token by Adam with a cosine schedule (as :func:`attnlib.train`).

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
        Inputs and causal targets at every token.
    layers, heads, mlp
        Architecture (:func:`init_stack`).
    epochs, lr, batch_size
        Adam (beta1 = 0.9, beta2 = 0.999, eps = 1e-8), step decayed to 0 by a cosine.
    X_val, Y_val : array_like, optional
        Validation set (default: the training set).
    rng : int, numpy.random.Generator or None

    Returns
    -------
    StackRun

    Examples
    --------
    >>> from attnlib import attention, gaussian_inputs, random_heads
    >>> from attnlib.rkhs.stack import train_stack
    >>> X = gaussian_inputs(64, 4, 2, rng=0) / 2
    >>> Y = attention(X, random_heads(1, 2, rng=1), kind="linear", causal=True)
    >>> run = train_stack(X, Y, layers=2, epochs=30, rng=2)
    >>> bool(run.loss[-1] < run.loss[0])
    True
    """
    X, Y = cube_data_shape(X, Y)
    if (X_val is None) != (Y_val is None):
        raise ValueError("X_val and Y_val must be given together (or neither, to validate on the training data)")
    if X_val is None:
        X_val, Y_val = X, Y
    else:
        X_val, Y_val = cube_data_shape(X_val, Y_val, d=X.shape[-1], names=("X_val", "Y_val"))
    start = time.perf_counter()
    stack = init_stack(X.shape[-1], layers=layers, heads=heads, mlp=mlp, rng=rng)
    params = stack.params()
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    N = len(X)
    steps_per_epoch = -(-N // batch_size)
    total, t = epochs * steps_per_epoch, 0

    def mse(Xs, Ys):
        return float(np.mean((stack_forward(stack, Xs) - Ys) ** 2))

    loss, val = [mse(X, Y)], [mse(X_val, Y_val)]
    for _ in range(epochs):
        order = rng.permutation(N)
        for b in range(steps_per_epoch):
            idx = order[b * batch_size:(b + 1) * batch_size]
            _, grads = stack_loss_and_gradient(stack, X[idx], Y[idx])
            t += 1
            step = lr * 0.5 * (1.0 + np.cos(np.pi * (t - 1) / total))
            for p, g, a, v in zip(params, grads.params(), m1, m2, strict=True):
                a *= 0.9
                a += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= step * (a / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        loss.append(mse(X, Y))
        val.append(mse(X_val, Y_val))
    return StackRun(stack, np.array(loss), np.array(val), time.perf_counter() - start)
