"""Tests for attnlib.tasks.automata: DFAs held in the context, run by linear attention."""

import numpy as np
import pytest

from attnlib import Heads, attention, random_heads
from attnlib.rkhs import certificate
from attnlib.tasks import automata as am

# --- an independent simulator, written here -----------------------------------


def naive_run(delta_rows, start, word):
    """Plain-Python DFA: delta_rows is a list of lists, delta_rows[s][a] = next state."""
    table = {(s, a): nxt for s, row in enumerate(delta_rows) for a, nxt in enumerate(row)}
    state, visited = start, [start]
    for a in word:
        state = table[(state, int(a))]
        visited.append(state)
    return visited


def naive_context(delta_rows, word, visited, t):
    """Table tokens then the query tokens of steps 0..t, built entry by entry."""
    S, A = len(delta_rows), len(delta_rows[0])
    d = S * A + S
    rows = []
    for s in range(S):
        for a in range(A):
            tok = [0.0] * d
            tok[s * A + a] = 1.0
            tok[S * A + delta_rows[s][a]] = 1.0
            rows.append(tok)
    for k in range(t + 1):
        tok = [0.0] * d
        tok[visited[k] * A + int(word[k])] = 1.0
        rows.append(tok)
    return np.array(rows)


# --- shape ---------------------------------------------------------------------


def test_shapes():
    dfa = am.random_dfa(4, 3, rng=0)
    assert am.token_dim(4, 3) == 16
    assert am.table_tokens(dfa).shape == (12, 16)
    assert am.query_tokens(np.zeros((2, 5), int), np.ones((2, 5), int), 4, 3).shape == (2, 5, 16)
    assert am.lookup_heads(4, 3).Theta.shape == (1, 16, 16)
    run = am.execute([dfa, dfa], am.random_words(2, 7, 3, rng=1))
    assert run.states.shape == (2, 8) and run.outputs.shape == (2, 7, 16)
    data = am.transition_data(5, 4, 3, length=6, rng=2)
    assert data.X.shape == (30, 12 + 6, 16) and data.Y.shape == (30, 16)
    assert repr(run) == "DFARun(N=2, L=7)"


# --- oracles -------------------------------------------------------------------


@pytest.mark.parametrize(("S", "A", "seed"), [(2, 2, 0), (3, 2, 1), (5, 3, 2), (7, 4, 3)])
def test_explicit_layer_executes_dfas_on_long_words(S, A, seed):
    rng = np.random.default_rng(seed)
    dfas = [am.random_dfa(S, A, rng=rng) for _ in range(20)]
    words = am.random_words(20, 300, A, rng=rng)
    run = am.execute(dfas, words)
    for dfa, word, states in zip(dfas, words, run.states, strict=True):
        assert states.tolist() == naive_run(dfa.delta.tolist(), dfa.start, word.tolist())


def test_explicit_output_is_exactly_the_next_state_one_hot():
    rng = np.random.default_rng(6)
    dfa = am.random_dfa(4, 3, rng=rng)
    word = am.random_words(1, 40, 3, rng=rng)[0]
    run = am.execute(dfa, word)
    visited = naive_run(dfa.delta.tolist(), 0, word.tolist())
    expected = np.zeros((40, 16))
    expected[np.arange(40), 12 + np.array(visited[1:])] = 1.0
    np.testing.assert_array_equal(run.outputs[0], expected)


def test_driver_equals_attention_on_the_context_for_any_heads():
    """The running-Gram driver computes the last row of attnlib.attention(kind='linear')."""
    rng = np.random.default_rng(7)
    dfa = am.random_dfa(3, 2, rng=rng)
    word = am.random_words(1, 12, 2, rng=rng)[0]
    heads = random_heads(4, 9, rng=rng)
    run = am.execute(dfa, word, heads)
    visited = run.states[0].tolist()
    for t in range(12):
        X = naive_context(dfa.delta.tolist(), word, visited, t)
        expected = attention(X, heads, kind="linear")[-1]
        np.testing.assert_allclose(run.outputs[0, t], expected, rtol=1e-10, atol=1e-10)
        assert visited[t + 1] == int(np.argmax(expected[6:]))


def test_run_contexts_match_naive_contexts():
    dfa = am.random_dfa(3, 3, rng=8)
    word = am.random_words(1, 6, 3, rng=9)[0]
    visited = naive_run(dfa.delta.tolist(), 0, word.tolist())
    for t, X in enumerate(am.run_contexts(dfa, word)):
        np.testing.assert_array_equal(X, naive_context(dfa.delta.tolist(), word, visited, t))


def test_transition_data_targets_and_padding():
    data = am.transition_data(8, 3, 2, length=5, rng=10)
    for i in range(data.X.shape[0]):
        dfa, word = data.dfas[data.dfa_index[i]], data.words[data.dfa_index[i]]
        t = data.step[i]
        visited = naive_run(dfa.delta.tolist(), 0, word.tolist())
        ctx = naive_context(dfa.delta.tolist(), word, visited, t)
        pad = data.X.shape[1] - ctx.shape[0]
        np.testing.assert_array_equal(data.X[i, :pad], 0.0)
        np.testing.assert_array_equal(data.X[i, pad:], ctx)
        assert int(np.argmax(data.Y[i])) == 6 + visited[t + 1] and data.Y[i].sum() == 1.0
    # the targets are what the explicit layer outputs, on the padded contexts
    F = attention(data.X, am.lookup_heads(3, 2), kind="linear")[:, -1]
    np.testing.assert_allclose(F, data.Y, atol=1e-12)


# --- properties ----------------------------------------------------------------


def test_order_of_table_tokens_does_not_matter():
    rng = np.random.default_rng(11)
    dfa = am.random_dfa(4, 2, rng=rng)
    X = am.run_contexts(dfa, am.random_words(1, 5, 2, rng=rng)[0])[-1]
    perm = np.concatenate([rng.permutation(8), np.arange(8, X.shape[0])])
    heads = random_heads(3, 12, rng=rng)
    np.testing.assert_allclose(attention(X[perm], heads, kind="linear")[-1],
                               attention(X, heads, kind="linear")[-1], rtol=1e-12)


def test_wrong_layer_makes_errors_that_compound():
    """A layer that ignores the symbol cannot run a DFA whose transitions depend on it."""
    S, A = 3, 2
    heads = am.lookup_heads(S, A)
    Theta = np.array(heads.Theta)
    Theta[:, : S * A, : S * A] = np.kron(np.eye(S), np.ones((A, A)))  # match the state only
    wrong = Heads(Theta, heads.W)
    parity_like = am.DFA([[0, 1], [1, 2], [2, 0]])
    words = am.random_words(50, 20, A, rng=12)
    states = am.execute([parity_like] * 50, words, wrong).states
    truth = np.array([naive_run(parity_like.delta.tolist(), 0, w.tolist()) for w in words])
    assert (states != truth).any(axis=1).mean() > 0.5


# --- errors --------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match=r"delta must map into the states 0 \.\. 1"):
        am.DFA([[0, 2], [1, 0]])
    with pytest.raises(TypeError, match="delta must be integers"):
        am.DFA([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="start must be a state"):
        am.DFA([[0, 1], [1, 0]], start=2)
    dfa = am.random_dfa(3, 2, rng=0)
    with pytest.raises(ValueError, match=r"words must lie in 0 \.\. 1; received values 0 \.\. 2"):
        am.execute(dfa, [0, 1, 2])
    with pytest.raises(ValueError, match="heads have d=4 but the encoding of S=3, A=2 has d = S\\*A \\+ S = 9"):
        am.execute(dfa, [0, 1], random_heads(1, 4, rng=0))
    with pytest.raises(ValueError, match="same \\(S, A\\)"):
        am.execute([dfa, am.random_dfa(2, 2, rng=0)], [0, 1])
    with pytest.raises(ValueError, match="received 2 DFAs but 3 words"):
        am.execute([dfa, dfa], np.zeros((3, 4), int))
    with pytest.raises(TypeError, match="dfa must be a DFA; received"):
        am.table_tokens(np.eye(2))
    with pytest.raises(ValueError, match="last dimension d = S\\*A \\+ S = 9"):
        am.decode_states(np.zeros(5), 3, 2)
    with pytest.raises(ValueError, match="same shape"):
        am.query_tokens([0, 1], [0], 3, 2)


# --- learning the step by regression --------------------------------------------


def test_step_contexts_match_run_contexts():
    rng = np.random.default_rng(13)
    dfas = [am.random_dfa(3, 2, rng=rng) for _ in range(3)]
    words = am.random_words(3, 5, 2, rng=rng)
    X = am.step_contexts(dfas, words)
    for i in range(3):
        for t, ctx in enumerate(am.run_contexts(dfas[i], words[i])):
            pad = X.shape[2] - ctx.shape[0]
            np.testing.assert_array_equal(X[i, t, pad:], ctx)
            np.testing.assert_array_equal(X[i, t, :pad], 0.0)


def test_fresh_dfas_are_unseen():
    train = [am.random_dfa(2, 2, rng=s) for s in range(10)]
    test = am.fresh_dfas(30, 2, 2, exclude=train, rng=0)
    seen = {tuple(d.delta.ravel()) for d in train}
    assert len(test) == 30 and not any(tuple(d.delta.ravel()) in seen for d in test)
    with pytest.raises(ValueError, match="already holds all 1 transition tables"):
        am.fresh_dfas(1, 1, 1, exclude=[am.DFA([[0]])])


@pytest.mark.parametrize("n_dfas", [40, 120])
def test_learned_step_is_exact_wherever_the_span_form_covers(n_dfas):
    """Done-when of the issue: regression from random DFAs is 100% correct on unseen DFAs and
    long words wherever the certificate's span form covers the test contexts."""
    import warnings

    from attnlib.rkhs import certificate

    data = am.transition_data(n_dfas, 3, 2, length=4, rng=n_dfas)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # one-hot data: the minimiser is not unique
        fit = am.learn_step(data)
    cert = certificate(data.X)
    assert not cert.identifiable  # one-hot contexts never give a full-rank Lambda_D
    assert fit.train_loss < 1e-20  # realisable: the fit interpolates
    rng = np.random.default_rng(100 + n_dfas)
    test = am.fresh_dfas(60, 3, 2, exclude=data.dfas, rng=rng)
    words = am.random_words(60, 80, 2, rng=rng)  # 20 times longer than in training
    ev = am.evaluate(fit.heads, test, words, certificate=cert)
    truth = np.array([naive_run(d.delta.tolist(), 0, w.tolist()) for d, w in zip(test, words, strict=True)])
    correct = (am.execute(test, words, fit.heads).states == truth).all(axis=1)
    np.testing.assert_array_equal(ev.correct, correct)
    assert ev.word_covered.any()
    assert correct[ev.word_covered].all()
    if n_dfas == 120:
        assert ev.coverage == 1.0 and ev.accuracy == 1.0


def test_evaluate_without_certificate():
    ev = am.evaluate(am.lookup_heads(2, 2), [am.random_dfa(2, 2, rng=0)] * 2, am.random_words(2, 9, 2, rng=1))
    assert ev.accuracy == 1.0 and ev.covered is None
    assert repr(ev) == "DFAEvaluation(N=2, L=9, accuracy=1.000)"
    with pytest.raises(ValueError, match="without a certificate"):
        _ = ev.coverage


def test_learning_and_evaluation_errors():
    with pytest.raises(TypeError, match="data must be a TransitionData"):
        am.learn_step(np.zeros((3, 4, 9)))
    dfa = am.random_dfa(3, 2, rng=0)
    with pytest.raises(ValueError, match="received 2 DFAs but 1 words"):
        am.step_contexts([dfa, dfa], [[0, 1]])
    with pytest.raises(ValueError, match=r"states must have shape \(1, 3\)"):
        am.step_contexts([dfa], [[0, 1]], states=[[0, 1]])
    with pytest.raises(ValueError, match="length must be a positive integer"):
        am.transition_data(3, 3, 2, length=0)


def test_evaluation_repr_fits_the_book_column():
    # issue 18: chapter 6 prints this repr; one 106-character line was cut off at the page edge
    dfas = [am.random_dfa(2, 2, rng=k) for k in range(3)]
    words = am.random_words(3, 9, 2, rng=1)
    data = am.transition_data(40, 2, 2, length=4, rng=2)
    ev = am.evaluate(am.lookup_heads(2, 2), dfas, words, certificate=certificate(data.X))
    text = repr(ev)
    assert max(len(line) for line in text.splitlines()) <= 79, text
    assert "\n" in text and text.startswith("DFAEvaluation(N=3, L=9, accuracy=1.000,")
    assert text.endswith(f"uncovered accuracy={ev.accuracy_where(False):.3f})")


def test_fresh_dfas_compares_tables_of_the_same_shape_only():
    # one-state tables of other shapes never collide, so they must not count against S=2, A=1
    other = [am.DFA(np.zeros((1, k), dtype=int)) for k in (1, 2, 3)]
    train_ = [am.DFA([[0], [0]]), am.DFA([[1], [1]]), am.DFA([[0], [1]])]
    fresh = am.fresh_dfas(3, 2, 1, exclude=train_ + other, rng=0)
    assert all(f.delta.tolist() == [[1], [0]] for f in fresh)
    # a same-bytes table of another shape is not a collision: (1, 2) [[0, 1]] vs (2, 1) [[0], [1]]
    assert am.fresh_dfas(1, 2, 1, exclude=[am.DFA([[0, 0]])], rng=0)


def test_dfa_run_matches_naive_simulator():
    rng = np.random.default_rng(5)
    for _ in range(10):
        dfa = am.random_dfa(6, 3, rng=rng)
        word = am.random_words(1, 50, 3, rng=rng)[0]
        assert dfa.run(word).tolist() == naive_run(dfa.delta.tolist(), 0, word.tolist())
