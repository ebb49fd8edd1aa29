"""Tests for attnlib.tasks.turing: Lookup, Copy, If-Then heads and a tiny Turing machine."""

import numpy as np
import pytest

from attnlib import attention
from attnlib.tasks import turing as tu

# --- an independent Turing-machine simulator, written here ----------------------


def naive_tm(rules, state, head, tape, steps, halting):
    """rules[(q, a)] = (q2, write, move) with move 0 = left, 1 = right. Returns all configurations."""
    tape = list(tape)
    configs = [(state, head, list(tape))]
    for _ in range(steps):
        if state in halting:
            break
        q2, w, mv = rules[(state, tape[head])]
        tape[head] = w
        head = head + 1 if mv == 1 else head - 1
        state = q2
        configs.append((state, head, list(tape)))
    return configs


# --- primitives -----------------------------------------------------------------


def test_lookup_sums_matching_values():
    layout = tu.Layout([("pos", 5), ("k", 3), ("v", 4), ("q", 3), ("out", 4)])
    X = np.array([layout.token(pos=0, k=0, v=1), layout.token(pos=1, k=2, v=3),
                  layout.token(pos=2, k=0, v=2), layout.token(pos=3, q=0)])
    heads = tu.instruction(layout, [tu.lookup("q", "k", [("v", "out")])], advance=False)
    out = attention(X, heads, kind="linear")[-1]
    # both tokens with key 0 match: their values add
    np.testing.assert_array_equal(out[layout["out"]], [0, 1, 1, 0])
    np.testing.assert_array_equal(np.delete(out, np.r_[layout["out"]]), 0.0)


@pytest.mark.parametrize("offset", [0, 1, 2, 4])
def test_copy_reads_the_token_offset_places_back(offset):
    rng = np.random.default_rng(offset)
    layout = tu.Layout([("pos", 8), ("v", 3), ("out", 3)])
    vals = rng.integers(0, 3, size=6)
    X = np.array([layout.token(pos=i, v=int(v)) for i, v in enumerate(vals)])
    heads = tu.instruction(layout, [tu.copy(offset, [("v", "out")], 8)])
    out = attention(X, heads, kind="linear")[-1]
    expected = np.zeros(3)
    expected[vals[5 - offset]] = 1
    np.testing.assert_array_equal(out[layout["out"]], expected)
    np.testing.assert_array_equal(out[layout["pos"]], np.eye(8)[6])  # advance writes the next position


@pytest.mark.parametrize("x", [0, 1, 2])
def test_if_then_selects_the_matching_branch(x):
    """if x == a_i then out = b_i, with a_i, b_i held in attributes of the starting token."""
    layout = tu.Layout([("pos", 8), ("x", 3), ("a0", 3), ("a1", 3), ("a2", 3), ("b0", 2), ("b1", 2), ("b2", 2),
                        ("s0", 3), ("s1", 2), ("out", 2)])
    branches = {0: 1, 1: 0, 2: 1}  # b_i as an index in a 2-way block
    start = layout.token(pos=0, x=x, a0=0, a1=1, a2=2, b0=branches[0], b1=branches[1], b2=branches[2])
    pairs = [((f"a{i}", None), (f"b{i}", None)) for i in range(3)]
    program = [tu.instruction(layout, ops) for ops in tu.if_then("x", pairs, "s0", "s1", "out", 8)]
    X, rounding = tu.run_program(start[None], program, layout)
    assert X.shape == (5, layout.d) and rounding < 1e-12
    assert int(np.argmax(X[-1, layout["out"]])) == branches[x] and X[-1, layout["out"]].sum() == 1


def test_round_token():
    layout = tu.Layout([("a", 2), ("b", 3)])
    np.testing.assert_array_equal(tu.round_token([0.4, 0.2, 0.1, 0.7, 0.6], layout), [0, 0, 0, 1, 0])


# --- the machine ----------------------------------------------------------------


def test_busy_beaver_matches_the_simulator():
    bb = tu.busy_beaver()
    r = tu.run(bb, [0] * 5, 2, 10)
    expected = naive_tm(bb.delta, 0, 2, [0] * 5, 10, {2})
    assert [(q, h, list(t)) for q, h, t in r.configs] == expected
    assert len(r.configs) == 7 and sum(r.configs[-1][2]) == 4  # six steps, four ones, halted
    assert r.rounding < 1e-12  # every head output was already an exact one-hot


@pytest.mark.parametrize(("Q", "A", "seed"), [(2, 2, 0), (3, 2, 1), (2, 3, 2), (3, 3, 3)])
def test_random_machines_match_the_simulator(Q, A, seed):
    rng = np.random.default_rng(seed)
    steps = 4
    tm = tu.random_machine(Q, A, rng=rng)
    tape = rng.integers(0, A, size=2 * steps + 1).tolist()
    r = tu.run(tm, tape, steps, steps)
    assert [(q, h, list(t)) for q, h, t in r.configs] == naive_tm(tm.delta, 0, steps, tape, steps, set())
    assert r.rounding < 1e-12


def test_dimension_grows_linearly_with_steps():
    bb = tu.busy_beaver()
    dims = [tu.tm_layout(bb, 5, s).d for s in (1, 2, 3, 4)]
    assert len(set(np.diff(dims))) == 1 and dims[1] > dims[0]


def test_shapes_and_names():
    bb = tu.busy_beaver()
    r = tu.run(bb, [0] * 5, 2, 2)
    assert r.X.shape == (2 + 5 + 1 + 2 * 8, r.layout.d)
    assert r.names[:8] == ["READ", "ROW", "IF-LETTER 0", "IF-LETTER 1", "RESULT", "IF-MOVE L", "IF-MOVE R", "NEXT"]
    assert repr(r) == f"TMRun(steps=2, tokens=24, d={r.layout.d})"


# --- errors ---------------------------------------------------------------------


def test_errors():
    bb = tu.busy_beaver()
    with pytest.raises(ValueError, match="the head left the tape of 3 cells at step 4"):
        tu.run(bb, [0, 0, 0], 1, 4)
    with pytest.raises(ValueError, match=r"tape must have 5 symbols in 0 \.\. 1"):
        tu.embed(bb, [0, 2, 0, 0, 0], 0, tu.tm_layout(bb, 5, 2))
    with pytest.raises(ValueError, match="token dimension would be .* > 4000"):
        tu.tm_layout(bb, 50, 200)
    with pytest.raises(ValueError, match="bad transition"):
        tu.TuringMachine({(0, 0): (0, 0, 2)}, 1, 1)
    with pytest.raises(ValueError, match="names must be unique"):
        tu.Layout([("a", 1), ("a", 2)])
    with pytest.raises(KeyError, match="no block 'zz'"):
        tu.Layout([("a", 1)])["zz"]
    with pytest.raises(ValueError, match="offset must be an integer >= 0; received -1"):
        tu.copy(-1, [], 4)
    with pytest.raises(TypeError, match="tm must be a TuringMachine"):
        tu.run({}, [0], 0, 1)


def test_run_program_equals_attention_on_the_context():
    """The driver's last-token shortcut is attnlib.attention(kind='linear') at the last token."""
    bb = tu.busy_beaver()
    layout = tu.tm_layout(bb, 5, 2)
    X = tu.embed(bb, [0, 1, 0, 0, 1], 2, layout)
    for _, heads in tu.compile_step(bb, layout, 0):
        expected = tu.round_token(attention(X, heads, kind="linear")[-1], layout)
        X, _ = tu.run_program(X, [heads], layout)
        np.testing.assert_array_equal(X[-1], expected)


def test_turing_run_accepts_numpy_int_tape_and_head():
    r = tu.run(tu.busy_beaver(), np.zeros(5, dtype=int), np.int64(2), 6)
    assert r.configs[-1] == (2, 2, [1, 1, 1, 1, 0])
    with pytest.raises(ValueError, match="tape must have 5 symbols"):
        tu.run(tu.busy_beaver(), [0, 0.5, 0, 0, 0], 2, 2)
