"""The pipeline report as a reader sees it: rendered by headless Chromium at 1280 px.

The report is the one the README's first command wrote (tests/stages/conftest.py runs it once for these tests, the
pipeline's and the report's). Screenshots go to ``OUT/screenshots/`` beside it; with ``--basetemp DIR`` they lie at
``DIR/project0/runs/pipeline/screenshots/``. The checks run in a copy of the page with a script added (the report's
own Content-Security-Policy forbids scripts; the copy allows inline ones and nothing else): every table sits in its
scrolling box and none runs past the window, and the text is drawn in the embedded font, Hangul included. Where no
Chromium is installed the tests skip (Debian: apt-get install chromium).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kopa_replay.graph.fonts import FAMILY

WIDTH = 1280
#: a window narrower than the widest tables: their boxes must scroll, and without the boxes the page would
NARROW = 640
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_HANGUL = re.compile("[\uac00-\ud7a3]")
_FONT_DATA = re.compile(r"(url\(data:font/woff;base64,)[A-Za-z0-9+/=]+(\))")
_CSP = "style-src 'unsafe-inline'\">"

# Measures the page once its fonts have loaded and writes what it found into the page, for --dump-dom to print.
_MEASURE = """<script>
(async () => {
  await document.fonts.ready;
  const sample = %(sample)s, family = %(family)s;
  const faces = [...document.fonts].filter((f) => f.family.replace(/["']/g, "") === family);
  const context = document.createElement("canvas").getContext("2d");
  const width = (font) => { context.font = font; return context.measureText(sample).width; };
  const view = document.documentElement.clientWidth;
  const wraps = [...document.querySelectorAll(".table-wrap")];
  const result = {
    view,
    pageWidth: document.documentElement.scrollWidth,
    pageHeight: document.documentElement.scrollHeight,
    tables: document.querySelectorAll("table").length,
    wrapped: document.querySelectorAll(".table-wrap > table").length,
    pastWindow: wraps.filter((w) => w.getBoundingClientRect().right > view + 0.5).length,
    scrolling: wraps.filter((w) => w.scrollWidth > w.clientWidth).length,
    faces: faces.map((f) => f.status),
    ready: document.fonts.check("16px " + family, sample),
    bodyFont: getComputedStyle(document.body).fontFamily,
    // the same Hangul measured in the embedded face and in the machine's fallback: equal when the face is not used
    embedded: width("16px " + family + ", monospace"),
    fallback: width("16px monospace"),
  };
  const out = document.createElement("pre");
  out.id = "kopa-result";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
})();
</script>
"""


@pytest.fixture(scope="module")
def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"no headless Chromium ({', '.join(BROWSERS)}) on PATH: apt-get install chromium")


@pytest.fixture(scope="module")
def out(first) -> Path:
    cwd, _ = first
    return cwd / "runs" / "pipeline"


@pytest.fixture(scope="module")
def report(out) -> str:
    return (out / "report.html").read_text(encoding="utf-8")


def chrome(browser: str, profile: Path, url: str, *args: str) -> str:
    """One headless run (as root too: no sandbox; no GPU; its own profile), stdout returned."""
    command = [
        browser,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=5000",
        *args,
        url,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=90, env={**os.environ, "LANG": "C.UTF-8"})
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def hangul(page: str) -> str:
    """The distinct Hangul syllables of the page's text (its data: URLs left out)."""
    return "".join(sorted(set(_HANGUL.findall(re.sub(r"data:[^\"')]+", "", page)))))


def measure(browser: str, page: str, tmp_path: Path, name: str, width: int = WIDTH) -> dict:
    """The page in a window ``width`` px wide as :data:`_MEASURE` finds it."""
    assert page.count(_CSP) == 1  # the report's policy, widened below for the one script
    sample = hangul(page)
    script = _MEASURE % {"sample": json.dumps(sample), "family": json.dumps(FAMILY)}
    instrumented = page.replace(_CSP, "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">").replace(
        "</body>", script + "</body>"
    )
    path = tmp_path / f"{name}.html"
    path.write_text(instrumented, encoding="utf-8")
    dom = chrome(browser, tmp_path / "profile", path.as_uri(), "--dump-dom", f"--window-size={width},900")
    found = re.search(r'<pre id="kopa-result">(.*?)</pre>', dom, re.S)
    assert found, f"the measuring script wrote nothing: {dom[-1000:]}"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def measured(browser, report, tmp_path_factory) -> dict:
    return measure(browser, report, tmp_path_factory.mktemp("browser"), "report")


def test_the_report_has_hangul_for_the_font_to_draw(report):
    assert len(hangul(report)) >= 10  # failure reasons, drift messages, bindings of Korean field names


def test_no_table_runs_past_the_page_at_1280(measured):
    assert measured["view"] == WIDTH
    assert measured["tables"] >= 10 and measured["wrapped"] == measured["tables"]  # every table in its box
    assert measured["pastWindow"] == 0
    assert measured["pageWidth"] <= measured["view"]  # the page never scrolls sideways, a wide table's box does


def test_the_text_is_drawn_in_the_embedded_font(measured):
    assert measured["faces"] == ["loaded"]
    assert measured["ready"] is True
    assert measured["bodyFont"].replace('"', "").startswith(f"{FAMILY},")
    assert measured["embedded"] != measured["fallback"]


def test_a_table_wider_than_the_window_scrolls_in_its_box(browser, report, tmp_path):
    found = measure(browser, report, tmp_path, "narrow", NARROW)
    assert found["view"] == NARROW
    assert found["scrolling"] >= 1 and found["pastWindow"] == 0
    assert found["pageWidth"] <= found["view"]


def test_the_checks_fail_on_a_page_without_the_font_or_the_boxes(browser, report, tmp_path):
    broken = _FONT_DATA.sub(r"\1\2", report)  # the @font-face left with an empty font
    assert broken != report
    unboxed = broken.replace('<div class="table-wrap">', "<div>")
    found = measure(browser, unboxed, tmp_path, "broken", NARROW)
    assert found["faces"] == ["error"] and found["ready"] is False
    assert found["embedded"] == found["fallback"]  # the Hangul falls back to whatever the machine has
    assert found["wrapped"] == 0 and found["pageWidth"] > found["view"]  # the widest table widens the page


def test_screenshots_at_1280_are_written_under_the_run_directory(browser, out, measured, tmp_path):
    shots = out / "screenshots"
    shots.mkdir(exist_ok=True)
    url = (out / "report.html").as_uri()
    top, full = shots / f"report-{WIDTH}.png", shots / f"report-{WIDTH}-full.png"
    chrome(browser, tmp_path / "profile", url, f"--screenshot={top}", f"--window-size={WIDTH},900")
    chrome(
        browser, tmp_path / "profile", url, f"--screenshot={full}", f"--window-size={WIDTH},{measured['pageHeight']}"
    )
    from PIL import Image  # matplotlib's own dependency

    for shot, height in ((top, 900), (full, measured["pageHeight"])):
        with Image.open(shot) as image:
            assert image.format == "PNG" and image.size == (WIDTH, height)
            assert image.convert("L").getextrema()[0] < 64  # text drawn, not a blank page
