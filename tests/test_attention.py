"""Tests for attnlib.attention: shapes, a naive-loop oracle, properties and errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attnlib import Heads, attention, attention_weights, boolean_inputs, gaussian_inputs, random_heads, softmax


def naive_attention(X, Theta, W, kind, causal):
    """One example, one head, one query row at a time, with math.exp."""
    N, n, d = X.shape
    out = np.zeros((N, n, d))
    for e in range(N):
        for i in range(Theta.shape[0]):
            for a in range(n):
                keys = range(a + 1) if causal else range(n)
                scores = [float(X[e, a] @ Theta[i] @ X[e, b]) for b in keys]
                if kind == "softmax":
                    top = max(scores)
                    weights = [math.exp(s - top) for s in scores]
                    total = sum(weights)
                    weights = [w / total for w in weights]
                else:
                    weights = scores
                row = sum(w * X[e, b] for w, b in zip(weights, keys, strict=False))
                out[e, a] += row @ W[i]
    return out


# --- shape -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["softmax", "linear"])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_shapes(kind, causal):
    heads = random_heads(3, 4, rng=0)
    X = gaussian_inputs(7, 5, 4, rng=1)
    assert attention(X, heads, kind=kind, causal=causal).shape == (7, 5, 4)
    assert attention(X[0], heads, kind=kind, causal=causal).shape == (5, 4)
    assert attention_weights(X, heads, kind=kind, causal=causal).shape == (7, 3, 5, 5)
    assert attention_weights(X[0], heads, kind=kind, causal=causal).shape == (3, 5, 5)


def test_softmax_shape_and_axis():
    S = np.arange(24.0).reshape(2, 3, 4)
    assert softmax(S).shape == (2, 3, 4)
    np.testing.assert_allclose(softmax(S, axis=1).sum(axis=1), 1.0)


# --- oracle ------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["softmax", "linear"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("inputs", [boolean_inputs, gaussian_inputs])
def test_attention_matches_naive_loop(kind, causal, inputs):
    rng = np.random.default_rng(2)
    heads = random_heads(3, 4, scale=2.0, rng=rng)
    X = inputs(6, 5, 4, rng=rng)
    expected = naive_attention(X, heads.Theta, heads.W, kind, causal)
    got = attention(X, heads, kind=kind, causal=causal)
    scale = max(1.0, np.abs(expected).max())
    assert np.max(np.abs(got - expected)) <= 1e-12 * scale
    # one sequence gives the same row as in the batch
    np.testing.assert_allclose(attention(X[3], heads, kind=kind, causal=causal), got[3], rtol=0, atol=1e-12 * scale)


def test_softmax_matches_definition():
    S = np.array([[0.0, 1.0, 2.0], [-3.0, 0.5, 0.5]])
    expected = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(softmax(S), expected, rtol=1e-15)


# --- properties --------------------------------------------------------------


def test_softmax_finite_at_huge_logits():
    S = np.array([[1e4, -1e4, 0.0], [1e4, 1e4, -1e4], [-1e4, -1e4, -1e4]])
    P = softmax(S)
    assert np.isfinite(P).all()
    np.testing.assert_allclose(P, [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]], atol=1e-300)


def test_attention_finite_at_huge_logits():
    X = boolean_inputs(4, 3, 4, rng=0)
    heads = Heads(1e3 * np.ones((1, 4, 4)), np.eye(4))  # logits up to 1.6e4
    assert np.isfinite(attention(X, heads)).all()


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                  elements=st.floats(-1e4, 1e4)))
def test_softmax_rows_are_distributions(S):
    P = softmax(S)
    assert np.isfinite(P).all()
    assert (P >= 0).all() and (P <= 1).all()
    np.testing.assert_allclose(P.sum(axis=-1), 1.0, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, (3, 5), elements=st.floats(-50, 50)), st.floats(-1e3, 1e3))
def test_softmax_shift_invariance(S, c):
    np.testing.assert_allclose(softmax(S + c), softmax(S), atol=1e-12)


def test_softmax_masks_neg_inf():
    P = softmax([[0.0, -np.inf, 0.0]])
    np.testing.assert_array_equal(P, [[0.5, 0.0, 0.5]])


@pytest.mark.parametrize("kind", ["softmax", "linear"])
def test_token_permutation_equivariance(kind):
    rng = np.random.default_rng(3)
    heads = random_heads(2, 4, rng=rng)
    X = gaussian_inputs(5, 6, 4, rng=rng)
    perm = rng.permutation(6)
    np.testing.assert_allclose(attention(X[:, perm], heads, kind=kind), attention(X, heads, kind=kind)[:, perm],
                               atol=1e-12)


@pytest.mark.parametrize("kind", ["softmax", "linear"])
def test_head_permutation_invariance(kind):
    rng = np.random.default_rng(4)
    heads = random_heads(4, 3, rng=rng)
    X = gaussian_inputs(5, 4, 3, rng=rng)
    np.testing.assert_allclose(attention(X, heads[[2, 0, 3, 1]], kind=kind), attention(X, heads, kind=kind),
                               atol=1e-12)


def test_linear_scaling_gauge_and_softmax_has_none():
    rng = np.random.default_rng(5)
    heads = random_heads(2, 3, rng=rng)
    X = gaussian_inputs(5, 4, 3, rng=rng)
    rescaled = Heads(3.0 * heads.Theta, heads.W / 3.0)
    np.testing.assert_allclose(attention(X, rescaled, kind="linear"), attention(X, heads, kind="linear"), atol=1e-12)
    assert np.abs(attention(X, rescaled) - attention(X, heads)).max() > 1e-3


def test_causal_output_is_last_token_of_prefix():
    rng = np.random.default_rng(6)
    heads = random_heads(2, 3, rng=rng)
    X = gaussian_inputs(4, 6, 3, rng=rng)
    for kind in ("softmax", "linear"):
        F = attention(X, heads, kind=kind, causal=True)
        for t in range(6):
            np.testing.assert_allclose(F[:, t], attention(X[:, : t + 1], heads, kind=kind)[:, -1], atol=1e-12)


def test_softmax_weights_are_row_stochastic_and_causal_is_lower_triangular():
    rng = np.random.default_rng(7)
    A = attention_weights(boolean_inputs(3, 5, 4, rng=rng), random_heads(2, 4, scale=5.0, rng=rng), causal=True)
    np.testing.assert_allclose(A.sum(-1), 1.0, atol=1e-12)
    assert np.all(np.triu(A, k=1) == 0.0)


def test_zero_theta_gives_uniform_attention():
    X = gaussian_inputs(2, 4, 3, rng=0)
    heads = Heads(np.zeros((1, 3, 3)), np.eye(3))
    np.testing.assert_allclose(attention(X, heads), np.repeat(X.mean(axis=1, keepdims=True), 4, axis=1), atol=1e-12)


# --- errors ------------------------------------------------------------------


@pytest.fixture
def heads():
    return random_heads(2, 4, rng=0)


@pytest.mark.parametrize("shape", [(4,), (2, 3, 5, 4), ()])
def test_attention_rejects_bad_ndim(heads, shape):
    with pytest.raises(ValueError, match=r"\(n, d\).*\(N, n, d\).*received shape"):
        attention(np.ones(shape), heads)


def test_attention_rejects_dimension_mismatch(heads):
    with pytest.raises(ValueError, match=r"token dimension 3 .*\(10, 5, 3\).*d=4"):
        attention(np.ones((10, 5, 3)), heads)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_attention_rejects_non_finite(heads, bad):
    X = np.ones((2, 3, 4))
    X[1, 2, 0] = bad
    with pytest.raises(ValueError, match=r"X must be finite.*index \(1, 2, 0\)"):
        attention(X, heads)


def test_attention_rejects_unknown_kind(heads):
    with pytest.raises(ValueError, match=r"kind must be one of 'softmax', 'linear'; received 'relu'"):
        attention(np.ones((3, 4)), heads, kind="relu")


def test_attention_rejects_non_heads():
    with pytest.raises(TypeError, match="heads must be an attnlib.Heads; received tuple"):
        attention(np.ones((3, 4)), (np.eye(4), np.eye(4)))


def test_attention_rejects_empty(heads):
    with pytest.raises(ValueError, match="non-empty"):
        attention(np.ones((0, 3, 4)), heads)


def test_softmax_rejects_nan_and_all_masked():
    with pytest.raises(ValueError, match="finite or -inf"):
        softmax([0.0, np.nan])
    with pytest.raises(ValueError, match="finite or -inf"):
        softmax([0.0, np.inf])
    with pytest.raises(ValueError, match="all -inf"):
        softmax([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(TypeError, match="array of numbers"):
        softmax("abc")


# --- rescaling, edge cases and bad input (moved from tests/test_bad_input.py) ---------------------
XB = boolean_inputs(6, 3, 4, rng=1)
HB = random_heads(2, 4, rng=0)


def test_attention_of_huge_finite_input_is_rescaled():
    """attention(np.full((3, 4), 1e160), H) was all NaN; the softmax sees only logit differences."""
    F = attention(np.full((3, 4), 1e160), HB)
    assert np.isfinite(F).all()
    # every token is equal, so every weight is 1/3 and F = x W summed over heads, scaled by 1e160
    expected = np.full((3, 4), 1.0) @ HB.W.sum(axis=0)
    np.testing.assert_allclose(F / 1e160, expected, rtol=1e-12)


def test_attention_rescaling_agrees_with_saturated_softmax():
    Xg = gaussian_inputs(3, 4, 4, rng=7)
    for causal in (False, True):
        big = attention(Xg * 1e160, HB, causal=causal) / 1e160
        # at scale 1e6 the softmax is already one-hot, as it is at 1e160
        moderate = attention(Xg * 1e6, HB, causal=causal) / 1e6
        np.testing.assert_allclose(big, moderate, rtol=1e-9, atol=1e-12)
        A = attention_weights(Xg * 1e160, HB, causal=causal)
        np.testing.assert_allclose(A.sum(axis=-1), 1.0)


def test_softmax_edge_cases():
    np.testing.assert_array_equal(softmax([5.0]), [1.0])
    np.testing.assert_allclose(softmax([-np.inf, 0.0]), [0.0, 1.0])
    np.testing.assert_allclose(softmax([1e308, -1e308]), [1.0, 0.0])
    np.testing.assert_allclose(softmax(np.array([[1, 2]], dtype=np.int64), axis=0), [[1.0, 1.0]])
    np.testing.assert_allclose(softmax(np.array([True, False])), [np.e / (1 + np.e), 1 / (1 + np.e)])


def test_softmax_axis_is_an_integer_of_S():
    """``axis`` has a structure of its own (an integer, negative ones from the end): checked by hand."""
    np.testing.assert_allclose(softmax(np.zeros((2, 3)), axis=np.int64(-2)), np.full((2, 3), 0.5))
    with pytest.raises(ValueError, match="axis must lie in"):
        softmax([1.0, 2.0], axis=1)
    with pytest.raises(TypeError, match="axis must be an integer"):
        softmax([1.0, 2.0], axis=0.0)
    with pytest.raises(TypeError, match="axis must be an integer"):
        softmax([1.0, 2.0], axis=True)


@pytest.mark.parametrize(("label", "call", "exc", "pattern"), [
    ("softmax(None)", lambda: softmax(None), TypeError, r"S must be .*received None"),
    ("softmax(complex)", lambda: softmax(np.array([1 + 2j, 3])), TypeError, r"S must be real; received a complex"),
    ("softmax(nan)", lambda: softmax([np.nan, 0.0]), ValueError, r"S must be finite or -inf"),
    ("softmax([])", lambda: softmax([]), ValueError, r"S must be non-empty"),
    ("softmax(all -inf)", lambda: softmax([-np.inf, -np.inf]), ValueError, r"all -inf is undefined"),
    ("attention(complex X)", lambda: attention(XB + 0j, HB), TypeError, r"X must be real"),
    ("linear attention whose logits overflow", lambda: attention(np.full((3, 4), 1e160), HB, kind="linear"),
     ValueError, r"largest \|X\| entry"),
    ("attention(X of another d)", lambda: attention(XB[..., :3], HB), ValueError, r"X has token dimension 3"),
    *[(f"{f.__name__}(causal={text!r})", lambda f=f, text=text: f(XB, HB, causal=text), TypeError,
       r"causal must be True or False; received '(True|False)' \(str\)")
      for f in (attention, attention_weights) for text in ("False", "True")],
], ids=lambda v: v if isinstance(v, str) else "")
def test_reproducer_raises_naming_the_argument(label, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_flags_accept_numpy_booleans():
    np.testing.assert_array_equal(attention(XB, HB, causal=np.bool_(True)), attention(XB, HB, causal=True))


finite = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=1, max_size=8))
def test_softmax_of_finite_logits_is_a_distribution(logits):
    p = softmax(logits)
    assert np.isfinite(p).all() and abs(p.sum() - 1) < 1e-12 and (p >= 0).all()


@settings(max_examples=40, deadline=None)
@given(st.floats(-300, 300), st.integers(0, 2**16))
def test_softmax_attention_is_finite_at_every_scale(log_scale, seed):
    Xg = gaussian_inputs(2, 3, 4, rng=seed) * 10.0 ** (log_scale / 2)
    F = attention(Xg, HB)
    assert np.isfinite(F).all()
    np.testing.assert_allclose(attention_weights(Xg, HB).sum(axis=-1), 1.0)


flag_like = st.one_of(st.text(max_size=5), st.integers(), st.floats(), st.none(), st.lists(st.booleans(), max_size=2))


@settings(max_examples=60, deadline=None)
@given(flag_like)
def test_only_booleans_are_flags(value):
    with pytest.raises(TypeError, match="causal must be True or False"):
        attention(XB, HB, causal=value)
