"""Tests for attnlib.tasks.dfa: the DFA class keeps the caller's arrays and reads its accepting states."""

import numpy as np
import pytest

from attnlib.tasks import automata


def test_dfa_leaves_the_callers_accepting_array_writable():
    acc = np.array([False, True])
    dfa = automata.DFA([[0, 1], [1, 0]], accepting=acc)
    assert acc.flags.writeable
    acc[0] = True
    assert not dfa.accepting[0]


def test_dfa_accepting_accepts_numpy_bools_and_01():
    assert automata.DFA([[0, 1], [1, 0]], accepting=np.array([0, 1])).accepts([1])
    with pytest.raises(ValueError, match="accepting must hold booleans"):
        automata.DFA([[0, 1], [1, 0]], accepting=[0, 2])


