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
