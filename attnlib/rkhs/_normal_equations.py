"""The engine behind :mod:`attnlib.rkhs`: cubic features in Kronecker form, streamed.

Every feature row of linear attention is a Kronecker product

    phi = g ⊗ x,   g = vech(G) in R^P,  x in R^d,  P = d(d+1)/2,

where G is a Gram matrix (full, or a prefix sum for causal attention) and x is
the query token. Nothing here ever needs the N x psi feature matrix: the data
are walked in chunks of rows, each chunk giving the two small factors g and x.

* The normal equations ``Phi^T Phi`` are ``sum_r (g g^T) ⊗ (x x^T)``. Both
  factors are symmetric, so the distinct entries are one GEMM between the
  chunk's ``vech(g g^T)`` (P(P+1)/2 columns) and ``vech(x x^T)`` (d(d+1)/2
  columns), about 3.7 times fewer flops than ``Phi.T @ Phi`` at d = 16.
* ``Phi^T Y`` is ``g^T`` times the rows of ``x ⊗ y``, and predictions are
  ``sum_p g_p (x @ C_p)``; neither forms ``Phi``.
* The pass returns :class:`NormalEquations`, which keeps the distinct entries:
  a fit solves with them, and the certificate of the same data reads its
  ``Lambda_D`` from them instead of walking the data again.

The order of the distinct Gram entries follows the paper's Algorithm 2: the
off-diagonal pairs (j, k), j < k, row by row, then the diagonal. Feature
``p * d + l`` is ``G[j_p, k_p] * x[l]``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments
from .._linalg import Cholesky, cholesky
from . import _sharing
from ._sequences import Sequences

# Chunks are sized so that the largest per-chunk buffer holds about this many floats.
CHUNK_FLOATS = 2_000_000
# Rows of C (products g_p g_q) per GEMM of the normal equations: enough that the GEMM's packing of
# vech(x x^T) is amortised, few enough that the block of products stays in cache between the
# multiplications that form it and the GEMM that reads it (measured at d = 16 and 24, issue 42).
_BLOCK_ROWS = 512
# Below this many rows per chunk, a pass is too small to share between threads.
_GEMM_ROWS_MIN = 512


@arguments(d="size")
def n_features(d: int) -> int:
    """psi = d^2 (d + 1) / 2, the number of distinct cubic features.

    Examples
    --------
    >>> from attnlib.rkhs import n_features
    >>> n_features(2), n_features(3)
    (6, 18)
    """
    return d * d * (d + 1) // 2


def d_from_psi(psi: int) -> int:
    """The token dimension d whose cubic features number ``psi`` (the smallest d with at least that many)."""
    return next(k for k in range(1, 10_000) if k * k * (k + 1) // 2 >= psi)


@functools.lru_cache(maxsize=32)
def gram_pairs(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column (j, k) of the distinct Gram entries in Algorithm 2's order."""
    J, K = np.triu_indices(d, k=1)
    diag = np.arange(d)
    return np.concatenate([J, diag]), np.concatenate([K, diag])


@functools.lru_cache(maxsize=32)
def _sym_table(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Upper-triangle (i <= j) index pairs of a size x size symmetric matrix, and the
    (size, size) table mapping (i, j) to the position of min/max in that list."""
    I, J = np.triu_indices(size)
    table = np.empty((size, size), dtype=np.intp)
    table[I, J] = np.arange(I.size)
    table[J, I] = np.arange(I.size)
    return I, J, table


# --- memory ------------------------------------------------------------------


def available_memory() -> int | None:
    """Bytes of memory available to this process, or None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(what: str, needed: int, d: int) -> None:
    """Raise ``MemoryError`` before allocating if ``needed`` bytes cannot fit."""
    available = available_memory()
    if available is not None and needed > 0.8 * available:
        raise MemoryError(
            f"{what} at d={d} (psi={n_features(d)} cubic features) needs about {needed / 1e9:.3g} GB, "
            f"but only {available / 1e9:.3g} GB of memory is available; use a smaller d"
        )


def solve_memory(d: int, d_out: int) -> int:
    """Bytes the normal equations and their solution need, whatever N is."""
    psi = n_features(d)
    P = d * (d + 1) // 2
    # Lambda (factorised in place and kept by the fit), a second Lambda for the certificate and room for
    # its work, the distinct entries C (kept too), the chunk buffers and each thread's block buffers
    floats = (3 * psi * psi + (P * (P + 1) // 2) * (d * (d + 1) // 2) + CHUNK_FLOATS
              + (os.cpu_count() or 1) * _BLOCK_ROWS * (_gemm_rows(d) + d * (d + 1) // 2) + 4 * psi * d_out)
    return 8 * floats


# --- data: factor chunks ---------------------------------------------------------


def _factors(X3: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Kronecker factors (g, x) of the feature rows of a block X3 (k, n, d)."""
    J, K = gram_pairs(X3.shape[-1])
    if mode == "causal":
        G = np.cumsum(X3[..., :, None] * X3[..., None, :], axis=1)  # (k, n, d, d), prefix Grams
        return G[..., J, K].reshape(-1, J.size), X3.reshape(-1, X3.shape[-1])
    G = np.matmul(X3.swapaxes(1, 2), X3)  # (k, d, d)
    g = G[:, J, K]  # (k, P)
    if mode == "last":
        return g, X3[:, -1]
    n = X3.shape[1]
    return np.repeat(g, n, axis=0), X3.reshape(-1, X3.shape[-1])  # mode "all": full Gram at every token


def factor_chunks(seqs: Sequences, mode: str, row_floats: int) -> Iterator[tuple[int, slice, np.ndarray, np.ndarray]]:
    """Yield (block number, row slice within the block, g, x) in chunks of rows.

    A chunk holds at most about ``CHUNK_FLOATS / row_floats`` rows (never less than
    one example).
    """
    max_rows = max(1, CHUNK_FLOATS // max(row_floats, 1))
    for b, (_, X3) in enumerate(seqs.blocks):
        per = 1 if mode == "last" else X3.shape[1]
        step = max(1, max_rows // per)
        for lo in range(0, X3.shape[0], step):
            g, x = _factors(X3[lo : lo + step], mode)
            yield b, slice(lo * per, lo * per + g.shape[0]), g, x


def features(g: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Rows ``g ⊗ x`` of shape (r, P * d)."""
    return (g[:, :, None] * x[:, None, :]).reshape(g.shape[0], -1)


def apply_coef(g: np.ndarray, x: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``features(g, x) @ coef`` without forming the features. coef is (P * d, d_out)."""
    P, d = g.shape[1], x.shape[1]
    H = (g @ coef.reshape(P, d * coef.shape[1])).reshape(-1, d, coef.shape[1])  # (r, d, d_out)
    return np.einsum("rl,rla->ra", x, H)


# --- outputs row by row ---------------------------------------------------------


def assemble(seqs: Sequences, mode: str, parts: list, width: int):
    """Put per-block row outputs back into the shape of the input."""
    if mode == "last":
        out = np.empty((seqs.N, width))
        for (idx, _), rows in zip(seqs.blocks, parts, strict=True):
            out[idx] = rows
        return out[0] if seqs.single else out
    if seqs.ragged:
        out = [None] * seqs.N
        for (idx, X3), rows in zip(seqs.blocks, parts, strict=True):
            for i, r in zip(idx, rows.reshape(len(idx), X3.shape[1], width), strict=True):
                out[i] = r
        return out
    (_, X3), = seqs.blocks
    out = parts[0].reshape(X3.shape[0], X3.shape[1], width)
    return out[0] if seqs.single else out


def map_rows(seqs: Sequences, mode: str, func, width: int):
    """Apply ``func(g, x) -> (r, width)`` chunk by chunk and reassemble."""
    parts = [np.empty((X3.shape[0] * (1 if mode == "last" else X3.shape[1]), width)) for _, X3 in seqs.blocks]
    for b, sl, g, x in factor_chunks(seqs, mode, gram_width(seqs.d) * seqs.d):
        parts[b][sl] = func(g, x)
    return assemble(seqs, mode, parts, width)


def gram_width(d: int) -> int:
    """P = d(d+1)/2, the number of distinct Gram entries."""
    return d * (d + 1) // 2


# --- normal equations ---------------------------------------------------------


def gram_from_factors(C: np.ndarray, P: int, d: int) -> np.ndarray:
    """Assemble the (psi, psi) matrix from its distinct entries C[pq, lm], one block row at a time.

    Block (p, q) of the matrix, rows ``p*d:(p+1)*d`` and columns ``q*d:(q+1)*d``, is
    ``C[pq][LM]`` with LM the (d, d) table of the pairs (l, m): symmetric, so the
    block (q, p) is its transpose and the same numbers reshaped.
    """
    _, _, LM = _sym_table(d)
    starts = np.concatenate([[0], np.cumsum(P - np.arange(P))])
    G = np.empty((P * d, P * d))
    for p in range(P):
        R = C[starts[p] : starts[p + 1]][:, LM]  # (P - p, d, d): blocks (p, q) for q >= p
        G[p * d : (p + 1) * d, p * d :] = R.transpose(1, 0, 2).reshape(d, -1)
        G[p * d :, p * d : (p + 1) * d] = R.reshape(-1, d)
    return G


@dataclass(frozen=True, eq=False)
class NormalEquations:
    """One pass over the data: the distinct entries of ``Phi^T Phi``, ``Phi^T Y``, ``sum ||y||^2``, the rows.

    ``C[pq, lm] = sum_r g_p g_q x_l x_m`` over the feature rows r, with (p, q) and
    (l, m) the upper-triangle pairs of :func:`_sym_table`; :meth:`gram` unfolds it
    into the (psi, psi) matrix ``Phi^T Phi``. ``B`` is None without targets.
    """

    C: np.ndarray
    B: np.ndarray | None
    yy: float
    rows: int
    d: int
    mode: str

    def gram(self) -> np.ndarray:
        """``Phi^T Phi`` of shape (psi, psi), a new array."""
        return gram_from_factors(self.C, gram_width(self.d), self.d)


def _row_floats(d: int) -> int:
    """Floats per feature row of a chunk, chosen so that a chunk holds about ``_GEMM_ROWS`` rows.

    The same with or without targets, so that a fit and a certificate of the
    same data sum their rows in the same chunks and get the same ``Phi^T Phi``
    to the last bit.
    """
    return max(1, CHUNK_FLOATS // _gemm_rows(d))


def _gemm_rows(d: int) -> int:
    """Rows per chunk: the inner dimension of each GEMM (longer at large d, where C is large to re-read)."""
    return 1024 if d <= 16 else 2048


def _workers(P2: int, D2: int, rows: int) -> int | None:
    """Threads for the pass, as many as numpy's BLAS may use; None for a pass too small to share
    (< 50 MFlop a chunk), which runs as plain numpy calls and never touches the BLAS's settings."""
    if 2 * P2 * D2 * min(rows, _GEMM_ROWS_MIN) < 50e6:
        return None
    threads = [lib["num_threads"] for lib in _sharing.blas().info()] or [1]
    return max(1, min(min(threads), os.cpu_count() or 1, P2 // _BLOCK_ROWS))


def normal_equations(seqs: Sequences, mode: str, targets: list | None = None) -> NormalEquations:
    """Stream the data once: ``Phi^T Phi`` (distinct entries), ``Phi^T Y``, ``sum ||y||^2`` and the row count.

    Each chunk of rows costs one GEMM for ``Phi^T Y`` and, for the distinct entries
    of ``Phi^T Phi``, one GEMM per block of rows of C: the block's products
    ``g_p g_q`` (rows of ``vech(g g^T)``, formed in cache) against ``vech(x x^T)``
    (d(d+1)/2 columns). On a pass large enough to share, the blocks are split
    between as many threads as numpy's BLAS may use, each thread's BLAS
    single-threaded meanwhile, and every block is the same GEMM whatever the
    thread count: the result is the same to the last bit.
    """
    from concurrent.futures import ThreadPoolExecutor

    d = seqs.d
    P = d * (d + 1) // 2
    Il, Im, _ = _sym_table(d)
    P2, D2 = P * (P + 1) // 2, Il.size
    C = np.zeros((P2, D2))
    d_out = targets[0].shape[1] if targets is not None else 0
    B = np.zeros((P, d * d_out))
    yy = 0.0
    rows = 0
    workers = _workers(P2, D2, seqs.rows(mode))
    # a shared pass runs each thread's BLAS single-threaded: each block is then one GEMM on one thread,
    # whatever the thread count, and C the same to the last bit
    limit = contextlib.nullcontext() if workers is None else _sharing.blas().limit(limits=1)
    workers = workers or 1
    plan = _sharing.row_blocks(P, workers, _BLOCK_ROWS)
    K = _gemm_rows(d)
    work = [np.empty(_BLOCK_ROWS * K) for _ in range(workers)]
    out = [np.empty((_BLOCK_ROWS, D2)) for _ in range(workers)]
    pool = ThreadPoolExecutor(workers) if workers > 1 else None
    pending = []
    try:
        with limit:
            for b, sl, g, x in factor_chunks(seqs, mode, _row_floats(d)):
                rows += g.shape[0]
                if targets is not None:
                    y = targets[b][sl]
                    B += g.T @ (x[:, :, None] * y[:, None, :]).reshape(x.shape[0], -1)  # (P, d * d_out)
                    yy += float(np.sum(y * y))
                gT = np.ascontiguousarray(g.T)  # (P, r): each product reads two of its rows
                U = x[:, Il] * x[:, Im]  # (r, d(d+1)/2): vech(x x^T)
                for job in pending:  # the workers finish the previous chunk while this one is prepared
                    job.result()
                if work[0].size < _BLOCK_ROWS * g.shape[0]:  # a chunk of one long sequence: more rows than K
                    work = [np.empty(_BLOCK_ROWS * g.shape[0]) for _ in range(workers)]
                if pool is None:
                    _sharing.accumulate_blocks(C, plan[0], gT, U, work[0], out[0])
                else:
                    pending = [pool.submit(_sharing.accumulate_blocks, C, plan[w], gT, U, work[w], out[w])
                               for w in range(workers)]
            for job in pending:
                job.result()
    finally:
        if pool is not None:
            pool.shutdown()
    return NormalEquations(C, B.reshape(P * d, d_out) if targets is not None else None, yy, rows, d, mode)


# --- solvers ------------------------------------------------------------------


@dataclass
class Solution:
    coef: np.ndarray
    solver: str
    rank: int
    condition: float
    basis: np.ndarray | None = None  # (rank, psi): orthonormal rows spanning the features' row space
    loss: float | None = None  # mean squared residual over every target entry
    moments: NormalEquations | None = None  # the pass the solution came from
    factor: Cholesky | None = None  # the equilibrated Cholesky factor of Phi^T Phi, if it was trusted


def solve_normal_equations(ne: NormalEquations, factor: Cholesky | None = None) -> Solution | None:
    """Cholesky on the equilibrated normal equations, or None if it cannot be trusted.

    ``factor`` is ``cholesky(ne.gram())`` if the caller has it already.
    """
    psi = n_features(ne.d)
    if ne.rows < psi:
        return None
    if factor is None:
        factor = cholesky(ne.gram(), overwrite=True)  # the library's one conditioning policy (attnlib._linalg)
    if factor is None or not factor.trusted:
        return None
    return Solution(factor.solve(ne.B), "cholesky", psi, factor.condition, moments=ne, factor=factor)


def solve_by_qr(seqs: Sequences, mode: str, targets: list) -> tuple[Solution, float]:
    """Minimum-norm least squares by a streamed QR of [Phi, Y], then an SVD of R.

    Returns the solution and the residual sum of squares. Memory is
    O((psi + d)^2), independent of N, and the error grows like cond(Phi), not
    cond(Phi)^2 as with the normal equations.
    """
    d = seqs.d
    psi = n_features(d)
    d_out = targets[0].shape[1]
    R = np.zeros((0, psi + d_out))
    for b, sl, g, x in factor_chunks(seqs, mode, psi + d_out):
        block = np.hstack([features(g, x), targets[b][sl]])
        R = np.linalg.qr(np.vstack([R, block]), mode="r")
    RF, Z = R[:, :psi], R[:, psi:]
    U, sv, Vt = np.linalg.svd(RF, full_matrices=False)
    tol = max(RF.shape) * np.finfo(float).eps * (sv[0] if sv.size else 0.0)
    rank = int(np.sum(sv > tol))
    UZ = U[:, :rank].T @ Z
    coef = Vt[:rank].T @ (UZ / sv[:rank, None])
    E = Z - U[:, :rank] @ UZ  # the part of Y no coefficient vector reaches
    rss = float(np.sum(E * E))
    condition = float(sv[0] / sv[rank - 1]) ** 2 if rank else np.inf
    return Solution(coef, "qr", rank, condition, Vt[:rank]), rss


def solve(seqs: Sequences, mode: str, targets: list, *, start: np.ndarray | None = None,
          ne: NormalEquations | None = None, factor: Cholesky | None = None) -> Solution:
    """The least-squares fit of Algorithm 1, with its training loss.

    One pass builds the normal equations; Cholesky solves them if they are well
    conditioned (the library's policy, :mod:`attnlib._linalg`). Otherwise a
    streamed QR gives the minimum-norm minimiser, or the one nearest to ``start``,
    with a RuntimeWarning that says why (attributed to the caller's caller).
    ``ne`` (and its ``factor``) if the caller has made the pass already.
    """
    ne = normal_equations(seqs, mode, targets) if ne is None else ne
    psi, count = n_features(ne.d), ne.rows * ne.B.shape[1]
    solution = solve_normal_equations(ne, factor)
    if solution is not None:
        # at the minimiser ||Y - Phi c||^2 = ||Y||^2 - <c, Phi^T Y>; trusted unless it cancels
        rss = ne.yy - float(np.sum(solution.coef * ne.B))
        solution.loss = rss / count if rss > 1e-6 * ne.yy else residual_loss(seqs, mode, targets, solution.coef)
        return solution
    solution, rss = solve_by_qr(seqs, mode, targets)
    solution.loss = rss / count
    solution.moments = ne
    if solution.rank < psi:
        warn_nonunique(ne.rows, psi, solution.rank, nearest=start is not None, stacklevel=4)
        if start is not None:  # add the part of start that the data cannot see
            V = solution.basis
            solution.coef = solution.coef + start - V.T @ (V @ start)
    else:
        warnings.warn(f"the normal equations are ill-conditioned (condition number about {solution.condition:.2g}); "
                      f"solved by a streamed QR instead", RuntimeWarning, stacklevel=3)
    return solution


def gradient_descent(seqs: Sequences, mode: str, targets: list, steps: int, start: np.ndarray | None) -> Solution:
    """K full-batch steps ``c <- c - (Lam c - b) / lambda_max`` from c = start (default 0)."""
    from scipy.linalg import eigvalsh

    ne = normal_equations(seqs, mode, targets)
    Lam, b = ne.gram() / ne.rows, ne.B / ne.rows
    psi = Lam.shape[0]
    top = float(eigvalsh(Lam, subset_by_index=[psi - 1, psi - 1])[0])
    coef = np.zeros_like(b) if start is None else start.copy()
    if top > 0:
        for _ in range(steps):
            coef -= (Lam @ coef - b) / top
    rank = int(np.linalg.matrix_rank(Lam, hermitian=True))
    solution = Solution(coef, f"gradient descent ({steps} steps)", rank, np.inf, moments=ne)
    solution.loss = residual_loss(seqs, mode, targets, coef)
    return solution


def residual_loss(seqs: Sequences, mode: str, targets: list, coef: np.ndarray) -> float:
    """Mean squared residual, streamed once more (exact even when the optimum is 0)."""
    total, count = 0.0, 0
    for b, sl, g, x in factor_chunks(seqs, mode, gram_width(seqs.d) * seqs.d):
        r = targets[b][sl] - apply_coef(g, x, coef)
        total += float(np.sum(r * r))
        count += r.size
    return total / count


def warn_nonunique(rows: int, psi: int, rank: int, nearest: bool, stacklevel: int = 3) -> None:
    which = "the one nearest to start" if nearest else "the minimum-norm one"
    if rows < psi:
        msg = (f"only {rows} feature rows for psi={psi} features: the least-squares minimiser is not unique; "
               f"returning {which}")
    else:
        msg = (f"the features have rank {rank} < psi={psi} on these data (Lambda_D is singular): the "
               f"least-squares minimiser is not unique; returning {which}")
    warnings.warn(msg, RuntimeWarning, stacklevel=stacklevel)
