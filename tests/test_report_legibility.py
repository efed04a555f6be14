"""The report as a reader sees it: rendered in headless Chromium at 800 and 1400 px.

At both widths, with every dataset section open:

- nothing overflows the window sideways (figure rows wrap, wide tables scroll in
  their own box);
- every figure's text is at least 9 CSS px on screen: for an inline SVG, each
  ``<text>``'s font size times the scale the browser draws it at; for a PNG, the
  size of its smallest text (``data-min-font-pt``, points at 96 px per inch)
  times the scale of the image on screen;
- every abbreviation in the headings, table heads, captions and figure texts is
  a term of the glossary, and the glossary is linked from the sticky bar;
- a jump to a section leaves its heading below the sticky bar.

The system Chromium is driven with Playwright (see ``tests/conftest.py``). Skipped, with
the reason, only where no Chromium is installed.
"""

from __future__ import annotations

import json
import re

import pytest

# an abbreviation: a token with two capitals, or a capital and a digit (SF, AccD, kDN,
# TD_P, A3R, F1, PC1, 3NN), not part of a hyphenated word
_ABBREV = re.compile(r"(?<![\w-])[A-Za-z0-9]\w*[A-Za-z0-9](?![\w-])")


def abbreviations_in(text: str) -> set[str]:
    return {t for t in _ABBREV.findall(str(text))
            if sum(c.isupper() for c in t) >= 2
            or (any(c.isupper() for c in t) and any(c.isdigit() for c in t))}


def test_abbreviations_are_found():
    text = "ARR at SRR = 1 for AccD = 0.1; kDN, TD_P and 3NN, not Fig. 3 or Niculescu-Mizil"
    assert abbreviations_in(text) == {"ARR", "SRR", "AccD", "kDN", "TD_P", "3NN"}


#: The smallest text a reader should have to read, in CSS px, at display size.
MIN_PX = 9.0
WIDTHS = (800, 1400)

_READ = """
(() => {
  const out = {figures: [], texts: [], terms: [], links: []};
  out.overflow = document.documentElement.scrollWidth - window.innerWidth;
  out.bodyOverflow = document.body.scrollWidth - window.innerWidth;
  let n = 0;
  for (const fig of document.querySelectorAll("figure")) {
    n += 1;
    const caption = (fig.querySelector("figcaption") || {}).textContent || "";
    const svg = fig.querySelector(":scope > svg");
    const img = fig.querySelector(":scope > img");
    const r = (svg || img).getBoundingClientRect();
    const item = {n, caption, width: r.width, right: r.right, kind: svg ? "svg" : "img",
                  minPx: Infinity, smallest: ""};
    if (svg) {
      for (const t of svg.querySelectorAll("text")) {
        const s = t.textContent.trim();
        if (!s) continue;
        const m = t.getScreenCTM();
        const scale = Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
        const px = parseFloat(getComputedStyle(t).fontSize) * scale;
        out.texts.push(s);
        if (px < item.minPx) { item.minPx = px; item.smallest = s; }
      }
    } else {
      const pt = parseFloat(img.dataset.minFontPt);
      // the width attribute is the figure's size at 96 px per inch (img.width would be
      // the size on screen)
      const scale = r.width / parseFloat(img.getAttribute("width"));
      item.minPx = pt * 96 / 72 * scale;
      item.smallest = "(smallest text of the image, " + pt + " pt, shown at " +
                      scale.toFixed(2) + "x)";
      out.texts.push(img.alt);
    }
    out.figures.push(item);
  }
  for (const el of document.querySelectorAll("h1, h2, h3, h4, th, summary, figcaption, nav a"))
    out.texts.push(el.textContent);
  for (const dt of document.querySelectorAll("#glossary dt")) out.terms.push(dt.textContent);
  for (const a of document.querySelectorAll("a[href^='#']"))
    out.links.push([a.getAttribute("href"),
                    !!document.getElementById(a.getAttribute("href").slice(1))]);
  return JSON.stringify(out);
})()
"""

_JUMP = """
(async () => {
  const out = [];
  const bar = document.querySelector("nav").getBoundingClientRect().bottom;
  for (const id of ["rankings", "benchmark", "glossary"]) {
    const h2 = document.querySelector("#" + id + " > h2");
    if (!h2) { out.push([id, null, bar]); continue; }
    location.hash = "#" + id;
    await new Promise(r => setTimeout(r, 150));
    out.push([id, h2.getBoundingClientRect().top,
              document.querySelector("nav").getBoundingClientRect().bottom]);
  }
  location.hash = "";
  return JSON.stringify(out);
})()
"""


_DATASET_JUMP = """
(async () => {
  const a = document.querySelector("p.jump a");
  if (!a) return JSON.stringify(null);
  location.hash = a.getAttribute("href");
  await new Promise(r => setTimeout(r, 300));
  const d = document.getElementById(a.getAttribute("href").slice(1)).closest("details");
  const out = [a.textContent, !!(d && d.open),
               d ? d.querySelector("summary").getBoundingClientRect().top : null,
               document.querySelector("nav").getBoundingClientRect().bottom];
  location.hash = "";
  return JSON.stringify(out);
})()
"""


def _read_page(browser, url, width):
    page = browser.new_page(viewport={"width": width, "height": 900}, device_scale_factor=1)
    try:
        page.goto(url, wait_until="load")
        dataset_jump = json.loads(page.evaluate(_DATASET_JUMP))
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.wait_for_timeout(400)  # lay out the opened sections, decode their images
        got = json.loads(page.evaluate(_READ))
        got["jumps"] = json.loads(page.evaluate(_JUMP))
        got["dataset_jump"] = dataset_jump
    finally:
        page.close()
    return got


def _read_pages(launch, report, where):
    url = report.resolve().as_uri()
    with launch() as browser:
        got = {str(w): _read_page(browser, url, w) for w in WIDTHS}
    (where / "pages.json").write_text(json.dumps(got))
    return where / "pages.json"


@pytest.fixture(scope="module")
def pages(chromium, quick_report, build_once):
    # read once per test run, whichever xdist worker gets these tests
    path = build_once("legibility-pages", lambda d: _read_pages(chromium, quick_report, d))
    return {int(w): page for w, page in json.loads(path.read_text()).items()}


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_overflows_the_window_sideways(pages, width):
    page = pages[width]
    assert page["overflow"] <= 0 and page["bodyOverflow"] <= 0, (
        f"the page is {page['overflow']} px wider than a {width} px window")
    wide = [(f["n"], f["caption"][:60], round(f["right"])) for f in page["figures"]
            if f["right"] > width + 0.5]
    assert not wide, f"figures reaching past the window's right edge: {wide}"


@pytest.mark.parametrize("width", WIDTHS)
def test_every_figures_text_is_at_least_9_px_on_screen(pages, width):
    figures = pages[width]["figures"]
    assert len(figures) >= 20  # the study-wide figures and both datasets' sections
    assert {f["kind"] for f in figures} == {"svg", "img"}
    small = [(f["n"], f["kind"], round(f["minPx"], 1), f["smallest"][:50], f["caption"][:50])
             for f in figures if not f["minPx"] >= MIN_PX]
    assert not small, f"text under {MIN_PX} px at {width} px: {small}"


def test_every_abbreviation_is_in_the_glossary(pages):
    page = pages[1400]
    terms = {t.strip() for t in page["terms"]}
    assert {"SF", "SD", "RD", "SU", "RU", "AR", "SRR", "SW", "ARR", "A3R", "AccD", "CD", "IH",
            "CH", "kDN", "TD_P", "F1"} <= terms
    assert {"NB", "DT", "LR"} <= terms  # the study's own algorithms, with their settings
    found = {}
    for text in page["texts"]:
        for abbrev in abbreviations_in(text):
            if abbrev not in terms:
                found.setdefault(abbrev, text.strip()[:80])
    assert not found, f"abbreviations missing from the glossary: {found}"


def test_the_glossary_and_every_dataset_are_linked_and_every_link_lands(pages):
    links = dict(pages[1400]["links"])
    assert "#glossary" in links
    assert {"#ds-labor", "#ds-hepatitis"} <= set(links)
    assert all(links.values()), [h for h, ok in links.items() if not ok]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_jump_leaves_the_heading_below_the_sticky_bar(pages, width):
    for section, heading_top, bar_bottom in pages[width]["jumps"]:
        assert heading_top is not None, f"no section {section!r}"
        assert heading_top >= bar_bottom - 1, (section, heading_top, bar_bottom)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_dataset_link_opens_its_section_below_the_bar(pages, width):
    jump = pages[width]["dataset_jump"]
    assert jump is not None, "no links to the datasets' sections"
    name, opened, summary_top, bar_bottom = jump
    assert opened, f"following the link to {name!r} left its section closed"
    assert summary_top >= bar_bottom - 1, (name, summary_top, bar_bottom)


def test_the_checks_can_fail(chromium, tmp_path):
    # a page with each fault, read by the same script: wide, tiny text, an unknown term
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><style>nav{position:sticky;top:0;height:60px}</style>"
        "</head><body><nav><a href='#rankings'>x</a></nav>"
        "<section id='rankings'><h2>QXZ rankings</h2>"
        "<figure><svg width='1200' height='100' viewBox='0 0 1200 100'>"
        "<text x='5' y='50' style='font-size:6px'>tiny</text></svg>"
        "<figcaption>c</figcaption></figure></section>"
        "<section id='benchmark'><h2>b</h2></section><section id='glossary'><h2>g</h2>"
        "<dl><dt>SF</dt><dd>x</dd></dl></section><div style='height:3000px'></div>"
        "</body></html>")
    with chromium() as browser:
        got = _read_page(browser, page.as_uri(), 800)
    assert got["overflow"] > 0
    assert got["figures"][0]["minPx"] < MIN_PX
    assert "QXZ" in set().union(*(abbreviations_in(t) for t in got["texts"]))
    assert any(top < bar for _, top, bar in got["jumps"])
