"""The course variant of assignment 2: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes
a generator seeded from it); ``LIBRARY`` is the example submission that answers every coding
question it can by calling attnlib (it must score below half).
"""

import numpy as np


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    p = {name: seed() for name in ("seed_q1", "seed_q1b", "seed_q2", "seed_q2b", "seed_q2c", "seed_q4", "seed_q4b",
                                   "seed_q5", "seed_q5b", "seed_q6", "seed_q6b", "seed_q6c", "seed_q6d")}
    p["N_q1"], p["shift_q1"] = int(rng.integers(30, 80)), round(float(rng.uniform(0.5, 2.0)), 2)
    p["N_q2"], p["d_q2"] = int(rng.integers(500, 2000)), int(rng.integers(2, 4))
    p["few_q2"] = int(rng.integers(5, 17))
    p["d_q4"] = int(rng.integers(3, 6))
    p["m_q5"], p["d_q5"], p["N_q5"] = int(rng.integers(2, 4)), int(rng.integers(2, 5)), int(rng.integers(500, 800))
    p["d_q6"], p["n_q6"] = int(rng.integers(5, 7)), int(rng.integers(3, 5))
    return p


LIBRARY = {
    "second_moment": '''def second_moment(X):
    from attnlib.rkhs import certificate
    Phi = cubic_features(X)
    return certificate(X).lam_max * 0 + Phi.T @ Phi / len(Phi)''',
    "certified": '''def certified(X):
    from attnlib.rkhs import certificate
    return bool(certificate(X).identifiable)''',
    "sum_W_from_constant": '''def sum_W_from_constant(X, Y):
    from attnlib import sculpt
    return sculpt.constant_sum_W(X, Y)''',
    "learn_single_head": '''def learn_single_head(X, Y):
    from attnlib import sculpt
    heads = sculpt.learn_single_head(X, Y)
    return heads.Theta[0], heads.W[0]''',
}
