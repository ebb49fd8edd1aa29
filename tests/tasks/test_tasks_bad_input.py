"""Bad input to attnlib.tasks: one valid call per public function, the bad values generated from the
declarations (tests/_declared.py), and the reproducers whose messages are pinned."""

import numpy as np
import pytest
from _declared import Call, bad_argument_test, coverage_tests

import attnlib
from attnlib.tasks import associative_memory as am
from attnlib.tasks import automata, programs, turing
from attnlib.tasks import dfa as tdfa

DFA = automata.DFA([[0, 1], [1, 0]], accepting=[False, True])
DFAS = [DFA, DFA]
WORDS = automata.random_words(2, 4, 2, rng=0)
BB = turing.busy_beaver()
LAYOUT = turing.tm_layout(BB, 5, 2)
TD = automata.transition_data(2, 3, 2, length=4, rng=0)
evaluation = automata.evaluate(automata.lookup_heads(2, 2), DFAS, WORDS)
layout = programs.Layout([("pos", 3), ("k", 2), ("v", 2)])

CALLS = [
    # tasks (chapters 5-6)
    Call(am.memory_heads, 3),
    Call(am.sample_memories, 4, 3),
    Call(tdfa.DFA, [[0, 1], [1, 0]], accepting=[False, True]),
    Call(DFA.run, [0, 1, 1]),
    Call(DFA.accepts, [0, 1, 1]),
    Call(tdfa.random_dfa, 3, 2),
    Call(tdfa.random_words, 4, 5, 2),
    Call(tdfa.token_dim, 3, 2),
    Call(tdfa.table_tokens, DFA),
    Call(tdfa.query_tokens, [0, 1], [1, 0], 2, 2),
    Call(tdfa.lookup_heads, 3, 2),
    Call(tdfa.decode_states, np.zeros((2, 6)), 2, 2),
    Call(tdfa.execute, DFAS, WORDS),
    Call(tdfa.run_contexts, DFA, [0, 1, 1]),
    Call(automata.transition_data, 2, 3, 2, length=4),
    Call(automata.learn_step, TD),
    Call(automata.fresh_dfas, 2, 3, 2),
    Call(automata.step_contexts, DFAS, WORDS),
    Call(automata.evaluate, automata.lookup_heads(2, 2), DFAS, WORDS),
    Call(evaluation.accuracy_where, True),
    Call(programs.Layout, [("pos", 3), ("k", 2)]),
    Call(layout.size, "k"),
    Call(layout.token, pos=0, k=1),
    Call(programs.Op, "k", "k", (("v", "v", None),), B_Q=np.eye(2)),
    Call(programs.lookup, "k", "k", [("v", "v")], B_Q=np.eye(2)),
    Call(programs.copy, 1, [("v", "v")], 3),
    Call(programs.if_then, "k", [(("v", None), ("v", None))], "k", "v", "v", 3),
    Call(programs.instruction, layout, [programs.copy(0, [("v", "v")], 3)]),
    Call(programs.round_token, np.zeros(layout.d), layout),
    Call(programs.run_program, np.zeros((1, layout.d)), [], layout),
    Call(turing.TuringMachine, {(0, 0): (1, 1, 1)}, 2, 2),
    Call(BB.step, 0, 2, [0] * 5),
    Call(turing.random_machine, 3, 2),
    Call(turing.tm_layout, BB, 5, 2),
    Call(turing.embed, BB, [0] * 5, 2, LAYOUT),
    Call(turing.compile_step, BB, LAYOUT, 0),
    Call(turing.run, BB, [0] * 5, 2, 2),
]

OUTPUTS = (am.Memories, automata.TransitionData, tdfa.DFARun, automata.DFAEvaluation, turing.TMRun)

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.tasks"], CALLS, outputs=OUTPUTS)

REPRODUCERS = [
    *[(f"sample_memories(unit_norm={text!r})", lambda text=text: am.sample_memories(4, 3, unit_norm=text), TypeError,
       r"unit_norm must be True or False; received '(True|False)' \(str\)") for text in ("False", "True")],
    ("turing.run(head=2.0)", lambda: turing.run(BB, [0] * 5, 2.0, 2), TypeError, r"head must be an integer"),
    ("TuringMachine keyed by a float", lambda: turing.TuringMachine({(0.0, 0): (1, 1, 1)}, 2, 2), TypeError,
     r"delta must map pairs of ints"),
    ("DFA accepting of strings", lambda: automata.DFA([[0]], accepting=["yes"]), TypeError, r"accepting must be"),
    ("fresh_dfas(exclude=[not a DFA])", lambda: automata.fresh_dfas(1, 2, 1, exclude=[np.zeros((2, 1))]), TypeError,
     r"exclude\[0\] must be a DFA"),
    ("TuringMachine.step with a negative head", lambda: BB.step(0, -1, [0] * 5), ValueError,
     r"^head must be an integer >= 0"),
    ("TuringMachine.step in a halting state", lambda: BB.step(2, 0, [0] * 5), ValueError,
     r"^state must be a live state"),
    ("execute with weights near 1e308", lambda: automata.execute(DFAS, WORDS, attnlib.Heads(
        automata.lookup_heads(2, 2).Theta * 1e308, automata.lookup_heads(2, 2).W * 1e308)), ValueError,
     r"outputs overflow float64"),
    # attribute names, write lists and programs of the Turing-machine compiler: structures checked by hand
    ("lookup(writes='ab')", lambda: turing.lookup("q", "k", "ab"), TypeError, r"writes must be a sequence"),
    ("lookup(writes=[('a',)])", lambda: turing.lookup("q", "k", [("a",)]), TypeError,
     r"writes must hold \(source, dest\)"),
    ("if_then(pairs=[(1, 2)])", lambda: turing.if_then("a", [(1, 2)], "k", "v", "o", 4), TypeError,
     r"pairs must hold"),
    ("instruction(layout='x')", lambda: turing.instruction("x", []), TypeError, r"layout must be a Layout"),
    ("instruction(ops=[1])", lambda: turing.instruction(LAYOUT, [1]), TypeError,
     r"ops\[0\] must be an Op \(from lookup or copy\)"),
    ("run_program(program=[1])", lambda: turing.run_program(np.zeros((1, LAYOUT.d)), [1], LAYOUT), TypeError,
     r"program\[0\] must be a Heads \(from instruction\)"),
    ("round_token(layout=None)", lambda: turing.round_token([0.0], None), TypeError, r"layout must be a Layout"),
    ("lookup(writes=[('a', 1)])", lambda: turing.lookup("q", "k", [("a", 1)]), TypeError, r"writes must hold"),
    ("if_then(carry='ab')", lambda: turing.if_then("a", [], "k", "v", "o", 4, carry="ab"), TypeError,
     r"carry must be"),
    ("Layout(blocks=[('a', 0)])", lambda: turing.Layout([("a", 0)]), ValueError,
     r"size of block 'a' must be a positive"),
    ("Layout(blocks=3)", lambda: turing.Layout(3), TypeError, r"blocks must be a sequence"),
    ("Layout.size('zz')", lambda: LAYOUT.size("zz"), ValueError, r"name must be one of"),
    ("Layout.token(zz=0)", lambda: LAYOUT.token(zz=0), ValueError, r"a block's name must be one of"),
    ("Layout.token(pos='a')", lambda: LAYOUT.token(pos="a"), TypeError, r"pos must be an index or an array"),
    ("TuringMachine(delta=[])", lambda: turing.TuringMachine([], 2, 2), TypeError, r"delta must be a dict"),
    ("execute(dfas='abc')", lambda: automata.execute("abc", WORDS), TypeError, r"dfas must be a DFA or a list"),
    ("execute(dfas=[DFA, 1])", lambda: automata.execute([DFA, 1], WORDS), TypeError, r"dfas\[1\] must be an"),
    ("evaluate(certificate=1)", lambda: automata.evaluate(automata.lookup_heads(2, 2), DFAS, WORDS, certificate=1),
     TypeError, r"certificate must be an attnlib.rkhs.Certificate"),
]


@pytest.mark.parametrize(("label", "call", "exc", "pattern"), REPRODUCERS, ids=[r[0] for r in REPRODUCERS])
def test_reproducer_raises_naming_the_argument(label, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
