"""The course variant of assignment 3: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes
a generator seeded from it); ``LIBRARY`` is the example submission that answers every coding
question by calling attnlib (it must score below half).
"""

import numpy as np


def _subset(rng, d, s):
    return tuple(int(j) for j in np.sort(rng.choice(d - 1, size=s, replace=False)))


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    p = {name: seed() for name in ("seed_q1", "seed_q1b", "seed_q2", "seed_q2b", "seed_q3", "seed_q3b",
                                   "seed_q6", "seed_q6b", "seed_q6c", "seed_q6d")}
    d1 = int(rng.integers(4, 8))
    p["d_q1"], p["S_q1"] = d1, _subset(rng, d1, int(rng.integers(1, 4)))
    p["betas_q1"] = [round(float(b), 2) for b in np.sort(rng.uniform(0, 3, size=int(rng.integers(2, 5))))]
    d2 = int(rng.integers(5, 8))
    s2 = int(rng.integers(1, 3))
    p["d_q2"], p["S_q2"] = d2, _subset(rng, d2, s2)
    p["betas_q2"] = [0.0, round(float(rng.uniform(0.3, 0.5)), 2), 20.0][: s2 + 1] if s2 == 2 else [0.0, 20.0]
    p["K_q3"] = int(rng.integers(4, 8))
    d4, s4 = int(rng.choice([4, 5])), int(rng.choice([1, 2]))
    p["d_q4"], p["S_q4"] = d4, _subset(rng, d4, s4)
    p["betas_q4"] = [0.0, 20.0] if s4 == 1 else [0.0, round(float(rng.uniform(0.3, 0.5)), 2), 20.0]
    p["degree_q4"] = 2 * s4 + 1
    p["d_q6"], p["s_q6"], p["N_q6"] = int(rng.integers(10, 17)), int(rng.integers(1, 4)), int(rng.integers(100, 160))
    return p


LIBRARY = {
    "first_token_weights": '''def first_token_weights(X, S, betas):
    d = X.shape[-1]
    mask = np.zeros(d)
    mask[list(S)] = 1.0
    heads = Heads(np.multiply.outer(np.asarray(betas, float), np.diag(mask)), np.zeros((len(betas), d, d)))
    return attention_weights(X, heads)[:, :, 0, 0]''',
    "parity_layer": '''def parity_layer(d, S, betas):
    heads = lb.parity_instance(d, len(S), betas=betas).heads
    return heads.Theta, heads.W''',
    "fourier_weights": '''def fourier_weights(values):
    values = np.asarray(values, dtype=float)
    K = len(values).bit_length() - 1
    return lb.fourier_spectrum(lambda X: values[np.arange(len(values))], n=1, d=K).weight_by_degree()''',
    "hidden_set": '''def hidden_set(X, y):
    return lb.parity_by_elimination(*lb.decode_parity_examples(X, y, readout=X.shape[-1] - 1))''',
}
