"""The course variant of assignment 1: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes
a generator seeded from it); ``LIBRARY`` is the example submission that answers every coding
question by calling attnlib (it must score below half).
"""

import numpy as np


def _smallest_exact(m, d, n, n_test, seeds, N_lo, N_hi):
    from attnlib import attention, gaussian_inputs, random_heads
    from attnlib.rkhs import cubic_features

    teacher = random_heads(m, d, rng=seeds[0])
    X_train = gaussian_inputs(N_hi, n, d, rng=seeds[1])
    X_test = gaussian_inputs(200, n_test, d, rng=seeds[2])
    Y_test = attention(X_test, teacher, kind="linear")[:, -1]
    for N in range(N_lo, N_hi + 1):
        Phi = cubic_features(X_train[:N])
        C, *_ = np.linalg.lstsq(Phi, attention(X_train[:N], teacher, kind="linear")[:, -1], rcond=None)
        if np.linalg.norm(cubic_features(X_test) @ C - Y_test) / np.linalg.norm(Y_test) < 1e-8:
            return N
    return None


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    p = {"seed_rng": seed()}
    p.update({name: seed() for name in ("seed_q1", "seed_q2", "seed_q2b", "seed_q2c", "seed_q2d", "seed_q4",
                                        "seed_q4b", "seed_q5", "seed_q5b", "seed_q5c", "seed_q5d", "seed_q5e")})
    p["keep_q1"] = round(float(rng.uniform(0.4, 0.8)), 2)
    p["big_q1"] = float(rng.choice([9999.0, 9990.0, 9980.0]))
    p["keep_big_q1"] = bool(rng.integers(2))
    p["m_q2"], p["d_q2"], p["n_q2"] = int(rng.integers(1, 4)), int(rng.integers(2, 5)), int(rng.integers(5, 10))
    p["N_q4"], p["n_q4"], p["d_q4"] = int(rng.integers(3, 8)), int(rng.integers(2, 8)), int(rng.integers(2, 5))
    p["n_q4b"], p["d_q4b"] = int(rng.integers(3, 9)), int(rng.integers(2, 5))
    p["m_q5"], p["n_q5"] = int(rng.integers(1, 5)), int(rng.integers(15, 30))
    while True:  # a variant whose experiment resolves psi cleanly
        d = int(rng.choice([3, 4]))
        psi = d * d * (d + 1) // 2
        q6 = {"m_q6": int(rng.choice([2, 3, 5])), "d_q6": d, "n_q6": int(rng.integers(5, 9)),
              "n_q6_test": int(rng.integers(9, 15)), "seed_q6": seed(), "seed_q6b": seed(), "seed_q6c": seed(),
              "N_lo": psi - int(rng.integers(4, 9)), "N_hi": psi + int(rng.integers(6, 12)), "psi_q6": psi}
        found = _smallest_exact(q6["m_q6"], d, q6["n_q6"], q6["n_q6_test"],
                                (q6["seed_q6"], q6["seed_q6b"], q6["seed_q6c"]), q6["N_lo"], q6["N_hi"])
        if found == psi:
            p.update(q6)
            return p


LIBRARY = {
    "masked_softmax": '''def masked_softmax(S, keep):
    import attnlib
    return np.where(keep, attnlib.softmax(np.where(keep, S, -1e300)), 0.0)''',
    "causal_linear_attention": '''def causal_linear_attention(X, Theta, W):
    from attnlib import Heads
    return attention(X, Heads(Theta, W), kind="linear", causal=True)''',
    "iso_features": '''def iso_features(X):
    from attnlib.rkhs import cubic_features
    d = X.shape[-1]
    Phi = cubic_features(X).reshape(len(X), -1, d)
    off = d * (d - 1) // 2
    return np.concatenate([Phi[:, off:], np.sqrt(2) * Phi[:, :off]], axis=1).reshape(len(X), -1)''',
    "fit": '''def fit(X, Y):
    from attnlib.rkhs import fit_linear_attention
    return fit_linear_attention(X, Y).coef''',
}
