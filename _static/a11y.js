// Accessibility fixes of the built pages (issue 14), checked by tests/test_book_browser_a11y.py.
//
// The primary sidebar: its book title and logo link sit outside any landmark, so a screen
// reader's landmark list skips them (axe: region). The sidebar is complementary content that
// holds the table of contents; naming it as such puts everything in it under one landmark.
document.addEventListener("DOMContentLoaded", () => {
  const sidebar = document.querySelector(".bd-sidebar-primary");
  if (sidebar && !sidebar.closest("[role], aside, nav, header, footer, main") && !sidebar.hasAttribute("role")) {
    sidebar.setAttribute("role", "complementary");
    sidebar.setAttribute("aria-label", "Book navigation");
  }
});

// The table of contents folds a page's sections (the API reference's pages) under a toggle that
// is only an icon (axe: summary-name). Name each toggle after the page whose sections it shows.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".bd-sidebar-primary details > summary").forEach((summary) => {
    if (summary.textContent.trim() || summary.hasAttribute("aria-label")) return;
    const link = summary.closest("li") && summary.closest("li").querySelector(":scope > a");
    summary.setAttribute("aria-label", `Sections of ${link ? link.textContent.trim() : "this page"}`);
  });
});

// Scrolling boxes in widget outputs. The widget manager draws each widget's boxes with
// `overflow: auto`; a box whose content is a few pixels larger than it scrolls, and a region
// that scrolls but cannot take the focus cannot be scrolled from the keyboard (axe:
// scrollable-region-focusable, serious). Such boxes join the Tab order with a name, as the
// theme does for wide code cells. Run whenever the manager (re)draws, once per frame at most.
(() => {
  const BOXES = ".cell_output .widget-box, .cell_output .widget-container, .cell_output .widget-subarea";
  const scrolls = (e) => {
    const s = getComputedStyle(e);
    return (/(auto|scroll)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1) ||
      (/(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1);
  };
  let pending = false;
  const mark = () => {
    pending = false;
    document.querySelectorAll(BOXES).forEach((box) => {
      if (box.hasAttribute("tabindex") || !scrolls(box)) return;
      box.tabIndex = 0;
      box.setAttribute("role", "group");
      if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", "Widget (scrolls)");
    });
  };
  const schedule = () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(mark);
    }
  };
  document.addEventListener("DOMContentLoaded", () => {
    if (!document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]')) return;
    new MutationObserver(schedule).observe(document.body, { childList: true, subtree: true });
    window.addEventListener("resize", schedule);
    schedule();
  });
})();
