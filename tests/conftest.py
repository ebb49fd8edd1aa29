"""Set-up for the tests: figures draw off screen and never pile up between tests; the browser tests
share one Chromium, one server and their pages, and run last."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# The built book in Chromium (tests/_browser.py, imported only where a browser test asks for it: the
# library's tests run without the book's tools). One browser, one server and one set of shared pages
# serve every browser test of the run.


@pytest.fixture(scope="session")
def site():
    from _browser import serve

    yield from serve()


@pytest.fixture(scope="session")
def browser():
    from _browser import launch

    yield from launch()


@pytest.fixture(scope="session")
def pages(browser, site):
    from _browser import Pages

    shared = Pages(browser, site)
    yield shared
    shared.close()


def pytest_collection_modifyitems(items):
    """The tests that drive Chromium run last, and those of one page together, so that they share its
    one load (tests/_browser.py). Playwright keeps an event loop running in the test process while
    the browser is open, and tests after it could not start one of their own."""
    chromium = [item for item in items if "browser" in getattr(item, "fixturenames", ())]
    if chromium:
        from _browser import order_by_page

        driven = set(map(id, chromium))
        items[:] = [item for item in items if id(item) not in driven] + chromium
        order_by_page(items)
