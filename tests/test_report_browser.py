"""The report of a small real study, opened in headless Chromium.

Chromium is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``,
file descriptors 3 and 4), so the test sees every console message, uncaught
exception, failed load and network request, measures every figure as rendered,
and takes a screenshot, with nothing but the standard library. Skipped, with the
reason, only where no Chromium is installed.
"""

from __future__ import annotations

import base64
import io
import json
import os
import select
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser",
                                                           "google-chrome")) if p), None)

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: "
                       "`apt-get install chromium`); the report's browser test needs it"),
    pytest.mark.skipif(not sys.platform.startswith("linux"),
                       reason="the DevTools pipe (fds 3/4) is set up for Linux only"),
]

_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--disable-dev-shm-usage")


def _remap_fds(read_end, write_end):  # runs in the child, before exec
    import fcntl

    a = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10)
    b = fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
    os.dup2(a, 3)
    os.dup2(b, 4)


class DevTools:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``."""

    def __init__(self, user_data_dir, *, width=1280, height=2000):
        cmd_r, self._cmd_w = os.pipe()  # we write commands, Chromium reads fd 3
        self._evt_r, evt_w = os.pipe()  # Chromium writes fd 4, we read
        self.proc = subprocess.Popen(
            [CHROMIUM, *_FLAGS, f"--user-data-dir={user_data_dir}",
             f"--window-size={width},{height}", "--remote-debugging-pipe", "about:blank"],
            pass_fds=(3, 4), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, preexec_fn=lambda: _remap_fds(cmd_r, evt_w))
        os.close(cmd_r)
        os.close(evt_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None

    def send(self, method, params=None, *, timeout=30.0, session=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        wanted = self._id
        reply = self.wait(lambda m: m.get("id") == wanted, timeout=timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def _read(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from Chromium in time")
            ready, _, _ = select.select([self._evt_r], [], [], left)
            if ready:
                chunk = os.read(self._evt_r, 1 << 20)
                if not chunk:
                    raise EOFError("Chromium closed the DevTools pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def wait(self, predicate, *, timeout=30.0):
        for i, event in enumerate(self.events):
            if predicate(event):
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(max(deadline - time.monotonic(), 0.0))
            if predicate(msg):
                return msg
            self.events.append(msg)

    def open_page(self, url, *, width=1280, height=2000):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})
        self.wait(lambda m: m.get("method") == "Page.loadEventFired", timeout=60)

    def evaluate(self, expression):
        got = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in got:
            raise RuntimeError(f"evaluation failed: {got['exceptionDetails']}")
        return got["result"].get("value")

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except (RuntimeError, TimeoutError, EOFError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        os.close(self._cmd_w)
        os.close(self._evt_r)


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


@pytest.fixture(scope="module")
def report_path(tmp_path_factory):
    from metaeval.report import write_report
    from metaeval.study import LocalExecutor, Study, run_study

    work = tmp_path_factory.mktemp("browser")
    store = work / "study.duckdb"
    study = Study(datasets=["labor", "hepatitis"], algorithms=["NB", "DT", "LR"], folds=3,
                  executor=LocalExecutor(jobs=1), store=str(store))
    summary = run_study(study)
    assert summary.n_done == 6
    return write_report(store, work / "report", strict=True, bootstrap_draws=200)


@pytest.fixture(scope="module")
def rendered(report_path, tmp_path_factory):
    tools = DevTools(tmp_path_factory.mktemp("chromium-profile"))
    try:
        tools.open_page(report_path.resolve().as_uri())
        shot_closed = tools.screenshot()
        n_details = tools.evaluate(
            "(() => { const d = document.querySelectorAll('details');"
            " d.forEach(x => x.open = true); return d.length; })()")
        time.sleep(0.3)  # let the opened sections lay out and decode their images
        sizes = tools.evaluate(_MEASURE)
        title = tools.evaluate("document.title")
        tools.send("Runtime.evaluate", {"expression": "0"})  # flush pending events
        events = list(tools.events)
    finally:
        tools.close()
    return {"shot": shot_closed, "details": n_details, "sizes": sizes, "title": title,
            "events": events}


def test_the_page_loads_with_its_title(rendered):
    assert rendered["title"] == "metaeval report"
    assert rendered["details"] == 2  # one collapsed section per dataset


def test_no_console_errors_or_uncaught_exceptions(rendered):
    problems = []
    for e in rendered["events"]:
        method = e.get("method")
        params = e.get("params", {})
        if method == "Runtime.exceptionThrown":
            problems.append(params["exceptionDetails"].get("text"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            problems.append(params.get("args"))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            problems.append(params["entry"].get("text"))
    assert problems == []


def test_no_network_request_leaves_the_file(rendered):
    urls = [e["params"]["request"]["url"] for e in rendered["events"]
            if e.get("method") == "Network.requestWillBeSent"]
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
    colours = np.unique(np.round(rgb * 255).astype(np.uint8), axis=0)
    assert len(colours) > 50  # text, figures, header band: far from one colour
    assert rgb.std(axis=0).max() > 0.05


def test_the_harness_sees_what_it_checks(tmp_path):
    # the checks above must be able to fail: a page with each fault, seen by the same harness
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><body><svg width='0' height='0'></svg>"
        "<img src='http://example.invalid/x.png' alt='x'>"
        "<script>console.error('boom'); undefinedFunction();</script></body></html>")
    tools = DevTools(tmp_path / "profile")
    try:
        tools.open_page(page.as_uri(), width=400, height=300)
        sizes = tools.evaluate(_MEASURE)
        tools.send("Runtime.evaluate", {"expression": "0"})
        events = list(tools.events)
    finally:
        tools.close()
    methods = [e.get("method") for e in events]
    assert "Runtime.exceptionThrown" in methods
    assert any(e.get("method") == "Runtime.consoleAPICalled"
               and e["params"]["type"] == "error" for e in events)
    assert any(e.get("method") == "Network.requestWillBeSent"
               and e["params"]["request"]["url"].startswith("http:") for e in events)
    svg = next(s for s in sizes if s["tag"] == "svg")
    assert svg["width"] == 0 and svg["height"] == 0
