"""Browser tests: Debian's Chromium driven by playwright against a real `gmtags` server.

The browser is the system's (`/usr/bin/chromium`, or `GMTAGS_CHROMIUM`), launched
headless with the flags this machine's closed network needs; playwright's own
browser download is never used. `serve` starts a `gmtags` command line that
serves (`demo --serve`, `serve …`) in a subprocess on a free loopback port and
gives its base URL once `/healthz` answers.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = os.environ.get("GMTAGS_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GMTAGS = Path(sys.executable).parent / "gmtags"
"""The `gmtags` command of the environment the tests run in."""
SHOTS = Path(os.environ.get("GMTAGS_SHOTS") or Path(tempfile.gettempdir()) / "gmtags-shots")
"""Where the pages' screenshots are written: a temporary folder, or `GMTAGS_SHOTS`
(`make screenshots` sets it to `docs/`, where the README shows them)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one test module: playwright's sync API holds an event loop in the main
    thread while it runs, and tests after the browser modules call `asyncio.run`."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page (its own context: no cookies carried between tests). Anything the pages'
    Content-Security-Policy refused (an inline style or script, a request elsewhere) fails
    the test: the policy must never break a page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    refused: list[str] = []
    opened.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield opened
    context.close()
    assert not refused, f"the page's Content-Security-Policy refused: {refused}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def serve(tmp_path: Path, browser: Browser) -> Iterator[Callable[..., str]]:
    """`serve("demo", "--serve")` runs `gmtags demo --serve --port N` and gives its URL.

    The pages are closed before the server stops: a state page left open holds an events
    stream, which a stopping server waits for (up to its few seconds) before it exits."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str, timeout: float = 20.0) -> str:
        port = _free_port()
        log = (tmp_path / f"server-{port}.log").open("wb")
        process = subprocess.Popen(
            [str(GMTAGS), *args, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
        )
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"gmtags {' '.join(args)} exited: {log.name}")
            try:
                if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                    return url
            except httpx.HTTPError:
                time.sleep(0.1)
        pytest.fail(f"gmtags {' '.join(args)} did not answer on {url}")

    yield start
    for context in browser.contexts:
        context.close()
    for process in started:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
