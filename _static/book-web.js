// The note under every widget, naming its controls, is written by _static/widgets.js.

// Live Code (Thebe) loads its library from a CDN and starts a kernel on Binder. Without a
// connection the theme's button would read "Loading thebe from CDN..." forever; say why instead.
window.addEventListener("error", (event) => {
  const src = event.target && event.target.src;
  if (typeof THEBE_JS_URL === "undefined" || src !== THEBE_JS_URL) {
    return;
  }
  document.querySelectorAll(".thebe-launch-button").forEach((button) => {
    button.classList.add("thebe-offline");
    button.textContent =
      "Live Code could not start: it needs an internet connection, to load Thebe and to run " +
      "a Python kernel on Binder. The page itself, its figures and its math work offline.";
  });
}, true);

// A display equation, a printed output or a table wider than its box scrolls sideways (layout.css).
// Mark such a box (scrolls-sideways), and the sides where it hides content (more-left, more-right),
// so that only it shows a cue; make it reachable from the keyboard, and name it, so that a reader
// without a mouse can scroll it too.
const SCROLLERS = {
  "main div.math": "wide equation, scrolls sideways",
  "main div.cell_output pre": "wide output, scrolls sideways",
  "main .pst-scrollable-table-container": "wide table, scrolls sideways",
};
function markScrolling(box, label) {
  const scrolls = box.scrollWidth > box.clientWidth + 1;
  box.classList.toggle("scrolls-sideways", scrolls);
  box.classList.toggle("more-left", scrolls && box.scrollLeft > 1);
  box.classList.toggle("more-right", scrolls && box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
  if (scrolls && !box.hasAttribute("tabindex")) {
    box.setAttribute("tabindex", "0");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", label);
    box.dataset.scrollFocus = "1";
  } else if (!scrolls && box.dataset.scrollFocus) {
    box.removeAttribute("tabindex");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
    delete box.dataset.scrollFocus;
  }
}
function markWideBoxes() {
  for (const [selector, label] of Object.entries(SCROLLERS)) {
    document.querySelectorAll(selector).forEach((box) => {
      markScrolling(box, label);
      if (!box.dataset.scrollCue) {
        box.dataset.scrollCue = "1";
        box.addEventListener("scroll", () => markScrolling(box, label), {passive: true});
      }
    });
  }
}
// Punctuation after inline math stays on the math's line: a line break may fall before the formula,
// never between it and the comma or full stop that follows it.
function keepPunctuation() {
  document.querySelectorAll("main span.math").forEach((math) => {
    const next = math.nextSibling;
    if (!next || next.nodeType !== Node.TEXT_NODE || math.parentElement.classList.contains("math-nowrap")) {
      return;
    }
    const marks = next.data.match(/^[.,;:!?)\]\u2019\u201d]+/);
    if (!marks) {
      return;
    }
    const keep = document.createElement("span");
    keep.className = "math-nowrap";
    math.parentNode.insertBefore(keep, math);
    keep.appendChild(math);
    keep.appendChild(document.createTextNode(marks[0]));
    next.data = next.data.slice(marks[0].length);
  });
}
function afterMath() {
  keepPunctuation();
  markWideBoxes();
}
window.addEventListener("load", () => {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(afterMath);
  } else {
    afterMath();
  }
});
window.addEventListener("resize", markWideBoxes);
// What sits in a dropdown that opens (a solution, a folded box) gets its width only then.
document.addEventListener("toggle", markWideBoxes, true);
document.addEventListener("click", (event) => {
  if (event.target.closest && event.target.closest(".toggle-button, summary, .dropdown")) {
    requestAnimationFrame(markWideBoxes);
  }
});

// Sphinx's search (searchtools.js) appends a summary under each result, and throws ("parameter 1 is
// not of type 'Node'") when a result's anchor yields no text, since makeSearchSummary then returns
// null: a glossary term or an index entry of the book is such a result. Give it an empty summary.
function guardSearchSummary() {
  if (typeof Search === "undefined" || !Search.makeSearchSummary || Search.makeSearchSummary.guarded) {
    return;
  }
  const original = Search.makeSearchSummary;
  Search.makeSearchSummary = (...args) => original(...args) || document.createElement("p");
  Search.makeSearchSummary.guarded = true;
}
guardSearchSummary();
document.addEventListener("DOMContentLoaded", guardSearchSummary);

// A box that was folded when the page loaded had no width then: mark its wide outputs and
// equations when a reader opens it (sphinx-togglebutton's button, or a <summary>).
document.addEventListener("click", (event) => {
  if (event.target.closest && event.target.closest("button.toggle-button, summary")) {
    setTimeout(markWideBoxes, 50);
  }
});

// The right-hand contents of an API page is narrow: a long identifier (single_start_table,
// attnlib.sculpt.diagnostics) may break after an underscore or a dot, before it breaks mid-word.
function breakIdentifiers() {
  document.querySelectorAll(".bd-sidebar-secondary code .pre").forEach((pre) => {
    const parts = pre.textContent.split(/(?<=[._])(?=.)/);
    if (parts.length < 2 || pre.querySelector("wbr")) {
      return;
    }
    pre.textContent = "";
    parts.forEach((part, i) => {
      if (i) {
        pre.appendChild(document.createElement("wbr"));
      }
      pre.appendChild(document.createTextNode(part));
    });
  });
}
document.addEventListener("DOMContentLoaded", breakIdentifiers);
