"""Associative memory: look up a value by its key with one head of linear attention.

A sequence holds m key-value pairs and a query (Yau et al. 2025, §4.2, eq. 13,
in the book's row convention: rows are tokens, d = 2m):

    X = [[k_1, v_1], ..., [k_m, v_m], [q, zeta]]       shape (m + 1, 2m)

The query q is one of the keys, chosen uniformly, and zeta is Gaussian filler.
One head, ``Theta = [[I, 0], [0, 0]]`` and ``W = [[0, 0], [0, I]]``, reads

    y = [0, sum_j <q, k_j> v_j + ||q||^2 zeta]

at the last token. The paper's eq. 14 omits the last term, but the query
token is itself one of the tokens attended to, so the layer computes it; the
targets here are what the layer computes. With orthonormal keys and q = k_i
this is ``v_i + zeta``.

Two sources of tables, as in the paper's Fig. 2:

* Gaussian: keys and values i.i.d. N(0, I) (by default rescaled to unit norm,
  as in the authors' code). The certificate is positive.
* orthogonal: the keys are the columns of a fresh random orthogonal matrix, and
  so are the values. The cubic features satisfy fixed polynomial identities,
  so ``Lambda_D`` is singular: these data never identify the layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice, interval
from ..attention import attention
from ..heads import Heads

__all__ = ["Memories", "memory_heads", "sample_memories"]


@arguments(m="size")
def memory_heads(m: int) -> Heads:
    """The one-head linear attention layer that performs the lookup, for m pairs (d = 2m).

    Examples
    --------
    >>> from attnlib.tasks.associative_memory import memory_heads
    >>> heads = memory_heads(2)
    >>> heads, heads.Theta[0].diagonal(), heads.W[0].diagonal()
    (Heads(m=1, d=4), array([1., 1., 0., 0.]), array([0., 0., 1., 1.]))
    """
    Theta = np.zeros((2 * m, 2 * m))
    W = np.zeros((2 * m, 2 * m))
    Theta[:m, :m] = np.eye(m)  # the logit of the query on token t is <q, k_t>
    W[m:, m:] = np.eye(m)  # and token t contributes its value half
    return Heads(Theta, W)


@dataclass(frozen=True, eq=False)
class Memories:
    """A batch of lookup tables with their answers.

    Attributes
    ----------
    X : ndarray of shape (N, m + 1, 2m)
        m key-value tokens then the query token ``[q, zeta]``.
    Y : ndarray of shape (N, 2m)
        The lookup layer's last-token output, ``[0, sum_j <q, k_j> v_j + ||q||^2 zeta]``.
    heads : Heads
        The layer that computes Y (:func:`memory_heads`).
    query : ndarray of shape (N,)
        Index of the key the query repeats.
    orthogonal : ndarray of shape (N,), bool
        Which tables come from the orthogonal source.
    """

    X: np.ndarray
    Y: np.ndarray
    heads: Heads
    query: np.ndarray
    orthogonal: np.ndarray

    def __post_init__(self):
        N = len(self.X)
        if self.X.ndim != 3 or self.Y.shape != (N, self.X.shape[-1]) or self.query.shape != (N,) \
                or self.orthogonal.shape != (N,) or self.heads.d != self.X.shape[-1]:
            raise ValueError(f"X must have shape (N, m + 1, 2m), Y (N, 2m), query and orthogonal (N,), heads of that "
                             f"d; received shapes {self.X.shape}, {self.Y.shape}, {self.query.shape}, "
                             f"{self.orthogonal.shape} and {self.heads!r}")

    def __repr__(self) -> str:
        N, n, d = self.X.shape
        return f"Memories(N={N}, m={d // 2}, orthogonal_share={self.orthogonal.mean():.3g})"


def _haar_orthogonal(N: int, m: int, rng) -> np.ndarray:
    """N random orthogonal m x m matrices, uniform (Haar) on O(m)."""
    Q, R = np.linalg.qr(rng.standard_normal((N, m, m)))
    return Q * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]


def _qr_orthogonal(N: int, m: int, rng) -> np.ndarray:
    """N orthogonal m x m matrices as plain QR factors of Gaussian matrices: not Haar (no sign fix)."""
    return np.linalg.qr(rng.standard_normal((N, m, m)))[0]


@arguments(N="size", m="size", orthogonal_share=interval(0.0, 1.0), unit_norm="flag", rng="rng",
           orthogonal_draw=choice("haar", "qr"))
def sample_memories(N: int, m: int, *, orthogonal_share: float = 0.0, unit_norm: bool = True,
                    rng=None, orthogonal_draw: str = "haar") -> Memories:
    """Draw N lookup tables of m pairs, a share of them from the orthogonal source.

    Parameters
    ----------
    N, m : int
        Tables, and key-value pairs per table (token dimension d = 2m).
    orthogonal_share : float in [0, 1], default 0
        Fraction of tables (rounded to a whole number, at random positions)
        whose keys and values are columns of random orthogonal matrices.
    unit_norm : bool, default True
        Rescale Gaussian keys and values to unit norm (the authors' code does;
        the paper's text does not).
    rng : int, numpy.random.Generator or None
    orthogonal_draw : {"haar", "qr"}, default "haar"
        How orthogonal tables are drawn: uniformly on O(m) ("haar"), or as the Q
        factor of a Gaussian matrix with no sign fix ("qr"), which is not
        uniform (its distribution depends on LAPACK's sign convention: at m = 2
        every such Q is a reflection). The authors' code (``muherng/automaton``,
        commit ec6ce53) draws them the second way.

    Returns
    -------
    Memories
        ``.X``, ``.Y``, ``.heads``, ``.query``, ``.orthogonal``.

    Examples
    --------
    >>> from attnlib.tasks.associative_memory import sample_memories
    >>> data = sample_memories(100, 2, orthogonal_share=0.5, rng=0)
    >>> data, data.X.shape, data.Y.shape
    (Memories(N=100, m=2, orthogonal_share=0.5), (100, 3, 4), (100, 4))
    """
    share = orthogonal_share
    draw = _haar_orthogonal if orthogonal_draw == "haar" else _qr_orthogonal
    orthogonal = np.zeros(N, dtype=bool)
    orthogonal[rng.permutation(N)[: int(round(share * N))]] = True
    keys = rng.standard_normal((N, m, m))  # keys[i, :, j] is key j of table i
    values = rng.standard_normal((N, m, m))
    if unit_norm:
        keys /= np.linalg.norm(keys, axis=1, keepdims=True)
        values /= np.linalg.norm(values, axis=1, keepdims=True)
    k = int(orthogonal.sum())
    if k:
        keys[orthogonal] = draw(k, m, rng)
        values[orthogonal] = draw(k, m, rng)
    query = rng.integers(0, m, size=N)
    q = keys[np.arange(N), :, query]  # (N, m)
    zeta = rng.standard_normal((N, m))
    X = np.empty((N, m + 1, 2 * m))
    X[:, :m, :m] = keys.transpose(0, 2, 1)
    X[:, :m, m:] = values.transpose(0, 2, 1)
    X[:, m, :m] = q
    X[:, m, m:] = zeta
    heads = memory_heads(m)
    Y = attention(X, heads, kind="linear")[:, -1]
    return Memories(X, Y, heads, query, orthogonal)
