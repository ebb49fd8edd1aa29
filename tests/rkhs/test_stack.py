"""Stacks of linear-attention layers: the one-layer case against attention, gradients against finite differences."""

import numpy as np
import pytest

from attnlib import attention, gaussian_inputs, random_heads
from attnlib.rkhs.stack import Stack, init_stack, stack_forward, stack_loss_and_gradient, train_stack


def test_one_layer_is_causal_linear_attention():
    heads = random_heads(3, 4, rng=0)
    X = gaussian_inputs(5, 6, 4, rng=1)
    out = stack_forward(Stack([heads.Theta], [heads.W], [], []), X)
    # oracle: the causal layer written as loops over tokens
    want = np.zeros_like(X)
    for i in range(len(X)):
        for a in range(X.shape[1]):
            for h in range(heads.m):
                for b in range(a + 1):
                    want[i, a] += (X[i, a] @ heads.Theta[h] @ X[i, b]) * (X[i, b] @ heads.W[h])
    np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out, attention(X, heads, kind="linear", causal=True), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mlp", [False, True])
def test_gradient_matches_finite_differences(mlp):
    rng = np.random.default_rng(2)
    stack = init_stack(3, layers=2, heads=2, mlp=mlp, hidden=5, scale=0.7, rng=rng)
    X = 0.5 * rng.standard_normal((3, 4, 3))
    Y = rng.standard_normal((3, 4, 3))
    _, grads = stack_loss_and_gradient(stack, X, Y)
    for p, g in zip(stack.params(), grads.params(), strict=True):
        for idx in [tuple(rng.integers(0, s) for s in p.shape) for _ in range(4)]:
            old = p[idx]
            p[idx] = old + 1e-6
            up = stack_loss_and_gradient(stack, X, Y)[0]
            p[idx] = old - 1e-6
            down = stack_loss_and_gradient(stack, X, Y)[0]
            p[idx] = old
            assert np.isclose(g[idx], (up - down) / 2e-6, rtol=1e-5, atol=1e-9)


def test_training_reduces_the_loss_and_refuses_bad_shapes():
    X = gaussian_inputs(64, 4, 2, rng=0) / 2
    Y = attention(X, random_heads(1, 2, rng=1), kind="linear", causal=True)
    run = train_stack(X, Y, layers=2, mlp=True, epochs=20, rng=3)
    assert run.val_loss[-1] < 0.5 * run.val_loss[0] and run.loss.shape == (21,)
    with pytest.raises(ValueError, match=r"Y must hold .* shape \(64, 4, 2\) like X; received shape \(64, 2\)"):
        train_stack(X, Y[:, -1], epochs=1)


# --- relations between arguments (moved from tests/test_bad_input.py) -----------------------------
XST = gaussian_inputs(8, 3, 2, rng=0)
YST = XST[::-1].copy()


def test_train_stack_needs_X_val_and_Y_val_together():
    with pytest.raises(ValueError, match=r"X_val and Y_val must be given together"):
        train_stack(XST, YST, epochs=1, X_val=XST)


def test_stack_forward_names_a_stack_that_is_not_one():
    with pytest.raises(TypeError, match=r"stack must be a Stack \(from init_stack or train_stack\)"):
        stack_forward(None, XST)


def test_data_of_another_width_or_shape_are_named():
    stack = init_stack(2, rng=0)
    with pytest.raises(ValueError, match=r"X has token dimension 3"):
        stack_forward(stack, gaussian_inputs(2, 3, 3, rng=0))
    with pytest.raises(ValueError, match=r"X must be a batch of shape \(N, n, 2\)"):
        stack_forward(stack, XST[0])
    with pytest.raises(ValueError, match=r"Y must hold the layer's output at every position"):
        stack_loss_and_gradient(stack, XST, YST[:, -1])
    with pytest.raises(ValueError, match=r"Y_val must hold the layer's output"):
        train_stack(XST, YST, epochs=1, X_val=XST, Y_val=YST[:2])
