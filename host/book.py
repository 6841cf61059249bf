"""The opening book's making (``trax-fpga book``): the positions the board met most often
early in its recorded games, each answered by the board's own search without the book
(the sequencer and engine in compiled simulation, :class:`~traxfpga.sim.pvs.PVSSim`) at a
budget of several seconds of its clock, unless the records show that another of the
board's moves there did clearly better than that answer (:func:`by_results`), written as
:mod:`traxfpga.hdl.opening_book`.

The same records, settings and source give the same book: the positions are taken in a
fixed order, and the simulated search is cycle-exact for its seed and budget.
"""

from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from ..firmware.top import budget_cycles
from ..hdl.pvs_isa import KEY_WORDS, WORD_BITS, pack_move, unpack_move
from ..hdl.pvs_program import MAX_BOOK
from ..hdl.tile_chars import TILE_CHARS
from .positions import WINNERS, recorded_games
from .reference.trax import Game, Move, format_move, parse_move
from .reference.ttable import game_key

__all__ = ["book_positions", "book_results", "by_results", "entry", "answer", "make_book",
           "render", "KEY_MASK", "RESULTS_MARGIN"]

#: The bits of the key the book compares.
KEY_MASK = (1 << WORD_BITS * KEY_WORDS) - 1

#: A move the board played in a position replaces the search's answer there when its games
#: there won at least this many more than they lost, and this many more (won less lost)
#: than the answer's own games there (none: 0).  One game is within the noise of the
#: board's own answers; two are a pattern of the opponent's.
RESULTS_MARGIN = 2


def _board_moves(paths, player, plies, colours):
    """``(moves, move, outcome)`` for each of ``player``'s moves after its first (the
    opening is fixed) and before ply ``plies``, as one of ``colours``, in the records
    ``paths``: the position's moves, the move played, and the game's outcome for the
    board (1 won, -1 lost, 0 drawn)."""
    for _, rec in recorded_games(paths):
        winner = WINNERS.get(rec.result.split()[0] if rec.result else "")
        for side, (colour, name) in enumerate((("white", rec.white), ("black", rec.black))):
            if player not in name or colour not in colours:
                continue
            outcome = 0 if winner is None else 1 if winner == colour else -1
            for ply in range(side or 2, min(plies, len(rec.moves)), 2):
                yield tuple(rec.moves[:ply]), rec.moves[ply], outcome


def book_positions(paths, player, plies, colours=("white", "black")):
    """``{moves: games}``: the positions before each of ``player``'s moves after its first
    and before ply ``plies``, as one of ``colours``, in the records ``paths`` (``player``
    is a part of the record's ``# white:`` or ``# black:`` name), with the number of games
    that reached each.  Raises ValueError with one sentence for an unreadable record or a
    path with none."""
    return Counter(ms for ms, _, _ in _board_moves(paths, player, plies, colours))


def book_results(paths, player, plies, colours=("white", "black")):
    """``{moves: {move: [won, lost]}}``: in those positions, each move the board played and
    how its games ended."""
    return _results(_board_moves(paths, player, plies, colours))


def _results(walked):
    """:func:`book_results` of the ``(moves, move, outcome)`` of :func:`_board_moves`."""
    out = {}
    for ms, move, outcome in walked:
        tally = out.setdefault(ms, {}).setdefault(move, [0, 0])
        if outcome:
            tally[0 if outcome > 0 else 1] += 1
    return out


def entry(game, move, note=""):
    """The book's entry answering ``game``'s position with ``move``: (key, frame word,
    "the position's moves: the answer" and ``note`` in brackets)."""
    text = f"{' '.join(game.moves)}: {format_move(move)}" + (f" ({note})" if note else "")
    return game_key(game) & KEY_MASK, _word(move), text


def _word(move):
    """A move as a frame word (the book's answers, compared as the device holds them)."""
    return pack_move(move.col, move.row, TILE_CHARS.index(move.tile))


def answer(positions, cycles, seed):
    """``[(key, frame word, text)]``: the board's search (without the book) of the position
    after each move list of ``positions``, to a budget of ``cycles``, its noise from
    ``seed``."""
    from ..sim.pvs import PVSSim
    out = []
    with PVSSim(log2n=7, book=()) as sim:
        for moves in positions:
            sim.reset("trax")
            for mv in moves:
                sim.play(mv)
            game = Game.after(moves)
            sim.limits(cycles=cycles)
            sim.set_seed(seed)
            got = sim.search()
            out.append(entry(game, parse_move(got.move), f"iteration {got.depth}"))
    return out


def by_results(chosen, done, results, margin=RESULTS_MARGIN):
    """``done`` (the search's entries for the positions ``chosen``) with each answer
    replaced by the move of :func:`book_results`' ``results`` whose games there won the
    most more than they lost, where that is at least ``margin``, and at least ``margin``
    more than the answer's own games there (a search several times the board's budget can
    still prefer a move that lost where the board's one-second move kept winning)."""
    out = []
    for ms, (key, word, text) in zip(chosen, done):
        tally = results.get(ms, {})
        searched = format_move(_move(word))
        won, lost = tally.get(searched, (0, 0))
        best = max(sorted(tally), key=lambda mv: tally[mv][0] - tally[mv][1], default=None)
        if best is None or tally[best][0] - tally[best][1] < max(won - lost, 0) + margin:
            out.append((key, word, text))
            continue
        bw, bl = tally[best]
        note = text.split(" (", 1)[1][:-1] if " (" in text else ""
        out.append(entry(Game.after(ms), parse_move(best),
                         f"won {bw}, lost {bl} in the records; the search's {searched}"
                         + (f", {note}" if note else "")))
    return out


def _move(word):
    col, row, tile = unpack_move(word)
    return Move(col, row, TILE_CHARS[tile])


def make_book(paths, player="trax-fpga", plies=12, entries=MAX_BOOK, seconds=3.0,
              clock_mhz=24, seed=1, jobs=1, colours=("white", "black"), results=True,
              progress=lambda text: None):
    """The book's entries: the ``entries`` positions reached in the most games (then the
    earliest, then in notation order) of :func:`book_positions` (the board playing
    ``colours``), answered by :func:`answer` with ``seconds`` of a ``clock_mhz`` clock, in
    that order, ``jobs`` simulations at once, and with ``results`` by :func:`by_results`
    where the records say so; then :func:`_live`'s."""
    if not 1 <= entries <= MAX_BOOK:
        raise ValueError(f"entries must be 1 .. {MAX_BOOK}, not {entries}")
    walked = list(_board_moves(paths, player, plies, colours))     # the records read once
    seen = Counter(ms for ms, _, _ in walked)
    chosen = sorted(seen, key=lambda ms: (-seen[ms], len(ms), ms))[:entries]
    cycles = budget_cycles(seconds, clock_mhz * 1e6)
    progress(f"{len(seen)} positions, {len(chosen)} chosen; searching {cycles:,} cycles each")
    shares = [chosen[k::jobs] for k in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        answered = list(pool.map(answer, shares, [cycles] * jobs, [seed] * jobs))
    done = [None] * len(chosen)
    for k, share in enumerate(answered):
        done[k::jobs] = share
    if results:
        done = by_results(chosen, done, _results(walked))
    kept, why = _live(chosen, done)
    for ms, (_, _, text) in zip(chosen, done):
        progress(f"{seen[ms]} games: {text}" + (f"  (left out: {why[ms]})" if ms in why else ""))
    return kept


def _live(chosen, done):
    """``(entries, {moves: why left out})`` of the positions ``chosen`` (move lists, most
    games first) and their entries ``done``: a position the book's own answer earlier in
    its line replaces is left out (the device never reaches it); of positions whose keys'
    compared words are equal, the first is kept where they are one position (two move
    orders), and all are left out where they differ (the device could not tell them
    apart)."""
    answers = {ms: word for ms, (_, word, _) in zip(chosen, done)}
    why = {}
    for ms in chosen:
        for ply in range(len(ms) - 2, 0, -2):           # the board's earlier moves
            book_word = answers.get(ms[:ply])
            if book_word is not None and book_word != _word(parse_move(ms[ply])):
                why[ms] = (f"the book plays {format_move(_move(book_word))} "
                           f"after {' '.join(ms[:ply])}")
                break
    positions = {}                              # compared words -> the full keys met
    for ms, (key, _, _) in zip(chosen, done):
        if ms not in why:
            positions.setdefault(key, set()).add(game_key(Game.after(ms)))
    first = {}
    for ms, (key, _, _) in zip(chosen, done):
        if ms in why:
            continue
        if len(positions[key]) > 1:
            why[ms] = "another position's key words are equal"
        elif key in first:
            why[ms] = f"the position of {' '.join(first[key])}"
        else:
            first[key] = ms
    return [e for ms, e in zip(chosen, done) if ms not in why], why


def render(book, source):
    """The text of ``hdl/opening_book.py`` holding ``book``, made by ``source``."""
    from pathlib import Path

    from ..hdl import opening_book
    text = Path(opening_book.__file__).read_text(encoding="utf-8")
    head = text[:text.index("#: How the book was made")]
    lines = [f"    ({key:#010x}, {word:#06x}, {text!r})," for key, word, text in book]
    body = "\n".join(lines)
    out = (head + "#: How the book was made (the command and its inputs).\n"
           f"BOOK_SOURCE = {source!r}\n\n"
           "#: (key, the answer's frame word, \"the position's moves: the answer\") entries.\n"
           + (f"BOOK = (\n{body}\n)\n" if book else "BOOK = ()\n"))
    return out
