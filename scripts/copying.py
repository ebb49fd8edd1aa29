"""Copying detection that renaming does not defeat: winnowed k-gram fingerprints of normalised tokens.

A submission's code is compared with reference code per question: the variant's own reference
solution, the public master's solution (a template: its ``{{placeholders}}`` are left out of the
fingerprint) and the source of the library functions the question is about. Each code is turned
into a stream of tokens in which every name a student may choose (variables, arguments, functions,
the module aliases) becomes ``V``, every number ``0`` and every string ``""``; keywords, operators,
builtins and attribute names (``np.linalg.lstsq`` stays ``V.linalg.lstsq``) are kept, comments and
blank lines dropped. Renaming locals through ``ast``, reformatting or changing comments therefore
leaves the stream as it was. Hashes of every K consecutive tokens are winnowed (the minimum of each
window of WINDOW hashes is kept, as MOSS does), so any common run of K + WINDOW - 1 tokens is found.
A reference's score is the share of its fingerprints found in the submission's code (all code cells:
moving the copy to another cell does not hide it); two submissions' score for a question is the
share of the smaller one's fingerprints of that question's answer cells found in the other's.

Why not the ``copydetect`` library (0.5.0), which was evaluated first on the same cases (its pygments
tokenizer, 25-character k-grams): it separates them too, with less margin (renamed copies of the
references from 0.60, this module from 0.79), but its fingerprints use Python's salted ``hash()``
(they change from process to process, so none could be stored or compared across runs), it keeps
numbers verbatim, abstracts attribute names (every numpy call becomes ``V.V``), imports matplotlib
on import, and would have to be installed wherever the test suite runs (the ``course`` extra is
not). The method itself is short; it is written here on Python's own tokenizer and ``ast``.

The references are built once, with the assignment (:func:`references`), and stored as code (not as
hashes: the code shows the instructor what matched, and a change of K or WINDOW cannot silently
mismatch stored hashes) in ``copying_references.json`` in the autograder zip only.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import importlib
import inspect
import io
import keyword
import re
import textwrap
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: The name of the references file at the root of the autograder zip.
REFERENCES_FILE = "copying_references.json"
FORMAT = 1
#: Tokens per k-gram, and k-grams per winnowing window.
K, WINDOW = 10, 4
#: A reference or answer with fewer fingerprints than this is too short to tell copying from the
#: obvious answer (``np.outer(a, b - c)``): it is not judged.
MIN_FINGERPRINTS = 8
#: A score at or above this is flagged (calibrated in tests/test_copying.py).
THRESHOLD = 0.5

PLACEHOLDER = re.compile(r"\{\{\s*\w+\s*\}\}")
BREAK = "{{next_part}}"  # a placeholder line between two parts of a solution
_HOLE = "\x00"  # the token a template's placeholder becomes: k-grams through it are not fingerprinted
_KEPT = set(dir(builtins)) | set(keyword.kwlist) | set(keyword.softkwlist)
# Indentation is left out with comments and blank lines: a reference solution is the body of a function,
# dedented, and must read the same inside the student's ``def``.
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
_STRINGS = {tokenize.STRING} | {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                                 if hasattr(tokenize, n)}


def canonical(code: str) -> str:
    """``code`` as ``ast.unparse`` writes it (comments, layout, parentheses and quotes as everyone's), or as it
    is if it does not parse; template placeholders become a name, IPython magics and shell lines nothing."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines()) + "\n"
    code = PLACEHOLDER.sub("__placeholder__", code)
    try:
        return ast.unparse(ast.parse(code)) + "\n"
    except (SyntaxError, ValueError, RecursionError):
        return code


def tokens(code: str) -> list[str]:
    """The normalised token stream of Python code (see :func:`canonical`)."""
    code = canonical(code)
    out: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in _SKIP:
                continue
            if tok.type == tokenize.NAME:
                if tok.string == "__placeholder__":
                    out.append(_HOLE)
                elif tok.string in _KEPT or (out and out[-1] == "."):
                    out.append(tok.string)
                else:
                    out.append("V")
            elif tok.type == tokenize.NUMBER:
                out.append("0")
            elif tok.type in _STRINGS:
                if not (out and out[-1] == '""'):
                    out.append('""')
            elif tok.type == tokenize.NEWLINE:
                out.append(";")
            else:
                out.append(tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # unfinished code: the tokens read so far
    return out


def _hash(gram: Sequence[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x01".join(gram).encode(), digest_size=8).digest(), "big")


def kgrams(code: str) -> list[int | None]:
    """The hash of every K consecutive tokens of ``code`` (None for those through a template placeholder)."""
    toks = tokens(code)
    return [None if _HOLE in toks[i:i + K] else _hash(toks[i:i + K]) for i in range(len(toks) - K + 1)]


def fingerprints(code: str) -> set[int]:
    """The winnowed K-gram hashes of ``code``: the smallest of every WINDOW consecutive ones (the rightmost on ties)."""
    hashes = kgrams(code)
    if len(hashes) <= WINDOW:
        return {h for h in hashes if h is not None}
    chosen = set()
    for start in range(len(hashes) - WINDOW + 1):
        window = [(h, i) for i, h in enumerate(hashes[start:start + WINDOW]) if h is not None]
        if window:
            chosen.add(min(window, key=lambda pair: (pair[0], -pair[1]))[0])
    return chosen


# --- the references, built with the assignment ------------------------------------------------------


def library_source(dotted: str) -> str:
    """The source of a library function by its dotted name (``attnlib.sculpt.gap_feature``), decorators unwrapped."""
    parts = dotted.split(".")
    obj, error = None, None
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError as err:
            error = err
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError as err:
            raise ValueError(f"{dotted}: no such function ({err})") from None
        break
    if obj is None:
        raise ValueError(f"{dotted}: no such module ({error})")
    try:
        source = textwrap.dedent(inspect.getsource(inspect.unwrap(obj)))
    except (TypeError, OSError) as err:
        raise ValueError(f"{dotted}: no source to compare with ({err})") from None
    definition = ast.parse(source).body[0]  # from its def line: the decorators are the library's, not the answer
    return "\n".join(source.splitlines()[definition.lineno - 1:]) + "\n"


def references(solutions: Mapping[str, str], public: Mapping[str, str],
               library: Mapping[str, Sequence[str]] | None = None, given: str = "") -> dict:
    """The JSON-able references file: per question, the code a submission is compared with.

    ``solutions`` maps each question to the variant's reference solution code, ``public`` to the public
    master's (a template; placeholders are ignored), ``library`` to the dotted names of the library
    functions the question is about. ``given`` is the code every student receives (set-up, function
    headers, provided helpers): its fingerprints are left out of every comparison.
    """
    library = library or {}
    unknown = (set(public) | set(library)) - set(solutions)
    if unknown:
        raise ValueError(f"questions without a reference solution: {sorted(unknown)}")
    out = {}
    for question in solutions:
        refs = [{"kind": "variant", "name": "the variant's reference solution", "code": solutions[question]}]
        if public.get(question):
            refs.append({"kind": "public", "name": "the public master's solution", "code": public[question]})
        refs += [{"kind": "library", "name": name, "code": library_source(name)} for name in library.get(question, ())]
        out[question] = refs
    return {"format": FORMAT, "given": given, "questions": out}


def references_from_masters(public_master: dict, variant_master: dict,
                            library: Mapping[str, Sequence[str]] | None = None) -> dict:
    """:func:`references` from the public master (the template) and the variant's rendered master; the code
    students receive is the rendered master's."""
    public, _ = split_master(public_master)
    solutions, given = split_master(variant_master)
    return references(solutions, public, library, given)


def split_master(master: dict) -> tuple[dict[str, str], str]:
    """Per question the solution code of an otter master notebook (template or rendered), and the code
    students receive (code cells outside tests and solutions, and a solution cell's lines outside its
    ``# BEGIN SOLUTION`` / ``# END SOLUTION``)."""
    solutions: dict[str, list[str]] = {}
    given: list[str] = []
    question, region = None, None
    for cell in master.get("cells", []):
        text = _source(cell)
        head = text.strip().splitlines()[0].strip().upper() if text.strip() else ""
        if cell.get("cell_type") == "raw":
            if head == "# BEGIN QUESTION":
                found = re.search(r"^name:\s*(\S+)", text, re.M)
                question = found.group(1) if found else None
            elif head in ("# BEGIN SOLUTION", "# BEGIN TESTS"):
                region = head.split()[-1]
            elif head in ("# END SOLUTION", "# END TESTS"):
                region = None
            elif head == "# END QUESTION":
                question = None
            continue
        if cell.get("cell_type") != "code" or region == "TESTS":
            continue
        if region == "SOLUTION" and question:
            inside, part = "# BEGIN SOLUTION" not in text, []
            for line in text.splitlines():
                mark = line.strip().upper()
                if mark.startswith("# BEGIN SOLUTION"):
                    inside = True
                elif mark.startswith("# END SOLUTION"):
                    inside = False
                    solutions.setdefault(question, []).append(textwrap.dedent("\n".join(part)))
                    part = []
                else:
                    (part if inside else given).append(line)
            if part:
                solutions.setdefault(question, []).append(textwrap.dedent("\n".join(part)))
        else:
            given.append(text)
    # the parts of a question are joined by a placeholder line, so that no k-gram runs from one into the next
    return {q: f"\n{BREAK}\n".join(parts) for q, parts in solutions.items()}, "\n".join(given)


# --- comparing --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    question: str
    kind: str      # variant, public, library, or a submission's file name
    name: str
    score: float

    def __str__(self):
        return f"{self.question} matches {self.name} {self.score:.2f}"


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _check_format(references_data: dict) -> None:
    if not isinstance(references_data, dict) or references_data.get("format") != FORMAT:
        raise ValueError(f"not a copying references file of format {FORMAT}")


def notebook_code(nb: dict) -> str:
    """The code cells, each made canonical on its own (a cell that does not parse spoils only itself)."""
    return "\n".join(canonical(_source(c)) for c in nb.get("cells", []) if c.get("cell_type") == "code")


def scores(nb: dict, references_data: dict) -> list[Match]:
    """Every judged reference's score against the submission (the share of its fingerprints found)."""
    _check_format(references_data)
    boiler = set(kgrams(references_data.get("given", "")))
    mine = set(kgrams(notebook_code(nb))) - boiler  # every k-gram: a reference inside the code is found whole
    out = []
    for question, refs in references_data["questions"].items():
        for ref in refs:
            theirs = fingerprints(ref["code"]) - boiler
            if len(theirs) >= MIN_FINGERPRINTS:
                out.append(Match(question, ref["kind"], ref["name"], round(len(theirs & mine) / len(theirs), 2)))
    return out


def compare(nb: dict, references_data: dict, threshold: float = THRESHOLD) -> list[Match]:
    """The references the submission's code matches at or above ``threshold``, best first."""
    return sorted((m for m in scores(nb, references_data) if m.score >= threshold), key=lambda m: -m.score)


def answers(nb: dict) -> dict[str, str]:
    """A submission's answer code per question: the code cells after one question's ``grader.check`` up to
    the next question's (the cells the prompt asks the student to fill), keyed by that question."""
    out, pending = {}, []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        text = _source(cell)
        check = re.search(r"grader\.check\(\s*['\"](\w+)['\"]\s*\)", text)
        if check:
            out[check.group(1)] = "\n".join(pending)
            pending = []
        else:
            pending.append(text)
    return out


def pairwise(notebooks: Mapping[str, dict], references_data: dict | None = None,
             threshold: float = THRESHOLD) -> list[tuple[str, str, str, float]]:
    """Pairs of submissions whose answers to a question share at least ``threshold`` of the smaller
    answer's fingerprints: (file, other file, question, share), the code every student receives left out."""
    boiler = set(kgrams(references_data.get("given", ""))) if references_data else set()
    codes = {name: answers(nb) for name, nb in notebooks.items()}
    prints = {name: {q: fingerprints(code) - boiler for q, code in mine.items()} for name, mine in codes.items()}
    grams = {name: {q: set(kgrams(code)) for q, code in mine.items()} for name, mine in codes.items()}
    names, out = sorted(prints), []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for question in sorted(set(prints[a]) & set(prints[b])):
                (small, other) = (a, b) if len(prints[a][question]) <= len(prints[b][question]) else (b, a)
                fingerprints_ = prints[small][question]
                if len(fingerprints_) < MIN_FINGERPRINTS:
                    continue
                share = round(len(fingerprints_ & grams[other][question]) / len(fingerprints_), 2)
                if share >= threshold:
                    out.append((a, b, question, share))
    return out
