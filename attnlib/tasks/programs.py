"""Autoregressive attention programs: Lookup, Copy and If-Then as explicit linear-attention heads (chapter 6).

A token is a row of named attribute blocks (:class:`Layout`). Each primitive is one head: Lookup
matches an attribute of the rightmost token against an attribute of every token and copies what it
finds; Copy is a Lookup on the position code; If-Then is a short program of Copies and a Lookup.
:mod:`attnlib.tasks.turing` compiles a Turing machine's step from them, re-exports these names and
says what follows the paper (Yau et al., App F) and what is the book's simplification.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance, sequence_of, structure
from .._validation import as_float_array, check_choice, check_positive_int
from ..heads import Heads

MAX_DIM = 4000  # tokens larger than this are refused before anything is allocated


@arguments(blocks=structure("a sequence of (name, size) pairs"))
class Layout:
    """Named attribute blocks of a token: ``layout["cell"]`` is a slice of coordinates.

    Parameters
    ----------
    blocks : sequence of (name, size)
        Disjoint blocks in order. A block named ``"pos"`` holds the one-hot
        position code that Copy uses.

    Examples
    --------
    >>> layout = Layout([("pos", 4), ("letter", 2)])
    >>> layout
    Layout(d=6: pos 4, letter 2)
    >>> layout["letter"]
    slice(4, 6, None)
    """

    def __init__(self, blocks):
        if isinstance(blocks, (str, bytes)) or not hasattr(blocks, "__iter__"):
            raise TypeError(f"blocks must be a sequence of (name, size) pairs; received {type(blocks).__name__}")
        self._slices: dict[str, slice] = {}
        start = 0
        for block in blocks:
            if not isinstance(block, (tuple, list)) or len(block) != 2 or not isinstance(block[0], str):
                raise TypeError(f"blocks must hold (name, size) pairs with a str name; received {block!r}")
            name, size = block
            if name in self._slices:
                raise ValueError(f"block names must be unique; {name!r} appears twice")
            size = check_positive_int(f"size of block {name!r}", size)
            self._slices[name] = slice(start, start + size)
            start += size
        if start > MAX_DIM:
            raise ValueError(f"the token dimension would be {start} > {MAX_DIM}; the construction's sizes grow with "
                             "the tape length and the number of steps, so choose a smaller machine or fewer steps")
        self.d = start

    def __getitem__(self, name: str) -> slice:
        try:
            return self._slices[name]
        except KeyError:
            raise KeyError(f"no block {name!r}; the layout has {list(self._slices)}") from None

    def __contains__(self, name: str) -> bool:
        return name in self._slices

    @property
    def names(self) -> list[str]:
        """Block names in order."""
        return list(self._slices)

    @arguments(name="text")
    def size(self, name: str) -> int:
        """Width of a block."""
        s = self._slices[check_choice("name", name, tuple(self._slices))]
        return s.stop - s.start

    @arguments(values=structure("block=index (a one-hot) or block=array (copied in)"))
    def token(self, **values) -> np.ndarray:
        """A token with the given blocks filled: an int gives a one-hot, an array is copied in."""
        x = np.zeros(self.d)
        for name, value in values.items():
            check_choice("a block's name", name, tuple(self._slices))
            if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.ndarray, list, tuple)):
                raise TypeError(f"{name} must be an index or an array of size {self.size(name)}; received "
                                f"{type(value).__name__}")
            if isinstance(value, numbers.Integral):
                if not 0 <= value < self.size(name):
                    raise ValueError(f"block {name!r} has size {self.size(name)}; received index {value}")
                x[self[name].start + int(value)] = 1.0
            else:
                x[self[name]] = as_float_array(name, value)
        return x

    def __repr__(self) -> str:
        parts = ", ".join(f"{name} {self.size(name)}" for name in self._slices)
        return f"Layout(d={self.d}: {parts})"


@arguments(query="text", key="text", writes=structure("a tuple of (source, dest, B_V) triples"), B_Q="optarray")
@dataclass(frozen=True)
class Op:
    """One head: score ``x_n[query] B_Q . x_b[key]``, write ``sum_b score_b x_b[source] B_V`` into ``dest``.

    ``writes`` is a tuple of ``(source, dest, B_V)`` triples sharing that score
    (``B_V`` None means the identity); ``B_Q`` None means the identity.
    """

    query: str
    key: str
    writes: tuple
    B_Q: np.ndarray | None = None


@arguments(query="text", key="text", writes=structure("a sequence of (source, dest) or (source, dest, B_V)"),
           B_Q="optarray")
def lookup(query: str, key: str, writes, *, B_Q=None) -> Op:
    """The paper's Lookup: match ``B_Q`` of the rightmost token's ``query`` against every token's ``key``.

    Parameters
    ----------
    query, key : str
        Attribute names; the logit on token b is ``x_n[query] @ B_Q @ x_b[key]``.
    writes : sequence of (source, dest) or (source, dest, B_V)
        Copy ``x_b[source] @ B_V`` (summed over tokens, weighted by the logits)
        into ``dest``.
    B_Q : ndarray, optional
        Query map; the identity by default.

    Returns
    -------
    Op
        Turned into a head by :func:`instruction`.

    Examples
    --------
    >>> layout = Layout([("pos", 3), ("k", 2), ("v", 2), ("q", 2), ("out", 2)])
    >>> X = np.array([layout.token(pos=0, k=0, v=1), layout.token(pos=1, k=1, v=0), layout.token(pos=2, q=1)])
    >>> heads = instruction(layout, [lookup("q", "k", [("v", "out")])], advance=False)
    >>> attention(X, heads, kind="linear")[-1][layout["out"]]
    array([1., 0.])
    """
    if isinstance(writes, (str, bytes)) or not hasattr(writes, "__iter__"):
        raise TypeError(f"writes must be a sequence of (source, dest) or (source, dest, B_V); received {writes!r}")
    writes = list(writes)
    for w in writes:
        if not isinstance(w, (tuple, list)) or len(w) not in (2, 3) or not all(isinstance(a, str) for a in w[:2]):
            raise TypeError(f"writes must hold (source, dest) or (source, dest, B_V) with attribute names; "
                            f"received {w!r}")
    if B_Q is not None:
        if B_Q.ndim != 2:
            raise ValueError(f"B_Q must be a matrix; received shape {B_Q.shape}")
    return Op(query, key, tuple((w[0], w[1], w[2] if len(w) > 2 else None) for w in writes), B_Q)


@arguments(offset="count", writes=structure("a sequence of (source, dest) or (source, dest, B_V)"), n_pos="size")
def copy(offset: int, writes, n_pos: int) -> Op:
    """The paper's Copy: a Lookup on the position code shifted by ``-offset``.

    Parameters
    ----------
    offset : int
        Read the token ``offset`` places before the rightmost one (0 = itself).
    writes : sequence of (source, dest) or (source, dest, B_V)
    n_pos : int
        Size of the ``pos`` block.

    Examples
    --------
    >>> layout = Layout([("pos", 3), ("v", 2), ("out", 2)])
    >>> X = np.array([layout.token(pos=0, v=1), layout.token(pos=1, v=0), layout.token(pos=2)])
    >>> heads = instruction(layout, [copy(2, [("v", "out")], 3)], advance=False)
    >>> attention(X, heads, kind="linear")[-1][layout["out"]]
    array([0., 1.])
    """
    shift = np.eye(n_pos, k=-int(offset))  # (query pos r) -> (key pos r - offset)
    return lookup("pos", "pos", writes, B_Q=shift)


@arguments(condition="text", pairs=structure("a sequence of ((a_source, a_map), (b_source, b_map))"), key="text",
           value="text", dest="text", n_pos="size", carry=sequence_of(str))
def if_then(condition: str, pairs, key: str, value: str, dest: str, n_pos: int, *, carry=()) -> list[list[Op]]:
    """The paper's If-Then (Alg 5): k tokens write the pairs into dummy attributes, then a Lookup.

    Parameters
    ----------
    condition : str
        Attribute x of the rightmost token; the result is ``b_i`` where ``x == a_i``.
    pairs : sequence of (a_i, b_i)
        Each ``a_i`` and ``b_i`` is ``(source, B_V)``: the attribute of the
        rightmost token *at the start* that holds it, and a map (None = identity).
        Attributes must not change meaning while the program runs.
    key, value : str
        Dummy attributes (the paper's s0, s1); give them rows of their own.
    dest : str
        Where the result is written.
    n_pos : int
    carry : sequence of str
        Attributes to carry forward through the k dummy tokens (the condition
        is always carried).

    Returns
    -------
    list of k+1 instructions, each a list of :class:`Op`.
    """
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs must be a sequence of ((a_source, a_map), (b_source, b_map)); received {pairs!r}")
    if isinstance(carry, (str, bytes)) or not all(isinstance(c, str) for c in carry):
        raise TypeError(f"carry must be a sequence of attribute names; received {carry!r}")
    pairs = list(pairs)
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                and all(isinstance(p, (tuple, list)) and len(p) == 2 and isinstance(p[0], str) for p in pair)):
            raise TypeError(f"pairs must hold ((a_source, a_map), (b_source, b_map)); received {pair!r}")
    k = len(pairs)
    carry = tuple(dict.fromkeys((condition, *carry)))
    program = []
    for i, ((a_src, a_map), (b_src, b_map)) in enumerate(pairs):
        # the token that started the If-Then is i places back
        ops = [copy(i, [(a_src, key, a_map), (b_src, value, b_map)], n_pos)]
        ops.append(copy(0, [(c, c) for c in carry], n_pos))
        program.append(ops)
    program.append([lookup(condition, key, [(value, dest)]), copy(0, [(c, c) for c in carry if c != dest], n_pos)])
    assert len(program) == k + 1
    return program


@arguments(layout=instance(Layout, where="tm_layout"), ops=sequence_of(Op, where="lookup or copy"),
           advance="flag")
def instruction(layout: Layout, ops, *, advance: bool = True) -> Heads:
    """Compile operations into one layer: one head per :class:`Op`.

    With ``advance`` (the default) a further head writes the next position
    code and the constant attribute ``one`` (if the layout has it).

    Returns
    -------
    Heads of dimension ``layout.d``
    """
    ops = list(ops)
    for op in ops:
        if not isinstance(op, Op):
            raise TypeError(f"ops must hold Op objects (from lookup or copy); received {type(op).__name__}")
    if advance:
        writes = [("pos", "pos", np.eye(layout.size("pos"), k=1))]
        if "one" in layout:
            writes.append(("one", "one", None))
        ops.append(copy(0, writes, layout.size("pos")))
    d = layout.d
    Theta = np.zeros((len(ops), d, d))
    W = np.zeros((len(ops), d, d))
    for h, op in enumerate(ops):
        B_Q = np.eye(layout.size(op.query), layout.size(op.key)) if op.B_Q is None else np.asarray(op.B_Q, float)
        Theta[h, layout[op.query], layout[op.key]] = B_Q
        for source, dest, B_V in op.writes:
            B = np.eye(layout.size(source), layout.size(dest)) if B_V is None else np.asarray(B_V, float)
            W[h, layout[source], layout[dest]] += B
    return Heads(Theta, W)


@arguments(y="array", layout=instance(Layout, where="tm_layout"))
def round_token(y, layout: Layout) -> np.ndarray:
    """Round each block to the one-hot of its largest entry, or to zero if all entries are below 1/2.

    Examples
    --------
    >>> layout = Layout([("a", 3), ("b", 2)])
    >>> round_token([0.1, 0.9, 0.2, 0.3, 0.1], layout)
    array([0., 1., 0., 0., 0.])
    """
    if y.shape != (layout.d,):
        raise ValueError(f"y must be one token of shape ({layout.d},) for this layout; received shape {y.shape}")
    out = np.zeros(layout.d)
    for name in layout.names:
        block = y[layout[name]]
        if block.max() >= 0.5:
            out[layout[name].start + int(np.argmax(block))] = 1.0
    return out


@arguments(X="array", program=sequence_of(Heads, where="instruction"),
           layout=instance(Layout, where="tm_layout"))
def run_program(X, program, layout: Layout) -> tuple[np.ndarray, float]:
    """Apply instructions in order, appending each rounded output as a new token.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    program : sequence of Heads

    Returns
    -------
    X : ndarray of shape (n + len(program), d)
    rounding : float
        The largest change rounding made; 0 up to floating point when the
        heads are exact.
    """
    program = list(program)
    for heads in program:
        if not isinstance(heads, Heads):
            raise TypeError(f"program must be a sequence of Heads (from instruction); received {type(heads).__name__}")
    if X.ndim != 2 or X.shape[1] != layout.d:
        raise ValueError(f"X must have shape (n, {layout.d}); received {X.shape}")
    if X.shape[0] + len(program) > layout.size("pos"):
        raise ValueError(f"the program needs {X.shape[0] + len(program)} positions but the layout has "
                         f"{layout.size('pos')}")
    rows, worst = [*X], 0.0
    for heads in program:
        Xc = np.array(rows)
        y = _last_row(Xc, heads)
        token = round_token(y, layout)
        if not np.isfinite(y).all():
            raise ValueError("a head's output overflows float64 (heads with entries too large for X); rescale the "
                             "program's heads")
        worst = max(worst, float(np.abs(token - y).max()))
        rows.append(token)
    return np.array(rows), worst


def _last_row(X: np.ndarray, heads: Heads) -> np.ndarray:
    """Linear attention at the last token only: ``sum_i (x_n Theta_i X^T) X W_i``."""
    scores = np.einsum("d,hde,ne->hn", X[-1], heads.Theta, X)  # (m, n) logits of the last token
    return np.einsum("hn,nd,hde->e", scores, X, heads.W)  # (d,)
