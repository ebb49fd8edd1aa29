"""Bad input to the explorers (attnlib.widgets), generated from their declarations (``attnlib._arguments``).

One valid call per explorer: every declared argument receives the bad values of its kind and must
raise, naming it, before a frame is drawn (the valid calls themselves are not run here: they draw
every frame; the explorers' own tests run them).
"""

from __future__ import annotations

import numpy as np
import pytest
from _declared import Call, bad_argument_test, coverage_tests

from attnlib import attention, boolean_inputs, random_heads
from attnlib.sculpt import planted_instance
from attnlib.tasks.automata import DFA
from attnlib.widgets import attention as wa
from attnlib.widgets import lower_bounds as wl
from attnlib.widgets import rkhs as wr
from attnlib.widgets import sculpt as ws
from attnlib.widgets import tasks as wt
from attnlib.widgets import training as wtr

X = boolean_inputs(6, 3, 4, rng=1)
H = random_heads(2, 4, rng=0)
TEACHER = planted_instance(2, 4, rng=0)
XB = boolean_inputs(120, 3, 4, rng=2)
DFA2 = DFA([[0, 1], [1, 0]], accepting=[False, True])

CALLS = [
    Call(wa.attention_explorer, X[0], H),
    Call(wtr.loss_landscape_explorer, X, attention(X, H), H),
    Call(wr.head_spectrum_explorer),
    Call(wr.identifiability_explorer),
    Call(wr.sample_size_explorer),
    Call(ws.report_explorer),
    Call(ws.single_head_explorer),
    Call(ws.slice_explorer),
    Call(ws.body_explorer, XB, attention(XB, TEACHER), TEACHER, TEACHER.W.sum(0)),
    Call(wl.spectrum_explorer),
    Call(wt.dfa_stepper, DFA2, [0, 1, 1]),
]

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.widgets"], CALLS)


def test_dfa_stepper_heads_must_be_heads_or_a_dict_of_them():
    """``heads`` has a structure of its own (a Heads, a dict of them, or None): checked by hand."""
    with pytest.raises(TypeError, match=r"heads must be a Heads, a non-empty dict of name -> Heads, or None"):
        wt.dfa_stepper(DFA2, [0, 1, 1], {"a": np.eye(2)})
    with pytest.raises(TypeError, match=r"heads must be a Heads"):
        wt.dfa_stepper(DFA2, [0, 1, 1], {})


def test_a_word_with_symbols_outside_the_dfa_is_named():
    with pytest.raises(ValueError, match=r"word must hold symbols in 0 \.\. 1"):
        wt.dfa_stepper(DFA2, [0, 1, 2])


def test_body_explorer_relations_are_named():
    with pytest.raises(ValueError, match=r"Y must hold the layer's output at every position"):
        ws.body_explorer(XB, attention(XB, TEACHER)[:, -1], TEACHER, TEACHER.W.sum(0))
    with pytest.raises(ValueError, match=r"sum_W must be a square matrix of shape \(4, 4\)"):
        ws.body_explorer(XB, attention(XB, TEACHER), TEACHER, np.eye(3))
