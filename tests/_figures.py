"""What a chapter figure must carry, shared by the notebook test and the browser test.

Every figure of a chapter is a code cell whose output is an image, with myst-nb metadata
``{"mystnb": {"figure": {"caption": ..., "name": "fig-chNN-slug"}, "image": {"alt": ...}}}``:
a number and a caption in the page, and alt text for a reader who cannot see the image.
"""

from __future__ import annotations

import re

NAME = re.compile(r"fig-ch(\d\d)-[a-z0-9]+(?:-[a-z0-9]+)*")
FILE_NAME = re.compile(r"\.(png|jpe?g|svg|gif)\b|/_images/|^\S+$", re.I)
HASH = re.compile(r"\b[0-9a-f]{16,}\b", re.I)
GENERIC = {"figure", "image", "plot", "graph", "chart", "picture", "output", "png", "a figure", "the figure"}
MIN_WORDS = 12


def alt_problem(alt: str | None) -> str | None:
    """Why ``alt`` does not describe a figure, or None.

    Alt text is a description of what the figure shows: at least a sentence (``MIN_WORDS``
    words ending in a full stop), not a file name, not a hash, not a generic word.
    """
    if alt is None or not alt.strip():
        return "no alt text"
    text = alt.strip()
    if text.lower().rstrip(".") in GENERIC:
        return f"generic alt text {text!r}"
    if HASH.search(text):
        return f"alt text is or contains a hash: {text[:60]!r}"
    if FILE_NAME.search(text):
        return f"alt text is a file name or path: {text[:60]!r}"
    words = len(text.split())
    if words < MIN_WORDS or not text.endswith((".", "!", "?")):
        return f"alt text shorter than a sentence ({words} words): {text[:60]!r}"
    return None
