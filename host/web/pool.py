"""The players the web page plays against or watches, on the player thread.

Every call into a player (:mod:`traxfpga.host.players`) blocks, so all of them run on one
worker thread (the table's executor), never on the event loop; one thread also means a
player is never used by two calls at once.  A player is opened once and kept for the next
games (opening the simulated board takes seconds); one that faults (a board that went away,
a program that exited) is closed and dropped, and opened again the next time it is asked
for.

The calls return an :class:`Answer` or a :class:`Failure` instead of raising, so the table
on the event loop only has to look at a value.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from ..players import EnginePlayer, Fault, OpenError, open_player

__all__ = ["Answer", "Failure", "PlayerPool", "Watched", "Stopped"]


@dataclass
class Answer:
    """A player's answer line (None after ``-B``), the seconds it took in the player's own
    clock (``clock``: ``"simulated"`` for ``sim``, else ``"wall"``), and the wall-clock
    seconds of the call; where the player reports them, its search (``{"depth",
    "nodes"}``: the simulated board and ``model``) and a board's ``:status`` line after
    the answer (``sim`` and ``serial``)."""
    line: str | None
    seconds: float
    wall: float
    clock: str = "wall"
    search: dict | None = None
    status: str | None = None


@dataclass
class Failure:
    """The player could not answer: ``kind`` is ``"timeout"`` or ``"illegal"`` (a
    :class:`~traxfpga.host.players.Fault`) or ``"open"`` (it could not be started)."""
    kind: str
    detail: str


class Stopped(Exception):
    """The match being watched was stopped from the page."""


class PlayerPool:
    """Open players by spec.  Use only from the player thread."""

    def __init__(self, opener=open_player):
        self._opener = opener
        self._open = {}

    def get(self, spec):
        """The open player of ``spec``, opened now if need be (raises what ``opener``
        raises: :class:`~traxfpga.host.players.SpecError`, ``OpenError``)."""
        if spec not in self._open:
            self._open[spec] = self._opener(spec, seed=0)
        return self._open[spec]

    def open_new(self, spec, seed=0):
        """A player of ``spec`` apart from the pool's (the caller closes it): the second
        side of a match of a player against itself."""
        return self._opener(spec, seed=seed)

    def drop(self, spec):
        """Close and forget a player (after a fault: it is opened afresh next time)."""
        player = self._open.pop(spec, None)
        if player is not None:
            try:
                player.close()
            except Exception:       # a player that already went away may fail to close
                pass

    def _call(self, spec, call):
        started = time.perf_counter()
        try:
            player = self.get(spec)
            line = call(player)
        except Fault as f:
            self.drop(spec)
            return Failure(f.kind, f.detail)
        except OpenError as e:
            self.drop(spec)
            return Failure("open", str(e))
        wall = time.perf_counter() - started
        search = getattr(player, "last_search", None) if line is not None else None
        status = player.device_status() if hasattr(player, "device_status") else None
        return Answer(line, player.last_time, wall, player.clock, search, status)

    def start(self, spec, colour, seed, limit):
        """Begin a game with ``spec`` playing ``colour``."""
        def call(player):
            player.seed(seed)
            return player.start(colour, limit=limit)
        return self._call(spec, call)

    def reply(self, spec, move, limit):
        """Pass the opponent's ``move``; the player's answer."""
        return self._call(spec, lambda player: player.reply(move, limit=limit))

    def undo(self, spec, plies):
        """Take ``plies`` back in an in-process player's own game (``ref``, ``model``,
        ``random``); False for a player over the contest protocol, which has no undo."""
        player = self._open.get(spec)
        if not isinstance(player, EnginePlayer) or player.game is None:
            return False
        for _ in range(plies):
            player.game.undo()
        return True

    def close(self):
        for spec in list(self._open):
            self.drop(spec)


class Watched:
    """A player of a watched match: each answer is reported to ``seen(colour, line,
    seconds, clock)`` as it comes, then the match pauses ``delay`` seconds so a person can follow
    it; once ``stop`` (a :class:`threading.Event`) is set the next call raises
    :class:`Stopped`.  Everything else is the wrapped player's.  ``owned``: close the
    player with the match (otherwise the pool keeps it)."""

    def __init__(self, player, seen, stop: threading.Event, delay=0.0, owned=True,
                 on_fault=None):
        self._player = player
        self._seen = seen
        self._stop = stop
        self._delay = delay
        self._owned = owned
        self._on_fault = on_fault
        self._colour = None

    def __getattr__(self, name):
        return getattr(self._player, name)

    def _answered(self, line):
        if line is not None:
            self._seen(self._colour, line, self._player.last_time, self._player.clock)
            if self._delay:
                self._stop.wait(self._delay)

    def _guarded(self, call, *args, limit):
        if self._stop.is_set():
            raise Stopped()
        try:
            line = call(*args, limit=limit)
        except Fault:
            if self._on_fault:
                self._on_fault()
            raise
        self._answered(line)
        return line

    def start(self, colour, *, limit=None):
        self._colour = colour
        return self._guarded(self._player.start, colour, limit=limit)

    def reply(self, move, *, limit=None):
        return self._guarded(self._player.reply, move, limit=limit)

    def close(self):
        if self._owned:
            self._player.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
