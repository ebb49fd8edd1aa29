"""Grading support shipped with every assignment (students' copy and the autograder's copy).

The autograder copies its own version of this file over the student's before grading, so what
runs at grading time is always this code. It gives the tests five guarantees:

- **a time limit**: ``call`` and ``check`` run the student's code under a timer; an infinite loop
  fails that test after ``SECONDS`` and the other tests go on. A function that timed out once is
  not run again in the same session (its later tests fail at once), so a looping submission
  costs one time limit per function, not one per test. ``arm_cells`` also stops any notebook
  cell that runs longer than ``CELL_SECONDS``;
- **isolation while grading**: under the autograder (on Linux), every call of a student's function
  runs in a child process of the kernel, which is killed at the time limit. A limit swallowed by
  an ``except:`` in a retry loop therefore costs only that question, and what the function changes
  in memory (a patched ``numpy.isclose``, an IPython hook, a signal handler, a rebound global) dies
  with the child. Only plain data comes back: numbers, strings, numpy arrays of numbers, and
  tuples and lists of them (``AnswerTypeError`` otherwise), so an answer cannot be an object whose
  ``__eq__`` or ``__array__`` lies; the kernel reads it with an unpickler that builds nothing else;
- **a sandbox around the answer**: before the function runs, the child moves into a new scratch
  folder (the kernel removes it afterwards) and runs BLAS in one thread; then, for good, it may
  start no process or thread (``RLIMIT_NPROC`` 0), dumps no core, maps at most ``CHILD_MEMORY``
  more bytes and, when the kernel runs as root (as on Gradescope), runs as nobody (``NOBODY``)
  keeping only the right to read files. An audit hook, which Python cannot remove, then refuses
  with ``SandboxViolation`` (reported even if the answer catches it) any attempt to: start a
  process (``os.fork``, ``os.forkpty``, ``os.posix_spawn``, ``os.spawn*``, ``os.exec*``,
  ``os.system``, ``subprocess``, ``pty``; ``_posixsubprocess`` is taken out of reach) or a
  thread; send a signal (``os.kill``, ``os.killpg``, ``signal.pthread_kill``); open any socket;
  use ``ctypes``; write, create, remove, rename, link, chmod, chown or truncate a file or folder
  outside the scratch folder, make a symbolic link, or use a folder descriptor; change folder;
  find the running test case through doctest's patched ``linecache`` or otter's ``Checker``;
  read or list the grader's folders (the kernel's own, where the tests are, and /autograder),
  open a folder outside the scratch folder, or go through ``/proc/<process>/`` or ``/dev/fd/``;
  reach the grader's stack or objects (``sys._getframe``, ``sys._current_frames``,
  ``sys._current_exceptions``, a traceback's, generator's or coroutine's frame,
  ``gc.get_objects``, ``gc.get_referrers``, ``gc.get_referents``, ``sys.settrace``,
  ``sys.setprofile``, ``breakpoint``); add an audit hook; make code or functions from code
  objects (``code.__new__``, ``code.replace``, ``types.FunctionType``), replace a function's
  ``__code__``, run the library's code through ``exec``, unmarshal code other than the installed
  ``.pyc`` files importlib reads, or import from the scratch folder; change its resource limits;
  open an sqlite database. Reading files elsewhere, importing (numpy, scipy and their lazily
  loaded parts) and writing in the scratch folder work as usual;
- **no library shortcut**: while the student's function runs, every *public* function of attnlib
  (each name of a public module's ``__all__``, with the public methods, static and class methods
  and properties of its public classes; not ``attnlib.checks``) raises ``LibraryCallForbidden``
  when it is called from code that is not the library's own. The caller is known by its code
  object, not by its name: the library's own code objects (every function of every attnlib module
  but the checks, and what they nest) and importlib's go through, and so does a function the
  question allows by name; the argument declaration's wrapper is looked through. So answering
  "write softmax" with ``attnlib.softmax`` scores zero on that question, even through ``exec``
  with a borrowed ``__name__`` or from code compiled under a library file's name, and
  ``from scipy.linalg import solve`` inside an answer is fine. While grading, the decision is the
  sandbox's audit hook's, out of the answer's reach; in a student's own session the guard is a
  closure the student's code could rewrite, a convenience only;
- **readable feedback**: ``check`` runs one of the book's ``attnlib.checks`` on the student's
  function and lets its message (which input failed, and how) be what the student sees;
  ``expect_close`` and ``expect_equal`` do the same for the assignment's own cases.

``notebook`` makes otter's grader object whatever the notebook file is called, and ``hand_in``
writes the zip to hand in, on a laptop, Binder or Colab (where otter's export cannot read the
notebook from disk), and says which of the notebook's statements the grader will not run.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import io
import json
import os
import pickle
import select
import signal
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

#: Seconds one test may spend in the student's code.
SECONDS = 5.0
#: Seconds one notebook cell may run once ``arm_cells`` has been called.
CELL_SECONDS = 120.0
#: Run student calls in a child process: None = while otter grades, on Linux; True/False force it.
ISOLATE: bool | None = None


class TimeLimitExceeded(Exception):
    """The student's code ran longer than its time limit (an infinite loop?)."""


class LibraryCallForbidden(Exception):
    """The student's code called the library function that the question asks them to write."""


class AnswerTypeError(TypeError):
    """The student's function returned something other than plain numbers, arrays, tuples or lists."""


class StudentError(Exception):
    """The student's code raised an exception of its own type (its name and message are kept)."""


_timed_out: set[str] = set()


# --- time limits --------------------------------------------------------------------------------


@contextlib.contextmanager
def time_limit(seconds: float, what: str = "this code"):
    """Raise ``TimeLimitExceeded`` in the block after ``seconds`` (nested limits keep the outer one).

    In-process (a student's own session): the exception is raised again every 0.5 s, in case the
    code catches the first one. While grading, ``call`` does not rely on it: the child process
    that runs the student's code is killed instead.
    """
    if not hasattr(signal, "setitimer"):  # Windows: no timer; run without a limit
        yield
        return
    outer_handler = signal.getsignal(signal.SIGALRM)
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()

    def alarm(signum, frame):
        # remember the notebook's functions that were running, so that later tests skip them
        while frame is not None:
            if frame.f_globals.get("__name__") == "__main__" and not frame.f_code.co_name.startswith("<"):
                _timed_out.add(frame.f_code.co_name)
            frame = frame.f_back
        raise TimeLimitExceeded(f"{what} ran longer than {seconds:g} s and was stopped: is there an "
                                "infinite loop, or a loop over every example where numpy would do?")

    signal.signal(signal.SIGALRM, alarm)
    limit = seconds if outer_left <= 0 else min(seconds, outer_left)
    signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, outer_handler)
        if outer_left > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - start), 1e-3), 0.5)


def arm_cells(seconds: float = CELL_SECONDS) -> None:
    """Stop every later cell of this IPython session that runs longer than ``seconds``.

    Otter's own last cell, which runs the remaining tests one by one under their own limits,
    is left alone.
    """
    try:
        ip = get_ipython()  # noqa: F821 (defined in IPython only)
    except NameError:
        return
    state = {}

    def pre(info):
        if "Checker.check_if_not_already_checked" in (info.raw_cell or ""):
            return
        state["limit"] = time_limit(seconds, "this cell")
        state["limit"].__enter__()

    def post(result):
        limit = state.pop("limit", None)
        if limit is not None:
            limit.__exit__(None, None, None)

    for event, hook in (("pre_run_cell", pre), ("post_run_cell", post)):
        for old in [h for h in ip.events.callbacks[event] if getattr(h, "__name__", "") == hook.__name__
                    and getattr(h, "__module__", "") == __name__]:
            ip.events.unregister(event, old)
        ip.events.register(event, hook)


# --- no library shortcuts -----------------------------------------------------------------------


def _public(name: str) -> bool:
    return not name.startswith("_")


def _codes(code, into: dict) -> None:
    """``code`` and every code object nested in it (functions, lambdas, classes, comprehensions)."""
    into[id(code)] = code
    for const in code.co_consts:
        if isinstance(const, type(code)):
            _codes(const, into)


def _library():
    """``(public functions with their own code, trusted code ids, the declaration wrapper's code)``.

    Imports every public module of attnlib (not ``attnlib.checks``: the tests call it), once per
    process. Public functions: the names of each public module's ``__all__`` (or its names without
    ``_``), unwrapped from ``@arguments``, with the public methods, static and class methods and
    properties of the public classes among them. Trusted: every code object of every attnlib module
    but the checks (functions, methods, classes and what they nest), and importlib's own, by identity.
    """
    if _LIBRARY:
        return _LIBRARY[0]
    import importlib
    import pkgutil

    import attnlib
    import attnlib._arguments

    for info in pkgutil.walk_packages(attnlib.__path__, "attnlib."):
        if all(_public(p) for p in info.name.split(".")) and not info.name.startswith("attnlib.checks"):
            with contextlib.suppress(ImportError):
                importlib.import_module(info.name)
    functions, seen, homes = [], set(), {}
    for modname, module in sorted(sys.modules.items()):
        library = (modname == "attnlib" or modname.startswith("attnlib.")) and not modname.startswith("attnlib.checks")
        if module is not None and (library or modname in _IMPORT_MACHINERY or modname.startswith("importlib.")):
            homes[id(vars(module))] = vars(module)
        if not library or not all(_public(p) for p in modname.split(".")):
            continue
        names = getattr(module, "__all__", None) or [n for n in vars(module) if _public(n)]
        members = [vars(module)[n] for n in names if n in vars(module)]
        for cls in [c for c in members if isinstance(c, type)]:
            members += [v for key, v in vars(cls).items() if _public(key)]
        for f in members:
            f = getattr(f, "__func__", f)
            for g in [f.fget, f.fset, f.fdel] if isinstance(f, property) else [f]:
                g = inspect.unwrap(g) if isinstance(g, type(_public)) else g
                home = getattr(g, "__module__", None) or ""
                if (isinstance(g, type(_public)) and id(g) not in seen and home.startswith("attnlib")
                        and not home.startswith("attnlib.checks")):
                    seen.add(id(g))
                    functions.append((g, g.__code__))
    # every function defined in those modules' namespaces (not by name: by the identity of the
    # module dictionary it runs in), with what its code nests
    trusted: dict = {}
    for obj in gc.get_objects():
        if isinstance(obj, type(_public)) and homes.get(id(obj.__globals__)) is obj.__globals__:
            _codes(obj.__code__, trusted)
    for _f, code in functions:
        _codes(code, trusted)
    wrapper = next(c for c in attnlib._arguments._checked.__code__.co_consts
                   if isinstance(c, type(_public.__code__)) and c.co_name == "wrapper")
    _LIBRARY.append((tuple(functions), trusted, wrapper))
    return _LIBRARY[0]


_LIBRARY: list = []
_STUBS: dict = {}
_IMPORT_MACHINERY = ("importlib", "_frozen_importlib", "_frozen_importlib_external")


def _stub(code, key: str):
    """A code object that hands ``(key, args, kwargs)`` to the guard, with ``code``'s free variables.

    A function's ``__code__`` may only be replaced by one with as many free variables as the
    function has closure cells, so a function with a closure gets a stub that names them too.
    """
    free = code.co_freevars
    if free not in _STUBS:
        source = ("def outer():\n" + "".join(f"    {v} = None\n" for v in free)
                  + "    def stub(*args, **kwargs):\n" + (f"        {', '.join(free)}\n" if free else "")
                  + "        return __assignment_guard__('KEY', args, kwargs)\n    return stub\n")
        scope: dict = {}
        exec(compile(source, "<assignment guard>", "exec"), scope)  # noqa: S102 (our own fixed source)
        _STUBS[free] = scope["outer"]().__code__
    template = _STUBS[free]
    consts = tuple(key if c == "KEY" else c for c in template.co_consts)
    return template.replace(co_consts=consts, co_name=code.co_name, co_qualname=code.co_qualname)


def _make_decider(allow: tuple[str, ...], originals: dict, stubs: dict, trusted: dict, wrapper):
    """``decide(key, stub_frame)``: the original function to run for this call, or ``LibraryCallForbidden``."""
    getframe, function, forbidden = sys._getframe, type(_public), LibraryCallForbidden

    def decide(key, stub_frame):
        code, globals_, name, defaults, kwdefaults, closure = originals[key]
        if stub_frame is None or stub_frame.f_code is not stubs[key]:
            raise forbidden("the library guard is called by its stubs only")
        frame = stub_frame.f_back
        if frame is not None and frame.f_code is wrapper:
            frame = frame.f_back  # the argument declaration's wrapper: the caller is the one who called it
        caller = frame.f_code if frame is not None else None
        if name in allow or (caller is not None and trusted.get(id(caller)) is caller):
            original = function(code, globals_, name, defaults, closure)
            original.__kwdefaults__ = kwdefaults
            return original
        raise forbidden(f"your code calls attnlib's {name}: this question asks you to write it yourself, "
                        "with numpy")

    return decide, getframe


def _make_guard(allow: tuple[str, ...], originals: dict, stubs: dict, trusted: dict, wrapper):
    """The function the stubs call in a student's own session (where nothing is at stake)."""
    decide, getframe = _make_decider(allow, originals, stubs, trusted, wrapper)

    def guard(key, args, kwargs):
        return decide(key, getframe(1))(*args, **kwargs)

    return guard


def _audited_guard(key, args, kwargs):
    """The function the stubs call while grading: the sandbox's audit hook decides and hands back
    the original, so the state it decides by is out of the answer's reach (a closure's cells are not)."""
    slot = []
    sys.audit(GUARD_EVENT, key, slot)
    return slot[0](*args, **kwargs)


#: The audit event by which ``_audited_guard`` asks the sandbox for a library function.
GUARD_EVENT = "assignment_support.library_call"


def _patch_library(allow: tuple[str, ...], guard=None):
    """Give every public function a stub that calls ``guard`` (``_make_guard``'s by default).

    Returns ``(patched, decider)``: the ``(function, code)`` pairs to restore, and the
    ``decide`` function the sandbox uses in place of the guard.
    """
    functions, trusted, wrapper = _library()
    originals, stubs, patched = {}, {}, []
    for f, code in functions:
        key = f"{f.__module__}.{f.__qualname__}#{id(f)}"
        originals[key] = (code, f.__globals__, f.__name__, f.__defaults__, f.__kwdefaults__, f.__closure__)
        stubs[key] = _stub(code, key)
    allow = tuple(allow)
    guard = guard or _make_guard(allow, originals, stubs, dict(trusted), wrapper)
    for f, _code in functions:
        key = f"{f.__module__}.{f.__qualname__}#{id(f)}"
        f.__globals__["__assignment_guard__"] = guard
        patched.append((f, f.__code__))
        f.__code__ = stubs[key]
    return patched, _make_decider(allow, dict(originals), dict(stubs), dict(trusted), wrapper)[0]


@contextlib.contextmanager
def no_library(allow: tuple[str, ...] = ()):
    """Within the block, a call of a public attnlib function from code that is not attnlib's raises.

    The caller is known by its code object: the library's own (every code object of its modules
    but the checks) and importlib's go through, any other code (a notebook's, an ``exec``'s, one
    compiled under a borrowed name or file name) raises ``LibraryCallForbidden``. ``allow`` names
    functions (by their ``__name__``) that the question lets students use.
    """
    patched = []
    try:
        patched, _ = _patch_library(allow)
        yield
    finally:
        for f, code in reversed(patched):
            f.__code__ = code


# --- plain answers ------------------------------------------------------------------------------


def _encode(x):
    """A plain, tagged copy of an answer; ``AnswerTypeError`` for anything else."""
    if x is None or type(x) in (bool, int, float, complex, str):
        return ("v", x)
    if type(x) in (tuple, list):
        return ("t" if type(x) is tuple else "l", [_encode(v) for v in x])
    if isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
        if a.dtype.kind not in "biufc":
            raise AnswerTypeError(f"your function returned an array of dtype {a.dtype}; answers are numbers")
        kind = "s" if isinstance(x, np.generic) else "a"
        return (kind, a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes())
    raise AnswerTypeError(f"your function returned a {type(x).__name__}: answers are numbers, numpy arrays of "
                          "numbers, strings, or tuples and lists of them")


def _decode(tree):
    kind = tree[0]
    if kind == "v":
        return tree[1]
    if kind in ("t", "l"):
        items = [_decode(v) for v in tree[1]]
        return tuple(items) if kind == "t" else items
    dtype = np.dtype(tree[1])
    if dtype.kind not in "biufc":
        raise AnswerTypeError(f"an answer of dtype {dtype}")
    a = np.frombuffer(tree[3], dtype=dtype).reshape(tree[2]).copy()
    return a[()] if kind == "s" else a


def plain(x):
    """The answer ``x`` as plain data (see ``_encode``): what the tests compare."""
    return _decode(_encode(x))


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("builtins", "complex"):
            return complex
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


# --- the child's sandbox ------------------------------------------------------------------------

#: Bytes of address space a child may map beyond what it inherits from the kernel.
CHILD_MEMORY = 4 << 30
#: The user and group a child runs as when the kernel runs as root (as on Gradescope): nobody.
NOBODY = 65534

#: CPython 3.11 audit events (the "Audit events" table, checked against the interpreter's own
#: strings and by experiment) that a child refuses, and what the refusal says the answer tried.
_REFUSED = {
    **dict.fromkeys(("os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system",
                     "subprocess.Popen", "os.startfile", "pty.spawn"), "start processes"),
    **dict.fromkeys(("os.kill", "os.killpg", "signal.pthread_kill", "signal.pidfd_send_signal"), "send signals"),
    "_thread.start_new_thread": "start threads",
    **dict.fromkeys(("resource.setrlimit", "resource.prlimit"), "change its resource limits"),
    "os.chdir": "leave its scratch folder",
    "sqlite3.connect": "open databases",
    **dict.fromkeys(("sys._current_frames", "sys._current_exceptions", "sys.settrace", "sys.setprofile",
                     "gc.get_objects", "gc.get_referrers", "gc.get_referents", "builtins.breakpoint"),
                    "look into the grader's frames and objects"),
    "sys.addaudithook": "add an audit hook",
    "cpython.PyInterpreterState_New": "start an interpreter (it would have no audit hook)",
    "marshal.load": "load compiled code",  # marshal.loads: only what importlib reads from an installed .pyc
}
#: Modules an answer may not import: process starters and CPython's test and interpreter modules.
_REFUSED_IMPORTS = frozenset(("_posixsubprocess", "_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase",
                              "_testclinic", "_testimportmultiple", "_ctypes_test", "_xxsubinterpreters",
                              "_xxinterpchannels", "_xxtestfuzz"))
#: Events refused by their prefix: every socket operation, every ctypes operation.
_REFUSED_PREFIXES = (("socket.", "open network connections"), ("ctypes.", "call C code through ctypes"))
#: Events refused unless the calling code is trusted (that of the modules in ``FRAME_READERS``, which
#: read their caller's module name): frames, and making code or functions.
_TRUSTED_ONLY = {"sys._getframe": "look into the grader's frames", "code.__new__": "make code objects",
                 "function.__new__": "make functions from code objects"}
#: Attributes whose reading fires ``object.__getattr__`` and hands out a frame.
_FRAME_ATTRIBUTES = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
#: Events that change the file system: the positions of their paths (which must lie in the scratch
#: folder) and of their folder descriptors (which must be unset: -1 or None).
_PATH_EVENTS = {"os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)),
                "os.chmod": ((0,), (2,)), "os.chown": ((0,), (3,)), "os.utime": ((0,), (3,)),
                "os.truncate": ((0,), ()), "os.setxattr": ((0,), ()), "os.removexattr": ((0,), ()),
                "os.rename": ((0, 1), (2, 3)), "os.link": ((0, 1), (2, 3)), "shutil.rmtree": ((0,), (1,)),
                "os.symlink": ((), ())}


class SandboxViolation(PermissionError):
    """The student's function tried something the grader does not let an answer do."""


def _install_sandbox(scratch: str, readers: dict, library_codes: dict, private: tuple[str, ...] = (),
                     decide=None) -> list:
    """Install the child's audit hook (for good: CPython cannot remove one); return its record.

    Everything the hook reads at call time is bound here, in its closure (no module global, no
    builtin looked up by name), so the student's code cannot change what it decides. ``readers``
    are the code objects (by id) trusted to read frames and make functions; ``library_codes`` are
    attnlib's, which may not be run through ``exec``; ``private`` are folders it may not read or list
    (the grader's: the tests are there); ``decide`` is the library guard's decision (see
    ``_audited_guard``), which only the hook holds. The list returned gets one message per
    refusal, so that a refusal the answer swallows is still reported.
    """
    refused, busy = [], [False]
    getframe, str_, bytes_, int_, type_, decode = sys._getframe, str, bytes, int, type, bytes.decode
    violation, stat = SandboxViolation, os.stat
    prefix = scratch.rstrip("/") + "/"
    table, prefixes, trusted_only = dict(_REFUSED), tuple(_REFUSED_PREFIXES), dict(_TRUSTED_ONLY)
    frame_attributes, path_events, readers = frozenset(_FRAME_ATTRIBUTES), dict(_PATH_EVENTS), dict(readers)
    library_codes, private = dict(library_codes), tuple(f.rstrip("/") + "/" for f in private)
    refused_imports = frozenset(_REFUSED_IMPORTS)
    guard_event, guard_code, forbidden = GUARD_EVENT, _audited_guard.__code__, LibraryCallForbidden
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    directory, read_only = 0o040000, os.O_RDONLY
    os_open, os_read, os_close, join = os.open, os.read, os.close, b"".join
    compile_bytecode = sys.modules["_frozen_importlib_external"]._compile_bytecode.__code__
    importers = {k: v for k, v in library_codes.items() if v.co_filename.startswith("<frozen importlib")}

    def where(path):
        """``path`` made absolute and normal (without the file system), or None if it is not plain."""
        if type_(path) is bytes_:
            path = decode(path, "utf-8", "surrogateescape")
        if type_(path) is not str_ or "\0" in path:
            return None
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if ".." in parts:
            return None
        return "/" + "/".join(parts) if path.startswith("/") else prefix + "/".join(parts)

    def inside(path) -> bool:
        place = where(path)
        return place is not None and (place + "/").startswith(prefix)  # relative: the cwd, which cannot change

    def grader_s(path) -> bool:
        place = where(path)
        return (place is None or (place + "/").startswith(private)) and not inside(path)

    def hidden(path) -> bool:
        """A path into a process's view (/proc/<pid>/cwd, /dev/fd/3...): it may lead back anywhere."""
        place = where(path)
        return place is None or place.startswith("/dev/fd/") or place.startswith("/proc/") and place.count("/") > 2

    def installed_bytecode(data) -> bool:
        """``data`` is the code of a cached module outside the scratch folder, as importlib reads it."""
        frame = getframe(2)
        if frame.f_code is not compile_bytecode:
            return False
        path = frame.f_locals.get("bytecode_path")
        if inside(path) or hidden(path):
            return False
        try:
            fd = os_open(path, read_only)
        except OSError:
            return False
        try:
            chunks = []
            while True:
                chunk = os_read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os_close(fd)
        return join(chunks)[16:] == data  # after the header: the marshalled code

    def readers_of_code(code) -> bool:
        return importers.get(id(code)) is code

    def refuse(what: str, event: str, path):
        where_ = f": {path}" if type_(path) is str_ else ""
        message = f"the grader does not let an answer {what} ({event}{where_})"
        refused.append(message)
        raise violation(message)

    def hook(event, args):
        if busy[0]:
            return  # the hook's own frame reading
        busy[0] = True
        try:
            if event == guard_event:  # the library guard's question: not a refusal of the sandbox's
                frame = getframe(1)
                if decide is None or frame.f_code is not guard_code:
                    raise forbidden("the library guard is asked by its stubs only")
                args[1].append(decide(args[0], frame.f_back))
                return
            what = table.get(event)
            if what is None:
                for start, reason in prefixes:
                    if event.startswith(start):
                        what = reason
            if what is None and (event in trusted_only or (event == "object.__getattr__"
                                                          and args[1] in frame_attributes)):
                code = getframe(1).f_code
                if readers.get(id(code)) is not code:
                    what = trusted_only.get(event, "look into the grader's frames")
            elif what is None and event == "object.__setattr__" and args[1] == "__code__":
                what = "replace a function's code"
            elif what is None and event == "marshal.loads" and not installed_bytecode(args[0]):
                what = "load compiled code"
            elif what is None and event == "import" and args[0] in refused_imports:
                what = f"import {args[0]}"
            elif what is None and event == "exec" and library_codes.get(id(args[0])) is args[0]:
                what = "run the library's code through exec"
            elif what is None and event == "open":
                path, flags = args[0], args[2]
                if type_(path) is not int_ and hidden(path):
                    what = "open files through /proc/<process>/ or /dev/fd/"
                elif type_(path) is not int_ and inside(path) and readers_of_code(getframe(1).f_code):
                    what = "import code from its scratch folder"
                elif flags & writing:
                    if type_(path) is not int_ and not inside(path):
                        what = "write files outside its scratch folder"
                elif type_(path) is not int_ and grader_s(path):
                    what = "read the grader's files"
                elif type_(path) is not int_ and not inside(path):
                    try:
                        if stat(path).st_mode & 0o170000 == directory:
                            what = "open folders outside its scratch folder"
                    except OSError:
                        pass
            elif what is None and event in ("os.listdir", "os.scandir") and type_(args[0]) is not int_ and (
                    hidden(args[0]) or grader_s(args[0])):
                what = "list the grader's folders"
            elif what is None and event in path_events:
                paths, folders = path_events[event]
                if event == "os.symlink" or any(i < len(args) and args[i] not in (-1, None) for i in folders):
                    what = "make links or use folder descriptors"
                elif event == "os.truncate" and type_(args[0]) is int_:
                    pass
                elif not all(inside(args[i]) for i in paths):
                    what = "change files outside its scratch folder"
        finally:
            busy[0] = False
        if what is not None:
            refuse(what, event, args[0] if event == "open" or event in path_events else None)

    sys.addaudithook(hook)
    return refused


def _drop_privileges(scratch: str) -> None:
    """As root: become nobody (so that the process limit applies), keeping only the right to read.

    The scratch folder is given to nobody first. Reading everywhere (the capability
    CAP_DAC_READ_SEARCH, kept through the change of user) lets the answer import what the kernel
    could, wherever Python is installed (Gradescope installs it under /root); writing, signalling
    the kernel and starting processes are gone. Without that capability the user changes anyway.
    """
    if os.geteuid() != 0:
        return
    os.chown(scratch, NOBODY, NOBODY)
    libc = None
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: the permitted capabilities survive setuid
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    if libc is not None:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        for capability in (2, 1):  # CAP_DAC_READ_SEARCH, else CAP_DAC_OVERRIDE
            data = (ctypes.c_uint32 * 6)(1 << capability, 1 << capability, 0, 0, 0, 0)
            if libc.capset(header, data) == 0:
                break
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: no program can give privileges back


def _single_threaded_blas() -> None:
    """BLAS in one thread: a child may start no thread (the process limit counts threads too).

    OpenBLAS libraries loaded later read the environment; those already loaded (numpy's) are told
    through their own ``openblas_set_num_threads``.
    """
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    with contextlib.suppress(Exception), open("/proc/self/maps") as maps:
        import ctypes

        paths = {line.split()[-1] for line in maps if "openblas" in line.split()[-1].lower()}
        for path in sorted(paths):
            with contextlib.suppress(OSError):
                # the loaded library itself, kept local (made global, its symbols would shadow scipy's)
                library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LOCAL)
                for symbol in ("openblas_set_num_threads", "openblas_set_num_threads64_",
                               "scipy_openblas_set_num_threads", "scipy_openblas_set_num_threads64_"):
                    if hasattr(library, symbol):
                        getattr(library, symbol)(1)


def _limit_resources() -> None:
    """No new processes, no core files, and at most ``CHILD_MEMORY`` more address space."""
    import resource

    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    mapped = 0
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as status:
        mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    if mapped:
        resource.setrlimit(resource.RLIMIT_AS, (mapped + CHILD_MEMORY, mapped + CHILD_MEMORY))


#: Modules whose code may read frames: they read their caller's module name (namedtuple, a TypeVar,
#: an Enum, a dataclass, a warning), and the answer's stack holds none of the grader's frames anyway.
FRAME_READERS = ("collections", "typing", "typing_extensions", "enum", "dataclasses", "warnings")
_READERS: list = []


def _frame_readers() -> dict:
    """The code objects trusted to read frames and make functions, by id (found once per process)."""
    if not _READERS:
        import importlib

        homes = {}
        for name in FRAME_READERS:
            with contextlib.suppress(ImportError):
                homes[id(vars(importlib.import_module(name)))] = vars(importlib.import_module(name))
        readers: dict = {}
        for obj in gc.get_objects():
            if isinstance(obj, type(_public)) and homes.get(id(obj.__globals__)) is obj.__globals__:
                _codes(obj.__code__, readers)
        _READERS.append(readers)
    return _READERS[0]


def _on_a_fresh_stack(fn, args, kwargs, prepare):
    """``(refusals, raised, value)``: ``prepare()`` then ``fn(*args, **kwargs)``, in a new thread.

    The thread's stack starts with ``fn``'s runner: walking back from any frame of the answer ends
    there, before any frame of the grader (the test, otter, the kernel). ``prepare`` (the sandbox)
    runs in that thread, since the capability kept when root becomes nobody is the thread's own.
    """
    import _thread

    box, done = [], _thread.allocate_lock()
    done.acquire()

    def runner():
        try:
            box.append(prepare())
            box.append((False, fn(*args, **kwargs)))
        except BaseException as err:  # noqa: BLE001 (handed to the grader's thread)
            box.append((True, err))
        finally:
            done.release()

    _thread.start_new_thread(runner, ())
    done.acquire()
    if len(box) < 2 or type(box[0]) is not list:
        return [], True, (box[-1][1] if box else RuntimeError("the grader could not run your function"))
    return box[0], box[1][0], box[1][1]


def _sandbox(scratch: str, decide=None) -> list:
    """Enter the sandbox, in the forked child, for good; return the list of refusals.

    The child moves into its scratch folder (its only writable place, made by the kernel, which
    removes it afterwards), limits its resources, drops root, and installs the audit hook
    (``_install_sandbox``) that refuses the rest.
    """
    readers = _frame_readers()
    _, library_codes, _ = _library()
    private = _private_folders()
    os.chdir(scratch)
    import tempfile

    tempfile.tempdir = os.environ["TMPDIR"] = scratch  # temporary files: in the scratch folder too
    sys.dont_write_bytecode = True  # an import writes no cache (it would be refused outside scratch)
    _neuter_process_starters()
    _forget_the_tests()
    _single_threaded_blas()
    _drop_privileges(scratch)
    _limit_resources()
    return _install_sandbox(scratch, readers, library_codes, private, decide)


def _private_folders() -> tuple[str, ...]:
    """Folders an answer may not read: the kernel's (the notebook's, with the hidden tests in ./tests)
    and Gradescope's /autograder, unless Python imports from inside one of them."""
    folders = {os.path.realpath(os.getcwd())}
    if os.path.isdir("/autograder"):
        folders.add("/autograder")
    imports = [os.path.realpath(p) for p in sys.path if p] + [os.path.realpath(sys.prefix),
                                                             os.path.realpath(sys.base_prefix)]
    return tuple(sorted(f for f in folders if f != "/" and not any(p == f or p.startswith(f + "/") for p in imports)))


def _forget_the_tests() -> None:
    """Drop the references the kernel's memory keeps to the tests' source, before the answer runs.

    While otter runs a test case, doctest replaces ``linecache.getlines`` by a method of its runner,
    whose ``test`` holds the whole case (hidden expected values included); otter's ``Checker``
    keeps the test files already run.
    """
    import linecache

    runner = getattr(linecache.getlines, "__self__", None)
    if runner is not None:
        linecache.getlines = getattr(runner, "save_linecache_getlines", None) or (lambda *args, **kwargs: [])
    checker = getattr(sys.modules.get("otter.execute.checker"), "Checker", None)
    if checker is not None and isinstance(getattr(checker, "_test_files", None), list):
        checker._test_files = []


def _neuter_process_starters() -> None:
    """Take out of reach what starts processes, makes special files or signals without an audit event.

    ``_posixsubprocess`` (its import is refused afterwards), ``mkfifo``, ``mknod``, ``pidfd_open``
    and ``pidfd_send_signal`` are removed from every loaded module that holds them.
    """
    module = sys.modules.pop("_posixsubprocess", None)
    gone = [module, getattr(module, "fork_exec", None)] if module is not None else []
    gone += [getattr(m, n, None) for m in (os, signal) for n in ("mkfifo", "mknod", "pidfd_open", "pidfd_send_signal")]
    gone = [g for g in gone if g is not None]
    for loaded in list(sys.modules.values()):
        for name, value in list(vars(loaded).items()) if loaded is not None else ():
            if any(value is g for g in gone):
                with contextlib.suppress(Exception):
                    setattr(loaded, name, None)


# --- running the student's code -----------------------------------------------------------------

#: Exceptions that come back from a child process as themselves (others become StudentError).
_KNOWN = {cls.__name__: cls for cls in (
    ValueError, TypeError, AssertionError, ArithmeticError, ZeroDivisionError, FloatingPointError,
    OverflowError, IndexError, KeyError, LookupError, AttributeError, NameError, RuntimeError,
    RecursionError, NotImplementedError, ImportError, ModuleNotFoundError, MemoryError,
    LibraryCallForbidden, AnswerTypeError, TimeLimitExceeded, SandboxViolation)}
_KNOWN["LinAlgError"] = np.linalg.LinAlgError


def _isolated() -> bool:
    if ISOLATE is not None:
        return ISOLATE and hasattr(os, "fork")
    notebook = getattr(sys.modules.get("otter.check.notebook"), "Notebook", None)
    return bool(getattr(notebook, "_grading_mode", False)) and sys.platform.startswith("linux")


def _child(w: int, scratch: str, fn, args, kwargs, allow, measure: bool) -> None:
    """In the forked child: sandbox it, run ``fn``, write the outcome to ``w``, exit without cleaning up."""
    payload = ("raise", ["RuntimeError"], "the grader could not run your function")
    refused: list = []
    try:
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        keep = sorted({0, 1, 2, w})
        for lo, hi in zip(keep, keep[1:] + [1 << 20], strict=True):
            os.closerange(lo + 1, hi)  # the kernel's sockets: nothing the student does reaches them
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(), io.StringIO(), io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        before = [a.copy() if isinstance(a, np.ndarray) else None for a in args]
        if measure:
            import tracemalloc
            tracemalloc.start()
        _, decide = _patch_library(allow, _audited_guard)  # never restored: the child ends in os._exit
        refused, raised, result = _on_a_fresh_stack(fn, args, kwargs, lambda: _sandbox(scratch, decide))
        if raised:
            raise result
        peak = tracemalloc.get_traced_memory()[1] if measure else None
        changed = [None if b is None or np.array_equal(a, b, equal_nan=True) else _encode(a)
                   for a, b in zip(args, before, strict=True)]
        payload = ("ok", _encode(result), peak, changed)
    except BaseException as err:  # everything goes back to the parent as data
        message = str(err)[:2000]
        payload = ("raise", [c.__name__ for c in type(err).__mro__], message)
    if refused:  # refused, even if the answer caught the exception
        payload = ("raise", ["SandboxViolation"], refused[0])
    try:
        data = pickle.dumps(payload)
        view = memoryview(data)
        while view:
            view = view[os.write(w, view):]
    finally:
        os._exit(0)


def _run_isolated(fn, args, kwargs, seconds: float, allow, measure: bool):
    import shutil
    import tempfile

    _library()  # found once, in the kernel: each child inherits them
    _frame_readers()
    scratch = os.path.realpath(tempfile.mkdtemp(prefix="answer-"))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(w, scratch, fn, args, kwargs, allow, measure)
    os.close(w)
    chunks, deadline, done = [], time.monotonic() + seconds, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                chunk = os.read(r, 1 << 20)
                if not chunk:
                    done = True
                    break
                chunks.append(chunk)
    finally:
        os.close(r)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # the child, and anything it started
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        shutil.rmtree(scratch, ignore_errors=True)
    if not done:
        raise TimeLimitExceeded(f"{getattr(fn, '__name__', 'your function')}(...) ran longer than {seconds:g} s and "
                                "was stopped: is there an infinite loop, or a loop over every example where numpy "
                                "would do?")
    try:
        payload = _PlainUnpickler(io.BytesIO(b"".join(chunks))).load()
    except Exception:
        raise StudentError("your function ended the grader's process without an answer") from None
    if payload[0] == "raise":
        names, message = payload[1], payload[2]
        cls = next((_KNOWN[n] for n in names if n in _KNOWN), StudentError)
        shown = message if names[0] == cls.__name__ else f"{names[0]}: {message}"
        raise cls(shown)
    _, tree, peak, changed = payload
    for arg, new in zip(args, changed, strict=True):
        if new is not None:  # the function changed an input in place: so does the parent's copy
            with contextlib.suppress(Exception):
                np.copyto(arg, _decode(new))
    return _decode(tree), peak


def _run(fn, args, kwargs, seconds: float, allow, measure: bool):
    if _isolated():
        return _run_isolated(fn, args, kwargs, seconds, allow, measure)
    name = getattr(fn, "__name__", "your function")
    tracemalloc = None
    if measure:
        import tracemalloc
        tracemalloc.start()
    try:
        with no_library(allow), time_limit(seconds, f"{name}(...)"):
            result = fn(*args, **kwargs)
        peak = tracemalloc.get_traced_memory()[1] if measure else None
    finally:
        if tracemalloc is not None:
            tracemalloc.stop()
    return plain(result), peak


def _names(fn) -> list[str]:
    """The student's functions that ``fn`` is: itself, or the ones a test's lambda calls."""
    name = getattr(fn, "__name__", "your function")
    if name != "<lambda>":
        return [name]
    scope = getattr(fn, "__globals__", {})
    return [n for n in fn.__code__.co_names
            if getattr(scope.get(n), "__module__", None) == "__main__" and callable(scope.get(n))]


def _skip_timed_out(fn) -> None:
    for name in _names(fn):
        if name in _timed_out:
            raise TimeLimitExceeded(f"{name} already ran out of time in an earlier test; it was not run again")


def call(fn, *args, seconds: float = SECONDS, allow: tuple[str, ...] = (), **kwargs):
    """``fn(*args, **kwargs)`` with a time limit and without library shortcuts, as plain data."""
    return call_measured(fn, *args, seconds=seconds, allow=allow, measure=False, **kwargs)[0]


def call_measured(fn, *args, seconds: float = SECONDS, allow: tuple[str, ...] = (), measure: bool = True,
                  **kwargs):
    """``(answer, peak bytes allocated by Python's allocator while fn ran)``, as ``call`` runs it."""
    _skip_timed_out(fn)
    try:
        return _run(fn, args, kwargs, seconds, allow, measure)
    except TimeLimitExceeded:
        _timed_out.update(_names(fn))
        raise


def guarded(fn, seconds: float = SECONDS, allow: tuple[str, ...] = ()):
    """``fn`` wrapped by ``call``: what ``check`` hands to the book's checks."""
    def wrapper(*args, **kwargs):
        return call(fn, *args, seconds=seconds, allow=allow, **kwargs)
    wrapper.__name__ = getattr(fn, "__name__", "your function")
    return wrapper


def check(book_check, fn, *, seconds: float = 3 * SECONDS, allow: tuple[str, ...] = ()) -> bool:
    """Run one of ``attnlib.checks`` on the student's function, quietly; its failure is the message.

    The check itself runs here (never in the student's process); each call it makes of the
    student's function goes through ``call``.
    """
    _skip_timed_out(fn)
    try:
        with contextlib.redirect_stdout(io.StringIO()), time_limit(seconds, f"{book_check.__name__}(...)"):
            book_check(guarded(fn, min(SECONDS, seconds), allow))
    except TimeLimitExceeded:
        _timed_out.update(_names(fn))
        raise
    return True


def raises(error: type, fn, *args, allow: tuple[str, ...] = (), what: str = "", **kwargs) -> bool:
    """The student's ``fn(*args)`` raises ``error`` (run as ``call`` runs it)."""
    label = what or f"{getattr(fn, '__name__', 'your function')}(...)"
    try:
        got = call(fn, *args, allow=allow, **kwargs)
    except error:
        return True
    except TimeLimitExceeded:
        raise
    except Exception as err:
        raise AssertionError(f"{label}: expected {error.__name__}, got {type(err).__name__}: {err}") from None
    raise AssertionError(f"{label}: expected {error.__name__}, but it returned a {type(got).__name__}")


def expect_close(got, expected, what: str, *, atol: float = 1e-8, rtol: float = 1e-6) -> bool:
    """Compare an answer with the expected value, and say what differs."""
    expected = np.asarray(expected, dtype=float)
    got = plain(got)
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{what}: got a {type(got).__name__}, expected an array of numbers") from None
    if got.shape != expected.shape:
        raise AssertionError(f"{what}: shape {got.shape}, expected {expected.shape}")
    bad = ~np.isclose(got, expected, atol=atol, rtol=rtol, equal_nan=False)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} entries differ, first at index {index}: "
                             f"got {got[index]:.6g}, expected {expected[index]:.6g}")
    return True


def _same(got, expected) -> bool:
    if isinstance(expected, np.ndarray):
        return (isinstance(got, np.ndarray) and got.shape == expected.shape and got.dtype.kind in "biu"
                and np.array_equal(got, expected))
    if isinstance(expected, (bool, np.bool_)):
        return isinstance(got, (bool, np.bool_)) and bool(got) == bool(expected)
    if isinstance(expected, (int, np.integer)):
        return isinstance(got, (int, np.integer)) and not isinstance(got, (bool, np.bool_)) and int(got) == expected
    if isinstance(expected, tuple):
        return (isinstance(got, tuple) and len(got) == len(expected)
                and all(_same(g, e) for g, e in zip(got, expected, strict=True)))
    return type(got) is type(expected) and got == expected


def expect_equal(got, expected, what: str) -> bool:
    """An exact answer (a bool, an int, a tuple of ints): of the right type and equal."""
    got = plain(got)
    if not _same(got, expected):
        kind = type(expected).__name__
        raise AssertionError(f"{what}: got {got!r} ({type(got).__name__}); expected a different {kind}"
                             if type(got) is type(expected)
                             else f"{what}: got a {type(got).__name__}, expected a {kind}")
    return True


# --- the notebook and handing in ----------------------------------------------------------------


def notebook(name: str):
    """otter's grader for this assignment, whatever the notebook file is called.

    ``otter.Notebook("<name>.ipynb")`` fails when the file has another name (a renamed copy, an
    LMS download, "Copy of ..." on Colab); then the notebook is found as otter finds it.
    """
    import otter

    if Path(f"{name}.ipynb").exists():
        return otter.Notebook(f"{name}.ipynb")
    try:
        return otter.Notebook()
    except Exception:  # no or several notebooks here: checks still work, hand_in names the file
        return otter.Notebook(tests_dir="./tests") if Path("tests").is_dir() else otter.Notebook()


def _graded_warnings(notebook_json: dict) -> list[str]:
    """What the grader will drop from this notebook (see assignment_grading.definitions)."""
    try:
        import assignment_grading
    except ImportError:
        return []
    return assignment_grading.dropped_notes(notebook_json)


def hand_in(grader, name: str) -> str:
    """Write ``<name>.zip`` to hand in, and on Colab download it.

    On a laptop or Binder this is otter's export. On Colab the notebook is not a file on disk, so
    it is fetched from the Colab front end, written next to the tests, zipped, and downloaded.
    Either way it first lists the statements the grader will not run (the grader keeps only
    imports, ``def``, ``class`` and constants written as literals).
    """
    if getattr(type(grader), "_grading_mode", False) or getattr(grader, "_grading_mode", False):
        return ""  # the autograder runs this notebook: nothing to hand in
    if "google.colab" not in sys.modules:
        path = Path(f"{name}.ipynb")
        if not path.exists():
            path = Path(getattr(grader, "_notebook", None) or path)
        if path.exists():
            for note in _graded_warnings(json.loads(path.read_text())):
                print(note)
        return grader.export(str(path), pdf=False)
    from google.colab import _message, files  # type: ignore[import-not-found]

    notebook_json = _message.blocking_request("get_ipynb", timeout_sec=60)["ipynb"]
    for note in _graded_warnings(notebook_json):
        print(note)
    path = Path(f"{name}.ipynb")
    path.write_text(json.dumps(notebook_json))
    out = Path(f"{name}_{time.strftime('%Y_%m_%dT%H_%M_%S')}.zip")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(path)
    files.download(str(out))
    return str(out)
