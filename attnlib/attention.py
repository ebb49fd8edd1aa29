"""Softmax and linear multi-head attention, vectorised over examples and heads.

Rows are tokens. For a sequence ``X`` of shape (n, d) and heads
``(Theta[i], W[i])``,

    F(X) = sum_i A_i(X) @ X @ W[i],   S_i = X @ Theta[i] @ X.T,

with ``A_i = softmax(S_i)`` row by row (``kind="softmax"``) or ``A_i = S_i``
(``kind="linear"``). With ``causal=True`` token a attends only to tokens b <= a.
"""

from __future__ import annotations

import numpy as np

from ._arguments import Kind, arguments, choice, structure
from ._validation import as_float_array, sequences_shape
from .heads import Heads

# forward is package-internal: the learners' kernel, not part of the reader's API
__all__ = ["attention", "attention_weights", "softmax"]

KINDS = ("softmax", "linear")

#: logits: an array of real numbers, finite or -inf (a masked logit)
LOGITS = Kind("array", lambda name, value: as_float_array(name, value, allow_neg_inf=True),
              convert=lambda value: np.asarray(value, dtype=np.float64))


@arguments(S=LOGITS, axis=structure("an integer axis of S, negative ones counting from the end"))
def softmax(S, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Parameters
    ----------
    S : array_like
        Logits. Entries equal to ``-inf`` are masked (weight 0); NaN and ``+inf``
        are rejected, and so is a slice whose entries are all ``-inf``.
    axis : int, default -1

    Returns
    -------
    ndarray of the same shape as ``S``; every slice along ``axis`` sums to 1.

    Notes
    -----
    ``softmax(S)_j = exp(S_j - max S) / sum_k exp(S_k - max S)``; subtracting the
    maximum changes nothing mathematically and keeps every exponent <= 0, so
    logits of size 1e4 neither overflow nor produce NaN.

    Examples
    --------
    >>> softmax([0.0, np.log(3.0)]).round(3)
    array([0.25, 0.75])
    >>> softmax([1e4, -1e4, 0.0]).round(3)
    array([1., 0., 0.])
    """
    if S.ndim == 0:
        raise ValueError("S must have at least one dimension; received a scalar")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer; received {axis!r} ({type(axis).__name__})")
    if not -S.ndim <= axis < S.ndim:
        raise ValueError(f"axis must lie in [{-S.ndim}, {S.ndim - 1}] for S of shape {S.shape}; received {axis}")
    if S.size == 0:
        raise ValueError(f"S must be non-empty; received shape {S.shape}")
    top = np.max(S, axis=axis, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError(f"softmax of a slice whose logits are all -inf is undefined (S has shape {S.shape})")
    with np.errstate(over="ignore"):  # S - top may overflow to -inf: weight exactly 0, the right limit
        E = np.exp(S - top)
    return E / E.sum(axis=axis, keepdims=True)


def _softmax_inplace(S: np.ndarray) -> np.ndarray:
    """Row softmax of a freshly computed logit array, overwriting it (no validation)."""
    S -= S.max(axis=-1, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(axis=-1, keepdims=True)
    return S


def _logits(X: np.ndarray, Theta: np.ndarray) -> np.ndarray:
    """S[N, i, a, b] = x_a @ Theta[i] @ x_b for X (N, n, d) and Theta (m, d, d)."""
    XT = np.matmul(X[:, None], Theta[None])  # (N, m, n, d)
    return np.matmul(XT, X[:, None].swapaxes(-1, -2))  # (N, m, n, n)


def _scaled_weights(X: np.ndarray, Theta: np.ndarray, kind: str, causal: bool) -> np.ndarray:
    """The attention weights when the logits overflow float64 although the weights do not.

    With ``s`` the largest entry of each sequence in absolute value, the logits
    are ``s**2 * L`` for the logits ``L`` of ``X / s``. Softmax only sees
    differences to the row maximum, ``s**2 * (L - max L) <= 0``, which are
    computed as ``((L - max L) * s) * s``: a difference that underflows to
    ``-inf`` gets weight 0, the maximum gets difference exactly 0. So the
    weights are those of the unscaled logits, without an inf - inf. Linear
    attention's weights are the logits themselves; when they overflow there is
    no float64 answer, and the error names ``X``.
    """
    if kind != "softmax":
        raise ValueError(
            "the linear-attention logits X Theta X^T overflow float64 (largest |X| entry "
            f"{np.abs(X).max():.3g}); rescale X or the heads"
        )
    s = np.abs(X).max(axis=(1, 2))[:, None, None, None]  # (N, 1, 1, 1)
    s = np.where(s > 0, s, 1.0)
    L = _logits(X / s[..., 0], Theta)
    n = L.shape[-1]
    if causal:
        L = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, L)
    with np.errstate(over="ignore", invalid="ignore"):
        D = (L - L.max(axis=-1, keepdims=True)) * s * s
    D[np.isnan(D)] = -np.inf  # -inf * s: masked entries
    return _softmax_inplace(D)


def _safe_weights(X: np.ndarray, Theta: np.ndarray, kind: str, causal: bool) -> np.ndarray:
    """``_weights(_logits(X, Theta))``, rescaled when the logits overflow (see :func:`_scaled_weights`)."""
    with np.errstate(over="ignore", invalid="ignore"):
        S = _logits(X, Theta)
    if np.isfinite(S).all():
        return _weights(S, kind, causal)
    return _scaled_weights(X, Theta, kind, causal)


def _weights(S: np.ndarray, kind: str, causal: bool) -> np.ndarray:
    """Attention weights from logits S (..., n, n); S may be overwritten."""
    n = S.shape[-1]
    if causal:
        future = np.triu(np.ones((n, n), dtype=bool), k=1)
        if kind == "softmax":
            S = np.where(future, -np.inf, S)
        else:
            S = np.where(future, 0.0, S)
    return _softmax_inplace(S) if kind == "softmax" else S


def forward(X: np.ndarray, Theta: np.ndarray, W: np.ndarray, kind: str, causal: bool):
    """The forward pass on arrays that are already checked, with its intermediate results.

    The kernel under :func:`attention` for the learners, which call it many times on
    data they validated once.

    Parameters
    ----------
    X : ndarray of shape (N, n, d)
    Theta : ndarray of shape (m, d, d)
    W : ndarray of shape (m, d, d_out)
    kind : {"softmax", "linear"}
    causal : bool

    Returns
    -------
    F : ndarray of shape (N, n, d_out)
        The layer's output.
    A : ndarray of shape (N, m, n, n)
        The attention matrices.
    AX : ndarray of shape (N, m, n, d)
        ``A_i X`` for every head.

    Examples
    --------
    >>> from attnlib.attention import forward
    >>> heads = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(4, 5, 3, rng=1)
    >>> F, A, AX = forward(X, heads.Theta, heads.W, "softmax", False)
    >>> bool(np.allclose(F, attention(X, heads))), A.shape, AX.shape
    (True, (4, 2, 5, 5), (4, 2, 5, 3))
    """
    N, n, d = X.shape
    m = Theta.shape[0]
    A = _safe_weights(X, Theta, kind, causal)  # (N, m, n, n)
    AX = np.matmul(A, X[:, None])  # (N, m, n, d)
    # sum_i AX[:, i] @ W[i] as one GEMM over the stacked head axis
    F = AX.transpose(0, 2, 1, 3).reshape(N, n, m * d) @ W.reshape(m * d, W.shape[-1])  # (N, n, d)
    if not np.isfinite(F).all():
        raise ValueError(
            f"the attention output overflows float64 (largest |X| entry {np.abs(X).max():.3g}, "
            f"largest |W| entry {np.abs(W).max():.3g}); rescale X or the heads"
        )
    return F, A, AX


@arguments(X="array", heads="heads", kind=choice(*KINDS), causal="flag")
def attention_weights(X, heads: Heads, *, kind: str = "softmax", causal: bool = False) -> np.ndarray:
    """The attention matrices A_i(X) of every head.

    Parameters
    ----------
    X : array_like of shape (n, d) or (N, n, d)
    heads : Heads
    kind : {"softmax", "linear"}
    causal : bool, default False

    Returns
    -------
    A : ndarray of shape (m, n, n) or (N, m, n, n)
        ``A[..., i, a, b]`` is the weight query token a puts on key token b in
        head i. For softmax every row sums to 1.

    Examples
    --------
    >>> heads = Heads(np.zeros((1, 2, 2)), np.eye(2))
    >>> attention_weights(np.eye(2), heads)
    array([[[0.5, 0.5],
            [0.5, 0.5]]])
    """
    X3, single = sequences_shape(X, d=heads.d)
    A = _safe_weights(X3, heads.Theta, kind, causal)
    return A[0] if single else A


@arguments(X="array", heads="heads", kind=choice(*KINDS), causal="flag")
def attention(X, heads: Heads, *, kind: str = "softmax", causal: bool = False) -> np.ndarray:
    """Multi-head attention ``F(X) = sum_i A_i(X) X W_i``.

    Parameters
    ----------
    X : array_like of shape (n, d) or (N, n, d)
        One sequence, or a batch; rows are tokens.
    heads : Heads
        m heads of dimension d.
    kind : {"softmax", "linear"}, default "softmax"
        ``A_i = softmax(X Theta_i X^T)`` row-wise, or ``A_i = X Theta_i X^T``.
    causal : bool, default False
        If True, token a attends only to tokens b <= a.

    Returns
    -------
    F : ndarray of the same shape as X
        Row a is the output at token a.

    Notes
    -----
    Vectorised over examples and heads: two batched matrix products for the
    logits, one for ``A X`` and one GEMM of the stacked heads against the
    stacked projections. The book introduces it in chapter 1.

    Examples
    --------
    >>> heads = random_heads(2, 4, rng=0)
    >>> X = boolean_inputs(10, 3, 4, rng=1)
    >>> attention(X, heads).shape
    (10, 3, 4)
    >>> attention(X[0], heads, kind="linear", causal=True).shape
    (3, 4)
    """
    X3, single = sequences_shape(X, d=heads.d)
    F, _, _ = forward(X3, heads.Theta, heads.W, kind, causal)
    return F[0] if single else F
