"""The table: the one game the server shows, whichever of its three modes it is in.

``play``
    a person (one tab, the *controller*) against one of the server's opponents;
``watch``
    a match between two players, refereed by :func:`traxfpga.host.referee.run_match`
    (started from the page), or fed from outside (``trax-fpga referee --web``);
``replay``
    a recorded game, stepped through from the page.

Every tab sees the table; only the controller (the tab that started what is on it) may
move or step.  When the controller's tab is gone (closed, or reloaded: a new connection),
any tab may carry on, and the first that does becomes the controller.  The table lives on the event loop; every player call runs on its one
worker thread (:mod:`.pool`).  A request the table cannot honour raises :class:`Refused`
with the sentence the tab is shown; after every change the table calls ``on_change()``
and the server sends each tab its :meth:`Table.state`.

Results are the reference's (:class:`~traxfpga.host.reference.trax.Game`), except a
player's fault (no answer, a board that went away, an illegal answer), which loses the
game for it as in the referee.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from concurrent.futures import ThreadPoolExecutor

from ..reference.echo import shown
from ..reference.trax import Game, Illegal, parse_move
from ..referee import MAX_MOVES, run_match
from .pool import Answer, PlayerPool, Stopped, Watched
from .position import board_picture, last_box, replayed, squares

__all__ = ["Table", "Refused", "COLOURS"]

log = logging.getLogger("traxfpga.web")
COLOURS = ("white", "black")


def _other(colour):
    return "black" if colour == "white" else "white"


class Refused(Exception):
    """A request the table does not honour; ``str()`` is the sentence for the tab."""


class Table:
    """The game on show.  ``opponents``: {name on the page: player spec}; ``time_limit``:
    seconds an opponent may think (its own clock); ``delay``: seconds a watched match
    pauses after each move."""

    def __init__(self, opponents, *, time_limit=10.0, delay=0.5, max_moves=MAX_MOVES,
                 pool=None, seed=None):
        self.opponents = dict(opponents)
        self.time_limit = time_limit
        self.delay = delay
        self.max_moves = max_moves
        self.pool = pool or PlayerPool()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trax-web-player")
        self.rng = random.Random(seed)
        self.on_change = lambda: None
        self.connected = set()
        self._tasks = set()
        self._stop = threading.Event()
        self._cache = (None, None)
        self._reset("idle", None)
        self.status = ("Choose an opponent and start a game." if self.opponents
                       else "Waiting for a match to watch.")

    # ---------------------------------------------------------------- the state

    def _reset(self, mode, controller):
        """A fresh table in ``mode``; the generation number discards the answers of
        players still thinking about the game before."""
        self.gen = getattr(self, "gen", 0) + 1
        self.mode = mode
        self.controller = controller
        self.game = Game()
        self.players = {"white": "", "black": ""}
        self.human = None
        self.opponent = None
        self.busy = False
        self.end = None             # {"winner", "reason"} of a game lost by a fault
        self.think = None           # the last answer: {"seconds", "clock", "wall"}
        self.replay = None          # {"moves", "ply", "note", "result"}
        self.match = None           # {"games", "index", "results", "running"}

    def _shared(self):
        """The part of the state every tab gets, computed once per position."""
        g = self.game
        key = (self.gen, g.ply, self.busy, self.status, self.end is None, str(self.think),
               self.replay and self.replay["ply"], str(self.match))
        if self._cache[0] == key:
            return self._cache[1]
        over = g.over or self.end is not None
        winner = self.end["winner"] if self.end else g.winner
        reason = self.end["reason"] if self.end else g.reason
        shared = {"type": "state", "mode": self.mode, "svg": board_picture(g),
                  "moves": list(g.moves), "ply": g.ply, "to_move": None if over else g.to_move,
                  "players": dict(self.players), "busy": self.busy, "over": over,
                  "winner": winner, "reason": reason, "status": self.status,
                  "think": self.think, "last": last_box(g),
                  "replay": None if self.replay is None else {
                      "ply": self.replay["ply"], "length": len(self.replay["moves"]),
                      "moves": self.replay["moves"], "note": self.replay["note"]},
                  "match": self.match and dict(self.match)}
        self._cache = (key, shared)
        return shared

    def your_turn(self, client):
        g = self.game
        return (self.mode == "play" and self.controls(client) and not self.busy
                and not g.over and self.end is None and g.to_move == self.human)

    def state(self, client):
        """The ``state`` message for one tab (see docs/web.md)."""
        out = dict(self._shared())
        mine = self.your_turn(client)
        out["control"] = self.controls(client)
        out["you"] = self.human if out["control"] and self.mode == "play" else None
        out["your_turn"] = mine
        out["squares"] = squares(self.game) if mine else []
        return out

    def _changed(self):
        self.on_change()

    def controls(self, client):
        """True when ``client`` may act on what is on the table: it started it, or the
        tab that did is gone (or it came from the command line)."""
        return client == self.controller or self.controller not in self.connected

    def left(self, client):
        """A tab closed: when it was the controller, the others may now carry on."""
        self.connected.discard(client)
        if client == self.controller:
            self._changed()

    # ---------------------------------------------------------------- who may act

    def _take(self, client):
        """Let ``client`` put something new on the table, unless another open tab is in the
        middle of a game or a match is running."""
        if self.match and self.match["running"]:
            raise Refused("A match is being played: stop it first." if self.match["local"]
                          else "A match is being refereed from the command line.")
        live = (self.mode == "play" and not self.game.over and self.end is None
                and self.game.ply > 0)
        if live and self.controller != client and self.controller in self.connected:
            raise Refused("A game is being played in another tab; it is shown here too.")

    def _spawn(self, coro):
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task):
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("trax-fpga web: internal error", exc_info=task.exception())
            self.status = f"Internal error: {task.exception()}"
            self.busy = False
            self._changed()

    async def _on_thread(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    # ---------------------------------------------------------------- play

    def new_game(self, client, opponent, colour):
        """Start a game: the tab plays ``colour`` against the opponent named ``opponent``."""
        if opponent not in self.opponents:
            raise Refused(f"There is no opponent {shown(opponent, 40)}; the server offers: "
                          f"{', '.join(self.opponents) or 'none'}.")
        self._take(client)
        self._reset("play", client)
        self.human, self.opponent = colour, opponent
        self.players = {colour: "you", _other(colour): opponent}
        self.busy = True
        self.status = f"Starting a game against {opponent} ..."
        self._changed()
        self._spawn(self._open_game(self.gen, _other(colour)))

    async def _open_game(self, gen, colour):
        spec = self.opponents[self.opponent]
        got = await self._on_thread(self.pool.start, spec, colour, self.rng.getrandbits(32),
                                    self.time_limit)
        if gen == self.gen:
            self._answered(got, first=colour == "white")

    def move(self, client, text):
        """The tab's move, in notation."""
        if self.mode != "play":
            raise Refused("No game is being played: start a new game to play.")
        if not self.controls(client):
            raise Refused("This game is played from another tab; start a new game to play "
                          "from this one.")
        self.controller = client
        if self.game.over or self.end is not None:
            raise Refused("The game is over: start a new game.")
        if not self.your_turn(client):
            raise Refused(f"It is not your move: {self.opponent} is thinking.")
        try:
            parse_move(text)
            self.game.play(text)
        except Illegal as e:
            raise Refused(f"{shown(text, 20)} cannot be played here: {e.sentence}") from None
        if self._finished():
            return
        self.busy = True
        self.status = f"{self.opponent} is thinking ..."
        self._changed()
        self._spawn(self._await_reply(self.gen, text))

    def undo(self, client):
        """Take back the person's last move and the answer to it (or, once the game has
        ended on the person's move, that move alone), while a game is played against an
        opponent in this process (``ref``, ``model``, ``random``): a program or a board
        behind the contest protocol, timed by its clock, cannot take moves back."""
        g = self.game
        if self.mode != "play":
            raise Refused("No game is being played: there is no move to take back.")
        if not self.controls(client):
            raise Refused("This game is played from another tab.")
        if self.busy:
            raise Refused(f"Wait for {self.opponent}'s answer before taking moves back.")
        if self.end is not None:
            raise Refused("This game ended by its rules of play: start a new game.")
        # A game the person's own move ended: that move alone, which the opponent never got.
        plies = 1 if g.over and g.moves and g.to_move != self.human else 2
        first = 1 if self.human == "black" else 0       # the opponent's opening stays
        if g.ply - plies < first:
            raise Refused("There is no move of yours to take back.")
        self.busy = True
        self._changed()
        self._spawn(self._take_back(self.gen, plies))

    async def _take_back(self, gen, plies):
        spec = self.opponents[self.opponent]
        # the opponent saw both plies of a whole turn, and never got a move that ended the game
        done = plies == 1 or await self._on_thread(self.pool.undo, spec, plies)
        if gen != self.gen:
            return
        self.busy = False
        if not done:
            self.status = (f"{self.opponent} cannot take moves back: it plays over the "
                           f"contest protocol.  Your move.")
            return self._changed()
        for _ in range(plies):
            self.game.undo()
        self.status = f"Taken back to move {self.game.ply}.  Your move."
        self._changed()

    async def _await_reply(self, gen, text):
        spec = self.opponents[self.opponent]
        got = await self._on_thread(self.pool.reply, spec, text, self.time_limit)
        if gen == self.gen:
            self._answered(got)

    def _answered(self, got, first=False):
        """Apply the opponent's answer (or its failure) on the table."""
        self.busy = False
        who = self.opponent
        if not isinstance(got, Answer):
            if got.kind == "open":      # no game was started: nobody lost
                self._reset("idle", None)
                self.status = f"{who} cannot be started: {got.detail}"
                return self._changed()
            self._lost(_other(self.human), got.kind, got.detail)
            return
        self.think = {"seconds": round(got.seconds, 6), "clock": got.clock,
                      "wall": round(got.wall, 6), "search": got.search,
                      "status": got.status}
        if got.line is None and not first:  # -B: the person moves first
            self.status = f"You play White against {who}. Your move."
            return self._changed()
        problem = _problem(self.game, got.line)
        if problem:
            self._lost(_other(self.human), "illegal", problem)
            return
        self.game.play(got.line)
        if not self._finished():
            self.status = f"{who} played {got.line}. Your move."
            self._changed()

    def _lost(self, colour, kind, detail):
        self.end = {"winner": _other(colour), "reason": kind}
        side = self.players[colour]
        self.status = f"{side} ({colour}) lost by {kind}: {detail}"
        self._changed()

    def _finished(self):
        """After a move: when the game ended, say so and return True."""
        g = self.game
        if g.over:
            who = self.players[g.winner]
            self.status = (f"You win by {g.reason}!" if who == "you" else
                           f"{who} ({g.winner}) wins by {g.reason}.")
        elif g.ply >= self.max_moves:
            self.end = {"winner": None, "reason": "cap"}
            self.status = f"Draw: no result after {g.ply} moves."
        else:
            return False
        self._changed()
        return True

    # ---------------------------------------------------------------- replay

    def load_replay(self, client, recorded, name=""):
        """Show a recorded game (:class:`~.recorded.Recorded`) at its last position;
        ``client`` None (a game given on the command line): every tab may step it."""
        self._take(client)
        self._reset("replay", client)
        self.players = {"white": recorded.white or "White", "black": recorded.black or "Black"}
        self.replay = {"moves": recorded.moves, "ply": len(recorded.moves),
                       "note": recorded.note, "name": name}
        self.status = (f"Replaying {name or 'a recorded game'}: {len(recorded.moves)} moves"
                       + (f"; {recorded.result}" if recorded.result else "") + ".")
        self._seek(len(recorded.moves))

    def seek(self, client, ply):
        if self.mode != "replay":
            raise Refused("No recorded game is being replayed: open one first.")
        if not self.controls(client):
            raise Refused("This replay is stepped from another tab.")
        if self.controller is not None:
            self.controller = client
        n = len(self.replay["moves"])
        if not 0 <= ply <= n:
            raise Refused(f"There is no move {ply}: the game has {n}.")
        self._seek(ply)

    def _seek(self, ply):
        self.game, _ = replayed(self.replay["moves"], ply)
        self.replay["ply"] = ply
        self._changed()

    # ---------------------------------------------------------------- watch

    def start_match(self, client, white, black, games):
        """Referee ``games`` games between two of the opponents, shown as they are played."""
        for name in (white, black):
            if name not in self.opponents:
                raise Refused(f"There is no player {shown(name, 40)}; the server offers: "
                              f"{', '.join(self.opponents) or 'none'}.")
        self._take(client)
        self._reset("watch", client)
        self._stop.clear()
        self.match = {"games": games, "index": 0, "results": [], "running": True,
                      "local": True, "white": white, "black": black}
        self.status = f"Starting a match of {games} between {white} and {black} ..."
        self._changed()
        self._spawn(self._run_match(self.gen, white, black, games))

    def stop_match(self, client):
        if not (self.match and self.match["running"] and self.match["local"]):
            raise Refused("No match is running here.")
        if not self.controls(client):
            raise Refused("The match was started from another tab; it is stopped there.")
        self._stop.set()
        self.status = "Stopping the match after the current answer ..."
        self._changed()

    def feed(self):
        """Callbacks for a match played elsewhere (``referee --web``), callable from any
        thread: see :class:`MatchFeed`."""
        return MatchFeed(self, asyncio.get_running_loop())

    async def _run_match(self, gen, white, black, games):
        loop = asyncio.get_running_loop()
        feed = MatchFeed(self, loop)
        specs = (self.opponents[white], self.opponents[black])
        used = set()

        def opener(spec, seed):
            # The pool's player the first time a spec comes (a board is opened once); a
            # player of its own for the second side of a match against itself.
            if spec in used:
                player, owned = self.pool.open_new(spec, seed), True
            else:
                used.add(spec)
                player, owned = self.pool.get(spec), False
            return Watched(player, feed.answer, self._stop, self.delay, owned,
                           on_fault=(lambda: self.pool.drop(spec)) if not owned else None)

        def play():
            return run_match(*specs, games=games, seed=self.rng.getrandbits(32),
                             time_limit=self.time_limit, max_moves=self.max_moves,
                             on_start=feed.start_game, on_game=feed.end_game, opener=opener)

        try:
            await self._on_thread(play)
            ending = "The match is over."
        except Stopped:
            ending = "The match was stopped."
        except Exception as e:      # a player that cannot be opened, mostly
            ending = f"The match could not go on: {e}"
        if gen == self.gen and self.match:
            self.match["running"] = False
            self.status = f"{ending} {_score(self.match)}"
            self._changed()

    def _watch_start(self, index, white, black):
        self.game = Game()
        self.end = None
        self.think = None
        self.players = {"white": white, "black": black}
        self.match["index"] = index
        self.status = (f"Game {index + 1} of {self.match['games']}: {white} (White) v "
                       f"{black} (Black).")
        self._changed()

    def _watch_answer(self, colour, line, seconds, clock):
        try:
            self.game.play(line)
        except Illegal:
            return      # the referee reports it when the game ends
        self.think = {"seconds": round(seconds, 6), "clock": clock, "wall": None,
                      "search": None, "status": None}
        self._changed()

    def _watch_end(self, index, record):
        if list(record.moves) != self.game.moves:
            self.game, _ = replayed(record.moves)
        if record.reason not in ("loop", "line"):
            self.end = {"winner": record.winner, "reason": record.reason}
        self.match["results"].append({"white": record.white, "black": record.black,
                                      "result": record.result_code,
                                      "summary": record.summary()})
        self.status = f"Game {index + 1} of {self.match['games']}: {record.summary()}."
        self._changed()

    async def close(self):
        self._stop.set()
        await self._on_thread(self.pool.close)
        self.executor.shutdown(wait=False, cancel_futures=True)


class MatchFeed:
    """A match's progress, reported from the referee's thread to the table on the event
    loop: ``start_game(index, white, black)``, ``answer(colour, line, seconds, clock)``,
    ``end_game(index, record)`` (the signatures of
    :func:`~traxfpga.host.referee.run_match`'s ``on_start``/``on_game``)."""

    def __init__(self, table, loop):
        self.table = table
        self.loop = loop

    def begin(self, white, black, games):
        """Before the first game of a match played elsewhere (``referee --web``)."""
        def go():
            t = self.table
            t._reset("watch", None)
            t.match = {"games": games, "index": 0, "results": [], "running": True,
                       "local": False, "white": white, "black": black}
            t.status = f"A match of {games} between {white} and {black} ..."
            t._changed()
        self.loop.call_soon_threadsafe(go)

    def finish(self, ending="The match is over."):
        def go():
            t = self.table
            if t.match:
                t.match["running"] = False
                t.status = f"{ending} {_score(t.match)}"
                t._changed()
        self.loop.call_soon_threadsafe(go)

    def start_game(self, index, white, black):
        self.loop.call_soon_threadsafe(self.table._watch_start, index, white, black)

    def answer(self, colour, line, seconds, clock="wall"):
        self.loop.call_soon_threadsafe(self.table._watch_answer, colour, line, seconds, clock)

    def end_game(self, index, record):
        self.loop.call_soon_threadsafe(self.table._watch_end, index, record)


def _score(match):
    """``"Wins: ref 1, random 0; drawn 1."``, by the players' labels in the records."""
    points = {}
    drawn = 0
    for r in match["results"]:
        for side in ("white", "black"):
            points.setdefault(r[side], 0)
        if r["result"] == "1-0":
            points[r["white"]] += 1
        elif r["result"] == "0-1":
            points[r["black"]] += 1
        else:
            drawn += 1
    wins = ", ".join(f"{name} {n}" for name, n in points.items()) or "none"
    return f"Wins: {wins}; drawn {drawn}."


def _problem(game, line):
    """Why an opponent's answer cannot be played, or None."""
    if line is None:
        return "answered nothing to -W"
    if line.startswith("!"):
        return f"sent the error line {shown(line, 40)} instead of a move"
    try:
        parse_move(line)
        game.copy().play(line)
    except Illegal as e:
        return f"sent {shown(line, 20)}, not a legal move: {e.sentence}"
    return None
