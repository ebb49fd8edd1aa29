"""How one pass of :mod:`attnlib.rkhs._normal_equations` is shared between threads.

The distinct entries C of ``Phi^T Phi`` have one row per pair (p, q >= p) of Gram
entries. The pass cuts those rows into fixed blocks; for every chunk of data rows,
each block is one GEMM: its products ``g_p g_q``, formed in a buffer that stays in
cache, against ``vech(x x^T)``. Each thread owns a contiguous run of blocks, and
numpy's matmul releases the GIL, so the threads' GEMMs run in parallel. The blocks
do not depend on the number of threads, so neither does any bit of C.
"""

from __future__ import annotations

import functools

import numpy as np


@functools.lru_cache(maxsize=32)
def row_blocks(P: int, workers: int, block_rows: int) -> tuple:
    """The rows (p, q >= p) of ``vech(g g^T)`` cut into blocks of ``block_rows``, each worker's contiguous.

    The blocks are the same whatever the number of workers (only who computes
    each changes), so each block's GEMM, and C, are the same to the last bit.
    Returns one tuple per worker of ``(start, stop, pieces)``: the block holds rows
    ``start:stop`` of C, and each piece ``(p, q0, q1, offset)`` is the run of
    rows ``g_p * g_q`` for q in ``q0:q1``, placed at ``offset`` in the block.
    """
    starts = np.concatenate([[0], np.cumsum(P - np.arange(P))])
    P2 = int(starts[-1])
    blocks = []
    for lo in range(0, P2, block_rows):
        hi = min(lo + block_rows, P2)
        pieces, pos = [], lo
        while pos < hi:
            p = int(np.searchsorted(starts, pos, side="right")) - 1
            q0 = p + pos - int(starts[p])
            q1 = min(P, q0 + hi - pos)
            pieces.append((p, q0, q1, pos - lo))
            pos += q1 - q0
        blocks.append((lo, hi, tuple(pieces)))
    n = len(blocks)
    return tuple(tuple(blocks[n * w // workers : n * (w + 1) // workers]) for w in range(workers))


@functools.lru_cache(maxsize=1)
def blas():
    """numpy's BLAS as threadpoolctl sees it, inspected once (it reads the process's loaded libraries)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def accumulate_blocks(C: np.ndarray, blocks: tuple, gT: np.ndarray, U: np.ndarray, work: np.ndarray,
                       out: np.ndarray) -> None:
    """``C[lo:hi] += vech(g g^T)[lo:hi] @ vech(x x^T)`` over one worker's blocks of rows.

    Each block's products ``g_p g_q`` are formed in ``work`` (in cache) and multiplied
    at once by U, one GEMM per block; numpy's matmul releases the GIL, so the
    workers' blocks run in parallel.
    """
    r = gT.shape[1]
    for lo, hi, pieces in blocks:
        a = work[: (hi - lo) * r].reshape(hi - lo, r)
        for p, q0, q1, offset in pieces:
            np.multiply(gT[p], gT[q0:q1], out=a[offset : offset + q1 - q0])
        block = out[: hi - lo]
        np.matmul(a, U, out=block)
        C[lo:hi] += block
