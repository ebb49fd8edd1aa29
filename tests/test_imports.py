"""Importing the library changes nothing around it and opens no connection.

A researcher who writes ``import attnlib.viz`` in their own notebook gets the figure functions and
nothing else: not the book's figure formats (IPython's display formatters), not the book's
matplotlib settings, no warnings filter, no entry of ``sys.path``, no network. What the book needs
for itself is in ``book/bookkit.py``, which its chapters import.

Each import runs in a fresh interpreter whose sockets raise, with an IPython shell in place (as in a
notebook) when IPython is installed; the interpreter reports what changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = r'''
import json, socket, sys, warnings

opened = []

def refuse(*args, **kwargs):
    opened.append(repr(args[:2]))
    raise OSError("no network in this test")

class NoSocket(socket.socket):
    def __init__(self, *args, **kwargs):
        refuse(*args)

socket.socket = NoSocket
socket.create_connection = refuse
socket.getaddrinfo = refuse

try:
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
except ImportError:
    shell = None

import matplotlib

def formatters():
    if shell is None:
        return {}
    return {mime: sorted(map(repr, {**f.type_printers, **f.deferred_printers}.items()))
            + [f"enabled={f.enabled}"] for mime, f in shell.display_formatter.formatters.items()}

def rc():
    return {key: repr(dict.__getitem__(matplotlib.rcParams, key)) for key in dict.keys(matplotlib.rcParams)}

def state():
    return {"formatters": formatters(), "rcParams": rc(), "warnings.filters": list(map(repr, warnings.filters)),
            "sys.path": list(sys.path), "displayhook": repr(sys.displayhook), "excepthook": repr(sys.excepthook)}

before = state()
for name in sys.argv[1:]:
    __import__(name)
after = state()
changed = {}
for what in before:
    if before[what] != after[what]:
        if isinstance(before[what], dict):
            keys = sorted(set(before[what]) | set(after[what]))
            changed[what] = {k: [before[what].get(k), after[what].get(k)] for k in keys
                             if before[what].get(k) != after[what].get(k)}
        else:
            changed[what] = [before[what], after[what]]
print(json.dumps({"opened": opened, "changed": changed, "ipython": shell is not None}))
'''


def imported(*modules: str, root: Path = ROOT) -> dict:
    """What importing ``modules`` in a fresh interpreter opened and changed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    env.pop("MPLBACKEND", None)
    done = subprocess.run([sys.executable, "-c", PROBE, *modules], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


VIEWS = ("attnlib.viz.attention", "attnlib.viz.training", "attnlib.viz.rkhs", "attnlib.viz.tasks",
         "attnlib.viz.sculpt", "attnlib.viz.lower_bounds", "attnlib.viz.diagrams", "attnlib.widgets")


@pytest.mark.parametrize("modules", [("attnlib",), ("attnlib", "attnlib.viz"), VIEWS],
                         ids=["attnlib", "attnlib.viz", "the views and widgets"])
def test_importing_the_library_changes_nothing_and_opens_no_connection(modules):
    found = imported(*modules)
    assert not found["opened"], f"import {', '.join(modules)} opened connections: {found['opened']}"
    assert not found["changed"], (
        f"import {', '.join(modules)} changed global state (book/bookkit.py is the place for what the book "
        f"needs):\n{json.dumps(found['changed'], indent=1)[:3000]}")


def test_the_probe_sees_a_changed_formatter_a_setting_a_filter_and_a_connection(tmp_path):
    """The check can fail: a module that does what the library must not is caught on each count."""
    (tmp_path / "meddler.py").write_text(
        "import socket, warnings\n"
        "import matplotlib\n"
        "from IPython import get_ipython\n"
        "from matplotlib.figure import Figure\n"
        "get_ipython().display_formatter.formatters['image/svg+xml'].for_type(Figure, repr)\n"
        "matplotlib.rcParams['lines.linewidth'] = 9\n"
        "warnings.simplefilter('ignore')\n"
        "try:\n"
        "    socket.create_connection(('example.org', 443))\n"
        "except OSError:\n"
        "    pass\n")
    pytest.importorskip("IPython")
    found = imported("meddler", root=tmp_path)
    assert found["ipython"] and found["opened"]
    assert {"formatters", "rcParams", "warnings.filters"} <= set(found["changed"])
    assert found["changed"]["rcParams"] == {"lines.linewidth": ["1.5", "9.0"]}
