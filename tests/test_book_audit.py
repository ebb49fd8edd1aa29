"""The folded side paths of book/_ext/audit.py: the cells between '% audit-start' (and its bold
title) and '% audit-end' move into one dropdown, in order, and a box that is not closed or has no
title is a warning, not a silent loss."""

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


def comment(word):
    return nodes.comment(word, word)


def title(text="For readers of the paper: the repair"):
    return nodes.paragraph("", "", nodes.strong(text, text))


def test_the_cells_between_start_and_end_move_into_one_dropdown_in_order():
    inside = [para("inside"), nodes.container(classes=["cell"]), para("more")]
    doc, sec = section(para("before"), comment("audit-start"), title(), *inside, comment("audit-end"),
                       para("after"))
    audit.gather(None, doc)
    assert [type(n) for n in sec.children] == [nodes.paragraph, nodes.admonition, nodes.paragraph]
    box = sec.children[1]
    assert box["classes"] == ["dropdown", "audit"]
    assert isinstance(box.children[0], nodes.title)
    assert box.children[0].astext() == "For readers of the paper: the repair"
    assert box.children[1:] == inside
    assert not [n for n in doc.findall(nodes.comment)]


def test_two_boxes_in_one_section_stay_apart_and_other_comments_stay():
    doc, sec = section(comment("audit-start"), title("Aside: one"), para("a"), comment("audit-end"),
                       comment("a note to editors"), comment("audit-start"), title("Aside: two"), para("b"),
                       comment("audit-end"))
    audit.gather(None, doc)
    boxes = [n for n in sec.children if isinstance(n, nodes.admonition)]
    assert [b.children[0].astext() for b in boxes] == ["Aside: one", "Aside: two"]
    assert [b.children[1].astext() for b in boxes] == ["a", "b"]
    assert sec.children[1].astext() == "a note to editors"


def test_a_box_without_its_end_is_a_warning_and_loses_nothing(caplog):
    doc, sec = section(para("before"), comment("audit-start"), title(), para("inside"))
    with caplog.at_level(logging.WARNING):
        audit.gather(None, doc)
    assert "has no '% audit-end'" in caplog.text
    assert [n.astext() for n in sec.children] == ["before", "For readers of the paper: the repair", "inside"]


def test_a_box_without_its_bold_title_is_a_warning(caplog):
    doc, sec = section(comment("audit-start"), para("plain words"), comment("audit-end"))
    with caplog.at_level(logging.WARNING):
        audit.gather(None, doc)
    assert "followed by the box's title" in caplog.text
    assert [n.astext() for n in sec.children] == ["plain words"]


def test_a_title_of_another_kind_is_a_warning(caplog):
    doc, _ = section(comment("audit-start"), title("Some notes"), para("x"), comment("audit-end"))
    with caplog.at_level(logging.WARNING):
        audit.gather(None, doc)
    assert "must start with 'For readers of the paper:'" in caplog.text


def test_an_end_without_a_start_is_a_warning(caplog):
    doc, sec = section(para("before"), comment("audit-end"))
    with caplog.at_level(logging.WARNING):
        audit.gather(None, doc)
    assert "without an '% audit-start'" in caplog.text
    assert [n.astext() for n in sec.children] == ["before"]
