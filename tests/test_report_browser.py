"""The report of a small real study, opened in headless Chromium.

The system Chromium is driven with Playwright (by its path; Playwright's own browser
downloads are not used), so the test sees every console message, uncaught exception,
failed load and network request, measures every figure as rendered, and takes a
screenshot. At 1400 and 800 px it reads every text as drawn:

- no text is clipped: each ``<text>`` of an inline SVG figure lies inside its figure's
  box, and no text of the page is cut by a container that hides its overflow;
- every text has a contrast of at least 4.5:1 (WCAG 2 relative luminance) against its
  effective background: the page drawn with every text made transparent (a full-page
  screenshot), read under the text's box. Each colour that fills at least a quarter
  of the box counts, so a label half on a dark cell and half on white is held to both.

Skipped, with the reason, only where no Chromium is installed.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

WIDTHS = (1400, 800)
#: WCAG 2's minimum contrast for text (success criterion 1.4.3, level AA).
MIN_CONTRAST = 4.5
#: How far (CSS px) a text's box may reach past its figure or container: rounding of
#: the glyph boxes, not a visible cut (a cut letter is several px).
CLIP_TOLERANCE_PX = 0.5
#: A background colour counts when it fills at least this share of the text's box.
BACKGROUND_SHARE = 0.25

_MEASURE = """
(() => {
  const out = [];
  for (const el of document.querySelectorAll("img, svg")) {
    if (el.tagName.toLowerCase() === "svg" && el.parentElement.closest("svg")) continue;
    const r = el.getBoundingClientRect();
    out.push({tag: el.tagName.toLowerCase(), width: r.width, height: r.height,
              complete: el.tagName.toLowerCase() === "img" ? el.complete : true,
              natural: el.tagName.toLowerCase() === "img" ? el.naturalWidth : -1});
  }
  return out;
})()
"""

# Every text as laid out, in page coordinates (the page is at scroll 0): for each text
# of an inline SVG figure its box, its figure's box and its colour; for each text node of
# the page its line boxes, the box its overflow-hiding ancestors leave visible, whether
# it is cut with an ellipsis, and its colour. Opacity of the ancestors is folded in.
_TEXTS = """
(() => {
  const sx = window.scrollX, sy = window.scrollY;
  const box = (r) => [r.left + sx, r.top + sy, r.right + sx, r.bottom + sy];
  const where = (el) => {
    const fig = el.closest("figure");
    const cap = fig && fig.querySelector("figcaption");
    const det = el.closest("details");
    const part = det ? det.querySelector("summary").firstChild.textContent.trim() : "study";
    return part + ": " + (cap ? cap.textContent.trim().slice(0, 60)
                              : el.tagName.toLowerCase());
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    return o;
  };
  const svg = [], html = [];
  const figures = [...document.querySelectorAll("svg")]
    .filter((s) => !s.parentElement.closest("svg"));
  for (const fig of figures) {
    const figbox = box(fig.getBoundingClientRect());
    for (const t of fig.querySelectorAll("text")) {
      const cs = getComputedStyle(t);
      if (!t.textContent.trim() || cs.visibility !== "visible" || cs.display === "none")
        continue;
      svg.push({where: where(fig), text: t.textContent.trim(), figbox,
                boxes: [box(t.getBoundingClientRect())], colour: cs.fill,
                alpha: parseFloat(cs.fillOpacity) * opacity(t)});
    }
  }
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.closest("svg, script, style, noscript")) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible") continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const boxes = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!boxes.length) continue;  // not laid out
    let clip = null;  // what the ancestors that hide their overflow leave visible
    for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
      const ac = getComputedStyle(a);
      // overflow hidden or clip cuts; so does paint containment (contain: paint,
      // content, strict); a box that scrolls (auto, scroll) keeps its text reachable
      if (!/hidden|clip/.test(ac.overflowX + " " + ac.overflowY)
          && !/paint|content|strict/.test(ac.contain)) continue;
      const r = a.getBoundingClientRect();
      const left = r.left + a.clientLeft + sx, top = r.top + a.clientTop + sy;
      const c = [left, top, left + a.clientWidth, top + a.clientHeight];
      clip = clip ? [Math.max(clip[0], c[0]), Math.max(clip[1], c[1]),
                     Math.min(clip[2], c[2]), Math.min(clip[3], c[3])] : c;
    }
    html.push({where: where(el), text: n.textContent.trim().slice(0, 80),
               boxes: boxes.map(box), clip,
               ellipsis: cs.textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth,
               colour: cs.color, alpha: opacity(el)});
  }
  return {svg, html};
})()
"""

# The page as its texts' background: every text transparent, nothing else changed
# (colour and visibility do not move anything).
_HIDE_TEXT = """
* { color: transparent !important; text-shadow: none !important;
    -webkit-text-stroke: 0 !important; }
svg text { visibility: hidden !important; }
"""


def _rgba(css: str) -> tuple[np.ndarray, float]:
    """``rgb(r, g, b)`` or ``rgba(r, g, b, a)`` as (rgb in [0, 1], alpha)."""
    inside = css[css.index("(") + 1:css.rindex(")")].replace("/", ",").replace(" ", ",")
    parts = [float(v) for v in inside.split(",") if v]
    alpha = parts[3] if len(parts) > 3 else 1.0
    return np.array(parts[:3]) / 255.0, alpha


def relative_luminance(rgb) -> np.ndarray:
    """WCAG 2 relative luminance of sRGB colours in [0, 1] (last axis: r, g, b)."""
    rgb = np.asarray(rgb, dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast_ratio(a, b) -> np.ndarray:
    """WCAG 2 contrast ratio, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def test_contrast_ratio_follows_wcag():
    assert contrast_ratio([0, 0, 0], [1, 1, 1]) == pytest.approx(21.0)
    assert contrast_ratio([1, 1, 1], [1, 1, 1]) == pytest.approx(1.0)
    # #767676 on white is the classic just-passing grey (4.54:1); #777777 just fails
    assert contrast_ratio(np.array([0x76] * 3) / 255, [1, 1, 1]) == pytest.approx(4.54, abs=0.01)
    assert contrast_ratio(np.array([0x77] * 3) / 255, [1, 1, 1]) < MIN_CONTRAST
    assert _rgba("rgba(255, 0, 0, 0.5)")[1] == 0.5
    assert list(_rgba("rgb(0, 128, 255)")[0]) == pytest.approx([0, 128 / 255, 1])


def _lowest_contrast(boxes, colour, alpha, backdrop) -> tuple[float, tuple]:
    """The lowest contrast of a text (its colour composited over the background) against
    each colour that fills at least ``BACKGROUND_SHARE`` of one of its boxes."""
    fg, a = _rgba(colour)
    a *= alpha
    worst, against = np.inf, ()
    h, w = backdrop.shape[:2]
    for x0, y0, x1, y1 in boxes:
        rows = slice(max(int(np.floor(y0)), 0), min(int(np.ceil(y1)), h))
        cols = slice(max(int(np.floor(x0)), 0), min(int(np.ceil(x1)), w))
        pixels = backdrop[rows, cols].reshape(-1, 3)
        if not len(pixels):
            continue
        packed = (pixels[:, 0].astype(np.int64) << 16) | (pixels[:, 1].astype(np.int64) << 8)
        packed |= pixels[:, 2]
        colours, counts = np.unique(packed, return_counts=True)
        for key in colours[counts >= BACKGROUND_SHARE * len(pixels)]:
            bg = np.array([key >> 16, (key >> 8) & 255, key & 255])
            bg01 = bg / 255.0
            c = float(contrast_ratio(a * fg + (1 - a) * bg01, bg01))
            if c < worst:
                worst, against = c, tuple(int(v) for v in bg)
    return worst, against


def read_texts(page) -> dict:
    """Every text of ``page`` (at scroll 0) with its boxes, and its lowest contrast against
    the page drawn without text (``contrast``, ``background``). JSON-ready."""
    from PIL import Image

    page.evaluate("window.scrollTo(0, 0)")
    texts = page.evaluate(_TEXTS)
    page.add_style_tag(content=_HIDE_TEXT)
    shot = page.screenshot(full_page=True, animations="disabled")
    with Image.open(io.BytesIO(shot)) as img:
        backdrop = np.asarray(img.convert("RGB"))
    for t in texts["svg"] + texts["html"]:
        ratio, bg = _lowest_contrast(t["boxes"], t["colour"], t["alpha"], backdrop)
        t["contrast"], t["background"] = ratio, f"rgb{bg}"
    texts["backdrop_size"] = list(backdrop.shape[:2])
    return texts


def clipped_texts(texts) -> list[tuple]:
    """(where, text, how far past the edge in px) of every cut text."""
    tol = CLIP_TOLERANCE_PX
    out = []
    for t in texts["svg"]:
        (x0, y0, x1, y1), (f0, g0, f1, g1) = t["boxes"][0], t["figbox"]
        past = max(f0 - x0, g0 - y0, x1 - f1, y1 - g1)
        if past > tol:
            out.append((t["where"], t["text"], round(past, 1)))
    for t in texts["html"]:
        if t["ellipsis"]:
            out.append((t["where"], t["text"], "ellipsis"))
            continue
        if t["clip"] is None:
            continue
        c0, d0, c1, d1 = t["clip"]
        past = max(max(c0 - x0, d0 - y0, x1 - c1, y1 - d1) for x0, y0, x1, y1 in t["boxes"])
        if past > tol:
            out.append((t["where"], t["text"], round(past, 1)))
    return out


def low_contrast_texts(texts, kind) -> list[tuple]:
    """(where, text, contrast, colour, background) of every text under MIN_CONTRAST."""
    return [(t["where"], t["text"], round(t["contrast"], 2), t["colour"], t["background"])
            for t in texts[kind] if not t["contrast"] >= MIN_CONTRAST]


def _watch(page) -> dict:
    """Record what the page does: uncaught exceptions, console messages (Chromium's own
    log entries among them), requests and failed loads. No request leaves the machine."""
    seen = {"errors": [], "console": [], "requests": [], "failed": []}
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("console", lambda m: seen["console"].append((m.type, m.text)))
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("requestfailed", lambda r: seen["failed"].append((r.url, r.failure)))
    # nothing may reach out: a request that would is recorded above, then refused here
    page.route("http*://**", lambda route: route.abort())
    return seen


def _render(launch, report, where):
    """Open the report as a reader would and write down what the tests check."""
    with launch() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 2000},
                                device_scale_factor=1)
        seen = _watch(page)
        page.goto(report.resolve().as_uri(), wait_until="load")
        (where / "shot.png").write_bytes(page.screenshot())
        n_details = page.evaluate(
            "(() => { const d = document.querySelectorAll('details');"
            " d.forEach(x => x.open = true); return d.length; })()")
        page.wait_for_timeout(300)  # let the opened sections lay out and decode their images
        sizes = page.evaluate(_MEASURE)
        title = page.title()
        page.evaluate("0")  # flush pending events
        views = {}
        for width in WIDTHS:
            view = browser.new_page(viewport={"width": width, "height": 1000},
                                    device_scale_factor=1)
            watched = _watch(view)
            view.goto(report.resolve().as_uri(), wait_until="load")
            view.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            view.wait_for_timeout(300)
            views[str(width)] = read_texts(view)
            view.close()
            for key, found in watched.items():  # an error at any width is an error
                seen[key] += found
    got = {"details": n_details, "sizes": sizes, "title": title, "seen": seen,
           "texts": views}
    (where / "rendered.json").write_text(json.dumps(got))
    return where


@pytest.fixture(scope="module")
def rendered(chromium, quick_report, build_once):
    # one rendering per test run, whichever xdist worker gets these tests
    where = build_once("browser-rendered", lambda d: _render(chromium, quick_report, d))
    got = json.loads((where / "rendered.json").read_text())
    got["shot"] = (where / "shot.png").read_bytes()
    got["texts"] = {int(w): v for w, v in got["texts"].items()}
    return got


def test_the_page_loads_with_its_title(rendered):
    assert rendered["title"] == "metaeval report"
    assert rendered["details"] == 2  # one collapsed section per dataset


def _problems(seen) -> list:
    return (list(seen["errors"])
            + [text for kind, text in seen["console"] if kind in ("error", "assert")]
            + list(seen["failed"]))


def test_no_console_errors_or_uncaught_exceptions(rendered):
    assert _problems(rendered["seen"]) == []


def test_no_network_request_leaves_the_file(rendered):
    urls = rendered["seen"]["requests"]
    assert urls, "the page load itself should be seen"
    assert all(u.startswith(("file:", "data:")) for u in urls), urls


def test_every_figure_is_rendered_with_a_size(rendered):
    sizes = rendered["sizes"]
    # 13 study-wide figures and, per dataset, 8 figures after the papers + 2 instance-space ones
    assert len(sizes) >= 13 + 2 * 8
    assert {s["tag"] for s in sizes} == {"img", "svg"}
    for s in sizes:
        assert s["width"] > 50 and s["height"] > 50, s
        if s["tag"] == "img":
            assert s["complete"] and s["natural"] > 0, s


def test_screenshot_is_not_blank(rendered):
    import matplotlib.image as mpimg

    img = mpimg.imread(io.BytesIO(rendered["shot"]), format="png")
    assert img.shape[:2] == (2000, 1280)
    rgb = img[..., :3].reshape(-1, 3)
    r, g, b = np.round(rgb * 255).astype(np.int64).T
    colours = np.unique((r << 16) | (g << 8) | b)  # one integer per colour
    assert len(colours) > 50  # text, figures, header band: far from one colour
    assert rgb.std(axis=0).max() > 0.05


@pytest.mark.parametrize("width", WIDTHS)
def test_every_text_is_read(rendered, width):
    texts = rendered["texts"][width]
    # every figure's texts and the page's: titles, ticks, captions, tables, glossary
    assert len({t["where"] for t in texts["svg"]}) >= 13
    assert len(texts["svg"]) > 300 and len(texts["html"]) > 300
    assert any(t["text"] == "metaeval report" for t in texts["html"])
    h, w = texts["backdrop_size"]
    assert w == width
    assert max(b[3] for t in texts["html"] for b in t["boxes"]) <= h + 1


@pytest.mark.parametrize("width", WIDTHS)
def test_no_figure_text_is_cut_at_the_figure_edge(rendered, width):
    texts = rendered["texts"][width]
    cut = clipped_texts({"svg": texts["svg"], "html": []})
    assert not cut, f"figure texts past their figure's edge at {width} px: {cut}"


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_text_is_clipped_by_its_container(rendered, width):
    texts = rendered["texts"][width]
    cut = clipped_texts({"svg": [], "html": texts["html"]})
    assert not cut, f"page texts cut by their container at {width} px: {cut}"


@pytest.mark.parametrize("width", WIDTHS)
def test_figure_text_has_a_contrast_of_at_least_4_5(rendered, width):
    low = low_contrast_texts(rendered["texts"][width], "svg")
    assert not low, f"figure texts under {MIN_CONTRAST}:1 at {width} px: {low}"


@pytest.mark.parametrize("width", WIDTHS)
def test_page_text_has_a_contrast_of_at_least_4_5(rendered, width):
    low = low_contrast_texts(rendered["texts"][width], "html")
    assert not low, f"page texts under {MIN_CONTRAST}:1 at {width} px: {low}"


_BROKEN = """<!DOCTYPE html><html><body style="margin:0;background:#fff">
<svg width="0" height="0"></svg>
<img src="http://example.invalid/x.png" alt="x">
<figure id="f"><svg width="300" height="100" viewBox="0 0 300 100" style="display:block">
  <rect x="150" y="0" width="150" height="100" fill="#21918c"/>
  <rect x="0" y="50" width="150" height="50" fill="#000"/>
  <text x="10" y="30" font-size="12" fill="#000">inside</text>
  <text x="240" y="90" font-size="14" fill="#000">cut at the right edge</text>
  <text x="10" y="45" font-size="12" fill="#aaaaaa">pale</text>
  <text x="170" y="30" font-size="12" fill="#fff">white on teal</text>
  <text x="10" y="80" font-size="12" fill="#fff">white on black</text>
  <text x="10" y="20" font-size="12" fill="#000" opacity="0.3">faded</text>
</svg><figcaption>test figure</figcaption></figure>
<div style="width:60px;overflow:hidden;white-space:nowrap">hidden overflow text</div>
<div style="width:60px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis">
  ellipsis text</div>
<div style="width:60px;overflow-x:auto;white-space:nowrap">scrolls, not cut</div>
<div style="width:60px;contain:paint;white-space:nowrap">painted inside only</div>
<p style="color:#999">grey on white</p>
<p style="color:#fff;background:#15324f">white on navy</p>
<p style="color:#fff;background:#ccc">white on light grey</p>
<script>console.error('boom'); undefinedFunction();</script></body></html>"""


def test_the_harness_sees_what_it_checks(chromium, tmp_path):
    # the checks above must be able to fail: a page with each fault, seen by the same
    # harness, and beside each fault its sound twin that must pass
    page_file = tmp_path / "broken.html"
    page_file.write_text(_BROKEN)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 400, "height": 300},
                                device_scale_factor=1)
        seen = _watch(page)
        page.goto(page_file.as_uri(), wait_until="load")
        sizes = page.evaluate(_MEASURE)
        page.evaluate("0")
        texts = read_texts(page)
    assert seen["errors"] and any("undefinedFunction" in e for e in seen["errors"])
    assert ("error", "boom") in seen["console"]
    # Chromium's own log (DevTools' Log domain) reaches the console too: the failed load
    assert any(k == "error" and "Failed to load resource" in t for k, t in seen["console"])
    assert any(u.startswith("http:") for u in seen["requests"])
    assert any(u.startswith("http:") for u, _ in seen["failed"])  # refused, and seen
    svg = next(s for s in sizes if s["tag"] == "svg")
    assert svg["width"] == 0 and svg["height"] == 0

    cut = {text: past for _, text, past in clipped_texts(texts)}
    assert set(cut) == {"cut at the right edge", "hidden overflow text", "ellipsis text",
                        "painted inside only"}
    assert cut["cut at the right edge"] > 50 and cut["ellipsis text"] == "ellipsis"

    low = {text: ratio for _, text, ratio, _, _ in low_contrast_texts(texts, "svg")}
    assert set(low) == {"pale", "white on teal", "faded"}
    assert low["pale"] == pytest.approx(2.32, abs=0.01)  # #aaaaaa on white
    assert low["white on teal"] == pytest.approx(3.8, abs=0.2)  # #21918c
    low = {text: ratio for _, text, ratio, _, _ in low_contrast_texts(texts, "html")}
    assert set(low) == {"grey on white", "white on light grey"}
    assert low["grey on white"] == pytest.approx(2.85, abs=0.01)  # #999999 on white
