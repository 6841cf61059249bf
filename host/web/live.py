"""The web page of a match the referee plays (``trax-fpga referee --web``).

The referee runs as always on the main thread; the server runs on a thread and event
loop of its own, with a table that offers no players (the page only watches).  The
referee's players are wrapped (:class:`~.pool.Watched`) so each answer reaches the page
as it is given; the games' starts and ends come through ``on_start``/``on_game``.
"""

from __future__ import annotations

import asyncio
import threading

from ..players import open_player
from .pool import Watched
from .session import MatchFeed, Table

__all__ = ["LiveServer"]


class LiveServer:
    """Serve the page on ``host:port`` (port 0: any free one; ``url`` says which) until
    :meth:`close`.  Raises OSError when the address cannot be served."""

    def __init__(self, host, port):
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._error = None
        self._never = threading.Event()     # the referee's match is never stopped from here
        self._thread = threading.Thread(target=self._main, args=(host, port), daemon=True,
                                        name="trax-web-live")
        self._thread.start()
        self._started.wait()
        if self._error is not None:
            raise self._error

    def _main(self, host, port):
        from aiohttp import web

        from .server import make_app

        async def start():
            self.table = Table({})
            self._runner = web.AppRunner(make_app(self.table), handle_signals=False,
                                         access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, host, port)
            await site.start()
            bound = self._runner.addresses[0][1]
            self.url = f"http://{f'[{host}]' if ':' in host else host}:{bound}/"
            self.feed = MatchFeed(self.table, self._loop)

        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(start())
        except Exception as e:      # raised by __init__ on the caller's thread
            self._error = e
            self._started.set()
            return
        self._started.set()
        self._loop.run_forever()

    def opener(self, base=open_player):
        """An ``opener`` for :func:`~traxfpga.host.referee.run_match` whose players report
        their answers to the page."""
        def open_watched(spec, seed=0):
            return Watched(base(spec, seed=seed), self.feed.answer, self._never)
        return open_watched

    def close(self):
        """Stop serving (the tabs keep the last position, and say they are disconnected)."""
        async def down():
            await self._runner.cleanup()
        asyncio.run_coroutine_threadsafe(down(), self._loop).result(60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)


def start_live(args, on_start, on_game):
    """``referee --web``: ``(server, run_match arguments, None)``, or ``(None, {},
    problem)`` with the sentence to print when the address cannot be served."""
    import sys

    from ..cmd_web import parse_listen
    try:
        host, port = parse_listen(args.web, "--web")
        server = LiveServer(host, port)
    except ValueError as e:
        return None, {}, str(e)
    except OSError as e:
        return None, {}, f"cannot serve on {args.web}: {e.strerror or e}"
    print(f"trax-fpga referee: watch the match on {server.url}", file=sys.stderr, flush=True)
    labels = (args.white, args.black) if args.white != args.black else \
        (f"{args.white}#1", f"{args.black}#2")
    server.feed.begin(*labels, args.games)

    def started(i, white, black):
        server.feed.start_game(i, white, black)
        on_start(i, white, black)

    def ended(i, rec):
        server.feed.end_game(i, rec)
        on_game(i, rec)
        if i + 1 == args.games:
            server.feed.finish()

    return server, {"opener": server.opener(), "on_start": started, "on_game": ended}, None
