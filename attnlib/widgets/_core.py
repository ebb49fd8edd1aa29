"""What every explorer shares: controls over a figure of :mod:`attnlib.viz`, precomputed or live.

Most readers meet the book as a web page with no Python kernel behind it. So an
explorer, by default, draws its figure for every point of a grid of control
values while the notebook executes, and returns a widget whose controls switch
between those frames in the browser, with no Python callback
(:func:`frame_explorer`). For a reader with a kernel (Binder, Colab, Jupyter) the
same controls drive an ``ipywidgets.interactive`` that redraws for any value
(:func:`live_explorer`). :func:`explorer` picks one of the two; what they share is
the :class:`Control` (its values, its label, its one-line note) and the check of
the controls.

How the frames are switched, and why this way
---------------------------------------------
Each control is a *selection* widget (``SelectionSlider``, ``ToggleButtons`` or
``Dropdown``): all of them have an integer ``index`` trait. The frames sit in nested
``Stack`` widgets, one level per control, with ``Image`` widgets at the leaves, and
``jslink`` ties each control's ``index`` to the ``selected_index`` of every stack
on its level. A link is itself a widget model (``LinkModel``) saved in the widget
state, so the switching happens in the widget manager's JavaScript, on a static
page as in a live notebook. Alternatives we did not take:

- matplotlib's ``Animation.to_jshtml`` scrubs one parameter only, and writes its
  own script and frames into the cell's HTML, outside the widget state;
- an ``HTML`` widget of ``<img>`` tags switched by custom JavaScript would need a
  script of our own in every notebook front end (Colab, JupyterLab, the page);
- ``interactive_output`` or ``observe`` callbacks need a kernel.

Nested stacks need only the standard controls of ipywidgets 8, which the
``@jupyter-widgets/html-manager`` bundle (served with the book) already carries.

The frames
----------
All frames of an explorer are drawn first, and each axes gets the union of its
limits over the frames (``fixed_axes``), so what moves is the data, not the
scale. Each frame is rasterised at ``FRAME_DPI`` (twice the page's 96 px per inch)
and shown at half its pixel width: as sharp as the SVG figures on a high-density
screen. It is written as a 256-colour palette PNG (quantised with Pillow), about a
third of the RGBA size; frames whose bytes are equal (e.g. a control value clamped
by another) share one ``Image`` model, which may sit in several stacks. All frames
are cropped to the union of their ink, so the figure keeps its place as the
controls move. ``max_frames`` guards the page budget, ``PAGE_BUDGET_MB`` for a
chapter page with its figures and frames.
"""

from __future__ import annotations

import html
import io
import itertools
from dataclasses import dataclass, field

import ipywidgets as widgets
from IPython.display import display

from .._validation import check_flag
from ..viz import FRAME_DPI

#: default ceiling on the frames of one explorer (see PAGE_BUDGET_MB)
MAX_FRAMES = 64

#: the budget of one chapter page: its HTML (with the widgets' frames, base64) and the figures it loads
PAGE_BUDGET_MB = 2.5

#: CSS class of the box every precomputed explorer returns (the page's widget note looks for it)
FRAMES_CLASS = "attnlib-frames"

#: CSS class of the one-line notes under an explorer's controls
NOTES_CLASS = "attnlib-notes"


@dataclass(frozen=True)
class Control:
    """One control of an explorer: its grid of values for the frames, and its live widget.

    Parameters
    ----------
    description : str
        The label the reader sees (also the control's accessible name), typeset in
        Unicode: ``"log₁₀ c"``, ``"‖Θᵢ‖"``.
    values : tuple
        The grid of values the frames are drawn at, in the order the control shows them.
    value : optional
        Starting value, one of ``values`` (default the first).
    labels : tuple of str, optional
        What the control shows for each value (default ``format(value, "g")`` for
        numbers, ``str`` otherwise).
    kind : {"slider", "toggle", "dropdown"}
        A slider over two values is drawn as toggle buttons.
    live : callable returning an ipywidgets.ValueWidget, optional
        Makes the control used by :func:`live_explorer` (e.g. a finer ``FloatSlider``);
        default a selection widget over ``values``. A factory, so that the
        precomputed version saves no unused widget in the notebook.
    note : str, optional
        One line saying what the control changes in the figure, shown under the controls.
    """

    description: str
    values: tuple
    value: object = None
    labels: tuple | None = None
    kind: str = "slider"
    live: object = field(default=None, compare=False)
    note: str = ""

    def __post_init__(self):
        values = tuple(self.values)
        if not values:
            raise ValueError(f"control {self.description!r} needs at least one value; received none")
        object.__setattr__(self, "values", values)
        if self.kind not in ("slider", "toggle", "dropdown"):
            raise ValueError(f"control kind must be one of 'slider', 'toggle', 'dropdown'; received {self.kind!r}")
        value = values[0] if self.value is None else self.value
        if not any(_same(value, v) for v in values):
            raise ValueError(f"starting value of {self.description!r} must be one of {list(values)}; "
                             f"received {value!r}")
        object.__setattr__(self, "value", value)
        labels = tuple(_label(v) for v in values) if self.labels is None else tuple(str(s) for s in self.labels)
        if len(labels) != len(values) or len(set(labels)) != len(labels):
            raise ValueError(f"control {self.description!r} needs {len(values)} distinct labels; received {labels}")
        object.__setattr__(self, "labels", labels)
        if not isinstance(self.note, str) or "\n" in self.note:
            raise ValueError(f"the note of {self.description!r} must be one line of text; received {self.note!r}")

    @property
    def index(self) -> int:
        return next(i for i, v in enumerate(self.values) if _same(self.value, v))

    @property
    def shown_kind(self) -> str:
        """The kind drawn: a slider over two values is a pair of toggle buttons."""
        return "toggle" if self.kind == "slider" and len(self.values) == 2 else self.kind

    def widget(self, *, continuous_update: bool = True):
        """A selection widget over ``values``; its ``index`` selects the frame."""
        options = list(zip(self.labels, self.values, strict=True))
        common = {"options": options, "index": self.index, "description": self.description,
                  "style": {"description_width": "initial"}}
        if self.shown_kind == "toggle":
            return widgets.ToggleButtons(**common)
        if self.shown_kind == "dropdown":
            return widgets.Dropdown(**common)
        return widgets.SelectionSlider(**common, continuous_update=continuous_update)

    def live_widget(self):
        """The widget :func:`live_explorer` shows: ``live()`` if given, else :meth:`widget`."""
        if self.live is None:
            return self.widget(continuous_update=False)
        return self.live if isinstance(self.live, widgets.Widget) else self.live()


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _label(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def slider(description: str, values, value=None, *, labels=None, live=None, note: str = "") -> Control:
    """A :class:`Control` shown as a slider over ``values`` (toggle buttons if there are two)."""
    return Control(description, tuple(values), value, labels, "slider", live, note)


def toggle(description: str, values, value=None, *, labels=None, live=None, note: str = "") -> Control:
    """A :class:`Control` shown as toggle buttons (a few categorical values, or off/on)."""
    return Control(description, tuple(values), value, labels, "toggle", live, note)


def dropdown(description: str, values, value=None, *, labels=None, live=None, note: str = "") -> Control:
    """A :class:`Control` shown as a drop-down menu."""
    return Control(description, tuple(values), value, labels, "dropdown", live, note)


def check_controls(controls) -> dict:
    """``controls`` as a dict of argument name -> :class:`Control`, or a TypeError naming what was received."""
    if not isinstance(controls, dict) or not controls or not all(isinstance(c, Control) for c in controls.values()):
        raise TypeError(f"controls must be a non-empty dict of name -> Control; received {controls!r}")
    return controls


def notes(controls) -> widgets.HTML | None:
    """One line per control that has a note: what moving it changes. None if no control has one."""
    lines = [f"<b>{html.escape(c.description)}</b>: {html.escape(c.note)}" for c in controls if c.note]
    if not lines:
        return None
    box = widgets.HTML("<br>".join(lines))
    box.add_class(NOTES_CLASS)
    return box


# --------------------------------------------------------------------------- live: redrawn by the kernel


def interactive(draw, **controls):
    """An ``ipywidgets.interactive`` that displays the figure ``draw(**values)`` returns."""

    def show(**values):
        figure = draw(**values)
        if figure is not None:
            display(figure)

    return widgets.interactive(show, **controls)


def live_explorer(draw, controls: dict):
    """Controls over ``draw(**values)`` that redraw through the kernel, for any value of each live widget.

    Parameters
    ----------
    draw : callable
        Keyword arguments named as ``controls``; returns a matplotlib figure.
    controls : dict of str -> Control
        Argument name -> control; each shows its ``live_widget()``.

    Returns
    -------
    ipywidgets.interactive
        The controls, their notes, and the output the figure is drawn in.
    """
    controls = check_controls(controls)
    widget = interactive(draw, **{name: c.live_widget() for name, c in controls.items()})
    note = notes(controls.values())
    if note is not None:
        widget.children = (*widget.children[:-1], note, widget.children[-1])
    return widget


# --------------------------------------------------------------------------- precomputed: switched by the page


def _rgb(figure, dpi: float = FRAME_DPI):
    """The figure rendered at ``dpi`` as a white-backed RGB PIL image."""
    from PIL import Image

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    buffer.seek(0)
    return Image.open(buffer).convert("RGB")


def _ink(image, pad: int = 8) -> tuple:
    """The box (left, upper, right, lower) of the image's non-white pixels, padded."""
    from PIL import Image, ImageChops

    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box is None:
        return (0, 0) + image.size
    left, upper, right, lower = box
    return (max(left - pad, 0), max(upper - pad, 0), min(right + pad, image.width), min(lower + pad, image.height))


def _encode(image, colors: int = 256) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(out, format="PNG", optimize=True)
    return out.getvalue()


def png_bytes(figure, *, colors: int = 256, dpi: float = FRAME_DPI) -> bytes:
    """The figure as a palette PNG at ``dpi``, cropped to its ink.

    The crop replaces ``bbox_inches="tight"``, which draws the figure twice: the
    drawing is most of a frame's cost.
    """
    image = _rgb(figure, dpi)
    return _encode(image.crop(_ink(image)), colors)


def _union(boxes) -> tuple:
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def share_limits(figures) -> None:
    """Give each axes the union of its limits over ``figures``, so the frames share their scales.

    Axes are matched by position in ``figure.axes``; figures with different numbers of axes,
    colour bars, and axes whose scale or direction differs between frames are left alone.
    """
    figures = list(figures)
    if len({len(f.axes) for f in figures}) != 1:
        return
    for group in zip(*(f.axes for f in figures), strict=True):
        if any(hasattr(ax, "_colorbar") for ax in group):
            continue
        for get, put, scale in (("get_xlim", "set_xlim", "get_xscale"), ("get_ylim", "set_ylim", "get_yscale")):
            if len({getattr(ax, scale)() for ax in group}) != 1:
                continue
            limits = [getattr(ax, get)() for ax in group]
            flipped = {lo > hi for lo, hi in limits}
            if len(flipped) != 1:
                continue
            lo, hi = min(min(v) for v in limits), max(max(v) for v in limits)
            inverted = flipped.pop()
            for ax in group:
                getattr(ax, put)((hi, lo) if inverted else (lo, hi))


class FrameExplorer(widgets.VBox):
    """The widget :func:`frame_explorer` returns: controls, their notes, and nested stacks of frames.

    Besides the ``VBox`` children it records ``controls`` (description -> selection
    widget), ``grid`` (the tuple of control values of every frame, in grid order),
    ``images`` (one ``Image`` per grid point; equal frames share one) and ``links``.
    """

    def __init__(self, controls: dict, stack, grid: list, images: list, links: list, note=None, **kwargs):
        # one control per row, their labels in one column on the left: a wrapped row of several
        # read as one strip (a slider's value beside the next control's buttons)
        width = f"{max(len(c.description) for c in controls.values()) * 0.6 + 0.5:.1f}em"
        for control in controls.values():
            control.style.description_width = width
        box = widgets.VBox(list(controls.values()))
        super().__init__([box, stack] if note is None else [box, note, stack], **kwargs)
        self.add_class(FRAMES_CLASS)
        self.controls = controls
        self.stack = stack
        self.grid = grid
        self.images = images
        self.links = links

    @property
    def n_frames(self) -> int:
        """Distinct frames (``Image`` models) saved with the widget."""
        return len({id(image) for image in self.images})

    @property
    def n_bytes(self) -> int:
        """PNG bytes of the distinct frames (the page stores them base64-encoded, 4/3 as many)."""
        return sum(len(image.value) for image in {id(i): i for i in self.images}.values())

    def frame(self, **values):
        """The ``Image`` shown for the given control values (by description)."""
        key = tuple(values[name] for name in self.controls)
        for point, image in zip(self.grid, self.images, strict=True):
            if all(_same(a, b) for a, b in zip(point, key, strict=True)):
                return image
        raise KeyError(f"no frame at {values}; the grid has {len(self.grid)} points")

    def shown(self):
        """The ``Image`` the nested stacks show for the controls' current indices (as the browser does)."""
        node = self.stack
        for control in self.controls.values():
            node = node.children[control.index]
        return node


def _grid(controls: dict, max_frames: int):
    """(values held fixed, names of the shown controls, grid points): a one-value control is held."""
    size = 1
    for control in controls.values():
        size *= len(control.values)
    if size > max_frames:
        shape = " x ".join(f"{len(c.values)} {c.description!r}" for c in controls.values())
        raise ValueError(f"the grid has {size} frames ({shape}); at most max_frames={max_frames} are allowed")
    # a control with one value is held fixed: a slider that moves nothing would mislead
    fixed = {name: c.values[0] for name, c in controls.items() if len(c.values) == 1}
    names = [name for name in controls if name not in fixed]
    if not names:
        raise ValueError(f"an explorer needs a control with two or more values; received {list(controls)}")
    return fixed, names, list(itertools.product(*(controls[name].values for name in names)))


def _draw_all(draw, fixed: dict, names: list, points: list) -> list:
    figures = []
    for point in points:
        values = {**fixed, **dict(zip(names, point, strict=True))}
        figure = draw(**values)
        if figure is None:
            raise TypeError(f"an explorer's draw function must return a matplotlib figure; received None for {values}")
        figures.append(figure)
    return figures


def _frames(figures: list) -> list:
    """One ``Image`` per figure, all cropped to the union of their ink; equal PNGs share one model."""
    import matplotlib.pyplot as plt

    rendered = []
    for figure in figures:
        rendered.append(_rgb(figure))
        plt.close(figure)
    box = _union(_ink(image) for image in rendered) if len({im.size for im in rendered}) == 1 else None
    shared: dict[bytes, widgets.Image] = {}
    images = []
    for image in rendered:
        crop = image.crop(box or _ink(image))
        png = _encode(crop)
        if png not in shared:
            # shown at half its pixel width: sharp on a 2x screen, and shrunk to fit a narrow column
            layout = widgets.Layout(max_width="100%", height="auto")
            shared[png] = widgets.Image(value=png, format="png", width=str(round(crop.width / 2)), layout=layout)
        images.append(shared[png])
    return images


def _stacks(controls: list, images: list):
    """Nested stacks over the grid's images (level j indexed by control j), and the links to their controls."""
    sizes = [len(c.values) for c in controls]
    levels: list[list] = [[] for _ in controls]

    def build(depth: int, offset: int, stride: int):
        if depth == len(controls):
            return images[offset]
        inner = stride // sizes[depth]
        children = [build(depth + 1, offset + i * inner, inner) for i in range(sizes[depth])]
        stack = widgets.Stack(children, selected_index=controls[depth].index)
        levels[depth].append(stack)
        return stack

    total = 1
    for size in sizes:
        total *= size
    return build(0, 0, total), levels


def frame_explorer(draw, controls: dict, *, max_frames: int = MAX_FRAMES, fixed_axes: bool = True) -> FrameExplorer:
    """Controls over frames of ``draw(**values)`` drawn now at every grid point, switched in the browser.

    Parameters
    ----------
    draw : callable
        Keyword arguments named as ``controls``; returns a matplotlib figure (an
        :mod:`attnlib.viz` function's result).
    controls : dict of str -> Control
        Argument name -> control, in the order shown. A control with a single
        value is held at it and not shown.
    max_frames : int
        Largest grid allowed (the product of the controls' numbers of values).
    fixed_axes : bool, default True
        Give each axes the union of its limits over all frames (:func:`share_limits`).

    Returns
    -------
    FrameExplorer
    """
    controls = check_controls(controls)
    fixed_axes = check_flag("fixed_axes", fixed_axes)
    fixed, names, points = _grid(controls, max_frames)
    figures = _draw_all(draw, fixed, names, points)
    if fixed_axes:
        share_limits(figures)
    images = _frames(figures)
    shown = [controls[name] for name in names]
    root, levels = _stacks(shown, images)
    selectors = {c.description: c.widget() for c in shown}
    links = [widgets.jslink((selector, "index"), (stack, "selected_index"))
             for selector, stacks in zip(selectors.values(), levels, strict=True) for stack in stacks]
    return FrameExplorer(selectors, root, points, images, links, note=notes(shown))


def explorer(draw, controls: dict, *, live: bool = False, max_frames: int = MAX_FRAMES, fixed_axes: bool = True):
    """Controls over ``draw(**values)``: :func:`frame_explorer`, or :func:`live_explorer` with ``live=True``.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
    """
    controls = check_controls(controls)
    if check_flag("live", live):
        return live_explorer(draw, controls)
    return frame_explorer(draw, controls, max_frames=max_frames, fixed_axes=fixed_axes)


def as_batch(X, d: int, name: str = "X"):
    """``X`` (a float array, already checked) as a batch (N, n, d) for ``d``-dimensional heads, or a named error.

    Only shapes are compared: the entries were checked by the explorer's declaration.
    """
    if X.ndim not in (2, 3) or 0 in X.shape:
        raise ValueError(f"{name} must have shape (n, d) for one sequence or (N, n, d) for a batch; "
                         f"received shape {X.shape}")
    if X.shape[-1] != d:
        raise ValueError(f"{name} has token dimension {X.shape[-1]} (shape {X.shape}) but the heads expect d={d}; "
                         f"expected shape (n, {d}) or (N, n, {d})")
    return X[None] if X.ndim == 2 else X
