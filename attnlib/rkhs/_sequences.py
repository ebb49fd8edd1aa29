"""The data of :mod:`attnlib.rkhs`: sequences (of equal or ragged lengths) and their targets.

A function of the subpackage takes its inputs X as an array (n, d) or (N, n, d), or as a list of
(n_i, d) arrays, and its targets Y as an array or a list of arrays. Both are declared with the kinds
below (``X=SEQUENCES, Y=TARGETS``): the declaration checks every entry once and hands the body a
:class:`Sequences` (a list of arrays for targets); the body checks what depends on another argument
(the token dimension a model expects, the targets' shapes against X) on shapes alone.

Data of extreme size are brought near 1 by a power of two (:func:`power_of_two_scale`), which is
exact in floating point; the features are cubic, so eigenvalues scale by its sixth power and
coefficients by its third.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._arguments import Kind
from .._validation import as_float_array


@dataclass
class Sequences:
    """A validated batch: equal-length sequences as one array, or ragged ones.

    ``blocks`` lists (example indices, array of shape (k, n, d)) with one block
    per distinct length, so every computation is batched.
    """

    blocks: list
    N: int
    d: int
    lengths: np.ndarray
    single: bool
    ragged: bool

    def rows(self, mode: str) -> int:
        """Number of feature rows: one per example, or one per token."""
        return self.N if mode == "last" else int(self.lengths.sum())


def _floats(value) -> np.ndarray:
    return np.asarray(value, dtype=np.float64)


def _entries(name: str, x) -> np.ndarray:
    return _floats(x)


def sequences(X, *, name: str = "X", entries=_entries) -> Sequences:
    """``X`` as :class:`Sequences`, checking the shapes; ``entries(name, x)`` converts (and checks) each array.

    A :class:`Sequences` is returned as it is.
    """
    if isinstance(X, Sequences):
        return X
    if isinstance(X, (list, tuple)):
        if len(X) == 0:
            raise ValueError(f"{name} is an empty list; give at least one sequence of shape (n_i, d)")
        arrays = [entries(f"{name}[{i}]", x) for i, x in enumerate(X)]
        dims = set()
        for i, x in enumerate(arrays):
            if x.ndim != 2 or 0 in x.shape:
                raise ValueError(
                    f"{name}[{i}] must be one sequence of shape (n_i, d) with n_i, d >= 1; received shape {x.shape}"
                )
            dims.add(x.shape[1])
        if len(dims) > 1:
            raise ValueError(f"the sequences in {name} must share the token dimension d; received d in {sorted(dims)}")
        lengths = np.array([x.shape[0] for x in arrays])
        blocks = []
        for n in np.unique(lengths):
            idx = np.flatnonzero(lengths == n)
            blocks.append((idx, np.stack([arrays[i] for i in idx])))
        return Sequences(blocks, len(arrays), dims.pop(), lengths, single=False, ragged=len(blocks) > 1)
    arr = entries(name, X)
    if arr.ndim not in (2, 3) or 0 in arr.shape:
        raise ValueError(
            f"{name} must have shape (n, d) for one sequence, (N, n, d) for a batch, or be a list of "
            f"(n_i, d) arrays; received shape {arr.shape}"
        )
    single = arr.ndim == 2
    X3 = arr[None] if single else arr
    N, n, d = X3.shape
    return Sequences([(np.arange(N), X3)], N, d, np.full(N, n), single=single, ragged=False)


def _finite(name: str, x) -> np.ndarray:
    """``as_float_array`` without its temporaries the size of the data where the data are finite.

    A sum of finite numbers is finite unless it overflows, and any inf or nan makes it
    inf or nan; only then does the full check run (and name the first bad entry).
    """
    if isinstance(x, np.ndarray) and x.dtype.kind in "fiu":
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(np.sum(x)):
                return x.astype(np.float64, copy=False)
    return as_float_array(name, x)


def _checked_sequences(name: str, X) -> Sequences:
    return sequences(X, name=name, entries=_finite)


def as_sequences(X, *, name: str = "X", d: int | None = None) -> Sequences:
    """Validate X: an array (n, d) or (N, n, d), or a list of (n_i, d) arrays (every entry checked)."""
    seqs = X if isinstance(X, Sequences) else _checked_sequences(name, X)
    return check_dimension(seqs, d, name)


def check_dimension(seqs: Sequences, d: int | None, name: str = "X") -> Sequences:
    """``seqs``, after checking that its tokens have the dimension ``d`` a model expects (None: any)."""
    if d is not None and seqs.d != d:
        raise ValueError(f"{name} has token dimension {seqs.d} but the model expects d={d}")
    return seqs


#: sequences: an array (n, d) or (N, n, d) of finite numbers, or a list of (n_i, d) ones; the body gets Sequences
SEQUENCES = Kind("array", _checked_sequences, convert=sequences)


def _checked_targets(name: str, Y):
    if isinstance(Y, (list, tuple)):
        return [_finite(f"{name}[{i}]", y) for i, y in enumerate(Y)]
    return _finite(name, Y)


def _targets(Y):
    return [_floats(y) for y in Y] if isinstance(Y, (list, tuple)) else _floats(Y)


#: targets: an array of finite numbers, or a list of them (one per ragged sequence); shapes are the body's
TARGETS = Kind("array", _checked_targets, convert=_targets)


def as_targets(Y, seqs: Sequences, *, name: str = "Y") -> tuple[str, list]:
    """The targets ``Y`` (declared: entries checked already) against the sequences, on shapes alone.

    Returns the kind of target ("last" or "every") and, per block of ``seqs``, the
    target rows in the order the factor chunks of :mod:`attnlib.rkhs._normal_equations` produce them.
    """
    N, d = seqs.N, seqs.d
    if isinstance(Y, (list, tuple)):
        if len(Y) != N:
            raise ValueError(f"{name} is a list of {len(Y)} arrays but X has {N} sequences")
        arrays = [_floats(y) for y in Y]
        for i, y in enumerate(arrays):
            if y.shape != (seqs.lengths[i], d):
                raise ValueError(
                    f"{name}[{i}] must have shape ({seqs.lengths[i]}, {d}), a target at every token of X[{i}]; "
                    f"received shape {y.shape}"
                )
        return "every", [np.concatenate([arrays[i] for i in idx]) for idx, _ in seqs.blocks]
    Y = _floats(Y)
    if Y.shape == (N, d) or (seqs.single and Y.shape == (d,)):
        Y = Y.reshape(N, d)
        if not seqs.ragged:  # one block, of every sequence in order: Y itself, not a copy
            return "last", [Y]
        return "last", [Y[idx] for idx, _ in seqs.blocks]
    n = int(seqs.lengths[0])
    if not seqs.ragged and (Y.shape == (N, n, d) or (seqs.single and Y.shape == (n, d))):
        return "every", [Y.reshape(N * n, d)]  # one block, in order: a view where Y is contiguous
    every = f"({N}, {n}, {d})" if not seqs.ragged else "a list of (n_i, d) arrays"
    raise ValueError(
        f"Y must have shape ({N}, {d}) for last-token targets or {every} for a target at every token "
        f"(X has {N} sequences of dimension d={d}); received shape {Y.shape}"
    )


# --- scale: powers of two, exact in floating point -------------------------------


def power_of_two_scale(seqs) -> float:
    """1, or the power of two that brings the largest entry of data outside [2**-16, 2**16] into [0.5, 1)."""
    big = max(max(float(arr.max()), -float(arr.min())) for _, arr in seqs.blocks)  # no copy of the data
    if big == 0.0 or 2.0**-16 <= big <= 2.0**16:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(big)[1])))


def rescaled(seqs, scale: float):
    """``seqs`` divided by ``scale`` (exact for a power of two)."""
    return seqs if scale == 1.0 else replace(seqs, blocks=[(idx, arr / scale) for idx, arr in seqs.blocks])


def sixth_power(value, scale: float):
    """``value * scale**6`` exactly (a power of two): an eigenvalue of ``Lambda_D`` of ``X / scale`` as one of X."""
    if scale == 1.0:
        return value
    with np.errstate(over="ignore", under="ignore"):  # an eigenvalue of X far outside float range is inf or 0
        return np.ldexp(value, 6 * (int(np.frexp(scale)[1]) - 1))


def cube_scaled(coef: np.ndarray, scale: float, name: str) -> np.ndarray:
    """``coef * scale**3`` exactly (a power of two), refusing a result that overflows or underflows."""
    if scale == 1.0:
        return coef
    with np.errstate(over="ignore", under="ignore"):  # checked just below, with a clearer message
        out = np.ldexp(coef, 3 * (int(np.frexp(scale)[1]) - 1))
    if not np.isfinite(out).all() or np.any((out == 0) & (coef != 0)):
        raise ValueError(
            f"the coefficients for data {name} of this size do not fit in float64: the output is cubic in "
            f"{name}, so they scale as 1 / {name}**3; rescale {name}"
        )
    return out
