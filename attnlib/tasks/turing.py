"""Lookup, Copy and If-Then as explicit linear-attention heads, running a tiny Turing machine.

Yau et al. (App B, F; Lemma B.1) build a universal Turing machine out of an
*autoregressive MHLA program*: tokens are objects whose attributes occupy
disjoint blocks of coordinates, and every head performs one **Lookup**. The
query is a linear map ``B_Q`` of an attribute of the rightmost token, the
table is ``{key attribute : value attribute}`` over all tokens (matching keys
add up), and ``B_V`` of the matched value is written into an attribute of the
next token. **Copy** is the Lookup whose ``B_Q`` shifts the position code by
``-k``, so it reads the token k places back. **If-Then** (their Alg 4-5)
writes the k pairs (a_i, b_i) into two dummy attributes of k new tokens and
then looks the condition up in that small table.

This module implements those three primitives as :class:`attnlib.Heads` in
the book's row convention, ``F(X)_n = sum_i (x_n Theta_i X^T) X W_i``, and
uses them to run a Turing machine. What is ours, not the paper's:

* **Schedule.** Each instruction is its own small layer, applied by a driver
  that knows the program counter. The paper instead merges every block's heads
  into one MHLA whose blocks occupy disjoint rows (Lemma F.1), which is where
  its sizes ``H = O(n Phi Sigma)`` and ``d = O(n Phi Sigma max(Sigma, Q))``
  come from.
* **Tape.** The paper rewrites the whole tape at every step, one block of
  tokens per cell (Alg 6-7: copy the cell and its two neighbours from the
  previous configuration, then branch). We write only the visited cell: the
  write token holds ``+e(new letter)`` and ``-e(old letter)`` and a Lookup on
  the cell *sums* all writes there, which telescopes to the current letter.
  This uses the fact that linear attention adds matches instead of averaging.
* **Rounding.** After every instruction each attribute block is rounded to
  the one-hot of its largest entry, or to zero if every entry is below 1/2
  (the paper's Round, Def G.2, plus the "None" attribute).

The If-Then dummies of step t live in rows of their own, as in the paper, so
the token dimension grows linearly with the number of steps: keep runs tiny.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance, structure
from ..heads import Heads
from .programs import Layout, Op, copy, if_then, instruction, lookup, round_token, run_program

__all__ = [
    "Layout",
    "Op",
    "TMRun",
    "TuringMachine",
    "busy_beaver",
    "compile_step",
    "copy",
    "embed",
    "if_then",
    "instruction",
    "lookup",
    "random_machine",
    "round_token",
    "run",
    "run_program",
    "tm_layout",
]

# --- Turing machines ------------------------------------------------------------

LEFT, RIGHT = 0, 1


@arguments(delta=structure("a dict (q, a) -> (q_next, write, move)"), n_states="size", n_symbols="size",
           start="index")
@dataclass(frozen=True, eq=False)
class TuringMachine:
    """A Turing machine on a bounded tape.

    Parameters
    ----------
    delta : dict
        ``delta[(q, a)] = (q_next, write, move)`` with move 0 = left, 1 = right.
        A state with no entry halts.
    n_states, n_symbols : int
    start : int, default 0

    Examples
    --------
    >>> bb = busy_beaver()
    >>> bb
    TuringMachine(states=3, symbols=2, halting=[2])
    >>> bb.step(0, 2, [0, 0, 0, 0, 0])
    (1, 3, [0, 0, 1, 0, 0])
    """

    delta: dict
    n_states: int
    n_symbols: int
    start: int = 0

    def __post_init__(self):
        Q, A = self.n_states, self.n_symbols
        if not isinstance(self.delta, dict):
            raise TypeError(
                f"delta must be a dict (q, a) -> (q_next, write, move); received {type(self.delta).__name__}"
            )
        for key, value in self.delta.items():
            if not (_int_tuple(key, 2) and _int_tuple(value, 3)):
                raise TypeError(
                    f"delta must map pairs of ints (q, a) to triples of ints (q_next, write, move); "
                    f"received {key!r} -> {value!r}"
                )
        for (q, a), (q2, w, mv) in self.delta.items():
            if not (0 <= q < Q and 0 <= a < A and 0 <= q2 < Q and 0 <= w < A and mv in (LEFT, RIGHT)):
                raise ValueError(f"bad transition {(q, a)} -> {(q2, w, mv)} for {Q} states, {A} symbols, moves 0/1")
        if not 0 <= self.start < Q:
            raise ValueError(f"start must be a state in 0 .. {Q - 1}; received {self.start}")
        if not self.delta:
            raise ValueError("delta has no transitions")

    @property
    def halting(self) -> list[int]:
        """States with no transitions."""
        live = {q for q, _ in self.delta}
        return [q for q in range(self.n_states) if q not in live]

    @arguments(state="index", head="index", tape="intarray")
    def step(self, state: int, head: int, tape):
        """One step: returns (state, head, tape) after it (the head may then be off the tape, at -1 or L)."""
        if tape.ndim != 1 or tape.size == 0 or tape.min() < 0 or tape.max() >= self.n_symbols:
            raise ValueError(f"tape must be a non-empty 1-D sequence of symbols in 0 .. {self.n_symbols - 1}; "
                             f"received {tape.tolist()}")
        if not head < tape.size:
            raise ValueError(f"head must be a cell of the tape, in 0 .. {tape.size - 1}; received {head}")
        if not state < self.n_states or state in self.halting:
            raise ValueError(f"state must be a live state of the machine (not one of {self.halting}, below "
                             f"{self.n_states}); received {state}")
        q2, w, mv = self.delta[(state, int(tape[head]))]
        tape = [int(x) for x in tape]
        tape[head] = w
        return q2, head + (1 if mv == RIGHT else -1), tape

    def __repr__(self) -> str:
        return f"TuringMachine(states={self.n_states}, symbols={self.n_symbols}, halting={self.halting})"


def _int_tuple(value, length: int) -> bool:
    """Whether ``value`` is a tuple of ``length`` ints (numpy ints included, bools and floats not)."""
    return (isinstance(value, tuple) and len(value) == length
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in value))


def busy_beaver() -> TuringMachine:
    """The 2-state, 2-symbol busy beaver: 6 steps from a blank tape, four 1s, then halt (state 2)."""
    return TuringMachine(
        {(0, 0): (1, 1, RIGHT), (0, 1): (1, 1, LEFT), (1, 0): (0, 1, LEFT), (1, 1): (2, 1, RIGHT)}, 3, 2
    )


@arguments(n_states="size", n_symbols="size", rng="rng")
def random_machine(n_states: int, n_symbols: int, *, rng=None) -> TuringMachine:
    """A machine with uniform random transitions on every (state, symbol); it never halts.

    Examples
    --------
    >>> random_machine(3, 2, rng=0).halting
    []
    """
    Q, A = n_states, n_symbols
    delta = {(q, a): (int(rng.integers(Q)), int(rng.integers(A)), int(rng.integers(2))) for q in range(Q)
             for a in range(A)}
    return TuringMachine(delta, Q, A)


# --- compiling a machine ----------------------------------------------------------

TOKENS_PER_STEP_FIXED = 6  # READ, ROW, RESULT, MOVE-L, MOVE-R, NEXT; plus one dummy token per symbol


@arguments(tm=instance(TuringMachine), tape_length="size", steps="size")
def tm_layout(tm: TuringMachine, tape_length: int, steps: int) -> Layout:
    """The attribute blocks for running ``tm`` for ``steps`` steps on a tape of ``tape_length`` cells.

    The dimension grows linearly with ``steps``: every step's If-Then dummies
    get rows of their own.

    Examples
    --------
    >>> tm_layout(busy_beaver(), 5, 6).d
    201
    """
    Q, A, L = tm.n_states, tm.n_symbols, tape_length
    n_pos = Q + L + 1 + steps * (TOKENS_PER_STEP_FIXED + A)
    blocks = [("pos", n_pos), ("one", 1), ("tkey", Q)]
    for i in range(A):
        blocks += [(f"a{i}", A), (f"d{i}q", Q), (f"d{i}w", A), (f"d{i}m", 2)]
    blocks += [("cell", L), ("plus", A), ("minus", A), ("state", Q), ("head", L), ("letter", A),
               ("nq", Q), ("nw", A), ("mv", 2)]
    for t in range(steps):
        blocks += [(f"s0_{t}", A), (f"s1q_{t}", Q), (f"s1w_{t}", A), (f"s1m_{t}", 2), (f"m0_{t}", 2), (f"m1_{t}", L)]
    return Layout(blocks)


def _check_layout(layout: Layout, tm: TuringMachine) -> None:
    """Raise unless ``layout`` has the blocks of :func:`tm_layout` for ``tm``'s states and symbols."""
    if any(name not in layout for name in ("pos", "tkey", "a0", "cell", "state")) or \
            layout.size("tkey") != tm.n_states or layout.size("a0") != tm.n_symbols:
        raise ValueError(f"layout must be the tm_layout of this machine ({tm!r}); received {layout!r}")


def _check_tape(tape, n_symbols: int) -> list[int]:
    """The tape as a list of int symbols; refuses None, text, and fractional or non-finite entries."""
    arr = tape
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"tape must be a non-empty 1-D sequence of symbols; received shape {arr.shape}")
    if np.any(arr != np.round(arr)) or np.any(arr < 0) or np.any(arr >= n_symbols):
        raise ValueError(f"tape must have {arr.size} symbols in 0 .. {n_symbols - 1} (integers); "
                         f"received {arr.tolist()}")
    return [int(x) for x in arr]


@arguments(tm=instance(TuringMachine), tape="array", head="index", layout=instance(Layout, where="tm_layout"))
def embed(tm: TuringMachine, tape, head: int, layout: Layout) -> np.ndarray:
    """The initial context: one token per live state (its transition row), one per tape cell, a start token.

    Table token of state q: ``tkey = e_q`` and, for each symbol a_i, ``a_i``
    and ``delta(q, a_i)`` (the paper's Def F.2 row ``[a_0, delta(q, a_0), a_1, ...]``).
    Tape token i: ``cell = e_i``, ``plus = e_(x_i)``. Start token: ``state``, ``head``.

    Returns
    -------
    X : ndarray of shape (live states + tape length + 1, d)
    """
    tape = _check_tape(tape, tm.n_symbols)
    _check_layout(layout, tm)
    L = layout.size("cell")
    if len(tape) != L or not all(0 <= x < tm.n_symbols for x in tape):
        raise ValueError(f"tape must have {L} symbols in 0 .. {tm.n_symbols - 1}; received {tape}")
    if not 0 <= head < L:
        raise ValueError(f"head must be a cell in 0 .. {L - 1}; received {head}")
    rows = []
    for q in range(tm.n_states):
        if q in tm.halting:
            continue
        fields = {"tkey": q}
        for a in range(tm.n_symbols):
            q2, w, mv = tm.delta[(q, a)]
            fields.update({f"a{a}": a, f"d{a}q": q2, f"d{a}w": w, f"d{a}m": mv})
        rows.append(fields)
    rows += [{"cell": i, "plus": x} for i, x in enumerate(tape)]
    rows.append({"state": tm.start, "head": head})
    return np.array([layout.token(pos=p, one=np.ones(1), **fields) for p, fields in enumerate(rows)])


@arguments(tm=instance(TuringMachine), layout=instance(Layout, where="tm_layout"), t="count")
def compile_step(tm: TuringMachine, layout: Layout, t: int) -> list[tuple[str, Heads]]:
    """The instructions of step t, as (name, Heads) pairs, each one layer.

    1. READ: ``letter = Lookup(cell: plus - minus)`` at the head (a sum that
       telescopes over all writes to that cell); carry state and head.
    2. ROW: ``[a_i, delta(q, a_i)]_i = Lookup(tkey, state)``; carry letter, head.
    3. If-Then on the letter (|Sigma| dummy tokens, then a Lookup): ``[q', w', move]``.
    4. If-Then on the move (2 dummy tokens holding ``head`` shifted left and right, then a
       Lookup) writes the new head position into the NEXT token, together with
       ``state = q'``, and the write ``cell = old head, plus = w', minus = old letter``.
    """
    _check_layout(layout, tm)
    P, A, L = layout.size("pos"), tm.n_symbols, layout.size("cell")
    steps = [name for name in layout.names if name.startswith("s0_")]
    if not t < len(steps):
        raise ValueError(f"the layout has rows for steps 0 .. {len(steps) - 1}; received t={t}")
    program: list[tuple[str, list[Op]]] = []
    program.append(("READ", [
        lookup("head", "cell", [("plus", "letter"), ("minus", "letter", -np.eye(A))]),
        copy(0, [("state", "state"), ("head", "head")], P),
    ]))
    row = [(f"a{i}", f"a{i}") for i in range(A)] + [
        (f"d{i}{c}", f"d{i}{c}") for i in range(A) for c in "qwm"]
    program.append(("ROW", [lookup("state", "tkey", row), copy(0, [("letter", "letter"), ("head", "head")], P)]))
    # If-Then on the letter: the dummy value is the three blocks of delta(q, a_i)
    for i in range(A):
        program.append((f"IF-LETTER {i}", [
            copy(i, [(f"a{i}", f"s0_{t}")] + [(f"d{i}{c}", f"s1{c}_{t}") for c in "qwm"], P),
            copy(0, [("letter", "letter"), ("head", "head")], P),
        ]))
    program.append(("RESULT", [
        lookup("letter", f"s0_{t}", [(f"s1{c}_{t}", n) for c, n in zip("qwm", ("nq", "nw", "mv"), strict=True)]),
        copy(0, [("letter", "letter"), ("head", "head")], P),
    ]))
    carry = [("nq", "nq"), ("nw", "nw"), ("mv", "mv"), ("letter", "letter"), ("head", "head")]
    for name, move, shift in (("IF-MOVE L", LEFT, np.eye(L, k=-1)), ("IF-MOVE R", RIGHT, np.eye(L, k=1))):
        const = np.zeros((1, 2))
        const[0, move] = 1.0  # the constant key e_move, written from the attribute "one"
        program.append((name, [copy(0, [("one", f"m0_{t}", const), ("head", f"m1_{t}", shift)] + carry, P)]))
    program.append(("NEXT", [
        lookup("mv", f"m0_{t}", [(f"m1_{t}", "head")]),
        copy(0, [("nq", "state"), ("head", "cell"), ("nw", "plus"), ("letter", "minus")], P),
    ]))
    return [(name, instruction(layout, ops)) for name, ops in program]


# --- running ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TMRun:
    """The configurations decoded from the context after each step.

    Attributes
    ----------
    configs : list of (state, head, tape)
        Entry 0 is the start; entry t the configuration after t steps.
    X : ndarray of shape (n, d)
        The final context.
    names : list of str
        The instruction that wrote each token after the initial context.
    rounding : float
        The largest change rounding ever made (0 up to floating point).
    layout : Layout
    """

    configs: list
    X: np.ndarray
    names: list
    rounding: float
    layout: Layout

    def __repr__(self) -> str:
        return f"TMRun(steps={len(self.configs) - 1}, tokens={self.X.shape[0]}, d={self.X.shape[1]})"


def _decode(X: np.ndarray, layout: Layout) -> tuple[int, int, list[int]]:
    last = X[-1]
    tape = X[:, layout["cell"]].T @ (X[:, layout["plus"]] - X[:, layout["minus"]])  # (L, A), telescoped
    return int(np.argmax(last[layout["state"]])), int(np.argmax(last[layout["head"]])), \
        [int(np.argmax(row)) for row in tape]


@arguments(tm=instance(TuringMachine), tape="array", head="index", steps="size")
def run(tm: TuringMachine, tape, head: int, steps: int) -> TMRun:
    """Run ``tm`` for up to ``steps`` steps with the compiled attention program.

    Stops early in a halting state. Raises if the head would leave the tape.

    Examples
    --------
    >>> r = run(busy_beaver(), [0] * 5, 2, 6)
    >>> r.configs[-1]
    (2, 2, [1, 1, 1, 1, 0])
    """
    tape = _check_tape(tape, tm.n_symbols)
    if not head < len(tape):
        raise ValueError(f"head must be a cell in 0 .. {len(tape) - 1}; received {head}")
    layout = tm_layout(tm, len(tape), steps)
    X = embed(tm, tape, head, layout)
    configs, names, worst = [_decode(X, layout)], [], 0.0
    for t in range(steps):
        state, head_now, tape_now = configs[-1]
        if state in tm.halting:
            break
        for name, heads in compile_step(tm, layout, t):
            X, err = run_program(X, [heads], layout)
            worst = max(worst, err)
            names.append(name)
        if X[-1, layout["head"]].max() < 0.5:
            raise ValueError(f"the head left the tape of {len(tape)} cells at step {t + 1}; use a longer tape")
        configs.append(_decode(X, layout))
    return TMRun(configs, X, names, worst, layout)
