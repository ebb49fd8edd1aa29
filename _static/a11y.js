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
