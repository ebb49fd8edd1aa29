"""Tests for attnlib.training: gradients against finite differences, learning, errors."""

import numpy as np
import pytest

from attnlib import (
    Heads,
    attention,
    boolean_inputs,
    gaussian_inputs,
    loss_and_gradient,
    random_heads,
    squared_loss,
    train,
)


def finite_difference(X, Y, heads, kind, causal, h=1e-6):
    """Central differences of the loss in every entry of Theta and W."""
    grads = []
    for which in ("Theta", "W"):
        base = getattr(heads, which)
        g = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += h
            minus[idx] -= h
            make = (lambda P: Heads(P, heads.W)) if which == "Theta" else (lambda P: Heads(heads.Theta, P))
            g[idx] = (squared_loss(X, Y, make(plus), kind=kind, causal=causal)
                      - squared_loss(X, Y, make(minus), kind=kind, causal=causal)) / (2 * h)
        grads.append(g)
    return grads


def naive_mse(X, Y, heads, kind, causal):
    F = attention(X, heads, kind=kind, causal=causal)
    if Y.ndim == 2:
        F = F[:, -1]
    return float(np.mean((F - Y) ** 2))


# --- oracle ------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["softmax", "linear"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("last", [False, True])
def test_gradients_match_finite_differences(kind, causal, last):
    rng = np.random.default_rng(0)
    heads = random_heads(2, 3, scale=2.0, rng=rng)
    X = gaussian_inputs(6, 4, 3, rng=rng)
    Y = rng.standard_normal((6, 3) if last else (6, 4, 3))
    loss, dTheta, dW = loss_and_gradient(X, Y, heads, kind=kind, causal=causal)
    assert loss == pytest.approx(naive_mse(X, Y, heads, kind, causal), rel=1e-12)
    fTheta, fW = finite_difference(X, Y, heads, kind, causal)
    for exact, approx in ((dTheta, fTheta), (dW, fW)):
        assert np.linalg.norm(exact - approx) <= 1e-6 * np.linalg.norm(approx)


# --- property ----------------------------------------------------------------


def test_adam_learns_one_linear_head():
    rng = np.random.default_rng(1)
    teacher = random_heads(1, 4, rng=rng)
    X = gaussian_inputs(256, 6, 4, rng=rng)
    result = train(X, attention(X, teacher, kind="linear"), 1, kind="linear", epochs=3000, lr=1e-2,
                   schedule="cosine", rng=rng)
    X_test = gaussian_inputs(512, 9, 4, rng=rng)
    truth = attention(X_test, teacher, kind="linear")
    error = np.linalg.norm(attention(X_test, result.heads, kind="linear") - truth) / np.linalg.norm(truth)
    assert error < 1e-3
    assert result.loss[-1] < 1e-6 * result.loss[0]


def test_minibatch_training_reduces_loss_and_records_validation():
    rng = np.random.default_rng(2)
    teacher = random_heads(2, 3, scale=2.0, rng=rng)
    X, X_val = gaussian_inputs(200, 4, 3, rng=rng), gaussian_inputs(50, 4, 3, rng=rng)
    result = train(X, attention(X, teacher), 2, epochs=30, batch_size=32, X_val=X_val,
                   Y_val=attention(X_val, teacher), rng=rng)
    assert result.loss.shape == result.val_loss.shape == (31,)
    assert result.loss[-1] < 0.5 * result.loss[0]
    assert result.val_loss[-1] < 0.5 * result.val_loss[0]
    heads, loss = result
    assert heads is result.heads and loss is result.loss


def test_training_is_reproducible():
    X = gaussian_inputs(40, 3, 2, rng=0)
    Y = X[:, -1]
    a = train(X, Y, 2, epochs=5, batch_size=8, rng=3)
    b = train(X, Y, 2, epochs=5, batch_size=8, rng=3)
    np.testing.assert_array_equal(a.loss, b.loss)
    np.testing.assert_array_equal(a.heads.Theta, b.heads.Theta)


def test_train_starts_from_init():
    teacher = random_heads(1, 3, rng=0)
    X = gaussian_inputs(20, 4, 3, rng=1)
    result = train(X, attention(X, teacher), init=teacher, epochs=1, lr=1e-3, rng=2)
    assert result.loss[0] == 0.0


# --- errors ------------------------------------------------------------------


def test_train_rejects_mismatched_targets():
    X = gaussian_inputs(10, 4, 3, rng=0)
    with pytest.raises(ValueError, match=r"Y must have shape \(10, 4, 3\).*or \(10, 3\).*received shape \(10, 4\)"):
        train(X, np.zeros((10, 4)), 1)


def test_train_needs_heads_count_and_consistent_init():
    X = gaussian_inputs(10, 4, 3, rng=0)
    with pytest.raises(ValueError, match="give the number of heads m"):
        train(X, X)
    with pytest.raises(ValueError, match="m=2 but init has 1 heads"):
        train(X, X, 2, init=random_heads(1, 3, rng=0))
    with pytest.raises(ValueError, match="init has d=4 but X has token dimension d=3"):
        train(X, X, init=random_heads(1, 4, rng=0))


def test_train_rejects_single_sequence_and_bad_options():
    with pytest.raises(ValueError, match="batch of shape"):
        train(np.ones((4, 3)), np.ones((4, 3)), 1)
    X = gaussian_inputs(10, 4, 3, rng=0)
    with pytest.raises(ValueError, match="schedule must be one of"):
        train(X, X, 1, schedule="step")
    with pytest.raises(ValueError, match="lr must be a finite positive number"):
        train(X, X, 1, lr=-1.0)
    with pytest.raises(ValueError, match="both X_val and Y_val"):
        train(X, X, 1, X_val=X)


def test_data_whose_loss_overflows_before_any_step_are_named():
    """An infinite loss at epoch 0 is the data's scale, not divergence: the error says how large X is."""
    X = 1e80 * gaussian_inputs(10, 4, 3, rng=0)
    with pytest.raises(ValueError, match=r"overflows float64 \(X has entries up to \d\.\d+e\+80, Y up to 0"):
        train(X, np.zeros_like(X), 1, kind="linear", rng=0)


def test_divergence_after_steps_is_reported():
    from attnlib import training

    with pytest.raises(FloatingPointError, match=r"diverged: the loss is inf after 3 epochs; lower lr \(now 0\.5\)"):
        training._finite(float("inf"), 3, 0.5)


# --- overflow, relations and bad input (moved from tests/test_bad_input.py) -----------------------
XB = boolean_inputs(6, 3, 4, rng=1)
HB = random_heads(2, 4, rng=0)
YB = attention(XB, HB)


def test_train_on_targets_whose_loss_overflows_names_Y():
    """Targets near 1e180: the loss (quadratic) is not representable; an error names Y, not the learning rate."""
    with pytest.raises(ValueError, match=r"overflows float64 \(X has entries up to 1, Y up to 1(\.\d+)?e\+180"):
        train(XB, YB * 1e180 / np.abs(YB).max(), 1, epochs=2)


def test_a_loss_that_overflows_names_its_inputs():
    with pytest.raises(ValueError, match="squared loss of X, Y and heads overflows"):
        squared_loss(XB * 1e200, YB, HB)
    with pytest.raises(ValueError, match="squared loss of X, Y and heads overflows"):
        loss_and_gradient(XB * 1e200, YB, HB)
    assert np.isfinite(squared_loss(XB * 1e100, YB, HB))


@pytest.mark.parametrize("text", ["False", "True"])
@pytest.mark.parametrize("call", [
    lambda v: train(XB, YB, 1, causal=v, epochs=1),
    lambda v: squared_loss(XB, YB, HB, causal=v),
    lambda v: loss_and_gradient(XB, YB, HB, causal=v),
], ids=["train", "squared_loss", "loss_and_gradient"])
def test_causal_must_be_a_bool_not_text(call, text):
    with pytest.raises(TypeError, match=r"causal must be True or False; received '(True|False)' \(str\)"):
        call(text)


def test_relations_between_the_arguments_of_train_are_named():
    with pytest.raises(ValueError, match=r"init_scale must be"):
        train(XB, YB, 1, init_scale=0)
    with pytest.raises(ValueError, match=r"give the number of heads m, or a starting point init"):
        train(XB, YB, epochs=1)
    with pytest.raises(ValueError, match=r"m=1 but init has 2 heads"):
        train(XB, YB, 1, init=HB, epochs=1)
    with pytest.raises(ValueError, match=r"init has d=3 but X has token dimension d=4"):
        train(XB, YB, 1, init=random_heads(1, 3, rng=0), epochs=1)
    with pytest.raises(ValueError, match=r"give both X_val and Y_val, or neither"):
        train(XB, YB, 1, epochs=1, X_val=XB)
    with pytest.raises(ValueError, match=r"Y_val must have shape"):
        train(XB, YB, 1, epochs=1, X_val=XB, Y_val=YB[:2])
