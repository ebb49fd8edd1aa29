"""Every exercise solution of the book runs, and its run shows what its prose says.

Every solution of chapters 1-11 that holds code runs whole, in a namespace holding what a reader
who ran its chapter would have: the set-up cell and the chapter cells that define the names the
solution reads (``_solutions.chapter_slice``: the slice of the chapter the solution depends on,
found by reading the cells' code, not the whole chapter). Each check the exercise names must print
its one line of success. Then what the solution states is checked (``CLAIMS``, one entry per
solution): every number its prose states is read *from the prose*, so a changed sentence is
seen, and compared with what its run printed or left, or, for a pen-and-paper solution, with an
independent computation; a qualitative result is anchored by its phrase and asserted on the run.
The last tests change a stated number or a printed result and check that the claims then fail.

Three solutions take a minute or more (``SLOW``, marked ``slow``); the README's test command runs
them. ``python tests/checks/test_checks_solutions.py ex-04-lengths`` shows one solution's run:
the chapter cells it uses, what it prints, and how long it takes.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import inspect
import io
import itertools
import json
import math
import re
import time

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from _solutions import SOLUTIONS, Solution, chapter_slice, close, first_failure, glued, names_of, run

import attnlib.lower_bounds as lb
from attnlib import Heads, attention, boolean_inputs, gaussian_inputs, random_heads, softmax, squared_loss
from attnlib.checks import (
    check_gradient_descent,
    check_heads_from_coef,
    check_linear_attention_gradient,
    check_logit_gaps,
    check_parameter_map,
    check_parity_coefficients,
    check_softmax,
)
from attnlib.rkhs import certificate, cubic_features, fit_linear_attention, kernel, n_features, parameter_map
from attnlib.sculpt import certify, learn, net_candidates
from attnlib.tasks import automata as am

# --- what each solution states ------------------------------------------------------------------

#: solution label -> a function that asserts, on the solution's :class:`Run`, what its prose states
CLAIMS = {}

#: solutions whose run takes a minute or more: marked ``slow`` (the README's test command runs them)
SLOW = set()


def claim(*labels):
    """Register the decorated function as the claims check of the solutions ``labels``."""

    def register(check):
        for label in labels:
            assert label not in CLAIMS, label
            CLAIMS[label] = check
        return check
    return register


# chapter 1


@claim("ex-01-softmax-limits")
def _(run):
    run.says("uniform vector $\\mathbf 1/n$", "the indicator $e_{b^\\star}$", "uniform on the $k$ maximisers")
    s = np.array([0.3, 2.0, -1.0, 2.0, 0.5])
    assert np.allclose(softmax(1e-9 * s), 1 / len(s))
    unique = s.copy()
    unique[1] = 3.0
    assert np.allclose(softmax(1e4 * unique), np.eye(5)[1])
    assert np.allclose(softmax(1e4 * s), [0, 0.5, 0, 0.5, 0])  # two maximisers


@claim("ex-01-stable-softmax")
def _(run):
    run.says("nothing overflows", "Masked entries give $e^{-\\infty}=0$",
             "Subtracting the maximum of the whole array instead of each row's is a common slip: a row whose logits "
             "all lie far below the global maximum then underflows to $0/0$")
    mine = run.namespace["my_softmax"]
    S = np.array([[1e4, 0.0, -np.inf], [-1e4, -1e4 + 1, -1e4]])
    assert np.all(np.isfinite(mine(S))) and np.allclose(mine(S).sum(axis=-1), 1) and mine(S)[0, 2] == 0

    def global_max(S):  # the slip: the maximum of the whole array
        S = np.asarray(S, dtype=float)
        E = np.exp(S - S.max())
        return E / E.sum(axis=-1, keepdims=True)

    with np.errstate(invalid="ignore"):
        assert np.all(np.isnan(global_max(S)[1])) and np.allclose(global_max(S)[0], mine(S)[0])
    first_failure(check_softmax, global_max)


@claim("ex-01-head")
def _(run):
    assert len(run.lines) == 1  # nothing is stated beyond the check, which passed


@claim("ex-01-zero-theta")
def _(run):
    uniform = 1 / run.stated(r"query 4 puts \$\\tfrac1(\d)\$ on each token")
    causal = 1 / run.stated(r"query 2 sees tokens 1 and 2 and puts \$\\tfrac1(\d)\$ on each")
    linear = run.stated(r"so it outputs \$(\d+)\$")
    assert np.allclose(run.gives("(a), (b), (c)"), [uniform, causal, linear], rtol=1e-3, atol=1e-12)
    # with X = I the output is the weight matrix: row a of the causal layer is the mean of the prefix
    weights = np.array([row.strip(" []").split() for row in run.lines[1:5]], dtype=float)
    assert np.allclose(weights, np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None], atol=1e-3), run.out
    run.says("the softmax layer outputs the mean token $\\bar x^\\top W$ in every row",
             "the causal one outputs the mean of the prefix")
    X, layer = gaussian_inputs(1, 5, 3, rng=28)[0], Heads(np.zeros((2, 3, 3)), random_heads(2, 3, rng=29).W)
    W = layer.W.sum(axis=0)
    assert np.allclose(attention(X, layer), X.mean(axis=0) @ W)
    prefix = np.cumsum(X, axis=0) / np.arange(1, 6)[:, None]
    assert np.allclose(attention(X, layer, causal=True), prefix @ W)


@claim("ex-01-einsum")
def _(run):
    run.says("the output is $x_a^\\top\\Theta_i(X^\\top X)W_i$")
    rng = np.random.default_rng(0)
    X, Theta, W = rng.normal(size=(3, 4, 2)), rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2, 2))
    G = np.einsum("Nbk,Nbl->Nkl", X, X)
    expected = np.einsum("Naj,ijk,Nkl,ile->Nae", X, Theta, G, W)
    assert np.allclose(run.namespace["my_linear_attention"](X, Theta, W), expected)


@claim("ex-01-no-gauge")
def _(run):
    run.says("$F(X)=\\mathbf 1x^\\top\\sum_iW_i$", "Such examples reveal the sum $\\sum_iW_i$ exactly")
    assert run.lines == ["every row equals x^T (W_1 + W_2 + W_3): True"], run.out
    # (b): the rescaled layer differs on constant sequences; (c): they have probability 2^-(n-1)d
    layer = random_heads(2, 3, rng=1)
    x = np.tile(np.ones(3), (4, 1))
    assert not np.allclose(attention(x, layer), attention(x, Heads(2 * layer.Theta, layer.W / 2)))
    run.says("probability $2^{-(n-1)d}$")
    for n, d in ((2, 2), (3, 2), (2, 3)):
        cube = lb.boolean_cube(n, d)
        assert np.mean([np.all(X == X[0]) for X in cube]) == 2.0 ** (-(n - 1) * d)


@claim("ex-01-diagonal")
def _(run):
    rng = np.random.default_rng(1)
    d = 3
    cube = lb.boolean_cube(1, d)[:, 0]
    # (a) a traceless diagonal leaves every self-logit alone
    D = np.diag(rng.normal(size=d))
    D -= np.trace(D) / d * np.eye(d)
    assert np.allclose(np.einsum("tj,jk,tk->t", cube, D, cube), 0)
    # (b) Delta -> (x^T Delta (x - y))_{x, y} has no kernel
    rows = [np.outer(x, x - y).ravel() for x in cube for y in cube]
    assert np.linalg.matrix_rank(rows) == d * d
    # (c) two heads with one Theta trade any matrix between their W
    run.says("they can trade any matrix between $W_1$ and $W_2$",
             "with $W=0$ every $\\Theta$ computes the zero function")
    Theta, W, M = rng.normal(size=(3, d, d))
    X = boolean_inputs(20, 4, d, rng=rng)
    assert np.allclose(attention(X, Heads(np.stack([Theta, Theta]), np.stack([W, -W]))),
                       attention(X, Heads(np.stack([Theta, Theta]), np.stack([W + M, -W - M]))))
    zero = np.zeros((1, d, d))
    assert np.allclose(attention(X, Heads(Theta[None], zero)), attention(X, Heads(2 * Theta[None] + M, zero)))


# chapter 2


@claim("ex-02-grad-w")
def _(run):
    run.says("$\\partial L/\\partial W=2(AX)^\\top(AXW-Y)$", "only $W_i+W_j$ is determined")
    rng = np.random.default_rng(2)
    A, X = softmax(rng.normal(size=(4, 4))), rng.normal(size=(4, 3))
    W, Y = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    loss = lambda W: np.sum((A @ X @ W - Y) ** 2)  # noqa: E731
    h, E = 1e-6, np.eye(9).reshape(9, 3, 3)
    numeric = np.array([(loss(W + h * e) - loss(W - h * e)) / (2 * h) for e in E]).reshape(3, 3)
    assert np.allclose(numeric, 2 * (A @ X).T @ (A @ X @ W - Y), atol=1e-6)
    assert np.linalg.matrix_rank(np.hstack([A @ X, A @ X])) == 3  # two heads that attend alike


@claim("ex-02-softmax-jacobian")
def _(run):
    assert run.lines == ["check_softmax_jacobian: all 5 cases passed.", "matches central differences: True"], run.out
    run.says("which is $\\ge0$ and vanishes for $v=\\mathbf 1$")
    J = run.namespace["my_jacobian"](np.array([0.3, -1.0, 2.0, 0.0]))
    assert np.linalg.eigvalsh(J).min() > -1e-12 and np.allclose(J @ np.ones(4), 0)


@claim("ex-02-gradient")
def _(run):
    run.says("$E=\\partial L/\\partial F=2(F-Y)/(Nnd)$", "$\\partial L/\\partial\\Theta_i=\\sum X^\\top EW_i^\\top G$",
             "$\\partial L/\\partial W_i=\\sum G\\Theta_i^\\top X^\\top E$",
             "Forgetting the $1/(Nnd)$, or the factor 2, or a transpose on $\\Theta_i$ are the usual mistakes")
    my_gradient = run.namespace["my_gradient"]

    def transposed(X, Y, Theta, W):  # Theta_i^T where Theta_i belongs, in both gradients
        dTheta, dW = my_gradient(X, Y, Theta.transpose(0, 2, 1), W)
        return dTheta.transpose(0, 2, 1), dW

    slips = (lambda X, Y, *a: tuple(g * Y.size for g in my_gradient(X, Y, *a)),  # no 1/(N n d)
             lambda *a: tuple(g / 2 for g in my_gradient(*a)), transposed)  # no factor 2; a transpose
    for slip in slips:
        message, _ = first_failure(check_linear_attention_gradient, slip)
        assert re.search(r"at index \(.*\) is .* entries differ", message), message


@claim("ex-02-gd")
def _(run):
    words = {"below 1e-20": 0.0, "diverged": np.inf}  # as the solution prints rounding error and an overflow

    def loss(said):
        return words[said] if said in words else float(said)

    losses = {float(step): loss(said) for step, said in run.printed(r"^step (\S+) +loss after 3000 steps: (.+)$", str)}
    adam = loss(run.printed(r"^Adam, 3000 epochs: +loss (.+)$", str)[0][0])
    largest = run.printed(r"largest step that converged: (\S+)")[0][0]
    run.says("with a step small enough to be stable it reaches rounding error within 3000 steps, as low as Adam",
             "with the smallest step it is still far above, only because it moves slowly",
             "with the largest, the iterates run away until the loss overflows")
    steps = sorted(losses)
    assert adam < 1e-20 and all(losses[step] < 1e-20 for step in steps[1:-1])  # rounding error, as low as Adam
    assert 1e-12 < losses[steps[0]] < np.inf  # still far above rounding error, not diverged
    assert losses[steps[-1]] == np.inf
    assert largest == max(step for step in steps if losses[step] < 1e-20)
    # (a) an update in place changes the caller's arrays, and the check says so
    run.says("writing `Theta -= step * dTheta` inside the function would change the caller's arrays, and the check "
             "reports that as an edit in place")
    loss_and_gradient = run.namespace["loss_and_gradient"]

    def in_place(X, Y, Theta, W, step, steps):
        for _ in range(steps):
            _, dTheta, dW = loss_and_gradient(X, Y, Heads(Theta, W), kind="linear")
            Theta -= step * dTheta
            W -= step * dW
        return Theta, W

    message, _ = first_failure(check_gradient_descent, in_place)
    assert "in place" in message, message


@claim("ex-02-midpoint")
def _(run):
    run.says("the loss is $(1-(1-2t)^2)^2$ times the mean squared target")
    numerator, denominator = run.stated(r"At \$t=1/4\$ that is \$\(1-\\tfrac14\)\^2=\\tfrac\{(\d+)\}\{(\d+)\}\$")
    before = run.stated(r"at \$t=-1/2\$ it is \$\(1-4\)\^2=(\d+)\$")
    stated = [numerator / denominator, before]
    assert stated == [(1 - (1 - 2 * t) ** 2) ** 2 for t in (0.25, -0.5)]
    assert np.allclose(run.gives("the loss over the mean squared target"), stated, rtol=1e-3)


@claim("ex-02-minima")
def _(run):
    run.says("(a) $m!$, one per permutation")
    layer = random_heads(3, 3, scale=2.0, rng=3)
    X = boolean_inputs(50, 4, 3, rng=4)
    perms = list(itertools.permutations(range(3)))
    assert len({tuple(layer[list(p)].Theta.ravel()) for p in perms}) == math.factorial(3)
    assert all(np.allclose(attention(X, layer[list(p)]), attention(X, layer)) for p in perms)
    # non-convex: the midpoint of two minimisers has a positive loss
    swapped = layer[[1, 0, 2]]
    mid = Heads((layer.Theta + swapped.Theta) / 2, (layer.W + swapped.W) / 2)
    assert squared_loss(X, attention(X, layer), mid) > 1e-6


# chapter 3


@claim("ex-03-counting")
def _(run):
    d = 16
    psi, one, many, coefficients = run.stated(
        r"\$\\psi=16\^2\\cdot17/2=(\d+)\$\. One head has \$2d\^2=(\d+)\$ parameters, \$d\^2\$ heads have "
        r"\$2d\^4=([\d{,}]+)\$; the linear model has \$\\psi d=([\d{,}]+)\$")
    assert (psi, one, many, coefficients) == (n_features(d), 2 * d**2, 2 * d**4, n_features(d) * d)
    # (a) psi distinct products, d^2(d-1)/2 repeats, on random data
    X = gaussian_inputs(200, 5, 3, rng=5)
    raw = np.einsum("Nbj,Nbk,Nl->Njkl", X, X, X[:, -1]).reshape(200, -1)
    distinct = np.unique(raw.round(9), axis=1).shape[1]
    assert distinct == n_features(3) == np.linalg.matrix_rank(raw) and raw.shape[1] - distinct == 3**2 * (3 - 1) // 2


@claim("ex-03-raw-kernel")
def _(run):
    rng = np.random.default_rng(6)
    X, X2 = rng.normal(size=(5, 3)), rng.normal(size=(8, 3))
    G, G2 = X.T @ X, X2.T @ X2
    raw = np.einsum("jk,l,jk,l->", G, X[-1], G2, X2[-1])
    assert np.isclose(raw, np.linalg.norm(X @ X2.T) ** 2 * X[-1] @ X2[-1])  # (a)
    distinct = 0.5 * (np.sum(G * G2) + np.sum(np.diag(G) * np.diag(G2))) * X[-1] @ X2[-1]
    assert np.isclose(kernel([X], [X2])[0, 0], distinct)  # (b)
    run.says("every Gram matrix of it is positive semidefinite")
    seqs = [rng.normal(size=(n, 3)) for n in (2, 3, 5, 7, 11, 19)]
    assert np.linalg.eigvalsh(kernel(seqs, seqs)).min() > -1e-9  # (c), mixed lengths


@claim("ex-03-polynomial")
def _(run):
    assert run.lines[1:] == [f"n = {n:2d}: the polynomial equals the layer: True" for n in (1, 5, 19)], run.out


@claim("ex-03-kernel-regression")
def _(run):
    assert run.lines[-1] == "True", run.out
    run.says("Neither predictor is the teacher here")
    ns = run.namespace
    truth = attention(ns["sol_fresh"], ns["sol_teacher"], kind="linear")[:, -1]
    assert not np.allclose(ns["sol_kernel_pred"], truth, rtol=1e-2)


@claim("ex-03-fold-heads")
def _(run):
    one, two, bound = run.stated(r"One head gives \$d\(d\+1\)/2=(\d+)\$ heads .*two heads give (\d+)\. "
                                 r"The bound of .*\$\\min\(d\^2,2\\cdot6\)=(\d+)\$")
    sums = run.stated(r"\$1\+2\+3=(\d+)\$ for one head and \$2\+3\+3=(\d+)\$ for two")
    symmetric = run.stated(r"The symmetric placement returns all \$d\^2=(\d+)\$ heads")
    generic = [sum(min(3, m * s) for s in range(1, 4)) for m in (1, 2)]
    assert [one, two] == sums == generic and bound == min(9, 2 * 6) and symmetric == 9
    assert run.gives("the heads of the fold for one and two heads") == [one, two], run.out
    assert run.printed(r"^(\d) (\d+)$") == [[1, one], [2, two]] and float(run.lines[2]) == symmetric, run.out
    run.says("In particular it is at most $d(d-1)+m$")
    for d, m in itertools.product(range(1, 7), range(1, 40)):
        assert sum(min(d, m * s) for s in range(1, d + 1)) <= d * (d - 1) + m, (d, m)
    run.says("although it is the placement of smallest Frobenius norm")
    h = run.namespace["sol_h"]
    upper = parameter_map(h)  # the fold's placement: each pair coefficient on one side of the diagonal
    assert np.linalg.norm(run.namespace["sol_M_sym"]) < np.linalg.norm(upper)


@claim("ex-03-parameter-map")
def _(run):
    run.says("Forgetting `T[K, J]`",
             "adding it on the diagonal too doubles the diagonal ones; both fail the first case")

    def half(Theta, W):
        d = Theta.shape[1]
        T = np.einsum("ilj,ika->jkla", Theta, W)
        J, K = np.triu_indices(d, k=1)
        return np.concatenate([T[J, K], T[np.arange(d), np.arange(d)]]).reshape(-1, d)

    def doubled(Theta, W):
        d = Theta.shape[1]
        T = np.einsum("ilj,ika->jkla", Theta, W)
        J, K = np.triu_indices(d, k=1)
        return np.concatenate([T[J, K] + T[K, J], 2 * T[np.arange(d), np.arange(d)]]).reshape(-1, d)

    for wrong in (half, doubled):
        assert first_failure(check_parameter_map, wrong)[1] == 1


@claim("ex-03-fold-rank")
def _(run):
    run.says("The bound is tight for one head and\nfor $m\\ge d$ heads".replace("\n", " "), "and not for $2\\le m<d$")
    for d in range(2, 7):
        for m in range(1, d * d + 1):
            exact = sum(min(d, m * s) for s in range(1, d + 1))
            assert (exact == min(d * d, m * d * (d + 1) // 2)) == (m == 1 or m >= d), (d, m)
    # (a) the blocks of the fold of one head, against the formula
    rng = np.random.default_rng(7)
    Theta, W = rng.normal(size=(2, 3, 3))
    C = parameter_map(Heads(Theta, W))
    J, K = np.triu_indices(3, k=1)
    pairs = list(zip(np.concatenate([J, np.arange(3)]), np.concatenate([K, np.arange(3)]), strict=True))
    for p, (j, k) in enumerate(pairs):
        block = C[p * 3:(p + 1) * 3]  # rows l, columns a
        expected = np.outer(Theta[:, j], W[k]) + (np.outer(Theta[:, k], W[j]) if j < k else 0)
        assert np.allclose(block, expected)


@claim("ex-03-causal")
def _(run):
    assert len(run.lines) == 2  # nothing is stated beyond the checks, which passed


# chapter 4


@claim("ex-04-fit")
def _(run):
    assert len(run.lines) == 1  # nothing is stated beyond the check, which passed


@claim("ex-04-one-factorisation")
def _(run):
    run.says("the matrix does not depend on $a$", "$2d\\psi^2$ in all")
    rng = np.random.default_rng(8)
    Phi, Y = rng.normal(size=(60, 18)), rng.normal(size=(60, 3))
    factor = scipy.linalg.cho_factor(Phi.T @ Phi)
    together = scipy.linalg.cho_solve(factor, Phi.T @ Y)
    assert np.allclose(together.T, [np.linalg.lstsq(Phi, Y[:, a], rcond=None)[0] for a in range(3)])


@claim("ex-04-flops")
def _(run):
    d = 16
    psi, P = n_features(d), d * (d + 1) // 2
    stated_psi, stated_P, general, symmetric, pairs, kron = run.stated(
        r"\$\\psi=(\d+)\$, \$P=(\d+)\$: \$([\d.]+)\\times10\^6N\$, \$([\d.]+)\\times10\^6N\$, and "
        r"\$(\d+)\\cdot136\\,N=([\d.]+)\\times10\^6N\$")
    assert (stated_psi, stated_P, pairs) == (psi, P, P * (P + 1) // 2)
    counts = [psi**2, psi * (psi + 1) / 2, P * (P + 1) / 2 * P]
    assert [round(c / 1e6, 2) for c in counts] == [general, symmetric, kron]
    factors = run.stated(r"\$4\.73/1\.27\\approx([\d.]+)\$ below the general GEMM and \$2\.37/1\.27\\approx([\d.]+)\$")
    assert [round(counts[0] / counts[2], 1), round(counts[1] / counts[2], 1)] == factors
    # (c) the distinct entries of Phi^T Phi on generic data, at d = 3
    Phi = cubic_features(gaussian_inputs(100, 4, 3, rng=9))
    entries = np.einsum("Ni,Nj->ij", Phi, Phi)
    distinct = len({round(float(v), 6) for v in entries.ravel()})
    assert distinct == 6 * 7 // 2 * 6


@claim("ex-04-noise")
def _(run):
    predicted = run.stated(r"\\approx([\d.]+)\$\. A run")
    assert round(math.sqrt(0.01**2 * n_features(3) / (8 * n_features(3))), 4) == predicted
    run.says("prints a value a little below the prediction, of the same order")
    value = run.printed(r"\[([\d.e-]+)\]")[0][0]
    assert predicted / 2 < value < predicted


@claim("ex-04-from-scratch")
def _(run):
    run.says("any factorisation of $M$ passes, for instance $\\Theta_h=s_hu_h$, $W_h=v_h$",
             "on $(l,k),(j,a)$ instead of $(l,j),(k,a)$", "or split between the two",
             "Folding `U[:, h]` into a $d\\times d$ matrix in the other order (a transposed $\\Theta_h$), or leaving "
             "out the diagonal pairs, fails")

    def fold(C, placement="upper", split="root", order="right"):
        d = C.shape[1]
        J, K = np.triu_indices(d, k=1)
        J, K = np.concatenate([J, np.arange(d)]), np.concatenate([K, np.arange(d)])
        M = np.zeros((d, d, d, d))
        coef = C.reshape(-1, d, d).transpose(1, 0, 2)  # (l, pair, a)
        if placement == "upper":
            M[:, J, K, :] = coef
        elif placement == "lower":
            M[:, K, J, :] = coef
        elif placement == "split":
            M[:, J, K, :] += coef / 2
            M[:, K, J, :] += coef / 2
        else:  # no diagonal pairs
            M[:, J[:-d], K[:-d], :] = coef[:, :-d]
        U, s, Vt = np.linalg.svd(M.reshape(d * d, d * d))
        keep = s > d * d * np.finfo(float).eps * s[0]
        left, right = (np.sqrt(s[keep]),) * 2 if split == "root" else (s[keep], np.ones(keep.sum()))
        Theta = (U[:, keep] * left).T.reshape(-1, d, d)
        return (Theta if order == "right" else Theta.transpose(0, 2, 1)), (Vt[keep].T * right).T.reshape(-1, d, d)

    with contextlib.redirect_stdout(io.StringIO()):
        for passing in ({"split": "all on Theta"}, {"placement": "lower"}, {"placement": "split"}):
            check_heads_from_coef(lambda C, kw=passing: fold(C, **kw))
    first_failure(check_heads_from_coef, lambda C: fold(C, order="transposed"))
    first_failure(check_heads_from_coef, lambda C: fold(C, placement="no diagonal"))


@claim("ex-04-lengths")
def _(run):
    ranks = run.stated(r"prints ranks (\d+), (\d+), (\d+) and (\d+)")
    run.says("the fit is exact on the length-50 sequences exactly when the rank is 18",
             "rerun it, and every draw says the same")
    for result in (run, run.rerun(1), run.rerun(2)):
        assert result.lines[:2] == ["True", "True"], result.out
        rows = result.printed(r"^(\d) of length (\d+) rank (\d+) exact (True|False)$", str)
        assert [int(r[2]) for r in rows] == ranks
        assert all((r[2] == "18") == (r[3] == "True") for r in rows)
    # one sequence of length 17 leaves a direction free, and the fit says so
    X = gaussian_inputs(1, 17, 3, rng=10)
    t = random_heads(3, 3, rng=11)
    with pytest.warns(RuntimeWarning, match="not unique"):
        fit_linear_attention(list(X), [attention(X[0], t, kind="linear", causal=True)], causal=True)
    # sequences of one token span only the cubic monomials
    span = run.stated(r"such rows span only \$(\d+)\$ dimensions")
    ones = np.concatenate([cubic_features(x, causal=True) for x in gaussian_inputs(30, 1, 3, rng=12)])
    assert np.linalg.matrix_rank(ones) == span == math.comb(3 + 2, 3)
    two = run.stated(r"the smallest number is two: two sequences of length (\d+) or")
    xs = gaussian_inputs(2, int(two), 3, rng=13)
    assert np.linalg.matrix_rank(np.concatenate([cubic_features(x, causal=True) for x in xs])) == n_features(3)


@claim("ex-04-relaxation")
def _(run):
    run.says("an algebraic set of dimension at most $2d^2-1$, smaller than $\\psi d$ for $d\\ge2$")
    rng = np.random.default_rng(14)
    for d in (2, 3):
        assert 2 * d * d - 1 < n_features(d) * d
        Theta, W = rng.normal(size=(2, d, d))

        def p(v, d=d):
            return parameter_map(Heads(v[: d * d].reshape(1, d, d), v[d * d:].reshape(1, d, d))).ravel()

        v, h = np.concatenate([Theta.ravel(), W.ravel()]), 1e-6
        jacobian = np.array([(p(v + h * e) - p(v - h * e)) / (2 * h) for e in np.eye(2 * d * d)])
        assert np.linalg.matrix_rank(jacobian, tol=1e-6) == 2 * d * d - 1


# chapter 5


@claim("ex-05-certificate")
def _(run):
    # the learner's certificate is the library's: the same rank and lam_min on certified and uncertified inputs
    mine = run.namespace["my_certificate"]
    for X in (gaussian_inputs(200, 4, 2, rng=20), boolean_inputs(300, 5, 3, rng=21)):
        Lam, rank, lam_min = mine(cubic_features(X))
        cert = certificate(X)
        assert rank == cert.rank and abs(lam_min - cert.lam_min) <= 1e-8 * cert.lam_max


@claim("ex-05-span-cover")
def _(run):
    mine = run.namespace["my_span_residual"]
    X = boolean_inputs(300, 5, 3, rng=22)
    tests = [boolean_inputs(20, 9, 3, rng=23), gaussian_inputs(20, 9, 3, rng=24)]
    for X_test in tests:
        assert np.allclose(mine(cubic_features(X), cubic_features(X_test)),
                           certificate(X).span_residual(X_test), atol=1e-8)


@claim("ex-05-signs")
def _(run):
    rank, psi, lost = run.stated(r"printed rank \$(\d+)=(\d+)-(\d+)\$")
    assert (psi, lost) == (n_features(4), 4 * 3)
    assert certificate(boolean_inputs(20000, 6, 4, rng=15)).rank == rank == psi - lost
    single, total = run.stated(r"\((\d+) at \$d=3\$, out of (\d+)\)")
    assert single == 3 + math.comb(3, 3) and total == n_features(3)
    assert certificate(boolean_inputs(2000, 1, 3, rng=16)).rank == single


@claim("ex-05-reembed")
def _(run):
    full, projected, psi = run.printed(r"^(\d+) (\d+) (\d+)$")[0]
    run.says("the rank can only drop", "$\\psi(d-1)$")
    assert projected <= full and psi == n_features(3)
    # (a), (b): phi(XR) = (S_R kron R^T) phi(X), with S_R invertible when R is
    rng = np.random.default_rng(17)
    d = 3
    R = rng.normal(size=(d, d))
    J, K = np.triu_indices(d, k=1)
    J, K = np.concatenate([J, np.arange(d)]), np.concatenate([K, np.arange(d)])

    def g(G):  # the distinct Gram entries, in the order of the features
        return G[J, K]

    def unvech(v):
        G = np.zeros((d, d))
        G[J, K] = v
        return G + G.T - np.diag(np.diag(G))

    S_R = np.array([g(R.T @ unvech(e) @ R) for e in np.eye(len(J))]).T
    X = rng.normal(size=(5, d))
    assert np.allclose(cubic_features(X @ R), np.kron(S_R, R.T) @ cubic_features(X))
    assert np.linalg.matrix_rank(S_R) == len(J)


@claim("ex-05-centred")
def _(run):
    rows = run.printed(r"^([\d.]+) ([\d.e-]+) ([\d.e-]+)$")
    run.says("On these data the two are close",
             "$\\lambda_{\\min}$ of the second moment is at least that of the covariance")
    assert all(second >= centred - 1e-5 and abs(second - centred) <= 0.05 * second for _, second, centred in rows)
    # the covariance can be singular when the second moment is not: a constant feature
    Phi = np.column_stack([np.ones(100), np.random.default_rng(18).normal(size=100)])
    centred, second = np.cov(Phi, rowvar=False, bias=True), Phi.T @ Phi / 100
    assert np.linalg.eigvalsh(centred)[0] < 1e-12 < np.linalg.eigvalsh(second)[0]


@claim("ex-05-filler")
def _(run):
    vanish, psi, bound = run.stated(r"=(\d+)\$ of the \$(\d+)\$ features at \$d=4\$, leaving rank at most \$(\d+)\$")
    assert (vanish, psi, bound) == (2 * n_features(4) // 4, n_features(4), n_features(4) - 2 * n_features(4) // 4)
    run.says("The rank it prints is two lower than that")
    unit, free = run.printed(r"rank=(\d+) of psi=40")
    assert unit == [bound - 2]
    assert free == [run.stated(r"Without the normalisation the norms vary, and the rank is \$(\d+)\$")]
    # the two relations, on the zero-filler data with unit-norm keys and values
    X0 = run.namespace["X0"]
    r, half = X0.shape[1] - 1, 2
    G = np.einsum("Nbj,Nbk->Njk", X0, X0)
    diag = np.einsum("Njj->Nj", G)
    for l in range(half):
        lhs = r * diag[:, :half].sum(axis=1) * X0[:, -1, l]
        rhs = (r + 1) * diag[:, half:].sum(axis=1) * X0[:, -1, l]
        assert np.allclose(lhs, rhs)


@claim("ex-05-two-minimisers")
def _(run):
    run.says("the literal inequality fails for small $\\delta$", "Its squared form, with the constant $4d$, holds")
    rng = np.random.default_rng(19)
    d = 2
    X = gaussian_inputs(200, 4, d, rng=rng)
    Phi = cubic_features(X)
    lam = np.linalg.eigvalsh(Phi.T @ Phi / len(X))[0]
    N = rng.normal(size=(n_features(d), d))
    x = X[0]
    for delta in (1e-2, 1e-4, 1e-6):
        eps = delta**2 * np.sum((Phi @ N) ** 2) / (len(X) * d)  # training MSE of p* + delta N
        gap = delta * np.linalg.norm(cubic_features(x) @ N)
        squared = 4 * d * eps / lam * np.linalg.norm(x) ** 6
        assert gap**2 <= squared  # the squared form
        if delta <= 1e-4:
            assert gap > eps / lam * np.linalg.norm(x) ** 6  # the literal one fails


# chapter 6


@claim("ex-06-accept")
def _(run):
    assert run.lines[-1] == "True", run.out
    # and on many random words, as the exercise asks
    ns = run.namespace
    dfa = ns["am"].random_dfa(3, 2, rng=20)
    T, heads = ns["accepting_lookup"](dfa)
    for word in ns["am"].random_words(50, 9, 2, rng=21):
        states = dfa.run(word)
        q = np.zeros(T.shape[1])
        q[states[-2] * 2 + word[-1]] = 1
        assert attention(np.vstack([T, q]), heads, kind="linear")[-1, -1] == dfa.accepts(word)


@claim("ex-06-lookup-heads")
def _(run):
    run.says("The block $\\Theta_{\\kappa\\kappa}=I$ scores pairs, the block $W_{vv}=I$ copies values")
    assert run.lines[-1] == "equals the library's head for S = 3, A = 2: True", run.out


@claim("ex-06-slots")
def _(run):
    slots = run.printed(r"separate slots (\S+),")[0][0]
    joint_exact = run.printed(r"joint keys below 1e-20: (\S+)", str)[0][0]
    accuracy = run.printed(r"single steps right on unseen DFAs: (\S+)")[0][0]
    assert run.gives("the share of single steps right") == [accuracy], run.out
    run.says("The joint keys fit to rounding error", "a training loss many orders of magnitude above it",
             "a small but steady share of single steps goes wrong, so a run of 64 steps is almost never right")
    assert joint_exact == "True" and slots > 1e-6
    assert 0.8 < accuracy < 0.99 and accuracy**64 < 0.05
    # (a) S + A - 2 tokens of the table share one coordinate with the query
    S, A = run.namespace["S"], run.namespace["A"]
    keys = [(s, a) for s in range(S) for a in range(A)]
    scores = [int(s == 0) + int(a == 0) for s, a in keys]
    assert scores.count(2) == 1 and scores.count(1) == S + A - 2


@claim("ex-06-rank")
def _(run):
    psi, pairs, ells = run.stated(r"ψ = (\d+) features are indexed by an unordered pair \$\\\{j,k\\\}\$ \((\d+)\) "
                                  r"and \$\\ell\$ \((\d+)\)")
    S, A = 3, 2
    keys, values = S * A, S
    d = keys + values
    assert (psi, pairs, ells) == (n_features(d), d * (d + 1) // 2, d)
    kept, total = run.stated(r"survives: (\d+) of (\d+)\.")
    diag, kv, kk, vv = run.stated(r"the diagonal \((\d+)\), key-value \((\d+)\) and none of the key-key \((\d+)\) or "
                                  r"value-value \((\d+)\)")
    assert (kept, total) == (keys, d)
    assert (diag, kv, kk, vv) == (d, keys * values, math.comb(keys, 2), math.comb(values, 2))
    pairs_kept, product, gap = run.stated(r"survive: (\d+) of 45\. At most \$27\\cdot6=(\d+)\$ features .*\\ge(\d+)\$")
    assert pairs_kept == diag + kv and product == pairs_kept * keys and gap == psi - product
    # on real contexts: the features that vanish, and the two relations
    data = am.transition_data(100, S, A, length=4, rng=22)
    X = data.X.reshape(-1, *data.X.shape[-2:])
    nonzero = np.abs(cubic_features(X)).max(axis=0) > 0
    assert nonzero.sum() <= product and np.linalg.matrix_rank(cubic_features(X)) <= product
    assert glued("ch06", "ch06-train-rank") < product  # further relations hold
    G = np.einsum("Nbj,Nbk->Njk", X, X)
    assert np.allclose(np.einsum("Nvv->N", G[:, keys:, keys:]), keys)
    assert np.allclose(G[:, :keys, keys:].sum(axis=2), 1)


@claim("ex-06-tape")
def _(run):
    run.says("they share one weight $w=e/Z$", "to $w\\,e_{x^{(K)}}$", "leak their own letters")
    # one cell under the head with a history of writes, two other cells; letters are one-hot of size 3
    letters = np.eye(3)
    tokens = []  # (cell, +letter, -letter)
    for cell, history in ((0, [0, 2, 1]), (1, [1]), (2, [2, 0])):
        tokens.append((cell, letters[history[0]], 0 * letters[0]))
        tokens += [(cell, letters[new], letters[old]) for old, new in zip(history, history[1:], strict=False)]
    score = np.array([1.0 if cell == 0 else 0.0 for cell, _, _ in tokens])
    value = np.array([plus - minus for _, plus, minus in tokens])
    assert np.allclose(score @ value, letters[1])  # (a): linear attention telescopes to the current letter
    weights = softmax(score)
    matching = weights[score == 1]
    assert np.allclose(matching, matching[0]) and np.isclose(matching[0], np.e / np.exp(score).sum())
    assert np.allclose(weights[score == 1] @ value[score == 1], matching[0] * letters[1])  # still telescopes, scaled
    leak = weights[score == 0] @ value[score == 0]
    assert np.allclose(leak, (letters[1] + letters[0]) / np.exp(score).sum())  # the other cells' letters


@claim("ex-06-copy")
def _(run):
    run.says("the shift matrix maps $e_4$ to zero", "`out` is the zero vector, which rounding leaves at zero")
    assert run.lines[0] == "[0. 0. 0.] [0. 0. 0.]", run.out
    assert run.gives("the entries of out") == [0, 0, 0], run.out


# chapter 7


@claim("ex-07-fourth")
def _(run):
    run.says("$\\|u\\|^2\\|v\\|^2+2(u^\\top v)^2-2\\sum_iu_i^2v_i^2$", "giving the minimum $1$", "the maximum $3-2/d$")
    d = 5
    cube = lb.boolean_cube(1, d)[:, 0]
    rng = np.random.default_rng(23)
    u, v = rng.normal(size=(2, d))
    moment = np.mean((cube @ u) ** 2 * (cube @ v) ** 2)
    assert np.isclose(moment, u @ u * (v @ v) + 2 * (u @ v) ** 2 - 2 * np.sum(u**2 * v**2))
    fourth = lambda u: np.mean((cube @ u) ** 4)  # noqa: E731
    assert np.isclose(fourth(np.eye(d)[0]), 1) and np.isclose(fourth(np.ones(d) / np.sqrt(d)), 3 - 2 / d)
    units = rng.normal(size=(200, d))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    assert all(1 - 1e-12 <= fourth(w) <= 3 - 2 / d + 1e-12 for w in units)


@claim("ex-07-gaps")
def _(run):
    assert run.lines[-1] == "True", run.out
    run.says("both fail the first case")

    def wrong_sign(X, Theta):
        S = np.einsum("Nap,pq,Nbq->Nab", X, Theta, X)
        return S[:, :, None, :] - S[:, :, :, None]

    def transposed(X, Theta):
        return run.namespace["my_logit_gaps"](X, Theta.T)

    for wrong in (wrong_sign, transposed):
        assert first_failure(check_logit_gaps, wrong)[1] == 1


@claim("ex-07-step2")
def _(run):
    assert run.lines[-1] == "my W equals the head's W: True", run.out
    # the learner's function recovers a fresh head too, on data with many dependent sequences
    rng = np.random.default_rng(25)
    head = random_heads(1, 4, scale=1.5, rng=rng)
    X = boolean_inputs(300, 4, 4, rng=rng)
    assert np.allclose(run.namespace["my_W_from_labels"](X, attention(X, head)), head.W[0], atol=1e-8)


@claim("ex-07-margin")
def _(run):
    gamma = run.stated(r"\\gamma\\ge\\log200\\approx([\d.]+)\$")
    assert round(math.log(200), 1) == gamma
    weight = run.stated(r"=99/101\\approx([\d.]+)\$")
    exact = softmax(np.array([math.log(99), 0.0, 0.0]))[0]
    assert np.isclose(exact, 99 / 101) and round(exact, 3) == weight and exact > 1 - 2 / 99
    for t in (0.01, 0.1, 0.5):  # (a) the converse bound is off by at most t^2
        assert 0 <= 1 / (1 + t) - (1 - t) <= t**2


@claim("ex-07-usable")
def _(run):
    (_, six), (_, four) = run.printed(r"^(\d) ([\d.]+)$")
    assert abs(six - glued("ch07", "ch07-usable")) < 0.05  # about as many as the chapter's
    assert abs(six - 3 / 4) < min(abs(six - 1 / 2), abs(six - 19 / 20))
    run.says("only about a third")
    assert abs(four - 1 / 3) < 0.03 and abs(four - glued("ch07", "ch07-independent")) < 0.03


@claim("ex-07-alternate")
def _(run):
    rows = run.printed(r"instance (\d): residual (\S+) after 100 steps, (\S+) after 300")
    run.says("On both instances the residual falls",
             "after 300 steps the second residual is more than a hundred times the first")
    assert all(after < before for _, before, after in rows)
    assert rows[1][2] > 100 * rows[0][2]


@claim("ex-07-stein")
def _(run):
    d = 4
    cube = lb.boolean_cube(1, d)[:, 0]
    f = dict(zip(map(tuple, cube), np.random.default_rng(24).normal(size=len(cube)), strict=True))

    def derivative(g, j):
        def dg(x):
            up, down = np.array(x), np.array(x)
            up[j], down[j] = 1, -1
            return (g(tuple(up)) - g(tuple(down))) / 2
        return dg

    F = f.__getitem__
    mean = lambda g: np.mean([g(tuple(x)) for x in cube])  # noqa: E731
    assert np.isclose(mean(lambda x: F(x) * x[0]), mean(derivative(F, 0)))
    assert np.isclose(mean(lambda x: F(x) * x[0] * x[2]), mean(derivative(derivative(F, 0), 2)))
    run.says("the discrete derivative satisfies $\\partial_j^2f=0$")
    assert np.isclose(mean(lambda x: abs(derivative(derivative(F, 1), 1)(x))), 0)


# chapter 8


@claim("ex-08-min-norm")
def _(run):
    assert run.lines[-1] == "agrees with min_norm_proxy on the tight body to 1e-5: True", run.out
    from attnlib.sculpt import Body, min_norm_proxy

    ns = run.namespace
    Z = np.array([np.diag([1.0, 1.0]), np.diag([1.0, 1000.0]), np.diag([1000.0, 1.0])])
    assert np.allclose(ns["my_min_norm_point"](Z, 1.0), np.diag([0.5, 0.5]), atol=1e-4)  # the plane example
    body = Body(Z, gamma=2.0, bound=None, certified=3)
    assert np.allclose(ns["my_min_norm_point"](Z, 2.0), min_norm_proxy(body), atol=1e-4)


@claim("ex-08-bias")
def _(run):
    rows = run.printed(r"^([\d.]+) ([\d.]+)$")
    d = 3
    pairs = np.array([np.stack(t) for t in itertools.product(lb.boolean_cube(1, d)[:, 0], repeat=2)])
    s = np.einsum("Nj,Nj->N", pairs[:, 0], pairs[:, 1])
    for c, alpha in rows:
        p = np.exp(c * d) / (np.exp(c * d) + np.exp(c * s))
        assert np.isclose(alpha, round(2 * np.mean(p + (1 - p) * s / d), 3))
    limit = run.stated(r"so \$\\alpha\\to(\d)\$")
    assert rows[0] == [0.0, 1.0] and abs(rows[-1][1] - limit) < 1e-3


@claim("ex-08-delta")
def _(run):
    (loose, h_loose, r_loose, *inside_loose), (tight, h_tight, r_tight, *inside_tight) = run.printed(
        r"^(\S+) Body\(d=4, halfspaces=(\d+), certified_rows=(\d+)\) \[ ?(True|False) +(True|False)\] (\S+)$", str)
    run.says("Fewer rows pass, about half as many", "drops by a little less than the number of rows",
             "The heads stay inside", "from $0.05$ to $0.005$ it adds none here", "its proxy's direction hardly moves")
    rows, halfspaces = int(r_tight) / int(r_loose), int(h_tight) / int(h_loose)
    assert 0.4 < rows < 0.6 and rows < halfspaces < 1
    assert inside_loose[:2] == inside_tight[:2] == ["True", "True"]
    assert abs(float(inside_loose[2]) - float(inside_tight[2])) < 0.01
    ns = run.namespace
    certified = {float(delta): set(zip(c.example, c.query, c.token, strict=True))
                 for delta in (loose, tight) for c in [certify(ns["X"], ns["Y"], ns["S_true"], delta=float(delta))]}
    assert certified[float(tight)] <= certified[float(loose)]
    assert glued("ch08", "ch08-delta-gained") > 0


@claim("ex-08-halfspaces")
def _(run):
    rows, normals = run.printed(r"^(\d+) certified rows, (\d+) normals$")[0]
    run.says("the number of distinct halfspaces grows much more slowly than the number of rows")
    assert normals < rows / 10
    ns = run.namespace
    cert = certify(ns["X"], ns["Y"], ns["S_true"])
    half = len(cert) // 2
    fewer = len(ns["my_halfspaces"](ns["X"], cert.example[:half], cert.query[:half], cert.token[:half]))
    assert normals / fewer < 1.5  # twice the rows, far fewer than twice the normals


@claim("ex-08-ideal")
def _(run):
    def nearest(T1, T2, total=1.0):
        """Nearest point to 0 of {l1 T1 + l2 T2 : l >= 0, l1 + l2 >= total}, by a QP over the weights."""
        T = np.stack([T1, T2])
        at_least = {"type": "ineq", "fun": lambda lam: lam.sum() - total}
        best = scipy.optimize.minimize(lambda lam: np.sum((lam @ T) ** 2), [1.0, 1.0], method="SLSQP",
                                       bounds=[(0, None)] * 2, constraints=[at_least])
        return best.x @ T

    T1, T2 = np.array([2.0, 0.0]), np.array([0.0, 1.0])
    run.says("the quadrant with corner $(\\tfrac12,1)$", "It is not the midpoint $(1,0.5)$")
    star, weights = run.stated(r"so \$\\Theta\^\\star=u/\\\|u\\\|\^2=\(([\d.]+,[\d.]+)\)\$, with affine weights "
                               r"\$\(([\d.]+,[\d.]+)\)\$", str)
    star, weights = np.array(star.split(","), dtype=float), np.array(weights.split(","), dtype=float)
    assert np.isclose(star @ (T2 - T1), 0) and np.allclose(weights @ np.stack([T1, T2]), star)
    assert np.isclose(weights.sum(), 1) and np.all(weights > 0)
    assert np.allclose(nearest(T1, T2), star, atol=1e-3)
    # (c): the line (2 + t, t) is nearest the origin at t = -1, weights (2, -1); K's nearest point is T1
    run.says("nearest the origin at $t=-1$: $\\Theta^\\star=(1,-1)$, with affine weights $(2,-1)$",
             "the nearest point of $K$ is the endpoint $\\Theta_1=(2,0)$")
    T3 = np.array([3.0, 1.0])
    assert np.isclose(np.array([1.0, -1.0]) @ (T3 - T1), 0) and np.allclose(2 * T1 - T3, [1.0, -1.0])
    assert np.allclose(nearest(T1, T3), T1, atol=1e-3)
    # (d): gamma' = 2 halves the body
    half = run.stated(r"becomes \$\(([\d.]+,[\d.]+)\)\$", str)
    assert np.allclose(np.array(half.split(","), dtype=float), star / 2)
    assert np.allclose(nearest(T1, T2, total=0.5), star / 2, atol=1e-3)


@claim("ex-08-wrong-proxy")
def _(run):
    # one row per direction: each angle's error as a factor of Theta*'s own, in classes
    rows = [marks.split() for _, marks in run.printed(r"^direction (\d): +(.*)$", convert=str)]
    E = np.array(rows)  # (direction, angle)
    run.says("within a factor of three of that of the exact $\\Theta^\\star$ in every direction",
             "along some directions the error jumps by an order of magnitude or more, while at the same angle others "
             "stay accurate")
    assert E.shape[1] == 9 and np.all(E[:, :2] == "<3x")
    assert np.any(E == ">10x")
    assert any(">10x" in column and "<3x" in column for column in map(set, E.T))


# chapter 9


@claim("ex-09-face")
def _(run):
    run.says("$\\Theta^\\star=\\tfrac15\\Theta_1+\\tfrac45\\Theta_2$: both weights positive",
             "the face is the segment from $\\kappa\\Theta_1=(1,0)$ to $\\kappa\\Theta_2=(0,\\tfrac12)$",
             "Along $(1,-2)$\nthe face's maximiser is the vertex $(1,0)$".replace("\n", " "))
    heads = np.array([[2.0, 0.0], [0.0, 1.0]])
    star = heads[0] + np.linalg.lstsq((heads[1] - heads[0])[:, None], -heads[0], rcond=None)[0] * (heads[1] - heads[0])
    assert np.allclose(star, [0.4, 0.8]) and np.allclose(np.linalg.solve(heads.T, star), [0.2, 0.8])
    for eps in (0.0, 0.2):  # K = {theta >= 0, theta_1/2 + theta_2 >= 1/2}, the slab <= (1 + eps)/2
        for direction, vertex in (([1, -2], [1, 0]), ([-1, 2], [0, 0.5])):
            best = scipy.optimize.linprog(-np.array(direction, float), A_ub=[[-0.5, -1], [0.5, 1]],
                                          b_ub=[-0.5, (1 + eps) / 2], bounds=[(0, None)] * 2)
            assert np.allclose(best.x, (1 + eps) * np.array(vertex))


@claim("ex-09-fit-W")
def _(run):
    assert run.lines == ["check_fit_W: all 4 cases passed."]


@claim("ex-09-directions")
def _(run):
    rows = {k: np.array(a.split(), dtype=float) for k, a in
            run.printed(r"^(\d+) directions, alignment of \d runs: \[(.*)\]$", str)}
    run.says("With few directions the alignment varies from run to run",
             "many directions sample\nthe vertices".replace("\n", " "))
    assert np.ptp(rows["4"]) > 0 and rows["32"].mean() > rows["4"].mean()


@claim("ex-09-certify")
def _(run):
    ratios = [p[1] for p in run.printed(r"^eta (\S+): residual / eta = (\S+)$")]
    run.says("The ratio residual$/\\eta$ is about constant", "its residual is at rounding error")
    assert len(ratios) == 4 and max(ratios) < 1.2 * min(ratios)
    assert run.printed(r"^swapped heads, residual < 1e-10: (\w+)$", str) == [["True"]]
    teacher = run.namespace["teacher"]
    assert np.linalg.norm(teacher.Theta[::-1] - teacher.Theta) > 0.5 * np.linalg.norm(teacher.Theta)  # far
    tol = run.stated(r"with the default `tol = (\S+)` of `learn`")
    assert inspect.signature(learn).parameters["tol"].default == tol


@claim("ex-09-three")
def _(run):
    counts = ast.literal_eval(run.printed(r"^tuples scored by phase 5: (.*)$", str)[0][0])
    lps = ast.literal_eval(run.printed(r"^phase 4 linear programs: (.*)$", str)[0][0])
    run.says("Phase 5 grows fastest, by far, and becomes the longest phase",
             "phase 4's\nnumber of linear programs only grows in proportion to $m$".replace("\n", " "))
    net = inspect.signature(net_candidates).parameters
    assert counts == {2: math.comb(net["steps"].default, 2), 3: net["budget"].default}
    assert net["steps"].default ** (3 * 2) > net["budget"].default
    assert lps == {m: 32 * m for m in (2, 3)}


SLOW |= {"ex-09-directions"}


# chapter 10


@claim("ex-10-two-heads")
def _(run):
    c = run.stated(r"so \$c = \((\d+), (-\d+)\)\$")
    soft = [0.0, math.log(3) / 2]
    assert np.allclose(lb.parity_coefficients(1, betas=soft), c)
    assert np.allclose(np.linalg.solve([[0.5, 0.5], [0.5, 0.75]], [1, -1]), c)
    # both cases of the formula, on every input with d = 3
    inst = lb.parity_instance(3, 1, betas=soft, rng=0)
    cube = lb.boolean_cube(2, 3)
    assert np.allclose(attention(cube, inst.heads), inst.formula(cube))
    run.says("$c_1$ must be twice as large, $-8$ instead of $-4$")
    assert np.allclose(lb.parity_coefficients(1, betas=[0.0, 20.0]), [6, -4])


@claim("ex-10-weights")
def _(run):
    assert run.lines[-1] == "the example, beta = (0, 20): [ 6. -4.]", run.out
    run.says("Writing $\\sigma(\\beta_i \\ell)$ without the 2, or solving with $M^\\top$, are the slips the check "
             "catches", "the first is invisible at $s = 1$ with a hard second head")

    def without_two(betas):
        ell = np.arange(len(betas))
        return np.linalg.solve(0.5 * (1 + np.tanh(np.outer(ell, betas) / 2)), (-1.0) ** ell)

    def transposed(betas):
        ell = np.arange(len(betas))
        return np.linalg.solve(0.5 * (1 + np.tanh(np.outer(ell, betas))).T, (-1.0) ** ell)

    first_failure(check_parity_coefficients, without_two)
    first_failure(check_parity_coefficients, transposed)
    assert np.allclose(without_two([0.0, 20.0]), run.namespace["my_coefficients"]([0.0, 20.0]))


@claim("ex-10-spacing")
def _(run):
    [(default_sum, equal_sum)] = run.printed(r"^sum \|c_i\| at s = 6: default (\S+), equally spaced (\S+)$")
    assert close(default_sum, glued("ch10", "ch10-sum-s6"), 0.03)
    run.says("Larger, by more than an order of magnitude")
    assert equal_sum > 10 * default_sum
    run.says("The two layers differ only by rounding")
    assert "same function, up to rounding (< 1e-8): True" in run.lines, run.out
    assert np.finfo(float).eps * equal_sum < 1e-8  # the rounding the prose names is below the printed bound


@claim("ex-10-orthogonal")
def _(run):
    d, s = 5, 2
    run.says("Pairs $(S, r)$ with $r \\notin S$: $d\\binom{d-1}{s}$, and they are still orthogonal")
    X = lb.boolean_cube(2, d)
    parts = {}
    for r in range(d):
        for S in itertools.combinations([j for j in range(d) if j != r], s):
            z = np.prod(X[:, 0, list(S)] * X[:, 1, list(S)], axis=1)
            parts[S, r] = (X[:, 0, r] - X[:, 1, r]) * z / np.sqrt(2)  # omega_S
    V = np.array(list(parts.values()))
    assert len(V) == d * math.comb(d - 1, s) and np.allclose(V @ V.T / len(X), np.eye(len(V)))
    inst = lb.parity_instance(d, s, rng=25)
    y = attention(X, inst.heads)[:, 0, 0]
    linear = run.stated(r"\$\\mathbb E\[y\\,v_j\]\$ are \$(\d+)\$ for \$j = r\$")
    assert np.allclose(y @ X[:, 1] / len(X), linear * np.eye(d)[inst.readout])


@claim("ex-10-elimination")
def _(run):
    assert "d = 32, s = 6, N = 100: held-out error below 1e-9: True" in run.lines, run.out
    rates = dict(run.printed(r"^N = (\d+): S recovered in (\d+)% of 50 draws$"))
    low, every = run.stated(r"from about three quarters at \$N = (\d+)\$ to every draw at \$N = (\d+)\$")
    assert abs(rates[low] / 100 - 0.75) < 0.1
    assert all(rate == 100 for N, rate in rates.items() if N >= every)
    run.says("About half the examples decode")
    X = boolean_inputs(2000, 2, 32, rng=26)
    inst = run.namespace["sol_inst"]
    Z, _ = lb.decode_parity_examples(X, attention(X, inst.heads)[:, 0, 0], readout=31)
    assert abs(len(Z) / len(X) - 0.5) < 0.05


@claim("ex-10-wider")
def _(run):
    rows = run.printed(r"^d = (\d+), s = (\d): test (.+); training loss below test loss: (\w+)$", convert=str)
    verdicts = {(int(d), int(s)): (test, below) for d, s, test, below in rows}
    run.says("At $d = 32$, $s = 1$ fails with the same budget, and fails by memorising")
    assert verdicts[32, 1] == ("above 1", "True") and verdicts[8, 2][0] == "below 0.5"
    parameters, candidates, small = run.stated(r"\$2md\^2 = (\d+)\$ parameters.*only (\d+) candidate sets and (\d+) "
                                               r"parameters")
    assert (parameters, candidates, small) == (2 * 2 * 32**2, math.comb(7, 2), 2 * 3 * 8**2)


SLOW |= {"ex-10-wider"}


# chapter 11


@claim("ex-11-causal-degree")
def _(run):
    weights = np.array(run.lines[1].strip(" []").split(), dtype=float)  # the line under its label
    run.says("Still at most 3, for every token", "of degree 1; later tokens can have any degree")
    assert set(np.flatnonzero(weights)) == {1, 3}
    heads = random_heads(2, 3, rng=27)
    for position in range(3):
        spectrum = lb.fourier_spectrum(lambda X, a=position: attention(X, heads, kind="linear", causal=True)[:, a, 0],
                                       n=3, d=3).weight_by_degree()
        assert np.allclose(spectrum[4:], 0) and spectrum[3] > 1e-6
    first = lb.fourier_spectrum(lambda X: attention(X, heads, causal=True)[:, 0, 0], n=3, d=3).weight_by_degree()
    assert np.allclose(np.delete(first, 1), 0)
    later = lb.fourier_spectrum(lambda X: attention(X, heads, causal=True)[:, 2, 0], n=3, d=3).weight_by_degree()
    assert later[4:].sum() > 1e-6


@claim("ex-11-features")
def _(run):
    psi, pairs, triples, total = run.stated(
        r"\$\\psi = (\d+)\$ against \$\\binom\{80\}\{\\le 3\} = 1 \+ 80 \+ (\d+) \+ (\d+) = (\d+)\$")
    assert psi == n_features(8) and (pairs, triples) == (math.comb(80, 2), math.comb(80, 3))
    assert total == sum(math.comb(80, k) for k in range(4))


@claim("ex-11-typical")
def _(run):
    (_, _, max8), (_, _, max16) = run.printed(r"^scale (\S+): median (\S+), largest (\S+)$")
    run.says("The largest share grows with the scale but stays well below $1/3$")
    assert max16 > max8 and max16 < 1 / 3


@claim("ex-11-fourier")
def _(run):
    weights = np.array(run.lines[-1].split(":")[1].strip(" []").split(), dtype=float)
    run.says("Only the odd degrees 1 and 3 carry weight", "an odd function has no weight at even degrees")
    assert set(np.flatnonzero(weights)) == {1, 3}


@claim("ex-11-smoothed")
def _(run):
    rows = {eta: np.array(errors.split(), dtype=float)
            for eta, errors in run.printed(r"^eta (\S+), degrees 1, 3, 5: \[(.*)\]$", str)}
    exact, small, large = rows["0"], rows["0.01"], rows["0.1"]
    run.says("At $\\eta = 0$ the error is the parity's third of the variance until degree 5, where it drops to 0",
             "At $\\eta = 0.01$ the row barely changes",
             "degree 3 already explains most of the variance")
    assert np.all(abs(exact[:2] - 1 / 3) < 0.05) and exact[2] < 0.01
    assert np.all(abs(small - exact) < 0.03)
    assert large[0] > exact[0] + 0.05 and large[1] < 0.5


# --- the tests ----------------------------------------------------------------------------------


def test_every_solution_has_its_claims_checked():
    assert set(CLAIMS) == set(SOLUTIONS), (
        f"solutions without an entry in CLAIMS: {sorted(set(SOLUTIONS) - set(CLAIMS))}; "
        f"entries naming no solution: {sorted(set(CLAIMS) - set(SOLUTIONS))}")


@pytest.mark.parametrize("label", [pytest.param(label, marks=[pytest.mark.slow] if label in SLOW else [])
                                   for label in SOLUTIONS])
def test_solution_runs_and_shows_what_it_says(label):
    solution = SOLUTIONS[label]
    named = set(re.findall(r"\b(check_\w+)\(", solution.exercise))
    called = {node.func.id for node in ast.walk(ast.parse(solution.code or "pass"))
              if isinstance(node, ast.Call) and getattr(node.func, "id", "").startswith("check_")}
    assert called == named, f"the solution calls {sorted(called)}; the exercise names {sorted(named)}"
    names = names_of(solution.code)
    assert not names.changed & names.free, f"the solution changes the chapter's {sorted(names.changed & names.free)}"
    result = run(label)
    checks = [line for line in result.lines if line.startswith("check_")]
    assert len(checks) == len(re.findall(r"^\s*check_\w+\(", solution.code, re.M)), result.out
    assert all(re.fullmatch(r"check_\w+(\(causal=True\))?: all \d+ cases passed\.", line) for line in checks), checks
    CLAIMS[label](result)


# --- the claims can fail -------------------------------------------------------------------------

#: (solution, text of its prose, a wrong value): each claim check must reject the wrong prose
WRONG_PROSE = [
    ("ex-02-midpoint", "=\\tfrac{9}{16}", "=\\tfrac{9}{15}"),
    ("ex-03-counting", "=2176", "=2167"),
    ("ex-04-noise", "\\approx0.0035", "\\approx0.0025"),
    ("ex-04-lengths", "ranks 17, 18, 18 and 18", "ranks 17, 18, 17 and 18"),
    ("ex-05-filler", "and the rank is $20$", "and the rank is $18$"),
    ("ex-07-margin", "\\approx5.3", "\\approx5.6"),
    ("ex-10-elimination", "every draw at $N = 80$", "every draw at $N = 60$"),
    ("ex-11-features", "= 85401", "= 85410"),
]

#: (solution, text of its run's output, a different output): each claim check must reject the changed run
WRONG_OUTPUT = [
    ("ex-04-lengths", "rank 17 exact False", "rank 18 exact False"),
    ("ex-01-zero-theta", "predicted 0.5, the run gives 0.5", "predicted 0.5, the run gives 0.3333"),
    ("ex-11-fourier", "[0.    1.324 0.", "[0.    1.324 0.1"),
    ("ex-10-spacing", "equally spaced 4.48e+05", "equally spaced 4.48e+04"),
]


@pytest.mark.parametrize("label, old, new", WRONG_PROSE)
def test_a_wrong_number_in_the_prose_fails(label, old, new):
    right = run(label)
    assert old in right.solution.body, f"{label} no longer says {old!r}: update WRONG_PROSE"
    CLAIMS[label](right)
    changed = dataclasses.replace(right.solution, body=right.solution.body.replace(old, new))
    wrong = dataclasses.replace(right, solution=changed)
    with pytest.raises(AssertionError):
        CLAIMS[label](wrong)


@pytest.mark.parametrize("label, old, new", WRONG_OUTPUT)
def test_a_run_that_shows_something_else_fails(label, old, new):
    right = run(label)
    assert old in right.out, f"{label} no longer prints {old!r}: update WRONG_OUTPUT"
    with pytest.raises(AssertionError):
        CLAIMS[label](dataclasses.replace(right, out=right.out.replace(old, new, 1)))


def test_the_slice_keeps_what_a_solution_reads(tmp_path):
    cells = [("markdown", "# A chapter"), ("code", "import numpy as np\nrng = np.random.default_rng(0)\n%pip nothing"),
             ("code", "X = rng.normal(size=3)"), ("code", "Y = np.zeros(3)"), ("code", "slow = sum(range(10**5))"),
             ("code", "X[0] = 7.0"), ("code", "def f(v):\n    return v + Y"), ("code", "X = None"),
             ("markdown", "solution")]
    notebook = {"cells": [{"cell_type": kind, "source": text, "metadata": {}, "outputs": []} for kind, text in cells]}
    path = tmp_path / "ch99_test.ipynb"
    path.write_text(json.dumps(notebook))
    reads_f = Solution(path, 8, "ex-99", "", "    print(f(np.ones(3)))")
    assert chapter_slice(reads_f) == (1, 3, 6)
    reads_x_before = Solution(path, 7, "ex-99", "", "    print(X)")
    assert chapter_slice(reads_x_before) == (1, 2, 5)  # binds X, then changes it in place
    assert chapter_slice(Solution(path, 8, "ex-99", "", "    print(X)")) == (1, 7)
    with pytest.raises(AssertionError, match="no earlier cell"):
        chapter_slice(Solution(path, 8, "ex-99", "", "    print(Z)"))


if __name__ == "__main__":
    import sys

    for label in sys.argv[1:]:
        solution = SOLUTIONS[label]
        start = time.perf_counter()
        cells = chapter_slice(solution) if solution.code.strip() else ()
        result = run(label)
        print(f"{label}: chapter cells {cells}, {time.perf_counter() - start:.1f} s in all, "
              f"{result.seconds:.1f} s for the solution\n{result.out}")
