"""The Trax move engine: placement, forced plays, rollback, undo, loop and line detection.

See ``docs/engine.md`` for the design; in short:

* **Board store** (``cells``): one :data:`~traxfpga.hdl.tiles.Cell` word per square
  of an N×N torus.  Besides the tile it keeps, for an empty square, the colour of
  the track entering it across each edge, so a placement needs to read only the
  square itself and its four neighbours.
* **Path ends** (``far_w``, ``far_b``): for every tile and colour, the far end of
  the path that leaves the tile by an open edge.  Joining two ends of the same
  path closes a loop; a joined path whose ends lie on opposite outermost edges of
  the area is a line.  Nothing ever walks a path or scans the board.
* **Undo log** (``log``): one entry per placed tile (its square and the four path
  ends it joined) and a trailer per move (the tile count and the previous area).
  Rolling back an illegal move and undoing a move are the same routine.
* **Forced stack** (``forced``): squares into which two same-coloured tracks enter.

Coordinates in commands are relative to the current area, exactly as in the
notation: column ``-1`` is ``@``, ``0`` is ``A``; row ``-1`` is ``0``.
"""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.wiring import In, Out

from .engine_ends import PathEndFinder, one_hot_dir, second_edge
from .engine_eval import EvalPipeline
from .engine_joins import Joins
from .engine_forced import ForcedStack
from .engine_layouts import Area
from .engine_log import UndoLog
from .store import DualPortRAM, SinglePortRAM

from .tiles import (DIRS, Cell, Colour, End, Pos, Reason, Shape, SHAPE_MASKS, Status,
                    Variant, Winner, opposite)

__all__ = ["Op", "Command", "Result", "CellOut", "Engine", "EVAL_WEIGHTS", "EVAL_LINE", "EVAL_MAX"]


class Op(enum.Enum, shape=3):
    PLACE = 0   # place a tile (col, row, shape), with its forced plays
    UNDO  = 1   # take back the last move
    RESET = 2   # empty board, new game of `variant`
    DUMP  = 3   # stream the area's squares row by row on `cells`
    EVAL  = 4   # the attacking potential of both colours (`pot`, `att` of the result)


# EVAL's weights: one source for the engine and its model (see eval_weights.py).
from .eval_weights import EVAL_LINE, EVAL_MAX, EVAL_WEIGHTS  # noqa: E402


Command = data.StructLayout({
    "op":      Op,
    "col":     signed(16),
    "row":     signed(16),
    "tile":    Shape,
    "variant": Variant,
})

Result = data.StructLayout({
    "status":  Status,
    "placed":  16,          # tiles placed (1 + forced) by PLACE, taken back by UNDO
    "width":   16,
    "height":  16,
    "ply":     16,          # moves played so far
    "winner":  Winner,
    "reason":  Reason,
    "pot":     data.ArrayLayout(16, 2),     # EVAL: potential of white (0) and black (1)
    "att":     data.ArrayLayout(8, 2),      # EVAL: path ends one square from the other end
})

CellOut = data.StructLayout({
    "occ":   1,
    "white": 4,             # white-edge mask of the tile
    "eol":   1,             # last square of a row
})


class Engine(wiring.Component):
    """The Trax rules engine.

    Parameters
    ----------
    log2n : int
        The board store holds ``N = 2**log2n`` squares in each direction (N >= 8),
        as a torus.  The area in play may grow to ``N - 2`` columns and rows, so that
        the empty squares just outside it on opposite sides never share a word of
        the store; a move that would make it larger is refused with
        ``Status.CAPACITY``.
    log_depth : int
        Entries in the undo log.  A move needs one per tile plus one; a move of
        more than ``log_depth - 1`` tiles is refused with ``Status.CAPACITY``, and
        undo reaches back as far as the log still holds whole moves.
    stack_depth : int
        Entries in the stack of forced squares (``Status.CAPACITY`` on overflow).
    clear_on_start : bool
        Clear the whole board store after reset (needed where the store is SPRAM,
        whose contents are undefined at configuration); ``False`` relies on the
        memories' zero initial contents, which simulation and block RAM provide.
    spram : bool
        Keep the board store and the path ends in iCE40UP5K SPRAM blocks (three of
        the four; needs ``log2n <= 7``) instead of block RAM.
    dual : bool
        Keep the board store in simple dual-port block RAM and write each neighbour
        while the next is read: 7 cycles to place a tile and 6 to take one back instead
        of 10 and 11 (docs/engine.md).  Not with ``spram``.

    Attributes
    ----------
    cmd : In(stream.Signature(Command))
        One command at a time; ``ready`` while the engine is idle.
    res : Out(stream.Signature(Result))
        Exactly one result per command.
    cells : Out(stream.Signature(CellOut))
        The squares of the area, row by row, in answer to ``Op.DUMP`` (before its result).
    busy : Out(1)
        High from a command's acceptance to its result's transfer.
    """

    def __init__(self, *, log2n=7, log_depth=512, stack_depth=256, clear_on_start=True,
                 spram=False, dual=False):
        assert log2n >= 3
        if spram and dual:
            raise ValueError("an SPRAM has one port: the store cannot be dual-port")
        assert log_depth & (log_depth - 1) == 0, "log_depth must be a power of two"
        self.log2n = log2n
        self.n = 1 << log2n
        self.log_depth = log_depth
        self.stack_depth = stack_depth
        self.clear_on_start = clear_on_start
        self.spram = spram
        self.dual = dual
        super().__init__({
            "cmd":   In(stream.Signature(Command)),
            "res":   Out(stream.Signature(Result)),
            "cells": Out(stream.Signature(CellOut)),
            "busy":  Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        L = self.log2n
        NN = self.n
        PosL = Pos(L)
        EndL = End(L)
        KW = self.log_depth.bit_length()            # tiles in one move: < log_depth

        # -- memories ---------------------------------------------------------------
        if self.dual:
            m.submodules.cells = cells = DualPortRAM(shape=Cell, depth=NN * NN)
            # Every write goes where the read goes, except in the overlapped tile states.
            m.d.comb += cells.waddr.eq(cells.addr)
        else:
            m.submodules.cells = cells = SinglePortRAM(shape=Cell, depth=NN * NN,
                                                       spram=self.spram)
        m.submodules.far_w = far_w = SinglePortRAM(shape=EndL, depth=NN * NN, spram=self.spram)
        m.submodules.far_b = far_b = SinglePortRAM(shape=EndL, depth=NN * NN, spram=self.spram)
        m.submodules.log = log = UndoLog(L, self.log_depth)
        m.submodules.forced = forced = ForcedStack(L, self.stack_depth)

        far = [far_w, far_b]

        # -- game state -------------------------------------------------------------
        variant = Signal(Variant)
        ply = Signal(16)
        over = Signal()
        winner = Signal(Winner)
        reason = Signal(Reason)
        minx = Signal(L)
        miny = Signal(L)
        width = Signal(L + 1)
        height = Signal(L + 1)

        # -- command in progress ----------------------------------------------------
        undoing = Signal()                # UNDO (else PLACE) while rolling back
        wild = Signal()                   # a coordinate far outside any area
        eol = Signal()                    # DUMP: the square read is the last of its row
        tile = Signal(Shape)
        saved = Signal(Area(L))           # the area before this move
        k = Signal(KW)                    # tiles placed so far / left to take back
        placed = Signal(KW)
        status = Signal(Status)
        fault = Signal(Status)            # status of a move found illegal mid-way
        trial = Signal()                  # 8x8 draw scan: trying placements, keeping none
        found = Signal()                  # the scan found a legal placement

        # current square P: absolute and relative coordinates, tile, cell word
        px = Signal(L)
        py = Signal(L)
        # (also the scans of RESET, DUMP and the 8x8 draw test)
        prx = Signal(signed(L + 2))
        pry = Signal(signed(L + 2))
        pmask = Signal(4)
        pcell = Signal(Cell)
        nb = Array(Signal(Cell, name=f"nb{d}") for d in DIRS)      # neighbour cells
        step = Signal(3)

        entry = log.top

        def wrap(v):
            return v[:L]

        def phys(rx, ry):
            return Cat(wrap(minx + rx), wrap(miny + ry))

        def counts(incs):
            white = Cat(*(c == Colour.WHITE for c in incs))
            black = Cat(*(c == Colour.BLACK for c in incs))
            return white, black

        def popcount(v):
            return sum((v[i] for i in range(len(v))), Const(0, 3))

        # -- per-tile evaluation ------------------------------------------------------
        # The neighbours are visited one at a time: steps 0..3 of the tile states address
        # the neighbour across edge `ndir` (step 4: P itself).  `nb_addr` is the one
        # store address of all these states, and the far-end stores are read there too.
        ndir = Signal(2)
        m.d.comb += ndir.eq(step[:2])
        nb_x = Mux(ndir == 1, wrap(px + 1), Mux(ndir == 3, wrap(px - 1), px))
        nb_y = Mux(step[2], py, Mux(ndir == 0, wrap(py - 1), Mux(ndir == 2, wrap(py + 1), py)))
        nb_addr = Signal(PosL)
        m.d.comb += nb_addr.eq(Cat(nb_x, nb_y))

        # In TILE, the words of the neighbour across edge `rdir` (the one addressed the cycle
        # before, at `rpos`) arrive one per step, with its far-end entries: the one path-end
        # finder works out the far end of the path P joins across that edge, and the joins
        # keep it, with whether it closes a loop or a line.
        rdir = Signal(2)
        rpos = Signal(PosL)
        m.d.sync += [rdir.eq(ndir), rpos.eq(nb_addr)]
        m.submodules.finder = finder = PathEndFinder(L)
        m.d.comb += [finder.p.x.eq(px), finder.p.y.eq(py), finder.mask.eq(pmask),
                     finder.dir.eq(rdir), finder.pos.eq(rpos), finder.cell.eq(cells.rdata),
                     finder.far[0].eq(far_w.rdata), finder.far[1].eq(far_b.rdata)]
        occ = cells.rdata.occ
        end_now, r_white, r_b = finder.end, ~finder.black, finder.second

        m.submodules.joins = joins = Joins(L)
        m.d.comb += [joins.end.eq(end_now), joins.black.eq(finder.black),
                     joins.second.eq(r_b), joins.occ.eq(occ),
                     joins.facing.x.eq(rpos.x), joins.facing.y.eq(rpos.y),
                     joins.facing.d.eq(rdir ^ 2),
                     joins.area.minx.eq(minx), joins.area.miny.eq(miny),
                     joins.area.width.eq(width), joins.area.height.eq(height)]
        ends, loop, line = joins.ends, joins.loop, joins.line

        # EVAL: each path end found is weighted into its colour's sums.
        m.submodules.eval = ev = EvalPipeline(L)
        m.d.comb += [ev.at.x.eq(px), ev.at.y.eq(py), ev.lines.eq(variant != Variant.LOOPTRAX),
                     ev.area.minx.eq(minx), ev.area.miny.eq(miny),
                     ev.area.width.eq(width), ev.area.height.eq(height)]

        # The neighbour written (`wdir`, at `w_addr`): the one addressed now on one port;
        # with `dual`, the one read two steps ago, while the next is read.
        if self.dual:
            wdir = Signal(2)
            w_addr = Signal(PosL)
            m.d.sync += [wdir.eq(rdir), w_addr.eq(rpos)]
        else:
            wdir, w_addr = ndir, nb_addr

        # The neighbour across `wdir` after P is placed (or, with `untiling`, taken
        # back): its new word, and whether it becomes forced or over-full.
        untiling = Signal()
        push_r = Signal()                 # the neighbour written last step is forced
        three_r = Signal()                # ... or over-full
        over3 = Signal()                  # some neighbour of this tile is over-full
        push_xy = Signal(PosL)
        m.d.sync += [push_r.eq(0), three_r.eq(0)]
        nsel = Signal(Cell)
        nb_new = Signal(Cell)
        m.d.comb += [nsel.eq(nb[wdir]), nb_new.eq(nsel)]
        new_col = Mux(untiling, Colour.NONE, Mux(pmask.bit_select(wdir, 1), Colour.WHITE,
                                                  Colour.BLACK))
        for j in DIRS:
            with m.If(wdir == opposite(j)):
                m.d.comb += nb_new.inc[j].eq(new_col)
        # A square outside the area touches at most one tile: it never counts two.
        white, black = counts([nb_new.inc[i] for i in DIRS])
        live = ~nsel.occ
        push = live & ((popcount(white) == 2) | (popcount(black) == 2))
        three = live & ((popcount(white) >= 3) | (popcount(black) >= 3))

        # The colours entering P.
        p_inc = [pcell.inc[d] for d in DIRS]
        p_white, p_black = counts(p_inc)

        def consistent(mask):
            ok = Const(1)
            for d in DIRS:
                ok &= (p_inc[d] == Colour.NONE) | ((p_inc[d] == Colour.WHITE) == mask[d])
            return ok

        def forced_of(white, black):
            """The tile forced into a square, from its two same-coloured entering tracks."""
            return Mux(popcount(white) >= 2, white, (~black)[:4])
        forced_mask = forced_of(p_white, p_black)

        # -- defaults -------------------------------------------------------------------
        m.d.comb += [
            self.res.payload.status.eq(status),
            self.res.payload.placed.eq(placed),
            self.res.payload.width.eq(width),
            self.res.payload.height.eq(height),
            self.res.payload.ply.eq(ply),
            self.res.payload.winner.eq(winner),
            self.res.payload.reason.eq(reason),
        ]
        m.d.comb += [self.res.payload.pot.eq(ev.pot), self.res.payload.att.eq(ev.att)]

        def finish(st):
            # (`placed` is cleared on a command's acceptance and set only by DECIDE and
            # UNDO; `status` may change freely during the 8x8 scan, which sets it last.)
            m.d.sync += status.eq(st)
            with m.If(trial):
                m.next = "SCAN_NEXT"      # a trial placement that does not fit
            with m.Else():
                m.next = "RESULT"

        def read_neighbours():
            """Steps 0..3 address P's neighbours N, E, S, W; steps 1..4 take their words."""
            m.d.comb += cells.addr.eq(nb_addr)
            for i in range(4):
                with m.If(step == i + 1):
                    m.d.sync += nb[i].eq(cells.rdata)

        # The writes of one tile's placement and take-back, shared by the one-port
        # schedule (TILE_WRITE, UNTILE_WRITE) and the overlapped one (`dual`); the caller
        # sets the store's write address.
        def write_tile():
            """P, with its tile."""
            m.d.comb += [cells.wdata.eq(pcell), cells.wdata.occ.eq(1),
                         cells.wdata.white.eq(pmask), cells.we.eq(1)]

        def join_write(i):
            """The joined path ends point at each other: A's far end at B's (i = 0, with
            the log entry), then B's at A's (i = 1)."""
            if i == 0:
                m.d.comb += [
                    log.push.valid.eq(1),
                    log.push.payload.trailer.eq(0),
                    log.push.payload.u.tile.p.x.eq(px),
                    log.push.payload.u.tile.p.y.eq(py),
                ]
                for c in range(2):
                    for s_ in range(2):
                        m.d.comb += [log.push.payload.u.tile.e[2 * c + s_].x.eq(ends[c][s_].x),
                                     log.push.payload.u.tile.e[2 * c + s_].y.eq(ends[c][s_].y)]
            for c in range(2):
                ea, eb = ends[c][i], ends[c][1 - i]
                m.d.comb += [far[c].addr.eq(Cat(ea.x, ea.y)), far[c].wdata.eq(eb),
                             far[c].we.eq(1)]
            if i == 0:
                m.d.sync += k.eq(k + 1)

        def write_neighbour():
            """The neighbour across `wdir`, with P's colour entering it; whether it became
            forced or over-full is registered (for timing) and acted on the step after."""
            m.d.comb += [cells.wdata.eq(nb_new), cells.we.eq(live)]
            m.d.sync += [push_r.eq(push), three_r.eq(three), push_xy.eq(w_addr)]

        def push_forced():
            """Push the neighbour written the step before if it became forced; returns
            whether the stack overflowed."""
            m.d.comb += [forced.push.valid.eq(push_r), forced.push.payload.eq(push_xy)]
            cap_now = push_r & ~forced.push.ready
            with m.If(cap_now):
                m.d.sync += fault.eq(Status.CAPACITY)
            return cap_now

        def over_full():
            with m.If(step == 0):
                m.d.sync += over3.eq(0)
            with m.Elif(three_r):
                m.d.sync += over3.eq(1)

        def tile_done(cap_now):
            """The tile's last step: on to the forced squares, or refuse the move.  A tile
            both over-full and over capacity is refused with `capacity`; `fault` is OK on
            entry."""
            m.d.sync += step.eq(0)
            cap = (fault != Status.OK) | cap_now
            with m.If(cap | over3 | three_r):
                with m.If(~cap):
                    m.d.sync += fault.eq(Status.THREE_TRACKS)
                m.next = "ROLLBACK"
            if self.dual:                    # a cycle saved: nothing forced, no POP
                with m.Elif(forced.empty & ~push_r & ~trial):
                    m.next = "DECIDE"
            with m.Else():
                m.next = "POP"

        # Whether the far end P joined across the edge written next is the neighbour there
        # itself (see untile_far), registered a cycle ahead: P's place and mask and the log
        # entry stay put while P is taken back, and compared as the far end is written it was
        # the UP5K's longest path.  One-port, the edges are written at steps 0..3 of
        # UNTILE_WRITE (after step 4 of UNTILE_READ); dual, each two steps after it is read
        # (`wdir` follows `rdir`).
        if self.dual:
            next_w = rdir
        else:
            next_w = Mux(step == 4, 0, step + 1)[:2]
        hx = Mux(next_w == 1, wrap(px + 1), Mux(next_w == 3, wrap(px - 1), px))
        hy = Mux(next_w == 0, wrap(py - 1), Mux(next_w == 2, wrap(py + 1), py))
        next_b = second_edge(pmask, next_w)
        far_home = Signal(2)
        for c in range(2):
            e0, e1 = entry.u.tile.e[2 * c], entry.u.tile.e[2 * c + 1]
            m.d.sync += far_home[c].eq(Mux(next_b, Cat(e1.x, e1.y), Cat(e0.x, e0.y))
                                       == Cat(hx, hy))

        def untile_far(enable):
            """Taking P back, across edge `wdir`: the far end P joined there points back at
            the neighbour's edge facing P again -- or, if that far end was the neighbour
            itself (its track of the colour had both ends open), at its lower edge of the
            colour, as a placement writes such an entry.  So a rollback leaves the path-end
            stores exactly as they were."""
            w_white = pmask.bit_select(wdir, 1)
            w_b = second_edge(pmask, wdir)
            for c in range(2):
                e0, e1 = entry.u.tile.e[2 * c], entry.u.tile.e[2 * c + 1]
                target = Mux(w_b, Cat(e1.x, e1.y), Cat(e0.x, e0.y))
                home = far_home[c]
                n_lower = one_hot_dir(nsel.white if c == 0 else ~nsel.white)
                m.d.comb += [far[c].addr.eq(target),
                             far[c].wdata.x.eq(w_addr.x), far[c].wdata.y.eq(w_addr.y),
                             far[c].wdata.d.eq(Mux(home, n_lower, wdir ^ 2)),
                             far[c].we.eq(enable & nsel.occ & (w_white == (c == 0)))]

        def untake_p(p_addr):
            """P empty again (its entering colours kept), its path ends zeroed as an empty
            square's are."""
            m.d.comb += [cells.wdata.eq(pcell), cells.wdata.occ.eq(0), cells.wdata.white.eq(0),
                         cells.we.eq(1)]
            for c in range(2):
                m.d.comb += [far[c].addr.eq(p_addr), far[c].wdata.eq(0), far[c].we.eq(1)]

        def place():
            """The placed square's word is read (its checks follow), unless the area would
            outgrow the store."""
            grow_x = (prx == -1) | (prx == width)
            grow_y = (pry == -1) | (pry == height)
            m.d.sync += [px.eq(wrap(minx + prx)), py.eq(wrap(miny + pry))]
            m.d.comb += cells.addr.eq(phys(prx, pry))
            with m.If((grow_x & (width >= NN - 2)) | (grow_y & (height >= NN - 2))):
                finish(Status.CAPACITY)
            with m.Else():
                m.next = "PLACE_READ"

        def read_ahead():
            """The pointer moves back one entry at this edge: read the entry below it now,
            so that ROLLBACK has it (ROLLBACK's other ways in leave the pointer still for a
            cycle, and the log's read data follows)."""
            m.d.comb += log.ahead.eq(1)

        def untile_p():
            """Take back the tile of the log's newest entry: P's word is read first."""
            m.d.sync += [px.eq(entry.u.tile.p.x), py.eq(entry.u.tile.p.y), step.eq(0)]
            m.d.comb += cells.addr.eq(Cat(entry.u.tile.p.x, entry.u.tile.p.y))
            m.next = "UNTILE_READ"

        def pop_tile(mask):
            m.d.sync += [pmask.eq(mask), step.eq(0)]
            with m.If(k == self.log_depth - 1):
                # No room in the undo log for this tile and the move's trailer.
                m.d.sync += fault.eq(Status.CAPACITY)
                m.next = "ROLLBACK"
            with m.Else():
                m.next = "TILE"

        def untile_done():
            m.d.comb += log.pop.eq(1)
            m.d.sync += [step.eq(0), k.eq(k - 1)]
            m.next = "ROLLBACK"

        # ------------------------------------------------------------------------------
        with m.FSM(init="CLEAR_ALL" if self.clear_on_start else "IDLE"):
            with m.State("CLEAR_ALL"):
                # The whole store after configuration, and the path ends (see UNTILE_WRITE),
                # addressed as RESET addresses them: columns and rows 0 .. N-1 from the
                # area's corner cover the torus.
                m.d.comb += [cells.addr.eq(phys(prx, pry)), cells.wdata.eq(0), cells.we.eq(1)]
                for c in range(2):
                    m.d.comb += [far[c].addr.eq(phys(prx, pry)), far[c].we.eq(1)]
                with m.If(prx == NN - 1):
                    m.d.sync += [prx.eq(0), pry.eq(pry + 1)]
                    with m.If(pry == NN - 1):
                        m.d.sync += pry.eq(0)
                        m.next = "IDLE"
                with m.Else():
                    m.d.sync += prx.eq(prx + 1)

            with m.State("IDLE"):
                # Only register the command: nothing here depends combinationally on
                # the payload beyond a shallow "does it fit" test, so whatever drives
                # `cmd` does not share a timing path with the checks.
                m.d.comb += self.cmd.ready.eq(1)
                p = self.cmd.payload

                def fits(v):                 # representable in prx/pry without loss
                    top = v[L + 1:]
                    return (top == 0) | (top == (1 << len(top)) - 1)
                with m.If(self.cmd.valid):
                    m.d.sync += [
                        prx.eq(p.col), pry.eq(p.row), tile.eq(p.tile),
                        wild.eq(~fits(p.col) | ~fits(p.row)),
                        undoing.eq(p.op == Op.UNDO), k.eq(0), fault.eq(Status.OK), placed.eq(0),
                    ]
                    with m.Switch(p.op):
                        with m.Case(Op.RESET):
                            m.d.sync += [prx.eq(-1), pry.eq(-1), variant.eq(p.variant)]
                            m.next = "RESET"
                        with m.Case(Op.DUMP):
                            m.d.sync += [prx.eq(0), pry.eq(0)]
                            m.next = "DUMP"
                        with m.Case(Op.EVAL):
                            m.d.sync += [prx.eq(-1), pry.eq(-1)]
                            m.d.comb += ev.clear.eq(1)
                            m.next = "EVAL"
                        with m.Case(Op.UNDO):
                            m.next = "UNDO"
                        with m.Case(Op.PLACE):
                            m.next = "CHECK"
                        with m.Default():    # an undefined op (5..7): refused, not lost
                            m.d.sync += status.eq(Status.RANGE)
                            m.next = "RESULT"

            with m.State("CHECK"):
                if self.dual:                    # the read starts before the checks end
                    m.d.comb += cells.addr.eq(phys(prx, pry))
                with m.If(over):
                    finish(Status.GAME_OVER)
                with m.Elif(ply == 0):
                    with m.If(wild | (prx != -1) | (pry != -1) | (tile == Shape.BACKSLASH)):
                        finish(Status.FIRST_MOVE)
                    with m.Else():
                        m.d.sync += [
                            pcell.eq(0),
                            pmask.eq(Mux(tile == Shape.PLUS, SHAPE_MASKS[Shape.PLUS][0],
                                         SHAPE_MASKS[Shape.SLASH][0])),
                        ]
                        m.next = "PLACE_GROW"
                # Columns -1 .. width and rows -1 .. height.
                with m.Elif(wild | (prx < -1) | (prx > width) | (pry < -1) | (pry > height)):
                    finish(Status.RANGE)
                with m.Else():
                    if self.dual:
                        place()                  # a cycle saved: the read starts here
                    else:
                        m.next = "PLACE"

            # -- reset: clear the area and its border ring, then an empty game -------------
            with m.State("RESET"):
                m.d.comb += [cells.addr.eq(phys(prx, pry)), cells.wdata.eq(0), cells.we.eq(1)]
                for c in range(2):          # an empty square's path ends are zero
                    m.d.comb += [far[c].addr.eq(phys(prx, pry)), far[c].we.eq(1)]
                with m.If(prx >= width):
                    m.d.sync += [prx.eq(-1), pry.eq(pry + 1)]
                    with m.If(pry >= height):
                        m.d.sync += [ply.eq(0), over.eq(0), winner.eq(Winner.NONE),
                                     reason.eq(Reason.NONE), width.eq(0), height.eq(0)]
                        m.d.comb += log.clear.eq(1)
                        finish(Status.OK)
                with m.Else():
                    m.d.sync += prx.eq(prx + 1)

            # -- dump: the area's squares, row by row ------------------------------------
            with m.State("DUMP"):
                with m.If((width == 0) | (pry >= height)):
                    finish(Status.OK)
                with m.Else():
                    m.d.comb += cells.addr.eq(phys(prx, pry))
                    m.d.sync += eol.eq(prx == width - 1)      # registered: a stream output
                    m.next = "DUMP_OUT"
            with m.State("DUMP_OUT"):
                m.d.comb += cells.addr.eq(phys(prx, pry))   # hold the read data
                m.d.comb += [
                    self.cells.valid.eq(1),
                    self.cells.payload.occ.eq(cells.rdata.occ),
                    self.cells.payload.white.eq(cells.rdata.white),
                    self.cells.payload.eol.eq(eol),
                ]
                with m.If(self.cells.ready):
                    with m.If(eol):
                        m.d.sync += [prx.eq(0), pry.eq(pry + 1)]
                    with m.Else():
                        m.d.sync += prx.eq(prx + 1)
                    m.next = "DUMP"

            # -- eval: every path end around the area ------------------------------------
            # Each empty square of the area and its ring; for every track entering it, the
            # far end of that path (as TILE finds it, P's colours standing in for a tile's).
            # Every open path is seen from both of its ends.
            with m.State("EVAL"):
                with m.If(width == 0):
                    finish(Status.OK)
                with m.Elif(pry > height):
                    m.next = "EVAL_DRAIN"
                with m.Else():
                    m.d.comb += cells.addr.eq(phys(prx, pry))
                    m.d.sync += [px.eq(wrap(minx + prx)), py.eq(wrap(miny + pry))]
                    with m.If(prx >= width):
                        m.d.sync += [prx.eq(-1), pry.eq(pry + 1)]
                    with m.Else():
                        m.d.sync += prx.eq(prx + 1)
                    m.next = "EVAL_READ"
            with m.State("EVAL_READ"):
                white_in, black_in = counts([cells.rdata.inc[d] for d in DIRS])
                m.d.sync += [pcell.eq(cells.rdata), pmask.eq(white_in), step.eq(0)]
                with m.If(cells.rdata.occ | ((white_in | black_in) == 0)):
                    m.next = "EVAL"
                with m.Else():
                    m.next = "EVAL_ENDS"
            with m.State("EVAL_ENDS"):
                m.d.sync += step.eq(step + 1)
                m.d.comb += cells.addr.eq(nb_addr)
                for c in range(2):
                    m.d.comb += far[c].addr.eq(nb_addr)
                m.d.comb += [ev.ends.valid.eq((step != 0) & (pcell.inc[rdir] != Colour.NONE) & occ),
                             ev.ends.payload.end.eq(end_now), ev.ends.payload.black.eq(~r_white)]
                with m.If(step == 4):
                    m.d.sync += step.eq(0)
                    m.next = "EVAL"
            with m.State("EVAL_DRAIN"):
                # The last path end's weight is still on its way to the sums.
                m.d.sync += step.eq(step + 1)
                with m.If(step == 1):
                    finish(Status.OK)

            # -- place: the checks on the placed tile ------------------------------------
            with m.State("PLACE"):
                place()
            with m.State("PLACE_READ"):
                m.d.sync += pcell.eq(cells.rdata)
                m.next = "PLACE_CHECK"
            with m.State("PLACE_CHECK"):
                masks = Array([Const(SHAPE_MASKS[s][o], 4) for s in Shape for o in range(2)] +
                              [Const(0, 4)] * 2)
                m0 = masks[tile.as_value() * 2]
                m1 = masks[tile.as_value() * 2 + 1]
                grow_x = (prx == -1) | (prx == width)
                grow_y = (pry == -1) | (pry == height)
                limit = Mux(variant == Variant.EIGHT, 8, NN)
                with m.If(pcell.occ):
                    finish(Status.OCCUPIED)
                with m.Elif((p_white | p_black) == 0):
                    finish(Status.NOT_ADJACENT)
                with m.Elif(~consistent(m0) & ~consistent(m1)):
                    finish(Status.MISMATCH)
                with m.Elif((grow_x & (width >= limit)) | (grow_y & (height >= limit))):
                    finish(Status.BOUNDS)
                with m.Else():
                    m.d.sync += pmask.eq(Mux(consistent(m0), m0, m1))
                    m.next = "PLACE_GROW"
            with m.State("PLACE_GROW"):
                # The placed tile is the only one that can enlarge the area: a space
                # outside it touches at most one tile, so it is never forced.
                m.d.sync += [saved.minx.eq(minx), saved.miny.eq(miny),
                             saved.width.eq(width), saved.height.eq(height)]
                with m.If(prx == -1):
                    m.d.sync += [minx.eq(minx - 1), width.eq(width + 1)]
                with m.Elif(prx == width):
                    m.d.sync += width.eq(width + 1)
                with m.If(pry == -1):
                    m.d.sync += [miny.eq(miny - 1), height.eq(height + 1)]
                with m.Elif(pry == height):
                    m.d.sync += height.eq(height + 1)
                with m.If(ply == 0):
                    m.d.sync += [px.eq(minx - 1), py.eq(miny - 1)]
                m.d.comb += [forced.clear.eq(1), joins.clear.eq(1)]
                m.d.sync += step.eq(0)
                m.next = "TILE"

            # -- one tile: read neighbours and path ends, join, write, log, push ----------
            with m.State("TILE"):
                # Steps 0..3 address the neighbours (cells and both far-end stores);
                # steps 1..4 take the neighbour words and the path ends across each edge.
                m.d.sync += step.eq(step + 1)
                read_neighbours()
                for c in range(2):
                    m.d.comb += far[c].addr.eq(nb_addr)
                taking = (step != 0) & (step <= 4) if self.dual else step != 0
                m.d.comb += joins.take.eq(taking)
                if self.dual:
                    # The writes overlap the reads: neighbour i at step i + 2 (steps 2..5),
                    # the path ends once all four are in (steps 5, 6), P last (step 6).
                    with m.If(step == 6):
                        m.d.comb += cells.waddr.eq(Cat(px, py))
                        write_tile()
                    with m.If(step == 5):
                        join_write(0)
                    with m.If(step == 6):
                        join_write(1)
                    with m.If((step >= 2) & (step <= 5)):
                        m.d.comb += cells.waddr.eq(w_addr)
                        write_neighbour()
                    cap_now = push_forced()
                    over_full()
                    with m.If(step == 6):
                        tile_done(cap_now)
                else:
                    with m.If(step == 4):
                        m.next = "TILE_WRITE"
                        m.d.sync += step.eq(0)

            if not self.dual:
                with m.State("TILE_WRITE"):
                    m.d.sync += step.eq(step + 1)
                    m.d.comb += cells.addr.eq(nb_addr)
                    with m.If(step == 4):
                        write_tile()                 # P itself
                    with m.If(step == 0):
                        join_write(0)
                    with m.If(step == 1):
                        join_write(1)
                    # Steps 0..3: the neighbours' entering colours; steps 1..4: the forced
                    # push and over-full test of the neighbour written the step before
                    # (registered, for timing).  `fault` is OK on entry.
                    with m.If(~step[2]):
                        write_neighbour()
                    cap_now = push_forced()
                    over_full()
                    with m.If(step == 4):
                        tile_done(cap_now)

            # -- forced squares --------------------------------------------------------
            with m.State("POP"):
                with m.If(forced.empty & trial):
                    m.d.sync += found.eq(1)
                    m.next = "ROLLBACK"
                with m.Elif(forced.empty):
                    m.next = "DECIDE"
                with m.Else():
                    m.d.comb += forced.pop.eq(1)
                    m.next = "POP_READ"
            with m.State("POP_READ"):
                m.d.sync += [px.eq(forced.top.x), py.eq(forced.top.y)]
                m.d.comb += cells.addr.eq(forced.top)
                m.next = "POP_CHECK"
            with m.State("POP_CHECK"):
                m.d.sync += pcell.eq(cells.rdata)
                with m.If(cells.rdata.occ):
                    m.next = "POP"           # already filled by another forced play
                with m.Else():
                    if self.dual:            # a cycle saved: the tile from the word read
                        pop_tile(forced_of(*counts([cells.rdata.inc[d] for d in DIRS])))
                    else:
                        m.next = "POP_TILE"
            if not self.dual:
                with m.State("POP_TILE"):
                    pop_tile(forced_mask)

            # -- the move is complete: who has won? --------------------------------------
            with m.State("DECIDE"):
                mover = ply[0]                        # 0 white, 1 black
                wins = loop | Mux(variant == Variant.LOOPTRAX, 0, line)
                mine = Mux(mover, wins[1], wins[0])
                theirs = Mux(mover, wins[0], wins[1])
                mine_loop = Mux(mover, loop[1], loop[0])
                theirs_loop = Mux(mover, loop[0], loop[1])
                with m.If(mine):
                    m.d.sync += [over.eq(1), winner.eq(Mux(mover, Winner.BLACK, Winner.WHITE)),
                                 reason.eq(Mux(mine_loop, Reason.LOOP, Reason.LINE))]
                with m.Elif(theirs):
                    m.d.sync += [over.eq(1), winner.eq(Mux(mover, Winner.WHITE, Winner.BLACK)),
                                 reason.eq(Mux(theirs_loop, Reason.LOOP, Reason.LINE))]
                m.d.comb += [
                    log.push.valid.eq(1),
                    log.push.payload.trailer.eq(1),
                    log.push.payload.u.trailer.k.eq(k),
                    log.push.payload.u.trailer.area.eq(saved),
                ]
                m.d.sync += [ply.eq(ply + 1), placed.eq(k)]
                with m.If((variant == Variant.EIGHT) & ~mine & ~theirs):
                    # 8x8: drawn if no legal move remains.  Try placements until one fits.
                    m.d.sync += [trial.eq(1), found.eq(0), prx.eq(-1), pry.eq(-1),
                                 tile.eq(0)]
                    m.next = "SCAN"
                with m.Else():
                    finish(Status.OK)

            # -- 8x8: is there any legal move left? ------------------------------------------
            with m.State("SCAN"):
                with m.If(pry > height):
                    m.d.sync += [trial.eq(0), over.eq(1), winner.eq(Winner.NONE),
                                 reason.eq(Reason.DRAW), status.eq(Status.OK)]
                    m.next = "RESULT"
                with m.Else():
                    m.d.sync += [k.eq(0), fault.eq(Status.OK)]
                    m.next = "PLACE"
            with m.State("SCAN_NEXT"):
                with m.If(tile == Shape.BACKSLASH):
                    m.d.sync += tile.eq(0)
                    with m.If(prx >= width):
                        m.d.sync += [prx.eq(-1), pry.eq(pry + 1)]
                    with m.Else():
                        m.d.sync += prx.eq(prx + 1)
                with m.Else():
                    m.d.sync += tile.eq(tile.as_value() + 1)
                m.next = "SCAN"

            # -- undo: the trailer, then the tiles, newest first ---------------------------
            with m.State("UNDO"):
                t = entry.u.trailer
                with m.If((ply == 0) | (log.avail == 0) | ~entry.trailer |
                          (log.avail < t.k + 1)):
                    finish(Status.NO_UNDO)
                with m.Else():
                    m.d.comb += log.pop.eq(1)
                    m.d.sync += [saved.eq(t.area), k.eq(t.k), placed.eq(t.k)]
                    m.next = "ROLLBACK"
                if self.dual:
                    # Whatever the checks say (a refused UNDO's RESULT and IDLE read the
                    # newest entry again): so the log's address does not wait on them.
                    read_ahead()

            # Take back the newest `k` tile entries, then restore the area from `saved`.
            with m.State("ROLLBACK"):
                with m.If(k == 0):
                    m.d.sync += [minx.eq(saved.minx), miny.eq(saved.miny),
                                 width.eq(saved.width), height.eq(saved.height)]
                    with m.If(undoing):
                        m.d.sync += [ply.eq(ply - 1), over.eq(0), winner.eq(Winner.NONE),
                                     reason.eq(Reason.NONE)]
                        finish(Status.OK)
                    with m.Elif(trial & found):
                        # Not a draw: the move's own result (placed kept from DECIDE).
                        m.d.sync += [trial.eq(0), status.eq(Status.OK)]
                        m.next = "RESULT"
                    with m.Else():
                        finish(fault)
                with m.Else():
                    if self.dual:
                        untile_p()               # the entry was read ahead
                    else:
                        m.next = "UNTILE_P"      # the log's read data follows the pointer
            if not self.dual:
                with m.State("UNTILE_P"):
                    untile_p()
            with m.State("UNTILE_READ"):
                # step 0: P's word arrives; steps 0..3 read the neighbours.
                m.d.sync += step.eq(step + 1)
                with m.If(step == 0):
                    m.d.sync += [pcell.eq(cells.rdata), pmask.eq(cells.rdata.white)]
                read_neighbours()
                if self.dual:
                    # The writes overlap the reads: P at step 1, neighbour i at step i + 2.
                    m.d.comb += untiling.eq(1)
                    with m.If(step == 1):
                        m.d.comb += cells.waddr.eq(Cat(px, py))
                        untake_p(Cat(px, py))
                    with m.If((step >= 2) & (step <= 5)):
                        m.d.comb += cells.waddr.eq(w_addr)
                        m.d.comb += [cells.wdata.eq(nb_new), cells.we.eq(live)]
                        untile_far(1)
                    with m.If(step == 5):
                        read_ahead()
                        untile_done()
                else:
                    with m.If(step == 4):
                        m.d.sync += step.eq(0)
                        m.next = "UNTILE_WRITE"
            if not self.dual:
                with m.State("UNTILE_WRITE"):
                    m.d.sync += step.eq(step + 1)
                    m.d.comb += [cells.addr.eq(nb_addr), untiling.eq(1)]
                    untile_far(~step[2])
                    with m.If(step == 4):
                        untake_p(nb_addr)
                    with m.If(~step[2]):
                        m.d.comb += [cells.wdata.eq(nb_new), cells.we.eq(live)]
                    with m.If(step == 4):
                        untile_done()

            with m.State("RESULT"):
                m.d.comb += self.res.valid.eq(1)
                with m.If(self.res.ready):
                    m.next = "IDLE"

        m.d.comb += self.busy.eq(~self.cmd.ready)
        return m
