"""Name the mistake: what the pattern of a failed comparison says about the learner's answer.

When a check's comparison fails, :func:`diagnose` looks at the learner's array ``got`` next to
the reference ``expected`` and returns sentences that say what kind of mistake it looks like:

- a *known slip* of the check: ``got`` equals the reference computed the wrong way that the
  check names (Θ transposed, arguments swapped, an exclusive prefix, a centred covariance), the
  ``variants`` of :class:`Clues`;
- a *sign flip*, or a *constant factor* c with ``got = c * expected`` on every entry, named from
  the sizes the case reveals (1/n, n, 1/sqrt(d), sqrt(d), N/(N - 1), (N - 1)/N with n, d, N read
  from the inputs, then 2 and 1/2), else reported as a number;
- a *transpose* (the last two axes swapped) or a *constant offset*;
- *normalisation*: the reference's rows sum to 1 and the answer's do not (or sum to 1 along
  another axis: normalised along the wrong axis);
- *where the errors are*: named index groups (the pair rows j < k and the diagonal rows of the
  cubic features), with a constant factor per group where there is one, else the axes along
  which some indices are all right and others wrong ("only the last position is right"), or the
  diagonal against the off-diagonal of a square matrix.

Each detector asks for an exact pattern (up to the check's tolerance), so a sentence is said only
when the pattern holds on every entry; random mistakes get no diagnosis rather than a wrong one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: Set to False to silence every detector (the tests show that each one is needed).
ENABLED = True

#: Names of single detectors to silence: "variants", "factor", "transpose", "offset",
#: "normalisation", "groups", "axes" (the tests switch each off in turn).
DISABLED: set = set()


@dataclass(frozen=True)
class Clues:
    """What a check knows about one output beyond the reference array.

    ``sizes`` names the sizes the case reveals (``{"n": 4, "d": 3}``), used to name a factor;
    ``groups`` holds ``(axis, ((name, indices), ...))`` pairs, named index groups along an axis
    (``"pair rows (j < k)"``); ``axes`` names the output's axes (``("example", "position",
    "feature")``); ``variants`` maps a description of a known slip to the array that slip gives.
    """

    sizes: dict = field(default_factory=dict)
    groups: tuple = ()
    axes: tuple = ()
    variants: dict = field(default_factory=dict)


def _close(a, b, rtol, atol) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def _fraction(c: float) -> str:
    """``0.25 -> "1/4"``, ``36.0 -> "36"``, ``0.7 -> "0.7"``: a factor as a reader would write it."""
    for q in range(1, 9):
        p = round(c * q)
        if p and abs(c * q - p) < 1e-9 * max(1.0, abs(c * q)):
            return f"{p}/{q}" if q > 1 else f"{p}"
    return f"{c:.4g}"


def _wrap(name: str) -> str:
    return name if len(name) == 1 or name.isalnum() else f"({name})"


def _factor_names(c: float, sizes: dict) -> list[str]:
    """The readings of a positive factor c, most common first: ``["a factor 1/n with n = 4: ..."]``.

    A size's own factor (n, 1/n) comes first, then 2 and 1/2, then square roots and N/(N-1).
    """
    plain, roots = [], []
    for name, v in sizes.items():
        if not isinstance(v, (int, float, np.integer, np.floating)) or v <= 1:
            continue
        v, w = float(v), _wrap(name)
        plain += [(1 / v, f"1/{w} with {name} = {v:g}", f"one division by {name} too many?"),
                  (v, f"{w} with {name} = {v:g}", f"a missing 1/{w} (a sum where a mean is meant)?")]
        roots += [(1 / math.sqrt(v), f"1/sqrt({name}) with {name} = {v:g}",
                   f"a 1/sqrt({name}) that the definition does not have?"),
                  (math.sqrt(v), f"sqrt({name}) with {name} = {v:g}", f"a missing 1/sqrt({name})?")]
        if v > 2:
            roots += [(v / (v - 1), f"{name}/({name} - 1) with {name} = {v:g}",
                       f"a division by {name} - 1 where {name} is meant?"),
                      ((v - 1) / v, f"({name} - 1)/{name} with {name} = {v:g}",
                       f"a division by {name} where {name} - 1 is meant?")]
    generic = [(2.0, "2", "a term counted twice, or a factor 2 too many?"),
               (0.5, "1/2", "a missing factor 2 (the derivative of a square?), or a term counted once where it "
                            "appears twice?")]
    found = [f"a factor {text}: {meaning}" for value, text, meaning in plain + generic + roots
             if abs(c - value) <= 1e-7 * value]
    return found[:2]


def _constant_factor(got, expected, rtol, atol):
    """c with ``got = c * expected`` on every entry (c != 1), or None."""
    scale = float(np.abs(expected).max(initial=0.0))
    if scale <= 10 * atol or not np.isfinite(expected).all() or not np.isfinite(got).all():
        return None
    c = float(np.vdot(got, expected) / np.vdot(expected, expected))
    if not np.isfinite(c) or abs(c) < 1e-12 or abs(c - 1) < 1e-6:
        return None
    if np.allclose(got, c * expected, rtol=10 * rtol, atol=10 * atol * max(1.0, abs(c))):
        return c
    return None


def _factor_sentence(c: float, what: str, sizes: dict, plural: bool = False) -> str:
    what = f"{what} {'are' if plural else 'is'}"
    if c < 0:
        if abs(c + 1) < 1e-7:
            return (f"{what} minus the expected one on every entry: a flipped sign (a difference taken "
                    "the other way round?).")
        head = f"{what} {_fraction(c)} times the expected one on every entry: a flipped sign"
        names = _factor_names(-c, sizes)
        return f"{head} and {names[0]}" if names else f"{head} and a factor {_fraction(-c)}."
    size = f"1/{_fraction(1 / c)} of" if c < 1 and _fraction(1 / c).isdigit() else f"{_fraction(c)} times"
    names = _factor_names(c, sizes)
    if names:
        return f"{what} {size} the expected one on every entry: " + "; or ".join(names)
    return f"{what} {size} the expected one on every entry: a constant factor is off."


def _plural(word: str) -> str:
    return word if word.endswith("s") else word + "s"


def _ordinal(i: int, size: int, axis_name: str) -> str:
    if i == size - 1:
        return f"the last {axis_name} ({i})"
    if i == 0:
        return f"the first {axis_name} (0)"
    return f"{axis_name} {i}"


def _spans(indices) -> str:
    indices = [int(i) for i in indices]
    if len(indices) > 2 and indices == list(range(indices[0], indices[-1] + 1)):
        return f"{indices[0]} to {indices[-1]}"
    shown = ", ".join(str(i) for i in indices[:6])
    return shown + (", ..." if len(indices) > 6 else "")


def _simple(indices) -> bool:
    """A set of indices a reader takes in at a glance: at most four, or one contiguous run."""
    return len(indices) <= 4 or int(indices[-1] - indices[0]) == len(indices) - 1


def _axis_pattern(wrong, axes) -> list[str]:
    """Axes along which some indices are right and others wrong: "only the last position is right"."""
    lines = []
    defaults = {1: ("entry",), 2: ("row", "column")}.get(wrong.ndim, ())
    for k in range(wrong.ndim):
        size = wrong.shape[k]
        if size < 2:
            continue
        bad = wrong.any(axis=tuple(a for a in range(wrong.ndim) if a != k))
        if bad.all() or not bad.any():
            continue
        name = axes[k] if k < len(axes) else (defaults[k] if k < len(defaults) else f"index along axis {k}")
        right, differ = np.flatnonzero(~bad), np.flatnonzero(bad)
        if not (_simple(right) or _simple(differ)):  # scattered both ways: no pattern worth saying
            continue
        if len(right) == 1:
            lines.append(f"Only {_ordinal(right[0], size, name)} is right; the other {size - 1} differ.")
        elif len(differ) == 1:
            lines.append(f"Only {_ordinal(differ[0], size, name)} differs; the other {size - 1} are right.")
        else:
            lines.append(f"{_plural(name).capitalize()} {_spans(differ)} differ; {_plural(name)} "
                         f"{_spans(right)} are right.")
        if len(lines) == 2:
            break
    if not lines and wrong.ndim >= 2 and wrong.shape[-1] == wrong.shape[-2] > 1:
        eye = np.eye(wrong.shape[-1], dtype=bool)
        on = wrong & eye
        off = wrong & ~eye
        if on.any() and not off.any():
            lines.append("Only diagonal entries differ; the off-diagonal ones are right.")
        elif off.any() and not on.any():
            lines.append("The diagonal is right; off-diagonal entries differ.")
    return lines


def _group_pattern(got, expected, wrong, groups, sizes, rtol, atol, what) -> list[str]:
    """Named groups along an axis: which differ, which match, and a constant factor per group."""
    lines = []
    for axis, named in groups:
        if not -got.ndim <= axis < got.ndim:
            continue
        differ, match, factors = [], [], []
        for name, idx in named:
            idx = np.asarray(idx, dtype=int)
            if idx.size == 0:
                continue
            if wrong.take(idx, axis=axis).any():
                differ.append(name)
                c = _constant_factor(got.take(idx, axis=axis), expected.take(idx, axis=axis), rtol, atol)
                if c is not None:
                    factors.append(_factor_sentence(c, f"On the {name}, {what[0].lower() + what[1:]}", sizes))
                elif not np.abs(got.take(idx, axis=axis)).any():
                    factors.append(f"Your {name} are all zero: forgotten?")
            else:
                match.append(name)
        if differ and match:
            lines.append(f"The {' and the '.join(differ)} differ; the {' and the '.join(match)} match.")
            lines += factors
        elif len(differ) > 1 and len(factors) == len(differ):
            lines += factors
        if lines:
            break
    return lines


def _normalisation(got, expected) -> list[str]:
    """The reference's rows sum to 1 along the last axis; say how the answer's sum."""
    if expected.ndim < 1 or expected.shape[-1] < 2 or not np.isfinite(expected).all():
        return []
    if (expected < 0).any() or not np.allclose(expected.sum(axis=-1), 1.0, atol=1e-9):
        return []
    if not np.isfinite(got).all() or np.allclose(got.sum(axis=-1), 1.0, atol=1e-7):
        return []
    for k in range(got.ndim - 1):
        if got.shape[k] > 1 and np.allclose(got.sum(axis=k), 1.0, atol=1e-7):
            where = "down the columns" if k == got.ndim - 2 else f"along axis {k}"
            return [f"Your rows sum to 1 {where}, not along the rows (the last axis): normalised along the "
                    "wrong axis?"]
    sums = got.sum(axis=-1)
    return [f"Your rows do not sum to 1 along the last axis (their sums run from {sums.min():.4g} to "
            f"{sums.max():.4g}): a missing or wrong normalisation?"]


def diagnose(got, expected, wrong, *, rtol: float, atol: float, clues: Clues | None = None,
             label: str = "the output") -> list[str]:
    """Sentences naming the kind of mistake behind ``got != expected``, or ``[]`` if none is plain.

    ``wrong`` is the boolean array of the entries outside the tolerance. The first detector
    that explains every entry wins (a known slip, a sign, a factor, a transpose, an offset);
    otherwise the normalisation and the pattern of the differing entries are described.
    """
    if not ENABLED:
        return []
    clues = clues or Clues()
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    loose = dict(rtol=10 * rtol, atol=10 * atol)
    what = label[0].upper() + label[1:] if label.startswith("the ") else f"Your {label}"
    plural = label.split()[1 if label.startswith("the ") and " " in label else 0].endswith("s")
    on = {name for name in ("variants", "factor", "transpose", "offset", "normalisation", "groups", "axes")
          if name not in DISABLED}
    for description, variant in clues.variants.items() if "variants" in on else ():
        if variant is not None and _close(got, variant, **loose):
            end = "" if description.endswith(("?", ".", "!")) else "."
            return [f"{what} {'equal' if plural else 'equals'} {description}{end}"]
    normalisation = _normalisation(got, expected) if "normalisation" in on else []
    c = _constant_factor(got, expected, rtol, atol) if "factor" in on else None
    if c is not None:
        return [_factor_sentence(c, what, clues.sizes, plural)] + normalisation
    if ("transpose" in on and got.ndim >= 2 and got.shape[-1] == got.shape[-2]
            and _close(got, np.swapaxes(expected, -1, -2), **loose)):
        return [f"{what} {'are' if plural else 'is'} the expected one transposed (its last two axes swapped)."]
    if "offset" in on and got.size > 1 and np.isfinite(got).all() and np.isfinite(expected).all():
        shift = got - expected
        if np.allclose(shift, shift.flat[0], rtol=0, atol=10 * atol + 10 * rtol * np.abs(expected).max()):
            return [f"Every entry of {label} is off by the same amount, {shift.flat[0]:.4g}: a constant term "
                    "added or missing?"]
    lines = list(normalisation)
    if "groups" in on:
        lines += _group_pattern(got, expected, wrong, clues.groups, clues.sizes, rtol, atol, what)
    if lines == normalisation and "axes" in on:
        lines += _axis_pattern(wrong, clues.axes)
    return lines
