"""A tiny DevTools-protocol client over a pipe, for the page tests (tests/e2e/test_report_pages.py).

Debian's chromium runs headless with --remote-debugging-pipe: the browser reads JSON commands from file
descriptor 3 and writes replies and events to descriptor 4, each message ending with a NUL byte. No
socket, no extra Python package. `open_page` loads one file:// page with the console, the log and the
network domains enabled and records every console error, exception, log error and network request the
page makes; `evaluate` runs an expression in it; `screenshot` returns the PNG bytes. `png_colours`
decodes an 8-bit RGB/RGBA PNG (the screenshot's format) with zlib alone and counts its distinct colours.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path


def chromium_binary() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed (scripts/bootstrap.sh installs Debian's chromium)"
    return found


class HeadlessChromium:
    def __init__(self, width: int = 1200, height: int = 1600):
        self._profile = tempfile.TemporaryDirectory(prefix="nnx-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The child's fds 3 and 4 are these pipe ends (Python's own fds are not inherited).
        def wire():
            # via fresh copies: a pipe end may itself be 3 or 4, and dup2 onto itself keeps close-on-exec
            reading, writing = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
        self._process = subprocess.Popen(
            [chromium_binary(), "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
             f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}", "about:blank"],
            preexec_fn=wire, close_fds=False,  # os.dup2 makes 3 and 4 inheritable; other fds are not
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self._session = None

    def close(self):
        try:
            self.command("Browser.close")
        except Exception:  # the browser may already be gone; it is killed below either way
            pass
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def command(self, method: str, params: dict | None = None, session: str | None = None, timeout=60) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for_event(self, method: str, timeout=60) -> dict:
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def open_page(self, path: Path):
        target = self.command("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.command("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.command(f"{domain}.enable", session=self._session)
        self.events.clear()
        self.url = path.resolve().as_uri()
        self.command("Page.navigate", {"url": self.url}, session=self._session)
        self.wait_for_event("Page.loadEventFired")
        # Let late work (fonts, images, a favicon) show itself before the page is judged.
        self.evaluate("new Promise(r => setTimeout(r, 500))", await_promise=True)

    def evaluate(self, expression: str, await_promise: bool = False):
        result = self.command("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                   "awaitPromise": await_promise}, session=self._session)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def screenshot(self, height: int | None = None) -> bytes:
        """The viewport as PNG, or only its top `height` CSS pixels."""
        params = {"format": "png", "captureBeyondViewport": False}
        if height is not None:
            width = self.evaluate("window.innerWidth")
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        data = self.command("Page.captureScreenshot", params, session=self._session)["data"]
        return base64.b64decode(data)

    def console_errors(self) -> list:
        errors = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append(params)
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(params)
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                errors.append(params)
        return errors

    def requests(self) -> list[str]:
        return [event["params"]["request"]["url"] for event in self.events
                if event.get("method") == "Network.requestWillBeSent"]


def png_colours(png: bytes, limit: int = 4096) -> int:
    """Distinct colours of an 8-bit RGB or RGBA, non-interlaced PNG (up to `limit`)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, idat, header = 8, b"", None
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        body = png[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in (2, 6) and interlace == 0, header
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    position = 0
    for _ in range(height):
        kind, line = raw[position], bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        for i in range(0, stride, channels * 7):  # every 7th pixel is plenty to tell a page from a blank
            colours.add(bytes(line[i:i + 3]))
        if len(colours) >= limit:
            return len(colours)
        previous = line
    return len(colours)
