"""The search sequencer in software: runs the sequencer's program
(:mod:`traxfpga.hdl.pvs_program`) instruction for instruction on the reference engine, so
that the hardware (:mod:`traxfpga.hdl.pvs`) can be checked against it: the same move, value
and depth, the same number of nodes and of instructions.  The machine and the program are
described once, in docs/player.md ("The search sequencer").

The budget here is ``node_limit`` (legal placements); the hardware also takes a cycle
budget, which the twin cannot count.
"""

from __future__ import annotations

from typing import NamedTuple

from ...hdl.pvs_isa import (FRAME_REGS, KEY_WORDS, LATCH, LEVELS, PASSED_OVER, WORD_BITS, Cond,
                            Op, Rel, leaf_value, pack_move, term_value, to_signed, unpack_move)
from ...hdl.lfsr import LFSR_SEED, lfsr_next
from ...hdl.pvs_program import MAX_ITER, answer_rank, program
from ...hdl.tile_chars import TILE_CHARS
from ...hdl.tt_spec import DEPTH_BITS, INDEX_BITS
from .evaluate import evaluate
from .trax import Game, Illegal, Move
from .scoped_scan import Scans
from .ttable import Table, game_key

__all__ = ["PVSChoice", "run", "run_cores", "seek", "hunt"]

_MASK = (1 << WORD_BITS) - 1
_DEPTH_MASK = (1 << DEPTH_BITS) - 1     # TTGET, TTPUT read a depth's low bits, as the hardware
_SAME_SQUARE = ("mismatch", "three-tracks")     # refusals that leave the square's other tiles


def scan_next(col, row, tile, skip_square, height):
    """The placement after (``col``, ``row``, ``tile``) in scan order: the square's next
    tile, or (``skip_square``, or after its last tile) the next square (column -1 ..
    width, row -1 .. height): the sequencer's ``NEXT``, and ``SEEK``'s step."""
    if skip_square or tile == 2:
        tile, row = 0, row + 1
        if row > height:
            row, col = -1, col + 1
    else:
        tile += 1
    return col, row, tile


def seek(game: Game, col: int, row: int, tile: int, scans: Scans | None = None):
    """The engine's ``SEEK`` on the reference: from the placement (``col``, ``row``,
    ``tile``) on in scan order, the first that is not refused from its square's word alone
    is played.  Returns ``(col, row, tile, refusal)``: the placement played or refused
    (``refusal`` an :class:`Illegal`, or None), or, when the scan ran out, ``col`` = width
    + 1, row -1, tile 0 with a ``range`` refusal.  With ``scans`` (the search's), a
    scoped scan goes by its placements from the current one on, and a recorded scan lists
    each placement that places tiles."""
    scoped = scans is not None and scans.sequence is not None
    while True:
        if scoped:
            placement = scans.current()
            if placement is None:
                col, row, tile = game.width + 1, -1, 0
                return col, row, tile, Illegal("range", "the scan ran out", "")
            col, row, tile, tried = placement
            if not tried:
                scans.at += 1
                continue
        elif col > game.width and game.ply and not game.over:     # (else as PLACE refuses)
            return col, row, tile, Illegal("range", "the scan ran out", "")
        try:
            game.play(Move(col, row, TILE_CHARS[tile]))
        except Illegal as exc:
            if exc.code == "three-tracks" and scans is not None:
                scans.record(game, col, row, tile, None)
            if exc.code not in PASSED_OVER:      # (the rest it returns, as PLACE)
                return col, row, tile, exc
            if scoped:
                scans.at += 1
            else:
                col, row, tile = scan_next(col, row, tile, exc.code != "mismatch", game.height)
        else:
            if scans is not None:
                scans.record(game, col, row, tile, game._hist[-1].placed)
            return col, row, tile, None


def hunt(game: Game, col: int, row: int, tile: int, scans: Scans | None = None):
    """The engine's ``SEEK`` with ``hunt`` on the reference: as :func:`seek`, but a legal
    placement that does not end the game is taken back and the scan goes on from the next
    (in 8x8, a plain :func:`seek`).  Returns ``(col, row, tile, refusal, passed)``, as
    :func:`seek` and the legal placements taken back on the way."""
    passed = 0
    while True:
        col, row, tile, exc = seek(game, col, row, tile, scans)
        if exc or game.over or game.variant == "8x8":
            return col, row, tile, exc, passed
        game.undo()
        passed += 1
        col, row, tile = _next(game, col, row, tile, False, scans)


def _next(game: Game, col, row, tile, skip_square, scans):
    """The placement after this one: in a scoped scan its next, else :func:`scan_next`."""
    if scans is not None and scans.sequence is not None:
        scans.at += 1
        return col, row, tile
    return scan_next(col, row, tile, skip_square, game.height)


def _placement(g: Game, op, col, row, tile, scans: Scans):
    """An instruction that places (PLACE, SEEK, USEEK, HUNT, UHUNT) on the reference, from
    the scan register (``col``, ``row``, ``tile``): ``(col, row, tile, refusal, passed,
    mover, taken)``, the scan register after it, its refusal or None, the legal placements
    a hunt took back, the side that moved, and the moves UNDO_SEEK took back first.  Only a
    hunt goes by a scoped or recorded scan (``scans``)."""
    taken = 0
    hunting = op in (Op.HUNT, Op.UHUNT)
    if op in (Op.USEEK, Op.UHUNT):          # the engine's UNDO_SEEK
        g.undo()
        taken = 1
        col, row, tile = _next(g, col, row, tile, False, scans if hunting else None)
    mover = g.to_move
    if hunting:
        col, row, tile, exc, passed = hunt(g, col, row, tile, scans)
        return col, row, tile, exc, passed, mover, taken
    if op != Op.PLACE:
        return (*seek(g, col, row, tile), 0, mover, taken)
    try:
        g.play(Move(col, row, TILE_CHARS[tile]))
        exc = None
    except Illegal as refusal:
        exc = refusal
    return col, row, tile, exc, 0, mover, taken


class PVSChoice(NamedTuple):
    move: Move | None       # None: the game is over
    depth: int              # the deepest iteration completed, in plies (0: the opening)
    value: int              # its value for the side to move
    nodes: int              # legal placements
    insns: int              # instructions executed
    tt_probes: int = 0      # the transposition table's probes in this search
    tt_hits: int = 0        # of them, those it answered


_PROGRAMS = {}


def _code(cores=1, tt=True):
    if (cores, tt) not in _PROGRAMS:
        _PROGRAMS[cores, tt] = program(cores=cores, tt=tt).words()
    return _PROGRAMS[cores, tt]


def run(game: Game, node_limit: int = 0, *, seed: int | None = LFSR_SEED,
        max_iter: int | None = None, threats: bool = True, code=None,
        max_insns: int = 1 << 40, core: int = 0, cores: int = 1, tt: bool = True,
        log2n: int = 7, table: Table | None = None, observe: dict | None = None,
        sites: dict | None = None, tt_bits: int = INDEX_BITS) -> PVSChoice:
    """The sequencer's answer on ``game`` (left as it was); ``node_limit`` 0: none;
    ``seed``: the noise generator's start (None: no noise, for comparing values with a
    plain minimax); ``max_iter``, ``threats``, ``tt``:
    :func:`~traxfpga.hdl.pvs_program.program`'s (None: the device's program; ``tt`` as the
    one-port devices', False as the dual-port boards'); ``code``: another program
    (``Asm.words()``); ``core`` of ``cores``: the core whose share of the root's moves is
    searched (see :func:`run_cores`); ``log2n``: the engine's store (the table's keys
    are of its squares); ``table``: the transposition table, empty (by default a new one of
    ``2**tt_bits`` entries), whose counts the caller may read afterwards; ``observe``:
    ``{address: f}``, ``f(game)`` called before the instruction at that address runs, and
    ``sites``, ``{address: nodes}``, added to for the nodes each instruction placed (both
    to measure the search)."""
    if code is None:
        code = (_code(cores, tt) if max_iter is None and threats
                else program(max_iter or MAX_ITER, threats, cores=cores, tt=tt).words())
    table = Table(log2n, index_bits=tt_bits) if table is None else table
    probes, hits = table.probes, table.hits        # a table passed in may have counts
    g = game
    frames = [0] * (LEVELS * FRAME_REGS)
    pc, lv, acc = 0, 0, 0
    acc_before = 0                  # acc before the last instruction (KEY's)
    col = row = tile = 0
    gt = eq = lt = False
    ok = ended = square = won = lost = over = empty = past = mine = False
    deal = 0
    armed = False
    nodes = insns = 0
    answer, depth, value = None, 0, 0
    depth_in = 0                    # tiles the program has placed (to check it undoes them)
    lfsr = LFSR_SEED if seed is None else seed
    site, site_nodes = 0, 0
    scans = Scans()

    def addr(f):
        level = {Rel.SELF: lv, Rel.CHILD: lv + 1, Rel.LIST: LEVELS - 1,
                 Rel.GLOBAL: 0}[f["rel"]]
        assert 0 <= level < LEVELS, level
        return level * FRAME_REGS + f["reg"]

    while True:
        if observe is not None and pc in observe:
            observe[pc](g)
        if sites is not None:           # the last instruction's nodes, to its address
            sites[site] = sites.get(site, 0) + nodes - site_nodes
            site, site_nodes = pc, nodes
        insns += 1
        if insns > max_insns:
            raise RuntimeError("the program ran too long")
        f = code[pc]
        op, x = f["op"], f["x"]
        c = Cond(f["cond"])
        held = {Cond.ALWAYS: True, Cond.GT: gt, Cond.EQ: eq, Cond.LT: lt, Cond.OK: ok,
                Cond.ENDED: ended, Cond.DONE: past, Cond.ROOT: lv == 1,
                Cond.OUT: armed and node_limit and nodes >= node_limit,
                Cond.ZERO: acc == 0, Cond.OVER: over, Cond.EMPTY: empty,
                Cond.WON: ok and won, Cond.LOST: ok and lost, Cond.MINE: mine,
                Cond.KEY: False}[c]
        if c == Cond.KEY and tt:        # the opening book's test (the key only when asked)
            word = f["reg"] & KEY_WORDS - 1
            held = acc_before & _MASK == game_key(g, log2n) >> WORD_BITS * word & _MASK
        acc_before = acc                # KEY's acc, for the next instruction
        pc += 1
        if bool(held) == bool(f["neg"]):
            continue
        if op == Op.JMP:
            pc = x
        elif op == Op.JA:
            pc = acc
        elif op == Op.LDI:
            acc = to_signed(x)
        elif op == Op.LD:
            acc = to_signed(frames[addr(f)])
        elif op == Op.ST:
            frames[addr(f)] = acc & _MASK
        elif op == Op.ADDI:
            acc = to_signed(acc + x)
        elif op == Op.NEG:
            acc = to_signed(-acc)
        elif op in (Op.CMP, Op.CMPI):
            other = to_signed(frames[addr(f)] if op == Op.CMP else x)
            gt, eq, lt = acc > other, acc == other, acc < other
        elif op == Op.SCAN0:
            col, row, tile = -1, -1, 0
            if scans.start(x, lv, g):
                col, row, tile, _ = scans.current()
            if lv == 1:
                deal = 0
        elif op == Op.DEAL:
            mine = deal == core
            deal = (deal + 1) % cores
        elif op == Op.NEXT:
            col, row, tile = _next(g, col, row, tile, square, scans)
            square = False
            past = col > g.width if scans.sequence is None else scans.current() is None
        elif op == Op.SAVE:
            frames[addr(f)] = pack_move(col, row, tile)
        elif op == Op.REST:
            col, row, tile = unpack_move(frames[addr(f)])
            scans.stop()
        elif op in (Op.PLACE, Op.SEEK, Op.USEEK, Op.HUNT, Op.UHUNT):
            col, row, tile, exc, passed, mover, taken = _placement(g, op, col, row, tile, scans)
            nodes += passed
            depth_in -= taken
            if exc:
                ok, ended, square = False, False, exc.code not in _SAME_SQUARE
            else:
                nodes += 1
                depth_in += 1
                ok, square = True, False
                ended = g.winner is not None or g.reason is not None
                won = g.winner == mover
                lost = g.winner is not None and not won
        elif op == Op.UNDO:
            g.undo()
            depth_in -= 1
            square = False
        elif op == Op.EVAL:
            pot, att = evaluate(g)
            acc = leaf_value(pot, att, g.ply & 1, 0 if seed is None else lfsr)
            lfsr = lfsr_next(lfsr)
        elif op == Op.TTGET:
            win, fail = table.get(g, x, frames[addr(f)] & _DEPTH_MASK)
            gt, lt, eq = win, fail, not (win or fail)
        elif op == Op.TTPUT:
            table.put(g, x, frames[addr(f)] & _DEPTH_MASK, bool(acc & 1))
        elif op == Op.TERM:
            acc = term_value(won, lost, lv)
        elif op == Op.PROBE:
            over, empty = g.over, g.ply == 0
        elif op == Op.UP:
            lv += 1
            if x == LATCH:
                scans.latch(g)
        elif op == Op.DOWN:
            lv -= 1
        elif op == Op.ARM:
            armed = True
        elif op == Op.ANSWER:
            c_, r_, t_ = unpack_move(frames[addr(f)])
            answer = Move(c_, r_, TILE_CHARS[t_])
        elif op == Op.DEPTH:
            depth = acc & 0xF
        elif op == Op.VALUE:
            value = acc
        elif op == Op.FINISH:
            assert depth_in == 0, "the program left tiles on the board"
            return PVSChoice(answer, depth, value, nodes, insns,
                             table.probes - probes, table.hits - hits)
        else:
            raise AssertionError(f"unknown op {op}")


def run_cores(game: Game, cores: int, node_limit: int = 0, **kwargs) -> PVSChoice:
    """The answer of ``cores`` sequencers searching at once, as the device's combiner picks
    it: each core searches its share of the root's moves (dealt in scan order, one each in
    turn) with ``node_limit``, and the greatest answer by
    :func:`~traxfpga.hdl.pvs_program.answer_rank` is played, the lower core's on a tie;
    ``nodes``, ``insns`` and the table's counts are the sums."""
    if cores == 1:
        return run(game, node_limit, **kwargs)
    answers = [run(game, node_limit, core=k, cores=cores, **kwargs) for k in range(cores)]
    best = None
    for a in answers:
        if a.move is not None and (best is None or answer_rank(a.depth, a.value)
                                   > answer_rank(best.depth, best.value)):
            best = a
    best = best or answers[0]
    return best._replace(**{name: sum(getattr(a, name) for a in answers)
                            for name in ("nodes", "insns", "tt_probes", "tt_hits")})
