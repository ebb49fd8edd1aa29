"""What every explorer shares: controls over a figure of :mod:`attnlib.viz`, precomputed or live.

Most readers meet the book as a web page with no Python kernel behind it. So an
explorer, by default, draws its figure for every point of a small grid of control
values while the notebook executes, and returns a widget whose controls switch
between those frames in the browser, with no Python callback (:func:`explorer`).
With ``live=True`` the same call returns an ``ipywidgets.interactive`` that redraws
for any value, for a reader with a kernel (Binder, Colab, Jupyter).

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
Frames whose PNG bytes are equal (e.g. a control value clamped by another) share
one ``Image`` model, which may sit in several stacks. Each frame is written as a
256-colour palette PNG (quantised with Pillow), about a third of the RGBA size, so
a chapter page with its frames stays within a few megabytes; ``max_frames``
guards the budget. Frames are drawn once (no ``bbox_inches="tight"``, which draws
twice) and cropped to the union of their ink, so the figure keeps its place as the
controls move.
"""

from __future__ import annotations

import io
import itertools
from dataclasses import dataclass, field

import ipywidgets as widgets
from IPython.display import display

from .._validation import check_flag

#: default ceiling on the frames of one explorer; a chapter page should stay under ~6 MB
MAX_FRAMES = 64

#: CSS class of the box every precomputed explorer returns (the page's widget note looks for it)
FRAMES_CLASS = "attnlib-frames"


def interactive(draw, **controls):
    """An ``ipywidgets.interactive`` that displays the figure ``draw(**values)`` returns."""

    def show(**values):
        figure = draw(**values)
        if figure is not None:
            display(figure)

    return widgets.interactive(show, **controls)


@dataclass(frozen=True)
class Control:
    """One control of an explorer: its grid of values for the frames, and its live widget.

    Parameters
    ----------
    description : str
        The label the reader sees (also the control's accessible name).
    values : tuple
        The grid of values the frames are drawn at, in the order the control shows them.
    value : optional
        Starting value, one of ``values`` (default the first).
    labels : tuple of str, optional
        What the control shows for each value (default ``format(value, "g")`` for
        numbers, ``str`` otherwise).
    kind : {"slider", "toggle", "dropdown"}
    live : callable returning an ipywidgets.ValueWidget, optional
        Makes the control used with ``live=True`` (e.g. a finer ``FloatSlider``);
        default a selection widget over ``values``. A factory, so that the
        precomputed version saves no unused widget in the notebook.
    """

    description: str
    values: tuple
    value: object = None
    labels: tuple | None = None
    kind: str = "slider"
    live: object = field(default=None, compare=False)

    def __post_init__(self):
        values = tuple(self.values)
        if not values:
            raise ValueError(f"control {self.description!r} needs at least one value; received none")
        object.__setattr__(self, "values", values)
        if self.kind not in ("slider", "toggle", "dropdown"):
            raise ValueError(f"control kind must be one of 'slider', 'toggle', 'dropdown'; received {self.kind!r}")
        value = values[0] if self.value is None else self.value
        if not any(_same(value, v) for v in values):
            raise ValueError(f"starting value of {self.description!r} must be one of {list(values)}; received {value!r}")
        object.__setattr__(self, "value", value)
        labels = tuple(_label(v) for v in values) if self.labels is None else tuple(str(s) for s in self.labels)
        if len(labels) != len(values) or len(set(labels)) != len(labels):
            raise ValueError(f"control {self.description!r} needs {len(values)} distinct labels; received {labels}")
        object.__setattr__(self, "labels", labels)

    @property
    def index(self) -> int:
        return next(i for i, v in enumerate(self.values) if _same(self.value, v))

    def widget(self, *, continuous_update: bool = True):
        """A selection widget over ``values``; its ``index`` selects the frame."""
        options = list(zip(self.labels, self.values, strict=True))
        common = {"options": options, "index": self.index, "description": self.description,
                  "style": {"description_width": "initial"}}
        if self.kind == "toggle":
            return widgets.ToggleButtons(**common)
        if self.kind == "dropdown":
            return widgets.Dropdown(**common)
        return widgets.SelectionSlider(**common, continuous_update=continuous_update)


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _label(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def slider(description: str, values, value=None, *, labels=None, live=None) -> Control:
    """A :class:`Control` shown as a slider over ``values``."""
    return Control(description, tuple(values), value, labels, "slider", live)


def toggle(description: str, values, value=None, *, labels=None, live=None) -> Control:
    """A :class:`Control` shown as toggle buttons (a few categorical values, or off/on)."""
    return Control(description, tuple(values), value, labels, "toggle", live)


def dropdown(description: str, values, value=None, *, labels=None, live=None) -> Control:
    """A :class:`Control` shown as a drop-down menu."""
    return Control(description, tuple(values), value, labels, "dropdown", live)


def _rgb(figure):
    """The figure rendered at its own dpi as a white-backed RGB PIL image."""
    from PIL import Image

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi, facecolor="white")
    buffer.seek(0)
    return Image.open(buffer).convert("RGB")


def _ink(image, pad: int = 4) -> tuple:
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


def png_bytes(figure, *, colors: int = 256) -> bytes:
    """The figure as a palette PNG at its own dpi, cropped to its ink, as the inline backend draws it.

    The crop replaces ``bbox_inches="tight"``, which draws the figure twice: the
    drawing is most of a frame's cost.
    """
    image = _rgb(figure)
    return _encode(image.crop(_ink(image)), colors)


def _render(draw, values: dict):
    import matplotlib.pyplot as plt

    figure = draw(**values)
    if figure is None:
        raise TypeError(f"an explorer's draw function must return a matplotlib figure; received None for {values}")
    try:
        return _rgb(figure)
    finally:
        plt.close(figure)


def _union(boxes) -> tuple:
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


class FrameExplorer(widgets.VBox):
    """The widget :func:`explorer` returns: controls above nested stacks of precomputed frames.

    Besides the ``VBox`` children it records ``controls`` (description -> selection
    widget), ``grid`` (the tuple of control values of every frame, in grid order),
    ``images`` (one ``Image`` per grid point; equal frames share one) and ``links``.
    """

    def __init__(self, controls: dict, stack, grid: list, images: list, links: list, **kwargs):
        box = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([box, stack], **kwargs)
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


def explorer(draw, controls: dict, *, live: bool = False, max_frames: int = MAX_FRAMES):
    """Controls over ``draw(**values)``: frames precomputed over the grid, or a live redraw.

    Parameters
    ----------
    draw : callable
        Keyword arguments named as ``controls``; returns a matplotlib figure (an
        :mod:`attnlib.viz` function's result).
    controls : dict of str -> Control
        Argument name -> control, in the order shown.
    live : bool, default False
        False: draw every grid point now and return a :class:`FrameExplorer`
        whose controls switch frames in the browser, kernel or not. True: return
        ``ipywidgets.interactive``, which redraws through the kernel for any value
        of each control's ``live`` widget.
    max_frames : int
        Largest grid allowed (the product of the controls' numbers of values).
        A control with a single value is held at it and not shown.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
    """
    if not isinstance(controls, dict) or not controls or not all(isinstance(c, Control) for c in controls.values()):
        raise TypeError(f"controls must be a non-empty dict of name -> Control; received {controls!r}")
    live = check_flag("live", live)
    if live:
        live_widgets = {}
        for name, control in controls.items():
            live = control.live
            if live is None:
                live_widgets[name] = control.widget(continuous_update=False)
            else:
                live_widgets[name] = live if isinstance(live, widgets.Widget) else live()
        return interactive(draw, **live_widgets)
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
    selectors = {controls[name].description: controls[name].widget() for name in names}
    shared: dict[bytes, widgets.Image] = {}
    layout = widgets.Layout(max_width="100%", height="auto")  # one model shared by every frame
    grid, images = [], []
    points = list(itertools.product(*(controls[name].values for name in names)))
    rendered = [_render(draw, {**fixed, **dict(zip(names, point, strict=True))}) for point in points]
    # one crop for all frames (the union of their ink), so the figure does not jump as controls move
    sizes = {image.size for image in rendered}
    box = _union(_ink(image) for image in rendered) if len(sizes) == 1 else None
    for point, image in zip(points, rendered, strict=True):
        png = _encode(image.crop(box) if box else image.crop(_ink(image)))
        if png not in shared:
            shared[png] = widgets.Image(value=png, format="png", layout=layout)
        grid.append(point)
        images.append(shared[png])

    # nested stacks: level j has one Stack per grid prefix of length j, its children indexed by control j
    sizes = [len(controls[name].values) for name in names]
    links = []
    levels: list[list] = [[] for _ in names]

    def build(depth: int, offset: int, stride: int):
        if depth == len(names):
            return images[offset]
        inner = stride // sizes[depth]
        children = [build(depth + 1, offset + i * inner, inner) for i in range(sizes[depth])]
        stack = widgets.Stack(children, selected_index=controls[names[depth]].index)
        levels[depth].append(stack)
        return stack

    root = build(0, 0, size)
    for selector, stacks in zip(selectors.values(), levels, strict=True):
        links += [widgets.jslink((selector, "index"), (stack, "selected_index")) for stack in stacks]
    return FrameExplorer(selectors, root, grid, images, links)
