// The explorers of attnlib.widgets on the page: one note per widget that names its controls,
// and accessible names for the controls and frames the widget manager draws.
//
// A chapter's explorers are precomputed: their frames and the links from each control to the
// frames are in the widget state that myst-nb writes into the page, and the widget manager
// served with the book (_static/widgets/embed.js) switches frames without a kernel. The note
// is written from that state, so it names the controls of this very widget; it is added even
// when the manager cannot run (no JavaScript modules, an old browser), and then says so.
(() => {
  const SELECTIONS = new Set(["SelectionSliderModel", "SelectionRangeSliderModel", "ToggleButtonsModel",
    "DropdownModel", "RadioButtonsModel", "SelectModel"]);
  const VALUES = new Set(["IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "CheckboxModel",
    "ToggleButtonModel", "IntTextModel", "FloatTextModel", "TextModel"]);

  function widgetState() {
    const script = document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]');
    try {
      return (script && JSON.parse(script.textContent).state) || {};
    } catch (err) {
      return {};
    }
  }

  // The controls (description, number of values) and distinct frames under one model.
  function describe(state, id) {
    const controls = [], frames = new Set(), seen = new Set();
    const walk = (mid) => {
      if (seen.has(mid) || !state[mid]) return;
      seen.add(mid);
      const model = state[mid], s = model.state || {};
      if (model.model_name === "ImageModel") frames.add(mid);
      if (SELECTIONS.has(model.model_name)) controls.push([s.description, (s._options_labels || []).length]);
      else if (VALUES.has(model.model_name)) controls.push([s.description, 0]);
      for (const child of s.children || []) walk(String(child).replace(/^IPY_MODEL_/, ""));
    };
    walk(id);
    return { controls, frames: frames.size, precomputed: (state[id]?.state?._dom_classes || []).includes("attnlib-frames") };
  }

  // One short line under each widget; what each control changes is said in the widget itself,
  // one line per control (the notes of attnlib.widgets). The longer story (live=True, Binder,
  // Colab) is told once, in the preface.
  function noteText(info) {
    if (info.precomputed) {
      return `Precomputed: ${info.frames} frames, switched on the page without a kernel.`;
    }
    const named = info.controls.map(([name]) => `“${name}”`).join(", ");
    return `Live widget (${named || "its controls"}): it needs a running kernel, from the rocket menu at the top.`;
  }

  // The manager typesets each control's label through MathJax 2's API (MathJax.Hub.Queue); the
  // book loads MathJax 3, which has no Hub, so every label threw. Give MathJax 3 a Hub that
  // forwards to its own typesetter, before the manager draws (it starts on the window's load
  // event; the document turns "complete" just before, after MathJax has loaded).
  function mathjaxHub() {
    const mj = window.MathJax;
    if (!mj || mj.Hub || typeof mj.typesetPromise !== "function") return;
    mj.Hub = {
      Queue: (...jobs) => {
        for (const job of jobs) {
          if (Array.isArray(job) && job[0] === "Typeset" && job[2]) mj.typesetPromise([job[2]]).catch(() => {});
        }
      },
    };
  }
  document.addEventListener("readystatechange", () => {
    if (document.readyState === "complete") mathjaxHub();
  });

  document.addEventListener("DOMContentLoaded", () => {
    mathjaxHub();
    const state = widgetState();
    for (const view of document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')) {
      let id = "";
      try {
        id = JSON.parse(view.textContent).model_id;
      } catch (err) { /* keep the generic note */ }
      const note = document.createElement("p");
      note.className = "widget-note";
      note.textContent = noteText(describe(state, id));
      view.parentElement.appendChild(note);
    }
  });

  // The selection controls of one widget: description -> the labels of its values, from the state.
  function labelsOf(state, id) {
    const out = new Map(), seen = new Set();
    const walk = (mid) => {
      if (seen.has(mid) || !state[mid]) return;
      seen.add(mid);
      const s = state[mid].state || {};
      if (SELECTIONS.has(state[mid].model_name)) out.set(s.description, s._options_labels || []);
      for (const child of s.children || []) walk(String(child).replace(/^IPY_MODEL_/, ""));
    };
    walk(id);
    return out;
  }

  const number = (label) => {
    const v = Number(String(label).replace(/\u2212/g, "-").trim());
    return String(label).trim() !== "" && Number.isFinite(v) ? v : null;
  };

  // A slider's handle says the value, not its position: aria-valuetext is the label shown, and
  // aria-valuenow (with -valuemin and -valuemax) the number, when every label is a number.
  function valueAria(handle, labels, shown) {
    const text = shown || "";
    if (text && handle.getAttribute("aria-valuetext") !== text) handle.setAttribute("aria-valuetext", text);
    const values = labels.map(number);
    if (!labels.length || values.some((v) => v === null) || number(text) === null) return;
    const want = { "aria-valuenow": String(number(text)), "aria-valuemin": String(Math.min(...values)),
                   "aria-valuemax": String(Math.max(...values)) };
    for (const [key, value] of Object.entries(want)) {
      if (handle.getAttribute(key) !== value) handle.setAttribute(key, value);
    }
  }

  let STATE = null;
  function labelsNear(box) {
    STATE = STATE || widgetState();
    const view = box.closest(".cell_output, .output_area, .jp-OutputArea, body")
      ?.querySelector('script[type="application/vnd.jupyter.widget-view+json"]');
    try {
      return labelsOf(STATE, JSON.parse(view.textContent).model_id);
    } catch (err) {
      return new Map();
    }
  }

  // Accessible names: the manager draws a slider handle and a button group with no name of
  // their own; give them the control's description, and each frame an alt text.
  function nameControls(root) {
    for (const box of root.querySelectorAll(".attnlib-frames")) {
      const labels = labelsNear(box);
      for (const control of box.querySelectorAll(".widget-inline-hbox, .widget-hbox, .widget-toggle-buttons, .widget-dropdown")) {
        const label = control.querySelector(":scope > .widget-label, :scope > label");
        const name = label && label.textContent.trim();
        if (!name) continue;
        control.querySelectorAll(".noUi-handle, [role='slider']").forEach((h) => {
          if (h.getAttribute("aria-label") !== name) h.setAttribute("aria-label", name);
          const readout = control.querySelector(".widget-readout");
          valueAria(h, labels.get(name) || [], readout && readout.textContent.trim());
        });
        const inside = (selector) => [control, ...control.querySelectorAll(selector)].filter((e) => e.matches(selector));
        inside(".widget-toggle-buttons").forEach((g) => {
          if (g.getAttribute("aria-label") !== name) {
            g.setAttribute("role", "group");
            g.setAttribute("aria-label", name);
          }
        });
        control.querySelectorAll("select:not([aria-label])").forEach((s) => s.setAttribute("aria-label", name));
      }
      box.querySelectorAll("img:not([alt])").forEach((img) =>
        img.setAttribute("alt", "The figure for the values chosen with the controls above (a precomputed frame)."));
    }
  }
  new MutationObserver(() => nameControls(document)).observe(document.documentElement, {
    childList: true, subtree: true, characterData: true, attributes: true,
    attributeFilter: ["aria-valuenow", "aria-valuetext"],
  });
})();
