"""Sphinx fixes for the HTML pages of the book (loaded through ``_config.yml``).

One fix, found by ``tests/test_book_browser.py``: sphinx-thebe 0.3.1 registers its
inline configuration script (``const THEBE_JS_URL = ...``) twice under Jupyter
Book 1, so every page threw "Identifier 'THEBE_JS_URL' has already been
declared" in the browser console (its filename is None once and "" once).
Identical scripts are now kept once per page.
"""

from __future__ import annotations


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


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
