"""The folded side paths of book/_ext/audit.py: the cells between audit-start and audit-end move
into one dropdown, in order, and a box that is not closed is a warning, not a silent loss."""

import logging
import sys
from pathlib import Path

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
import audit  # noqa: E402


def section(*children):
    sec = nodes.section()
    sec.extend(children)
    doc = nodes.document(None, None)
    doc += sec
    return doc, sec


def para(text):
    return nodes.paragraph(text, text)


def start(title="For readers of the paper: the repair"):
    return audit.audit_start("", nodes.Text(title), title=title, classes=[])


def test_the_cells_between_start_and_end_move_into_one_dropdown_in_order():
    inside = [para("inside"), nodes.container(classes=["cell"]), para("more")]
    doc, sec = section(para("before"), start(), *inside, audit.audit_end(), para("after"))
    audit.gather(None, doc)
    assert [type(n) for n in sec.children] == [nodes.paragraph, nodes.admonition, nodes.paragraph]
    box = sec.children[1]
    assert box["classes"][:2] == ["dropdown", "audit"]
    assert box.children[0].astext() == "For readers of the paper: the repair"
    assert box.children[1:] == inside
    assert not list(doc.findall(audit.audit_start)) and not list(doc.findall(audit.audit_end))


def test_two_boxes_in_one_section_stay_apart():
    doc, sec = section(start("Aside: one"), para("a"), audit.audit_end(), para("between"),
                       start("Aside: two"), para("b"), audit.audit_end())
    audit.gather(None, doc)
    boxes = [n for n in sec.children if isinstance(n, nodes.admonition)]
    assert [b.children[0].astext() for b in boxes] == ["Aside: one", "Aside: two"]
    assert [b.children[1].astext() for b in boxes] == ["a", "b"]
    assert sec.children[1].astext() == "between"


def test_a_box_without_its_end_is_a_warning_and_loses_nothing(caplog):
    doc, sec = section(para("before"), start(), para("inside"))
    with caplog.at_level(logging.WARNING):
        audit.gather(None, doc)
    assert "has no audit-end" in caplog.text
    assert [n.astext() for n in sec.children] == ["before", "inside"]


def test_an_end_without_a_start_is_a_warning(caplog):
    doc, sec = section(para("before"), audit.audit_end())
    with caplog.at_level(logging.WARNING):
        audit.gather(None, doc)
    assert "audit-end without an audit-start" in caplog.text
    assert [n.astext() for n in sec.children] == ["before"]
