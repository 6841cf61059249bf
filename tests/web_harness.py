"""Helpers of the web front end's tests: a server on a thread, a headless Chromium.

The browser is Debian's ``/usr/bin/chromium`` driven through its ``/usr/bin/chromedriver``
(never a driver Selenium Manager would download); tests that need it are skipped, with
the reason, where either is missing.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from traxfpga.host.web.server import make_app
from traxfpga.host.web.session import Table

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: A protocol player that answers ``-T`` and the start of a game, then exits: a board
#: that goes away in the middle of a game.
VANISHING = ROOT / "tests" / "data" / "web_vanishing_player.py"


def vanishing_spec():
    return f"cmd:{sys.executable} {VANISHING}"


class ServerThread:
    """The web server of a :class:`Table` on its own event loop and thread, on a free
    port of 127.0.0.1; ``url``; ``call(fn)`` runs ``fn()`` on the loop; ``stop()``."""

    def __init__(self, opponents, **table_args):
        self.opponents = opponents
        self.table_args = table_args
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._thread.start()
        if not self._ready.wait(120):
            raise RuntimeError("the web server did not start")
        if self.error:
            raise self.error

    def _main(self):
        from aiohttp import web
        asyncio.set_event_loop(self.loop)
        self.error = None

        async def start():
            self.table = Table({s: s for s in self.opponents}, **self.table_args)
            self.runner = web.AppRunner(make_app(self.table), handle_signals=False)
            await self.runner.setup()
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            await site.start()
            self.port = self.runner.addresses[0][1]
            self.url = f"http://127.0.0.1:{self.port}/"

        try:
            self.loop.run_until_complete(start())
        except Exception as e:      # reported to the test by __init__
            self.error = e
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()

    def call(self, fn, timeout=30):
        async def go():
            return fn()
        return asyncio.run_coroutine_threadsafe(go(), self.loop).result(timeout)

    def stop(self):
        async def down():
            await self.runner.cleanup()
        asyncio.run_coroutine_threadsafe(down(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)


def chromium_missing():
    """Why no browser test can run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            return f"{path} is missing (Debian: apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


def open_browser(width=1280, height=900):
    """A headless Chromium under Selenium, with a profile of its own."""
    reason = chromium_missing()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="trax-web-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    driver._trax_profile = profile
    return driver


def close_browser(driver):
    try:
        driver.quit()
    finally:
        shutil.rmtree(driver._trax_profile, ignore_errors=True)
