"""Lost games as positions: the losing move of each recorded game, and whether a player now
avoids it (``trax-fpga bench held-back``).

A game written by ``referee --record`` names its winner in its header.  Its *losing move* is
the loser's first move after which the winner wins by force within ``depth`` of its moves
(:func:`~traxfpga.host.reference.forcing.refuted`, by plain recursion along threats); the
smallest such number of moves is the case's depth.  A player *avoids* it when its own move
in that position is not refuted at that depth.  Some positions may be lost whatever is
played (:func:`holding_moves` finds none); such a case is still counted, as a move no player
avoids.

A *suite* (:func:`save_suite`, :func:`load_suite`) keeps the cases with the moves that hold
in each and a strong player's answer, so that a test can check the board's answer against
them without the records or the slow search for the losing move.

The simulated board's answers that took its whole budget (:func:`long_answers`) are the
positions of ``trax-fpga bench reach`` (:mod:`traxfpga.sim.bench_reach`).
"""

import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .reference.forcing import refuted
from .reference.movetext import UnusableInput, read_moves
from .reference.trax import Game, Illegal, format_move

__all__ = ["Case", "WINNERS", "losing_move", "record_files", "recorded_games", "cases_in", "avoids",
           "sampled", "holding_moves", "to_dict", "save_suite", "load_suite", "long_answers",
           "sample_long_answers"]

#: A record's result code -> the winner (a draw has none).
WINNERS = {"1-0": "white", "0-1": "black"}


@dataclass
class Case:
    source: str             # the record's file name
    moves: list             # the game before the losing move
    played: str             # the losing move
    depth: int              # the winner then wins by force within this many of its moves

    @property
    def colour(self):
        return ("white", "black")[len(self.moves) % 2]

    def position(self):
        """The reference's game before the losing move."""
        return Game.after(self.moves)


def _loser(text, source):
    for line in text.splitlines():
        if line.startswith("# result:"):
            code = line.split()[2]
            if code in WINNERS:
                return "black" if WINNERS[code] == "white" else "white"
            return None                         # a draw: nobody lost
    raise UnusableInput(f"{source}: no '# result:' line (not a record of referee --record)")


def losing_move(path, depth):
    """The :class:`Case` of the record at ``path``, or None (a draw, or no move of the
    loser's lost by force within ``depth``: a loss on time, say, or a deeper attack)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnusableInput(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UnusableInput(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    loser = _loser(text, path.name)
    if loser is None:
        return None
    moves = read_moves(str(path))
    game = Game()
    for i, mv in enumerate(moves):
        if game.to_move == loser and refuted(game, mv, depth):
            # refuted within d moves is refuted within more: the smallest d
            d = next(d for d in range(1, depth + 1) if refuted(game, mv, d))
            return Case(path.name, list(moves[:i]), mv, d)
        try:
            game.play(mv)
        except Illegal as e:
            raise UnusableInput(f"{path.name}: move {i + 1} {mv!r} is illegal: {e}") from None
    return None


def record_files(paths):
    """The record files of ``paths``: files, or folders, whose ``*.txt`` files in them and
    in their subfolders are taken in path order.  Raises UnusableInput when there are none."""
    files = []
    for p in map(Path, paths):
        files += sorted(p.rglob("*.txt")) if p.is_dir() else [p]
    if not files:
        raise UnusableInput(f"no game records in {', '.join(map(str, paths))}")
    return files


def recorded_games(paths):
    """``(file, Recorded)`` for each record of :func:`record_files` (``paths``).  Raises
    ValueError with one sentence for a path that holds no record, or a file that cannot be
    read as one."""
    from .web.recorded import read_recorded
    try:
        files = record_files(paths)
    except UnusableInput as e:
        raise ValueError(str(e)) from None
    for f in files:
        try:
            rec = read_recorded(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"cannot read {f}: {getattr(e, 'strerror', None) or e}") from None
        except ValueError as e:
            raise ValueError(f"{f}: {e}") from None
        yield f, rec


def long_answers(paths, seconds):
    """The positions of the records ``paths`` in which a player on the simulated clock (the
    simulated board) took ``seconds`` or more to answer: its searches that the budget cut
    (the time is from the line sent, so it includes the line's own transfer).  The game
    before each such answer, as ``(file name, moves)``, in the order the files list them.
    Raises UnusableInput for a path with no records, or a file that cannot be read or
    holds an illegal move."""
    out = []
    try:
        for f, rec in recorded_games(paths):
            if rec.note:
                raise UnusableInput(f"{f}: {rec.note}")
            simulated = [who.endswith("simulated clock") for who in (rec.white, rec.black)]
            out += [(f.name, rec.moves[:i]) for i, took in enumerate(rec.times or ())
                    if simulated[i % 2] and took >= seconds]
    except ValueError as e:             # recorded_games's one sentence
        raise UnusableInput(str(e)) from None
    return out


def sample_long_answers(paths, count, seed, seconds):
    """``count`` distinct positions of the answers of :func:`long_answers` (``paths``,
    ``seconds``), drawn with ``seed``: ``(file name, moves)`` each; and how many such
    answers the records hold.  Raises UnusableInput as :func:`long_answers` does, or for
    records with no such answer."""
    answers = long_answers(paths, seconds)
    random.Random(seed).shuffle(answers)
    out, seen = [], set()
    for source, moves in answers:
        game = Game.after(moves)
        key = (game.ply, tuple(game.board_rows()))     # one position by two move orders
        if key not in seen:
            seen.add(key)
            out.append((source, moves))
        if len(out) == count:
            break
    if not out:
        raise UnusableInput(f"no answer of a simulated board took {seconds:g} s or more in "
                            f"{', '.join(map(str, paths))}")
    return out, len(answers)


def cases_in(paths, depth, progress=lambda text: None):
    """The cases of the records ``paths``, in the order :func:`record_files` lists them."""
    cases = []
    for f in record_files(paths):
        start = time.perf_counter()
        case = losing_move(f, depth)
        progress(f"{f.name}: " + (f"move {len(case.moves) + 1} {case.played} lost by force "
                                  f"within {case.depth}" if case else "no losing move found")
                 + f" ({time.perf_counter() - start:.1f} s)")
        if case:
            cases.append(case)
    return cases


def avoids(case, player, limit=None):
    """``(answer, avoided, seconds)``: ``player``'s move in the case's position and whether
    it holds at the case's depth."""
    answer = player.answer_position(case.moves, limit=limit)
    try:
        held = not refuted(case.position(), answer, case.depth)
    except Illegal:
        held = False                            # an illegal answer avoids nothing
    return answer, held, player.last_time


def holding_moves(case):
    """The moves in the case's position that hold at its depth, in notation (none: the
    position was already lost at that depth, whatever is played)."""
    game = case.position()
    return [format_move(mv) for mv in game.legal_moves() if not refuted(game, mv, case.depth)]


def sampled(player, samples, rng, answer_once):
    """``samples`` results of ``answer_once()``, ``(answer, held, seconds)`` each.  Past one,
    the player is seeded from ``rng`` before each, as the referee seeds it before a game: a
    budgeted search's answer can rest on its noise (the simulated board's generator runs
    on from case to case), and the samples show how often it does."""
    results = []
    for _ in range(samples):
        if samples > 1:
            player.seed(rng.getrandbits(32))
        results.append(answer_once())
    return results


def to_dict(case, results):
    """A case's row from its ``sampled`` results: the answer given most often (the first of
    equals), ``avoided`` when more than half the answers hold, and with more than one
    sample every answer and how many held."""
    d = asdict(case)
    d["move_number"] = len(case.moves) + 1
    del d["moves"]
    answers = [answer for answer, _, _ in results]
    held = sum(h for _, h, _ in results)
    d |= {"answer": max(answers, key=answers.count), "avoided": 2 * held > len(results),
          "seconds": round(max(s for _, _, s in results), 6)}
    if len(results) > 1:
        d |= {"answers": answers, "avoided_in": held}
    return d


def save_suite(path, entries, player):
    """Write ``entries``, ``(case, holds, answer)`` each, as a suite: a case a line in JSON,
    ``player``'s answer kept as the one ``expected``."""
    text = "".join(json.dumps(asdict(case) | {"holds": holds, "expected": answer,
                                              "expected_by": player}) + "\n"
                   for case, holds, answer in entries)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UnusableInput(f"cannot save the suite as {path}: {e.strerror or e}") from None


def load_suite(path):
    """The suite at ``path``: ``(case, holds, expected)`` a line."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                try:
                    e = json.loads(line)
                    out.append((Case(e["source"], e["moves"], e["played"], e["depth"]),
                                e["holds"], e["expected"]))
                except (ValueError, KeyError, TypeError):
                    raise UnusableInput(f"{path}, line {number}: not a case of a suite "
                                        f"(bench held-back --save writes them)") from None
    except OSError as e:
        raise UnusableInput(f"cannot read the suite {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise UnusableInput(f"{path} is not a suite: not text") from None
    if not out:
        raise UnusableInput(f"{path} holds no cases")
    return out
