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

// A display equation wider than its box scrolls (layout.css): make that box reachable from the
// keyboard, and name it, so that a reader without a mouse can scroll it too.
function focusableWideMath() {
  document.querySelectorAll("main div.math").forEach((box) => {
    if (box.scrollWidth > box.clientWidth + 1 && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "wide equation, scrolls sideways");
    }
  });
}
window.addEventListener("load", () => {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(focusableWideMath);
  } else {
    focusableWideMath();
  }
});
window.addEventListener("resize", focusableWideMath);
