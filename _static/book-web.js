// Static pages cannot run a widget: say so under every widget, online or offline.
//
// A chapter draws each figure statically first, then builds a widget around the
// same drawing function. In the built book the widget's controls have no Python
// kernel behind them (and without internet the widget library cannot load at
// all), so every widget output gets a short note saying where to move its sliders.
document.addEventListener("DOMContentLoaded", () => {
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]');
  for (const view of views) {
    const note = document.createElement("p");
    note.className = "widget-note";
    note.textContent =
      "Interactive widget. Its controls need a running Python kernel: open this page on Binder " +
      "or Colab, or click Live Code, from the rocket menu at the top of the page. " +
      "The figure above shows the widget's default view.";
    view.parentElement.appendChild(note);
  }
});

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
