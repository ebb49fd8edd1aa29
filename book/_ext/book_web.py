"""Sphinx fixes for the HTML pages of the book (loaded through ``_config.yml``).

Two fixes, both found by ``tests/test_book_browser.py``:

- Figures. The chapters are executed by the build in Jupyter kernels that inherit
  the build's environment. With ``MPLBACKEND=Agg`` set (as ``.ci/run`` sets for the
  tests) a kernel does not use matplotlib's inline backend, so every figure became
  the text ``<Figure size ...>`` and the chapter pages had no pictures. The build
  drops a non-inline ``MPLBACKEND`` before any kernel starts.
- Scripts. sphinx-thebe 0.3.1 registers its inline configuration script
  (``const THEBE_JS_URL = ...``) twice under Jupyter Book 1, so every page threw
  "Identifier 'THEBE_JS_URL' has already been declared" in the browser console
  (its filename is None once and "" once). Identical scripts are kept once per page.

Two fixes found by ``tests/test_book_browser_a11y.py``:

- Citations. docutils 0.19 writes the bibliography as ``<div role="list">`` holding
  ``<div role="doc-biblioentry">`` entries. DPUB-ARIA 1.1 deprecated ``doc-biblioentry``, and
  a list whose children are not list items is broken for screen readers (axe's critical
  ``aria-required-children``, with ``aria-deprecated-role`` and ``aria-allowed-role``). The
  entries become ``role="listitem"``: the list reads as a list of its references.
- Duplicate ids. sphinx-exercise and sphinx-proof give the body of every exercise, solution
  and proof the same id (``exercise-content``, ``solution-content``, ``proof-content``, and
  ``proof`` for a proof's box), so a chapter repeats each of them many times; an id must be
  unique for assistive technology to resolve references to it. The first keeps its id (a link
  to it still lands there, as browsers resolve the first), the next become ``-2``, ``-3`` ...
"""

from __future__ import annotations

import os
import re


def _key(script) -> tuple:
    attributes = getattr(script, "attributes", {}) or {}
    return str(getattr(script, "filename", script) or ""), tuple(sorted((k, str(v)) for k, v in attributes.items()))


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def citations_as_list_items(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


REPEATED_IDS = re.compile(r'(<(?:section|div)\b[^>]*?\sid=")(exercise-content|solution-content|proof-content|proof)(")')


def unique_directive_ids(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if not body:
        return
    taken = set(re.findall(r'\sid="([^"]+)"', body))
    seen: dict[str, int] = {}

    def renumber(match: re.Match) -> str:
        name = match.group(2)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            return match.group(0)
        number = seen[name]
        while f"{name}-{number}" in taken:
            number += 1
        taken.add(f"{name}-{number}")
        return f"{match.group(1)}{name}-{number}{match.group(3)}"

    context["body"] = REPEATED_IDS.sub(renumber, body)


def inline_figures_in_kernels() -> None:
    backend = os.environ.get("MPLBACKEND", "")
    if backend and "inline" not in backend:
        del os.environ["MPLBACKEND"]


def setup(app):
    inline_figures_in_kernels()
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", citations_as_list_items)
    app.connect("html-page-context", unique_directive_ids)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
