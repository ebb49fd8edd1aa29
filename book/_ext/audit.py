"""Folded side paths: ``audit-start`` / ``audit-end`` gather the cells between them into one box.

A chapter's core path is what a student reads; the audit of a source (a repair of the paper, a
comparison with the authors' code, a benchmark's plumbing) is for readers of the paper. It goes
between two directives, each at the start of its own markdown cell::

    ```{audit-start} For readers of the paper: the E.2 repair
    ```
    ... any markdown and code cells: witnesses, glue and figures still run ...
    ```{audit-end}
    ```

After the page is read, everything between the two (they must be siblings: in the same section,
with no heading between them) moves into one admonition titled by the argument, with the
classes ``dropdown`` (sphinx-togglebutton folds it on the web) and ``audit``. The PDF prints it
as a titled box. A start without its end, an end without its start, or a box inside a box is a
build warning naming the page and line (the strict build fails on it).

Jupyter Book's notebooks put every cell of a section side by side in the section's node, which
is what makes the gathering possible (sphinx-exercise's gated solutions work the same way).
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: Every box's title starts with one of these, so that a reader knows what kind of side path it is.
TITLES = ("For readers of the paper:", "Aside:")


class audit_start(nodes.Element):
    """Where a folded box starts (replaced by the box after reading)."""


class audit_end(nodes.Element):
    """Where a folded box ends (removed after reading)."""


class AuditStart(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    option_spec = {"class": directives.class_option}

    def run(self):
        title = self.arguments[0].strip()
        if not title.startswith(TITLES):
            logger.warning(
                "audit-start: the title must start with %s, got %r",
                " or ".join(repr(t) for t in TITLES),
                title,
                location=self.get_location(),
            )
        inline, messages = self.state.inline_text(
            title, self.lineno
        )  # maths and roles in the title
        node = audit_start(
            "", *inline, title=title, classes=self.options.get("class", [])
        )
        self.set_source_info(node)
        return [node, *messages]


class AuditEnd(SphinxDirective):
    has_content = False

    def run(self):
        node = audit_end()
        self.set_source_info(node)
        return [node]


def gather(app, doctree) -> None:
    """Replace each start ... end run of siblings by one folded admonition holding them."""
    for start in list(doctree.findall(audit_start)):
        parent = start.parent
        siblings = parent.children
        i = siblings.index(start)
        end = next(
            (
                j
                for j in range(i + 1, len(siblings))
                if isinstance(siblings[j], (audit_end, audit_start))
            ),
            None,
        )
        if end is None or isinstance(siblings[end], audit_start):
            logger.warning(
                "audit-start %r has no audit-end after it in the same section (a heading "
                "between them, or a box inside a box?)",
                start["title"],
                location=start,
            )
            parent.remove(start)
            continue
        inside = siblings[i + 1 : end]
        box = nodes.admonition(
            "", classes=["dropdown", "audit", *start["classes"]]
        )
        box.source, box.line = start.source, start.line
        box += nodes.title(start["title"], "", *start.children)
        for node in inside:
            parent.remove(node)
            box += node
        parent.replace(start, box)
        parent.remove(
            parent.children[parent.children.index(box) + 1]
        )  # the audit_end
    for end in list(doctree.findall(audit_end)):
        logger.warning(
            "audit-end without an audit-start before it in the same section",
            location=end,
        )
        end.parent.remove(end)


def setup(app):
    app.add_node(audit_start)
    app.add_node(audit_end)
    app.add_directive("audit-start", AuditStart)
    app.add_directive("audit-end", AuditEnd)
    app.connect("doctree-read", gather)
    return {
        "version": "1.0",
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
