"""The web server: the page's files and one WebSocket (``/ws``) per tab, on aiohttp.

Every message is a JSON object with a ``type`` (docs/web.md lists them all).  A message
the server cannot use (not JSON, an unknown type, a missing or wrong field, a move out of
turn) is answered, to that tab only, with one ``error`` message holding a sentence; the
connection and the server go on.  After every change of the table each tab is sent its
``state``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from importlib.resources import files
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web

from .position import tile_pictures
from .recorded import read_recorded
from .session import COLOURS, Refused, Table

__all__ = ["make_app", "TABLE", "MAX_MESSAGE"]

log = logging.getLogger("traxfpga.web")
#: The application key of the :class:`~.session.Table`.
TABLE = web.AppKey("table", Table)
#: Largest message accepted (a recorded game file is the largest thing a tab sends).
MAX_MESSAGE = 1 << 20
STATIC = files(__package__) / "static"
#: The most games a match started from the page may have.
MAX_GAMES = 100


class BadMessage(Exception):
    """A message that is not what the protocol says; ``str()`` is the sentence sent back."""


def _field(msg, name, kind, choices=None):
    value = msg.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        what = {str: "a string", int: "a whole number"}[kind]
        raise BadMessage(f"a {msg['type']!r} message needs {name!r}: {what}")
    if choices is not None and value not in choices:
        raise BadMessage(f"{name!r} must be one of {', '.join(map(str, choices))}")
    return value


def _new(table, client, msg):
    table.new_game(client, _field(msg, "opponent", str), _field(msg, "colour", str, COLOURS))


def _move(table, client, msg):
    table.move(client, _field(msg, "move", str))


def _match(table, client, msg):
    games = _field(msg, "games", int)
    if not 1 <= games <= MAX_GAMES:
        raise BadMessage(f"'games' must be 1 .. {MAX_GAMES}")
    table.start_match(client, _field(msg, "white", str), _field(msg, "black", str), games)


def _undo(table, client, msg):
    table.undo(client)


def _stop(table, client, msg):
    table.stop_match(client)


def _replay(table, client, msg):
    text = _field(msg, "text", str)
    name = msg.get("name") if isinstance(msg.get("name"), str) else ""
    try:
        recorded = read_recorded(text)
    except ValueError as e:
        raise Refused(f"Cannot replay {name or 'this file'}: {e}.") from None
    table.load_replay(client, recorded, name[:200])


def _seek(table, client, msg):
    table.seek(client, _field(msg, "ply", int))


#: type -> handler(table, client, message)
HANDLERS = {"new": _new, "move": _move, "undo": _undo, "match": _match, "stop": _stop,
            "replay": _replay, "seek": _seek}


def _parse(data):
    try:
        msg = json.loads(data)
    except ValueError:
        raise BadMessage("messages are JSON objects; this one is not JSON") from None
    if not isinstance(msg, dict):
        raise BadMessage("messages are JSON objects with a 'type'")
    kind = msg.get("type")
    if kind not in HANDLERS:
        raise BadMessage(f"unknown message type {str(kind)[:40]!r}; expected one of "
                         f"{', '.join(HANDLERS)}")
    return msg


class Clients:
    """The open tabs: {client id: WebSocket}, and sending the table's state to them."""

    def __init__(self, table):
        self.table = table
        self.sockets = {}
        self._ids = itertools.count(1)
        self._pending = None
        table.on_change = self.changed

    def add(self, ws):
        client = next(self._ids)
        self.sockets[client] = ws
        self.table.connected.add(client)
        return client

    def remove(self, client):
        self.sockets.pop(client, None)
        self.table.left(client)

    def changed(self):
        """Send every tab the new state, soon (several changes in one turn of the event
        loop are sent once)."""
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_soon(self._send_all)

    def _send_all(self):
        self._pending = None
        for client, ws in list(self.sockets.items()):
            asyncio.get_running_loop().create_task(self.send(client, ws))

    async def send(self, client, ws, message=None):
        try:
            await ws.send_json(message or self.table.state(client))
        except (ConnectionError, RuntimeError):
            pass        # the tab went away; its handler removes it


CLIENTS = web.AppKey("clients", Clients)


async def _socket(request):
    # A page from another site must not drive the players (they may be real programs).
    origin = request.headers.get("Origin")
    if origin and urlsplit(origin).netloc != request.host:
        raise web.HTTPForbidden(text="WebSocket connections are accepted from this server's "
                                     "own page only")
    clients = request.app[CLIENTS]
    table = request.app[TABLE]
    ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30)
    await ws.prepare(request)
    client = clients.add(ws)
    try:
        await clients.send(client, ws, {"type": "hello", "client": client,
                                        "opponents": list(table.opponents),
                                        "time_limit": table.time_limit,
                                        "tiles": tile_pictures()})
        await clients.send(client, ws)
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                await clients.send(client, ws, {"type": "error", "message":
                                   "send text frames holding JSON objects"})
                continue
            await _handle(table, clients, client, ws, frame.data)
    finally:
        clients.remove(client)
    return ws


async def _handle(table, clients, client, ws, data):
    try:
        msg = _parse(data)
        HANDLERS[msg["type"]](table, client, msg)
    except (BadMessage, Refused) as e:
        await clients.send(client, ws, {"type": "error", "message": str(e)})
    except Exception as e:      # a bug: say so, keep serving
        log.exception("trax-fpga web: internal error on %.80r", data)
        await clients.send(client, ws, {"type": "error", "message": f"internal error: {e}"})


async def _index(request):
    return web.Response(text=(STATIC / "index.html").read_text(encoding="utf-8"),
                        content_type="text/html")


async def _static(request):
    name = request.match_info["name"]
    kinds = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    kind = next((k for s, k in kinds.items() if name.endswith(s)), None)
    item = STATIC / name
    if kind is None or "/" in name or not item.is_file():
        raise web.HTTPNotFound()
    return web.Response(text=item.read_text(encoding="utf-8"), content_type=kind)


async def _close_tabs(app):
    # Without this the server waits for every tab to hang up before it stops.
    for ws in list(app[CLIENTS].sockets.values()):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"the server is stopping")


async def _close_table(app):
    await app[TABLE].close()


def make_app(table):
    """The aiohttp application serving ``table``."""
    app = web.Application(client_max_size=MAX_MESSAGE)
    app[TABLE] = table
    app[CLIENTS] = Clients(table)
    app.router.add_get("/", _index)
    app.router.add_get("/static/{name}", _static)
    app.router.add_get("/ws", _socket)
    app.on_shutdown.append(_close_tabs)
    app.on_cleanup.append(_close_table)
    return app
