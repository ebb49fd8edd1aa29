"""Folded side paths: the cells between ``% audit-start`` and ``% audit-end`` become one box.

A chapter's core path is what a student reads; the audit of a source (a repair of the paper, a
comparison with the authors' code, a benchmark's plumbing) is for readers of the paper. It goes
between two MyST comments, the first followed by the box's title in bold::

    % audit-start
    **For readers of the paper: the E.2 repair.**

    ... any markdown and code cells: witnesses, glue and figures still run ...

    % audit-end

After the page is read, everything between the two comments (they must be siblings: in the same
section, with no heading between them) moves into one admonition titled by the bold paragraph,
with the classes ``dropdown`` (sphinx-togglebutton folds it on the web) and ``audit``. The PDF
prints it as a titled box. In JupyterLab, which does not run this extension, the comments are
invisible and the bold title stands before the side path, so the notebook reads the same without
a warning. A start without its end or title, an end without its start, or a box inside a box is a
build warning naming the page and line (the strict build fails on it).

Jupyter Book's notebooks put every cell of a section side by side in the section's node, which
is what makes the gathering possible (sphinx-exercise's gated solutions work the same way).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

START, END = "audit-start", "audit-end"
#: Every box's title starts with one of these, so that a reader knows what kind of side path it is.
TITLES = ("For readers of the paper:", "Aside:")


def marker(node, word: str) -> bool:
    """Whether ``node`` is the MyST comment ``% <word>``."""
    return isinstance(node, nodes.comment) and node.astext().strip() == word


def title_of(node) -> nodes.strong | None:
    """The bold text of a paragraph that holds nothing else, or None."""
    if not isinstance(node, nodes.paragraph):
        return None
    parts = [c for c in node.children if not (isinstance(c, nodes.Text) and not c.strip())]
    return parts[0] if len(parts) == 1 and isinstance(parts[0], nodes.strong) else None


def gather(app, doctree) -> None:
    """Replace each start ... end run of siblings by one folded admonition holding them."""
    for start in [n for n in doctree.findall(nodes.comment) if marker(n, START)]:
        parent = start.parent
        i = parent.index(start)
        end = next((j for j in range(i + 1, len(parent))
                    if marker(parent[j], END) or marker(parent[j], START)), None)
        if end is None or marker(parent[end], START):
            logger.warning("'% audit-start' has no '% audit-end' after it in the same section "
                           "(a heading between them, or a box inside a box?)", location=start)
            parent.remove(start)
            continue
        strong = title_of(parent[i + 1]) if i + 1 < end else None
        if strong is None:
            logger.warning("'% audit-start' must be followed by the box's title, a paragraph in "
                           "bold", location=start)
            parent.remove(start)
            parent.remove(parent[end - 1])
            continue
        text = strong.astext().strip()
        if not text.startswith(TITLES):
            logger.warning("an audit box's title must start with %s, got %r",
                           " or ".join(repr(t) for t in TITLES), text, location=start)
        inside = parent.children[i + 2:end]
        box = nodes.admonition("", classes=["dropdown", "audit"])
        box.source, box.line = start.source, start.line
        box += nodes.title(text, "", *[c.deepcopy() for c in strong.children])
        parent.remove(parent[end])  # the end marker
        for node in inside:
            parent.remove(node)
            box += node
        parent.remove(parent[i + 1])  # the title paragraph
        parent.replace(start, box)
    for end in [n for n in doctree.findall(nodes.comment) if marker(n, END)]:
        logger.warning("'% audit-end' without an '% audit-start' before it in the same section",
                       location=end)
        end.parent.remove(end)


def setup(app):
    app.connect("doctree-read", gather)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
