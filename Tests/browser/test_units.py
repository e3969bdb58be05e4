"""The client's unit tests (Tests/browser/unit/*-tests.js), run in headless Chromium on a page
of the real server, which serves the modules under test. They live outside Public/, so
they are neither served nor shipped."""
from pathlib import Path

import pytest

UNIT = Path(__file__).parent / "unit"

# Runs a test file as an inline module of a page at the server's origin: its imports of
# ../../../Public/js/… become the served /js/…, and of ./harness.js (not served) a blob
# module of that file's text.
RUN = """
const [source, harness, done] = arguments;
const harnessUrl = URL.createObjectURL(new Blob([harness], {type: 'text/javascript'}));
const script = document.createElement('script');
script.type = 'module';
script.textContent = source.replaceAll("'../../../Public/js/", "'/js/")
  .replaceAll("'./harness.js'", `'${harnessUrl}'`) + "\\nwindow.__unitResults = run();";
window.addEventListener('error', (e) => done({passed: 0, failed: 1, failures: [{name: 'load', message: e.message}]}));
document.head.append(script);
const poll = () => window.__unitResults ? done(window.__unitResults) : setTimeout(poll, 20);
poll();
"""


@pytest.mark.parametrize("name, at_least", [("ot-tests.js", 10), ("collab-state-tests.js", 9),
                                            ("undo-notices-tests.js", 7), ("links-tests.js", 4),
                                            ("saved-state-tests.js", 4), ("access-rules-tests.js", 5),
                                            ("people-lists-tests.js", 7), ("pasteboard-people-tests.js", 4),
                                            ("line-index-tests.js", 3),
                                            ("who-wrote-what-tests.js", 6), ("version-list-tests.js", 16)])
def test_unit_tests_pass_in_chromium(server, windows, name, at_least):
    w = windows()
    w.allow_console("favicon.ico")  # a page that is not the app names no icon: Chromium asks for one
    w.driver.get(f"{server.base}/healthz")
    w.driver.set_script_timeout(60)
    result = w.driver.execute_async_script(RUN, (UNIT / name).read_text(), (UNIT / "harness.js").read_text())
    assert result["failed"] == 0, result["failures"]
    assert result["passed"] >= at_least, result


def test_test_pages_are_not_served(server):
    for path in ("/tests/ot.html", "/tests/ot-tests.js"):
        status, _ = server.request("GET", path)
        assert status == 404, path
