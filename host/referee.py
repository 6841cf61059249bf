"""The contest referee: two players (:mod:`traxfpga.host.players`), the contest protocol, and
every move checked by the reference engine.

:func:`play_game` plays one game.  Each answer is checked in this order, and the first
problem loses the game for the side that answered:

* no answer within the time limit, or the program or port closed: ``timeout``;
* an answer that arrived after the time limit (measured in the player's clock: simulated
  time for the simulated board, the wall clock otherwise): ``timeout``;
* an error line (starting with ``!``), a line that is not a move in Trax notation, a move
  the reference refuses, or a line sent when no answer was due: ``illegal``.

A legal move is applied on the reference (forced plays included) and passed to the other
side.  The game ends on a loop or line (the winner is decided by the reference: a move that
completes only the opponent's loop or line loses), or as a draw after ``max_moves`` moves
(reason ``cap``).  The move that ends the game is not sent to the other side (the contest
protocol has no answer for it).

:func:`run_match` plays a series with colours swapped between games.  Each player may have
a time limit of its own (a stronger setting of a program timed by the wall clock, say),
which follows it when the colours swap.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .reference.echo import shown
from .players import Fault, OpenError, Player, open_player
from .reference.trax import Game, Illegal, parse_move

__all__ = ["GameRecord", "Match", "play_game", "run_match", "record_folder", "save_record",
           "MAX_MOVES", "REASONS"]

#: Default move cap: a game still going after this many moves is a draw.
MAX_MOVES = 400
#: Every ``GameRecord.reason``.
REASONS = ("loop", "line", "illegal", "timeout", "cap")
COLOURS = ("white", "black")


def _other(colour):
    return "black" if colour == "white" else "white"


def _pair(time_limit):
    """``time_limit`` (seconds for both, or a pair of them) as a checked pair."""
    pair = tuple(time_limit) if isinstance(time_limit, (tuple, list)) else (time_limit,) * 2
    if len(pair) != 2 or not all(t > 0 for t in pair):
        raise ValueError("a time limit must be positive")
    return pair


@dataclass
class GameRecord:
    """One refereed game.

    ``moves`` are the legal moves played (forced tiles unwritten), ``times`` the seconds
    each took its player (``clocks`` says in which clock).  ``winner`` is ``"white"``,
    ``"black"`` or None (a draw at the move cap); ``reason`` one of :data:`REASONS`.  When
    a side lost by a fault, ``fault`` holds ``{"colour", "kind", "detail", "answer",
    "seconds"}`` (``answer`` the offending line or None).
    """

    white: str
    black: str
    white_id: str = ""
    black_id: str = ""
    clocks: dict = field(default_factory=dict)
    #: seconds an answer of each colour may take
    time_limits: dict = field(default_factory=lambda: {"white": 1.0, "black": 1.0})
    max_moves: int = MAX_MOVES
    moves: list = field(default_factory=list)
    times: list = field(default_factory=list)
    winner: str | None = None
    reason: str = "cap"
    fault: dict | None = None
    size: tuple = (0, 0)
    #: per move: the search behind it of the simulated board or the model (``{"depth",
    #: "nodes", "tt_probes", "tt_hits"}``), or None
    searches: list = field(default_factory=list)

    def name(self, colour):
        return self.white if colour == "white" else self.black

    @property
    def loser(self):
        return None if self.winner is None else _other(self.winner)

    def summary(self):
        """One sentence, e.g. ``"White (ref) wins by loop after 23 moves"``."""
        n = len(self.moves)
        moves = f"{n} move{'s' if n != 1 else ''}"
        if self.winner is None:
            return f"Draw: no result after {moves} (the move cap)"
        who = f"{self.winner.capitalize()} ({self.name(self.winner)})"
        if self.reason in ("loop", "line"):
            return f"{who} wins by {self.reason} after {moves}"
        f = self.fault
        return (f"{who} wins: {f['colour'].capitalize()} ({self.name(f['colour'])}) lost by "
                f"{self.reason} after {moves}: {f['detail']}")

    def notation(self, title="trax-fpga referee"):
        """The game as a notation file: a header of ``#`` comments, then one move per line
        with its side and time as a comment; the offending answer of a fault is a comment,
        so the file replays (``trax-fpga replay``) to the last legal position."""
        def who(colour):
            ident = self.white_id if colour == "white" else self.black_id
            name = self.name(colour)
            extra = f" ({ident})" if ident and ident != name else ""
            return f"{name}{extra}, {self.clocks.get(colour, 'wall')} clock"

        lines = [f"# {title}",
                 f"# white: {who('white')}",
                 f"# black: {who('black')}",
                 f"# {self.limits_text()}, move cap: {self.max_moves}",
                 f"# result: {self.result_code}  {self.summary()}"]
        for i, (mv, t) in enumerate(zip(self.moves, self.times)):
            colour = COLOURS[i % 2]
            lines.append(f"{mv:<8} # {i + 1:3}. {colour:<5} {t:.6f} s")
        if self.fault:
            f = self.fault
            answer = ("no answer" if f["answer"] is None
                      else f"answered {shown(f['answer'], 40)}")
            when = "" if f["seconds"] is None else f" after {f['seconds']:.6f} s"
            lines.append(f"# {f['colour']} {answer}{when}: {f['kind']}: {f['detail']}")
        return "\n".join(lines) + "\n"

    def limits_text(self):
        """``time limit: 1 s``, or ``time limits: White 1 s, Black 4 s``."""
        w, b = self.time_limits["white"], self.time_limits["black"]
        return f"time limit: {w:g} s" if w == b else f"time limits: White {w:g} s, Black {b:g} s"

    @property
    def result_code(self):
        return {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[self.winner]

    def to_dict(self):
        return {"white": self.white, "black": self.black,
                "white_id": self.white_id, "black_id": self.black_id,
                "winner": self.winner, "reason": self.reason,
                "moves": list(self.moves), "times": [round(t, 6) for t in self.times],
                "size": list(self.size), "fault": self.fault,
                "time_limits": dict(self.time_limits)}


def _check(game, text, seconds, time_limit):
    """The problem with an answer as (kind, detail), or None when it is a legal move."""
    if seconds > time_limit:
        return "timeout", f"answered after {seconds:.3f} s, over the {time_limit:g} s limit"
    if text.startswith("!"):
        return "illegal", f"sent the error line {shown(text, 40)} instead of a move"
    try:
        parse_move(text)
    except Illegal as e:
        return "illegal", f"sent a line that is not a move: {e.sentence}"
    try:
        game.copy().play(text)
    except Illegal as e:
        return "illegal", f"played an illegal move ({e})"
    return None


def record_folder(path):
    """The folder ``--record`` names, made if need be; ``ValueError`` says why it cannot
    be."""
    from pathlib import Path
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"cannot use {str(path)!r} as the record directory: it is not a "
                         f"directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"cannot create the record directory {str(path)!r}: {e}") from None
    return folder


def save_record(folder, i, games, rec, title="trax-fpga referee"):
    """Game ``i`` (from 0) of ``games`` as ``folder/game-NNN.txt`` (:meth:`GameRecord.notation`,
    which ``bench held-back --records`` and ``replay`` read); returns the path."""
    path = folder / f"game-{i + 1:03}.txt"
    path.write_text(rec.notation(f"{title}: game {i + 1} of {games}"))
    return path


def play_game(white: Player, black: Player, *, time_limit=1.0, rng=None,
              max_moves=MAX_MOVES, white_name=None, black_name=None) -> GameRecord:
    """Referee one game between two open players (see the module docstring).

    ``time_limit``: the seconds an answer may take, or a pair of them (White's, Black's).
    ``rng`` (a :class:`random.Random`) reseeds both players before the game, so a game is
    reproducible on its own; ``white_name``/``black_name`` override the players' names in
    the record.
    """
    limits = dict(zip(COLOURS, _pair(time_limit)))
    if max_moves < 1:
        raise ValueError("the move cap must be at least 1")
    players = {"white": white, "black": black}
    if rng is not None:
        for p in (white, black):
            p.seed(rng.getrandbits(32))
    rec = GameRecord(white=white_name or white.name, black=black_name or black.name,
                     time_limits=limits, max_moves=max_moves,
                     clocks={"white": white.clock, "black": black.clock})
    game = Game()

    def lose(colour, kind, detail, answer=None, seconds=None):
        rec.winner = _other(colour)
        rec.reason = kind
        rec.fault = {"colour": colour, "kind": kind, "detail": detail, "answer": answer,
                     "seconds": None if seconds is None else round(seconds, 6)}
        rec.size = game.size
        return rec

    def ask(colour, call, *args):
        """(answer, seconds) or a Fault for the player of ``colour``."""
        try:
            answer = call(*args, limit=limits[colour])
        except Fault as f:
            return f
        except OpenError as e:
            return Fault("timeout", str(e))
        return answer, players[colour].last_time

    # Black first (it answers nothing), then White's first move.
    got = ask("black", black.start, "black")
    if isinstance(got, Fault):
        return lose("black", got.kind, got.detail)
    got = ask("white", white.start, "white")
    rec.white_id, rec.black_id = white.ident, black.ident
    mover = "white"
    while True:
        if isinstance(got, Fault):
            return lose(mover, got.kind, got.detail)
        answer, seconds = got
        if answer is None:          # a player broken enough to answer -W with nothing
            return lose(mover, "timeout", "answered nothing to -W")
        problem = _check(game, answer, seconds, limits[mover])
        if problem:
            return lose(mover, *problem, answer=answer, seconds=seconds)
        game.play(answer)
        rec.moves.append(answer)
        rec.times.append(seconds)
        rec.searches.append(players[mover].last_search)
        if game.over:
            rec.winner, rec.reason = game.winner, game.reason
            break
        if game.ply >= max_moves:
            rec.winner, rec.reason = None, "cap"
            break
        mover = _other(mover)
        got = ask(mover, players[mover].reply, answer)
    rec.size = game.size
    return rec


@dataclass
class Match:
    """A series of games between two players, ``a`` (White in the odd-numbered games) and
    ``b``; ``labels`` are their names in the records and statistics (their specs, with
    ``#1``/``#2`` appended when both specs are the same)."""

    specs: tuple
    labels: tuple
    #: each label's time limit a move, in seconds
    limits: dict = field(default_factory=dict)
    idents: dict = field(default_factory=dict)
    clocks: dict = field(default_factory=dict)
    records: list = field(default_factory=list)

    def stats(self, label):
        """Counts for one player: games, wins, losses, draws, illegal (games lost by an
        illegal answer), timeouts (games lost by time, including a closed player), moves,
        mean and max seconds per answer.  Losses include illegal and timeouts."""
        s = {"wins": 0, "losses": 0, "draws": 0, "illegal": 0, "timeouts": 0,
             "games": len(self.records), "as_white": 0, "moves": 0,
             "mean_time": 0.0, "max_time": 0.0, "time_limit": self.limits.get(label),
             "id": self.idents.get(label, ""), "clock": self.clocks.get(label, "wall")}
        times = []
        for rec in self.records:
            colour = "white" if rec.white == label else "black"
            s["as_white"] += colour == "white"
            times += [t for i, t in enumerate(rec.times) if COLOURS[i % 2] == colour]
            if rec.winner is None:
                s["draws"] += 1
            elif rec.winner == colour:
                s["wins"] += 1
            else:
                s["losses"] += 1
                if rec.reason == "illegal":
                    s["illegal"] += 1
                elif rec.reason == "timeout":
                    s["timeouts"] += 1
        s["moves"] = len(times)
        if times:
            s["mean_time"] = round(sum(times) / len(times), 6)
            s["max_time"] = round(max(times), 6)
        return s

    def to_dict(self):
        """The ``--json`` object: ``{"games", "players": {label: stats}, "results"}``."""
        return {"games": len(self.records),
                "players": {label: self.stats(label) for label in self.labels},
                "results": [r.to_dict() for r in self.records]}


def labels_for(spec_a, spec_b):
    return (spec_a, spec_b) if spec_a != spec_b else (f"{spec_a}#1", f"{spec_b}#2")


def _play_fresh(job):
    """One game of a parallel match, between players opened for it alone (in a worker
    process): ``(record, idents, clocks)``."""
    i, specs, labels, seeds, game_seed, limits, max_moves = job
    a_seed, b_seed = seeds
    opened = []
    try:
        for spec, s in zip(specs, (a_seed, b_seed)):
            opened.append(open_player(spec, seed=s))
        a, b = opened
        white, black = (a, b) if i % 2 == 0 else (b, a)
        wl, bl = (labels if i % 2 == 0 else labels[::-1])
        rec = play_game(white, black, time_limit=_colours(limits, i), max_moves=max_moves,
                        rng=random.Random(game_seed), white_name=wl, black_name=bl)
        return rec, {lb: p.ident for lb, p in zip(labels, (a, b))}, \
            {lb: p.clock for lb, p in zip(labels, (a, b))}
    finally:
        for p in opened:
            p.close()


def _colours(limits, i):
    """The (White, Black) time limits of game ``i`` from the players' (a's, b's)."""
    return limits if i % 2 == 0 else limits[::-1]


def _executor(jobs, cluster):
    """Where a parallel match's games run: ``jobs`` local worker processes, or the Dask
    cluster at ``cluster`` (:mod:`traxfpga.host.cluster`)."""
    if cluster is not None:
        from .cluster import cluster_executor
        return cluster_executor(cluster)
    from concurrent.futures import ProcessPoolExecutor
    return ProcessPoolExecutor(max_workers=jobs)


def _run_parallel(spec_a, spec_b, games, seed, limits, max_moves, executor, on_game,
                  on_start):
    """:func:`run_match` with ``jobs`` or a cluster: every game between fresh players, as
    many at once as ``executor`` (a context manager giving a
    :class:`concurrent.futures.Executor`) runs; the records come back in game order."""
    rng = random.Random(seed)
    labels = labels_for(spec_a, spec_b)
    match = Match(specs=(spec_a, spec_b), labels=labels, limits=dict(zip(labels, limits)))
    # Each game's seeds are drawn up front, so the match is the same however many run at once.
    work = [(i, (spec_a, spec_b), labels, (rng.getrandbits(32), rng.getrandbits(32)),
             rng.getrandbits(64), limits, max_moves) for i in range(games)]
    # A player that cannot be opened is reported before any game starts.
    for spec in (spec_a, spec_b):
        open_player(spec, seed=0).close()
    with executor as pool:
        for i, (rec, idents, clocks) in enumerate(pool.map(_play_fresh, work)):
            if on_start:
                on_start(i, rec.white, rec.black)
            match.records.append(rec)
            match.idents.update(idents)
            match.clocks.update(clocks)
            if on_game:
                on_game(i, rec)
    return match


def run_match(spec_a, spec_b, games=2, seed=0, time_limit=1.0, *, max_moves=MAX_MOVES,
              on_game=None, on_start=None, opener=open_player, jobs=None,
              cluster=None) -> Match:
    """Play ``games`` games between the players of two specs, ``spec_a`` White in games
    1, 3, ... and ``spec_b`` White in games 2, 4, ...

    ``time_limit``: the seconds an answer may take, or a pair of them (``spec_a``'s,
    ``spec_b``'s, whatever colour each plays).

    Everything random comes from ``seed``.  ``on_start(index, white_label, black_label)``
    and ``on_game(index, record)`` are called around each game (for progress).  Players
    are opened with ``opener(spec, seed=...)`` (:func:`~traxfpga.host.players.open_player`)
    and always closed.  With ``jobs`` (a number of processes), every game is played between
    players opened for it alone, ``jobs`` games at once; with ``cluster`` (a Dask address,
    :func:`~traxfpga.host.cluster.parse_address`) the same, on the cluster's workers.  The
    results do not depend on either (``opener`` is not used then).  Raises what ``opener``
    raises (:class:`~traxfpga.host.players.SpecError`,
    :class:`~traxfpga.host.players.OpenError`), and
    :class:`~traxfpga.host.cluster.ClusterError` for a cluster that cannot be used.
    """
    if games < 1:
        raise ValueError("at least one game")
    limits = _pair(time_limit)
    if jobs is not None or cluster is not None:
        if jobs is not None and jobs < 1:
            raise ValueError("jobs must be at least 1")
        return _run_parallel(spec_a, spec_b, games, seed, limits, max_moves,
                             _executor(jobs, cluster), on_game, on_start)
    rng = random.Random(seed)
    labels = labels_for(spec_a, spec_b)
    match = Match(specs=(spec_a, spec_b), labels=labels, limits=dict(zip(labels, limits)))
    opened = []
    try:
        for spec in (spec_a, spec_b):
            opened.append(opener(spec, seed=rng.getrandbits(32)))
        a, b = opened
        for i in range(games):
            white, black = (a, b) if i % 2 == 0 else (b, a)
            wl, bl = (labels if i % 2 == 0 else labels[::-1])
            if on_start:
                on_start(i, wl, bl)
            rec = play_game(white, black, time_limit=_colours(limits, i), max_moves=max_moves,
                            rng=random.Random(rng.getrandbits(64)),
                            white_name=wl, black_name=bl)
            match.records.append(rec)
            for label, p in zip(labels, (a, b)):
                match.idents[label] = p.ident
                match.clocks[label] = p.clock
            if on_game:
                on_game(i, rec)
    finally:
        for p in opened:
            p.close()
    return match
