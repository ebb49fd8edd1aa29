"""The course variant of assignment 3: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes a
generator seeded from it): the data of every question and the *form* of every code question (which
attention weight, the layout of the answer, the read-out and output coordinates, cumulative or
reversed Fourier weights, which part of a rounded family's spectrum, the answer's type), never the
canonical form the master's solutions are written for (``CANONICAL_FORM``; ``canonical()`` gives
its placeholders). ``library(values)`` is the example submission that answers every coding question
by calling attnlib (it must score below half).
"""

import numpy as np

CANONICAL_FORM = {"q1": (0, 0, "Nm"), "q2": ("d - 1", "0"), "q3": "weights", "q4": "linear_weight",
                  "q6": ("d - 1", "tuple")}
Q4 = {"linear_weight": ("the weight at degree 1", "float(weights[1])"),
      "leaked_weight": ("the total weight at the degrees $2,\\dots,2s$ (strictly between 1 and $2s+1$)",
                        "float(weights[2:2 * s + 1].sum())"),
      "parity_weight": ("the weight at degree $2s+1$", "float(weights[2 * s + 1])")}


def _subset(rng, coordinates, s):
    return tuple(int(j) for j in np.sort(rng.choice(coordinates, size=s, replace=False)))


def _q1(row: int, key: int, layout: str) -> dict:
    flip = row != key  # the weight on the other token: sigma(-2 beta j)
    lines = (["weights = 1.0 - weights                                # the other token: sigma(-2 beta j)"] if flip
             else []) + (["weights = weights.T                                    # heads first"] if layout == "mN"
                         else [])
    weights = 1 / (1 + np.exp(-2 * np.array([0.0, np.log(3.0) / 2]) * (-1 if flip else 1)))
    example = weights[None] if layout == "Nm" else weights[:, None]
    return {"q1_words": f"the weight that token {row + 1} (as the query) puts on token {key + 1}",
            "q1_layout_words": "of shape `(N, m)`" if layout == "Nm" else "of shape `(m, N)` (heads first)",
            "q1_in": "\n".join(lines), "q1_row": row, "q1_key": key, "q1_layout_T": "" if layout == "Nm" else ".T",
            "q1_example": repr(np.round(example, 12).tolist())}


def _q2(r: str, o: str) -> dict:
    lines = (["W = np.roll(W, 1, axis=1)                              # read-out row d - 1 -> 0"]
             if r == "0" else []) \
        + (["W = np.roll(W, -1, axis=2)                             # output column 0 -> d - 1"]
           if o == "d - 1" else [])
    return {"q2_r_tex": r.replace(" ", ""), "q2_o_tex": o.replace(" ", ""), "q2_o_code": o, "q2_in": "\n".join(lines),
            "q2_r_of": f"(lambda d: {r})", "q2_o_of": f"(lambda d: {o})",
            "q2_S_public": "(1, 3)" if r == "0" else "(0, 2)", "q2_S_small": "(2,)"}


def _q3(form: str) -> dict:
    return {"q3_words": {"weights": "the weights $w_0,\\dots,w_K$",
                         "cumulative": "the cumulative weights $\\sum_{D'\\le D}w_{D'}$ for $D=0,\\dots,K$",
                         "descending": "the weights in decreasing degree, $w_K,\\dots,w_1,w_0$"}[form],
            "q3_out": {"weights": "weights", "cumulative": "np.cumsum(weights)", "descending": "weights[::-1]"}[form],
            "q3_check": {"weights": "fourier_weights",
                         "cumulative": "lambda v: np.diff(fourier_weights(v), prepend=0.0)",
                         "descending": "lambda v: np.asarray(fourier_weights(v))[::-1]"}[form],
            "q3_total": "_w[-1]" if form == "cumulative" else "_w.sum()",
            "q3_expected": {"weights": "_weights", "cumulative": "np.cumsum(_weights)",
                            "descending": "_weights[::-1]"}[form]}


def _q4_value(name: str, d: int, S: tuple, betas: list, digits: int) -> float:
    from attnlib import Heads, attention
    from attnlib import lower_bounds as lb

    mask = np.zeros(d)
    mask[list(S)] = 1.0
    W = np.zeros((len(betas), d, d))
    W[:, d - 1, 0] = np.round(lb.parity_coefficients(len(S), betas=betas), digits)
    layer = Heads(np.multiply.outer(np.asarray(betas), np.diag(mask)), W)
    bits = (np.arange(2 ** (2 * d))[:, None] >> np.arange(2 * d)) & 1
    coefficients = lb.walsh_hadamard(attention((1.0 - 2.0 * bits).reshape(-1, 2, d), layer)[:, 0, 0])
    degrees = np.array([bin(t).count("1") for t in range(len(coefficients))])
    weights = np.bincount(degrees, weights=coefficients**2, minlength=2 * d + 1)
    return eval(Q4[name][1], {"weights": weights, "s": len(S), "float": float})  # noqa: S307 (our own table)


def _family(rng, name: str):
    """A family with s = 2, and rounding whose answer is well away from zero."""
    while True:
        d = int(rng.choice([4, 5]))
        S = _subset(rng, d - 1, 2)
        betas = [0.0, round(float(rng.uniform(0.3, 0.5)), 2), 20.0]
        digits = int(rng.choice([0, 1]))
        value = _q4_value(name, d, S, betas, digits)
        if value > 1e-6:
            return d, S, betas, digits, value


def _q6(r: str, out: str) -> dict:
    shift = "(j + 1) % d" if r == "0" else "j"
    found = "found" if r == "d - 1" else "tuple(sorted((j + 1) % d for j in found))"
    if out == "indicator":
        found = f"np.isin(np.arange(d), {found}).astype(int)"
    expected = f"tuple(sorted({shift} for j in inst.support))"
    if out == "indicator":
        expected = f"np.isin(np.arange(d), {expected}).astype(int)"
    labels = ("attention(np.roll(X, -1, axis=2), inst.heads)[:, 0, 0]" if r == "0"
              else "attention(X, inst.heads)[:, 0, 0]")
    return {"q6_r_tex": r.replace(" ", ""), "q6_out": found,
            "q6_in": "X = np.roll(X, -1, axis=2)                             # coordinate 0 becomes the last"
            if r == "0" else "",
            "q6_words": "the sorted tuple $S$" if out == "tuple" else
            "the indicator of $S$: an `int` array of length $d$, 1 at the coordinates of $S$ and 0 elsewhere",
            "q6_labels": f"(lambda X, inst: {labels})", "q6_expected": f"(lambda inst, d: {expected})"}


def _q6_public(v: dict) -> str:
    from attnlib import lower_bounds as lb

    inst = lb.parity_instance(6, 2, rng=5)
    got = eval(v["q6_expected"], {"np": np})(inst, 6)  # noqa: S307 (our own table)
    return repr(got) if isinstance(got, tuple) else f"np.array({got.tolist()})"


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    p = {name: seed() for name in ("seed_q1", "seed_q1b", "seed_q2", "seed_q2b", "seed_q3", "seed_q3b",
                                   "seed_q6", "seed_q6b", "seed_q6c", "seed_q6d")}
    d1 = int(rng.integers(4, 8))
    p["d_q1"], p["S_q1"] = d1, _subset(rng, d1 - 1, int(rng.integers(1, 4)))
    p["betas_q1"] = [round(float(b), 2) for b in np.sort(rng.uniform(0, 3, size=int(rng.integers(2, 5))))]
    p.update(_q1(*pick([(0, 1, "Nm"), (1, 0, "Nm"), (0, 0, "mN"), (0, 1, "mN"), (1, 0, "mN")])))

    r, o = pick([("0", "0"), ("0", "d - 1"), ("d - 1", "d - 1")])
    p.update(_q2(r, o))
    d2 = int(rng.integers(5, 8))
    s2 = int(rng.integers(1, 3))
    coordinates = np.arange(1, d2) if r == "0" else np.arange(d2 - 1)
    p["d_q2"], p["S_q2"] = d2, _subset(rng, coordinates, s2)
    p["betas_q2"] = [0.0, round(float(rng.uniform(0.3, 0.5)), 2), 20.0][: s2 + 1] if s2 == 2 else [0.0, 20.0]

    p["K_q3"] = int(rng.integers(4, 8))
    p.update(_q3(pick(["cumulative", "descending"])))

    name = pick(["leaked_weight", "parity_weight"])
    d4, S4, b4, digits, value = _family(rng, name)
    d4b, S4b, b4b, digits_b, value_b = _family(rng, name)
    p.update({"q4_name": name, "q4_words": Q4[name][0], "q4_out": Q4[name][1], "d_q4": d4, "S_q4": S4,
              "betas_q4": b4, "q4_digits": digits, "q4_answer": repr(value), "d_q4b": d4b, "S_q4b": S4b,
              "betas_q4b": b4b, "q4_digits_b": digits_b, "q4_answer_b": repr(value_b)})

    p["d_q6"], p["s_q6"], p["N_q6"] = int(rng.integers(10, 17)), int(rng.integers(1, 4)), int(rng.integers(100, 160))
    p.update(_q6(*pick([("0", "tuple"), ("d - 1", "indicator"), ("0", "indicator")])))
    p["q6_public"] = _q6_public(p)
    return p


def canonical() -> dict:
    """The form placeholders of the canonical form: the master's solutions as published."""
    name = CANONICAL_FORM["q4"]
    return {**_q1(*CANONICAL_FORM["q1"]), **_q2(*CANONICAL_FORM["q2"]), **_q3(CANONICAL_FORM["q3"]),
            "q4_name": name, "q4_words": Q4[name][0], "q4_out": Q4[name][1], **_q6(*CANONICAL_FORM["q6"])}


def library(v: dict) -> dict:
    """Answers that call attnlib's own implementation (in this variant's form)."""
    return {
        "pair_weights": f'''def pair_weights(X, S, betas):
    d = X.shape[-1]
    mask = np.zeros(d)
    mask[list(S)] = 1.0
    heads = Heads(np.multiply.outer(np.asarray(betas, float), np.diag(mask)), np.zeros((len(betas), d, d)))
    return attention_weights(X, heads)[:, :, {v["q1_row"]}, {v["q1_key"]}]{v["q1_layout_T"]}''',
        "parity_layer": f'''def parity_layer(d, S, betas):
    heads = lb.parity_instance(d, len(S), betas=betas).heads
    Theta, W = heads.Theta, heads.W
    {v["q2_in"] or "pass"}
    return Theta, W''',
        "fourier_weights": f'''def fourier_weights(values):
    values = np.asarray(values, dtype=float)
    K = len(values).bit_length() - 1
    weights = lb.fourier_spectrum(lambda X: values[np.arange(len(values))], n=1, d=K).weight_by_degree()
    return {v["q3_out"]}''',
        "hidden_set": f'''def hidden_set(X, y):
    N, _, d = X.shape
    {v["q6_in"] or "pass"}
    found = lb.parity_by_elimination(*lb.decode_parity_examples(X, y, readout=d - 1))
    return {v["q6_out"]}''',
    }
