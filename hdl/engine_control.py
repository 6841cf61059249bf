"""The engine's control: its state machine, the registers it steps, and the wiring of its
stores and parts.

It is built into the engine's own module (not a component of its own), so that a proof
harness that elaborates the engine finds the state machine there (tests/formal/engine.py).
Each group of states is one method, in the order of docs/engine.md ("One move"); the
helpers the groups share (a tile's writes, its take-back) are methods too.  The states and
their cycles are those of docs/engine.md, on both schedules (``dual`` or one port).
"""

from amaranth.hdl import Array, Cat, Const, Mux, Signal, signed
from amaranth.lib import data, wiring

from .engine_ends import PathEndFinder, one_hot_dir, top_dir
from .engine_eval import EvalPipeline
from .engine_forced import ForcedStack
from .engine_joins import FourJoins, Joins
from .engine_key import PositionKey
from .engine_layouts import Area, Op, had_neighbours, is_trailer
from .engine_log import UndoLog
from .engine_scope import ScopeBoxes
from .engine_neighbour import NeighbourUpdate, counts, popcount, sent_colour
from .store import BankedRAM, SinglePortRAM
from .tiles import DIRS, Cell, Colour, End, Pos, Reason, Shape, SHAPE_MASKS, Status, Variant, Winner

__all__ = ["Control"]


class Control:
    """The state machine of ``engine`` (an :class:`~traxfpga.hdl.engine.Engine`), built into
    its module ``m``: the stores and parts at construction, the states by :meth:`build`."""

    def __init__(self, engine, m):
        self.m = m
        self.cmd, self.res, self.dump, self.busy = engine.cmd, engine.res, engine.cells, engine.busy
        self.engine_key = getattr(engine, "key", None)
        self.L = engine.log2n
        self.NN = engine.n
        self.log_depth = engine.log_depth
        self.stack_depth = engine.stack_depth
        self.clear_on_start = engine.clear_on_start
        self.spram = engine.spram
        self.dual = engine.dual
        self.quad = engine.quad
        self.keyed = engine.keyed
        self.scoped = engine.scope
        self.engine = engine
        self._stores()
        self._registers()
        self._walk()
        self._path_ends()
        self._neighbours()
        self._result()
        if self.keyed:
            self._key()

    def build(self):
        m = self.m
        if not self.dual:
            m.d.sync += self.ring_r.eq(0)       # (EVAL sets it)
        with m.FSM(init="CLEAR_ALL" if self.clear_on_start else "IDLE") as fsm:
            self._command_states()
            self._board_states()
            self._eval_states()
            self._place_states()
            self._seek_states()
            self._tile_states()
            self._forced_states()
            self._decide_states()
            self._undo_states()
            with m.State("RESULT"):
                m.d.comb += self.res.valid.eq(1)
                with m.If(self.res.ready):
                    m.next = "IDLE"
            ongoing = {name: fsm.ongoing(name) for name in fsm.encoding}
        if not self.dual:
            # One port: the state register one-hot (Yosys recodes it), so that a state's
            # test is one flip-flop, not a decode of five bits in front of every choice of
            # an address.  On the UP5K the device's longest paths run from the state
            # through the choice of a store's address; binary, the device misses 24 MHz
            # on most placements.  (Every iCE40 build holds its domain in reset after
            # configuration, which sets the initial state's bit.)
            fsm.state.attrs["fsm_encoding"] = "one-hot"
        if self.dual:
            self.first_reads(ongoing["UNTILE"] & (self.step == 0))
        else:
            with m.If(self.at_area):
                m.d.comb += self.cells.addr.eq(self.phys(self.prx, self.pry))
        m.d.comb += self.busy.eq(~self.cmd.ready)
        if self.engine.profile:
            self._show_state(fsm.encoding, ongoing)

    def _show_state(self, encoding, ongoing):
        """The state's code on ``engine.state``, and the codes' names."""
        engine = self.engine
        assert len(encoding) <= 1 << len(engine.state), "STATE_BITS too small"
        for name, code in encoding.items():
            with self.m.If(ongoing[name]):
                self.m.d.comb += engine.state.eq(code)
        engine.state_names = {code: name for name, code in encoding.items()}

    # -- the stores, the registers and the parts ------------------------------------------

    def _stores(self):
        m, NN, L = self.m, self.NN, self.L
        if self.dual:
            # Two banks each, the even and odd columns: TILE reads two neighbours a cycle.
            # (In whole words: the take-back reads a neighbour's before it clears a lane.)
            m.submodules.cells = self.cells = BankedRAM(shape=Cell, depth=NN * NN, quad=self.quad)
            self.far = [BankedRAM(shape=End(L), depth=NN * NN, quad=self.quad) for _ in range(2)]
            # Every write goes where the read goes, except in TILE_WRITE and UNTILE; the
            # path-end stores are never read and written in one cycle.
            m.d.comb += [self.cells.waddr.eq(self.cells.addr),
                         *(far.waddr.eq(far.addr) for far in self.far)]
        else:
            m.submodules.cells = self.cells = SinglePortRAM(shape=Cell, depth=NN * NN,
                                                            spram=self.spram, lanes=4)
            self.far = [SinglePortRAM(shape=End(L), depth=NN * NN, spram=self.spram)
                        for _ in range(2)]
        m.submodules.far_w, m.submodules.far_b = self.far
        self.all_lanes = (1 << len(self.cells.we)) - 1      # a whole word written
        # On two ports the log's entries are compact (ECP5: two DP16KD where three were);
        # on one port the flags they leave out would lengthen the UP5K's longest path,
        # which starts at the log's read data.
        m.submodules.log = self.log = UndoLog(L, self.log_depth, compact=self.dual)
        m.submodules.forced = self.forced = ForcedStack(L, self.stack_depth)
        self.entry = self.log.top
        if self.keyed:
            m.submodules.key = self.key = PositionKey(L)
        if self.scoped:
            m.submodules.scope = self.boxes = ScopeBoxes(L)

    def _registers(self):
        L = self.L
        KW = self.log_depth.bit_length()        # tiles in one move: < log_depth
        # The game.
        self.variant = Signal(Variant)
        self.ply = Signal(16)
        self.over = Signal()
        self.winner = Signal(Winner)
        self.reason = Signal(Reason)
        self.minx = Signal(L)
        self.miny = Signal(L)
        self.width = Signal(L + 1)
        self.height = Signal(L + 1)
        # The command in progress.
        self.undoing = Signal()                 # UNDO (else PLACE) while rolling back
        self.seeking = Signal()                 # SEEK (else PLACE) in CHECK
        self.hunt = Signal()                    # SEEK, UNDO_SEEK: keep only an ending move
        self.fresh = Signal()                   # TILE: a forced square's word arrives
        self.nodes = Signal(16)                 # the legal placements of this command
        self.wild = Signal()                    # a coordinate far outside any area
        self.eol = Signal()                     # DUMP: the square read is the last of its row
        self.tile = Signal(Shape)
        self.saved = Signal(Area(L))            # the area before this move
        self.k = Signal(KW)                     # tiles placed so far / left to take back
        self.placed = Signal(KW)
        self.status = Signal(Status)
        self.fault = Signal(Status)             # status of a move found illegal mid-way
        self.trial = Signal()                   # 8x8 draw scan: trying placements, keeping none
        self.found = Signal()                   # the scan found a legal placement
        # The current square P: absolute and relative coordinates (the relative ones also
        # step the scans of RESET, DUMP, EVAL and the 8x8 draw test), tile, word.
        self.px = Signal(L)
        self.py = Signal(L)
        self.prx = Signal(signed(L + 2))
        self.pry = Signal(signed(L + 2))
        self.pmask = Signal(4)
        self.pcell = Signal(Cell)
        self.nb = Array(Signal(Cell, name=f"nb{d}") for d in DIRS)     # neighbour words
        self.back = Array(Signal(2, name=f"back{d}") for d in DIRS)    # the finder's `back`s
        self.step = Signal(3)
        self.todo = Signal(4)                   # the neighbours left: TILE_WRITE, EVAL
        self.epend = Signal(4)                  # UNTILE: the board store's writes left
        self.cleared = Signal(4)                # ... two ports: the neighbours read, to write
        self.fpend = Array(Signal(2, name=f"fpend{c}") for c in range(2))  # sides a, b
        self.ending = Signal()                  # UNTILE: this step ends the take-back
        if self.dual:
            # EVAL reads squares of a row in groups: which after the first are in the ring,
            # and the first's square.
            self.group = Signal(3 if self.quad else 1)
            self.qrx = Signal(signed(L + 2))
            self.qry = Signal(signed(L + 2))
        else:
            # One port: EVAL's scan moves P to the square it addresses, whose word
            # arrives next; `at_r` is P a cycle ago, the square of the path end arriving.
            # The edges of P on the area's border, and whether P is a tile whose tracks
            # into the ring are followed (`ringing`), their path ends arriving a cycle
            # later (`ring_r`): the scan reads no square of the ring.
            self.at_r = Signal(Pos(L))
            self.border = Signal(4)
            self.row_end = Signal()
            self.ringing = Signal()
            self.ring_r = Signal()
        # SEEK: the square whose word arrives (the one after P in scan order), and the
        # placement the result names (kept apart: the 8x8 draw scan steps prx, pry, tile).
        self.nx = Signal(signed(L + 2))
        self.ny = Signal(signed(L + 2))
        self.scanned = Signal()                 # this SEEK has scanned: nx, ny follow P
        self.p_down = Signal()                  # P is in the scan's last row
        self.at_col = Signal(signed(L + 2))
        self.at_row = Signal(signed(L + 2))
        self.at_tile = Signal(Shape)
        self.at_area = Signal()                 # the board store reads (prx, pry): `address_area`
        if self.scoped:
            # SEEK's window (Command.window): its last column, its first and last rows.
            self.windowed = Signal()
            self.wx1 = Signal(signed(L + 2))
            self.wy0 = Signal(signed(L + 2))
            self.wy1 = Signal(signed(L + 2))
            # `tried`: the placement decided, on the strobe two cycles after, when the boxes
            # hold its last tile (its square kept: a hunt may move on in the cycle it decides)
            self.tried_next = Signal()
            self.tried_now = Signal()
            self.tried_ended = Signal()
            self.tried_at = Signal(data.StructLayout({"col": signed(8), "row": signed(8),
                                                      "tile": Shape}))

    def wrap(self, v):
        return v[:self.L]

    def phys(self, rx, ry):
        """The store address of column ``rx``, row ``ry`` of the area."""
        return Cat(self.wrap(self.minx + rx), self.wrap(self.miny + ry))

    def address_area(self):
        """The board store addresses square (prx, pry) of the area.  On one port, set as a
        flag and muxed last (`build`): the area's adder then drives the store's address
        through one multiplexer instead of through the states' whole tree, which was the
        UP5K device's longest path (and cost 19 cells more)."""
        if self.dual:
            self.m.d.comb += self.cells.addr.eq(self.phys(self.prx, self.pry))
        else:
            self.m.d.comb += self.at_area.eq(1)

    def _area_to(self, area):
        return [area.minx.eq(self.minx), area.miny.eq(self.miny),
                area.width.eq(self.width), area.height.eq(self.height)]

    def _walk(self):
        """The tile states address P's neighbour across edge `ndir` (or, `at_p`, P itself)
        at `nb_addr`, the one board-store address of all these states; `rdir` and `rpos`
        are the edge and square whose words arrive.  On one port the far-end stores read
        the neighbour across `fdir` (`ndir` but in TILE, which reads the empty neighbours'
        words and the tile neighbours' path ends side by side: `tile_one_port`), whose
        entries arrive as `rfdir`, `rfpos`.  On two ports TILE reads two at a time, N and E
        at step 0, S and W at step 1 (`at_p` at step 2), the second of each pair at
        `nb_addr2` (`ndir2`, `rdir2`, `rpos2`): their columns differ, so they lie in
        different banks.  (A SEEK placement's
        N and E are read in the cycle it is placed, and its tile starts at step 1.  A forced
        neighbour across S or W whose word is known has S and W read first, `rev`.)  With
        `quad`, S and W are read at the same time as N and E (or N and E with S and W,
        `rev`), at `addr3` and `addr4`."""
        m, px, py, wrap = self.m, self.px, self.py, self.wrap
        self.ndir = ndir = Signal(2)
        self.at_p = Signal()
        if self.dual:
            self.rev = Signal()                 # this tile reads S and W before N and E
            m.d.comb += [ndir.eq(Cat(0, self.step[0] ^ self.rev)), self.at_p.eq(self.step[1])]
            ndir2 = ndir | 1
            self.nb_addr2 = Signal(Pos(self.L))
            self.rdir2 = Signal(2)
            self.rpos2 = Signal(Pos(self.L))
            m.d.comb += self.nb_addr2.eq(self.neighbour(ndir2))
            m.d.sync += [self.rdir2.eq(ndir2), self.rpos2.eq(self.nb_addr2)]
        else:
            m.d.comb += [ndir.eq(self.step[:2]), self.at_p.eq(self.step[2])]
            # One port: the path-end stores read a neighbour of their own (`fdir`, by
            # default the board store's), so that TILE reads a tile neighbour's path ends
            # while the board store reads an empty neighbour's word.  The edge and square
            # whose path ends arrive: `rfdir`, `rfpos`.
            self.fdir = Signal(2)
            self.rfdir = Signal(2)
            self.rfpos = Signal(Pos(self.L))
            m.d.comb += self.fdir.eq(ndir)
            m.d.sync += [self.rfdir.eq(self.fdir), self.rfpos.eq(self.far[0].addr)]
            # TILE: the empty neighbours (`cleft`) and tile neighbours (`fleft`) left to
            # read after step 0, and whether a word (`cread`) and path ends (`fread`) arrive.
            self.cleft = Signal(4)
            self.fleft = Signal(4)
            self.cread = Signal()
            self.fread = Signal()
        nb_x = Mux(ndir == 1, wrap(px + 1), Mux(ndir == 3, wrap(px - 1), px))
        nb_y = Mux(self.at_p, py,
                   Mux(ndir == 0, wrap(py - 1), Mux(ndir == 2, wrap(py + 1), py)))
        self.nb_addr = Signal(Pos(self.L))
        m.d.comb += self.nb_addr.eq(Cat(nb_x, nb_y))
        self.rdir = Signal(2)
        self.rpos = Signal(Pos(self.L))
        m.d.sync += [self.rdir.eq(ndir), self.rpos.eq(self.nb_addr)]
        if self.quad:
            # Four reads a cycle: the third and fourth across the first two's opposite
            # edges, at the write ports' reads; S and W whatever the state (a bank that
            # writes does not read), so that TILE's step 0 reads all four.
            self.rdir3, self.rdir4 = self.rdir ^ 2, self.rdir2 ^ 2
            self.rpos3 = Signal(Pos(self.L))
            self.rpos4 = Signal(Pos(self.L))
            for store in (self.cells, *self.far):
                m.d.comb += [store.addr3.eq(self.neighbour(2)), store.addr4.eq(self.neighbour(3))]
            m.d.sync += [self.rpos3.eq(self.cells.addr3), self.rpos4.eq(self.cells.addr4)]

    def _path_ends(self):
        """The one path-end finder works out the far end of the path P joins across edge
        `rdir`, from the words arriving; the joins keep them, with whether they close a loop
        or a line; EVAL's pipeline weighs them instead."""
        m, L, cells = self.m, self.L, self.cells
        if self.quad:                           # all four ends at once
            joins = FourJoins(L)
        else:
            # (Two ends a cycle on one port too: a tile neighbour's and an empty one's.)
            joins = Joins(L)
        m.submodules.joins = self.joins = joins
        m.d.comb += self._area_to(joins.area)
        if self.dual:
            self.finder = self._finder("finder", joins, "", self.rdir, self.rpos, "rdata")
            # The second of the two neighbours TILE reads a cycle.
            self.finder2 = self._finder("finder2", joins, "2", self.rdir2, self.rpos2, "rdata2")
        else:
            # One port: the path ends of a tile neighbour (the finder's `occ` is 1: TILE
            # and EVAL take its ends only across edges a tile lies beyond), and, at
            # the second port of the joins, an empty neighbour's: P's own open edge.
            self.finder = self._finder("finder", joins, "", self.rfdir, self.rfpos, "rdata",
                                       occ=Const(1))
            self.finder2 = self._finder("finder2", joins, "2", self.rdir, self.rpos, "rdata",
                                        occ=Const(0))
        if self.quad:
            # S and W (N and E after `rev`), where a tile reads all four at once.
            self.finder3 = self._finder("finder3", joins, "3", self.rdir3, self.rpos3, "rdata3")
            self.finder4 = self._finder("finder4", joins, "4", self.rdir4, self.rpos4, "rdata4")
        self.occ = cells.rdata.occ
        self.ends = joins.ends

        m.submodules.eval = self.ev = ev = EvalPipeline(L)
        if self.dual:
            m.d.comb += [ev.at.x.eq(self.px), ev.at.y.eq(self.py)]
        else:
            # One port: the square P was when its path end was addressed.
            m.d.sync += [self.at_r.x.eq(self.px), self.at_r.y.eq(self.py)]
            m.d.comb += ev.at.eq(self.at_r)
        m.d.comb += [ev.lines.eq(self.variant != Variant.LOOPTRAX), *self._area_to(ev.area)]
        if not self.dual:
            # A ring's path end: P was the tile, and the ring's square lies across the
            # edge the finder looked back across.
            m.d.comb += [ev.across.valid.eq(self.ring_r), ev.across.dir.eq(self.rfdir ^ 2)]

    def _finder(self, name, joins, port, rdir, rpos, rdata, occ=None):
        """A path-end finder on the words of the neighbour across ``rdir`` at ``rpos`` (the
        stores' read data ``rdata``), feeding the joins' ``port``; ``occ``: whether that
        neighbour is a tile, if known without its word."""
        m = self.m
        m.submodules[name] = finder = PathEndFinder(self.L)
        cell = getattr(self.cells, rdata)
        occ = cell.occ if occ is None else occ
        m.d.comb += [finder.p.x.eq(self.px), finder.p.y.eq(self.py), finder.mask.eq(self.pmask),
                     finder.dir.eq(rdir), finder.pos.eq(rpos), finder.occ.eq(occ),
                     *(finder.far[c].eq(getattr(self.far[c], rdata)) for c in range(2))]
        wiring.connect(m, finder.found, getattr(joins, "found" + port))
        facing = getattr(joins, "facing" + port)
        m.d.comb += [getattr(joins, "occ" + port).eq(occ),
                     facing.x.eq(rpos.x), facing.y.eq(rpos.y), facing.d.eq(rdir ^ 2)]
        return finder

    def _neighbours(self):
        """The neighbour written (`wdir`, at `w_addr`): the one addressed now.  Its new word
        once P is placed, and whether it becomes forced or over-full, registered (for
        timing) and acted on the step after its write."""
        m, L = self.m, self.L
        self.wdir, self.w_addr = self.ndir, self.nb_addr
        self.push_r = Signal()                  # the neighbour written last step is forced
        self.three_r = Signal()                 # ... or over-full
        self.over3 = Signal()                   # some neighbour of this tile is over-full
        self.push_xy = Signal(Pos(L))
        if self.dual:
            self.push_word = Signal(Cell)       # the word written last step, and its edge
            self.push_dir = Signal(2)
        m.d.sync += [self.push_r.eq(0), self.three_r.eq(0)]
        if not self.dual:
            # One port: the first neighbour a tile makes forced is kept, its square and its
            # word as written, and is the next tile (`tile_done`), instead of being pushed
            # and read back by `POP_READ` (`write_neighbour`).
            self.kept = Signal()                # a neighbour of this tile is kept
            self.kept_xy = Signal(Pos(L))
            self.kept_word = Signal(Cell)
        self.nsel = Signal(Cell)
        m.d.comb += self.nsel.eq(self.nb[self.wdir])
        m.submodules.neighbour = upd = NeighbourUpdate()
        m.d.comb += [upd.cell.eq(self.nsel), upd.dir.eq(self.wdir), upd.mask.eq(self.pmask)]
        self.upd = upd
        self.live = ~self.nsel.occ
        if self.dual:
            # The E and W neighbours' words once P is placed, for `write_beside`.
            self.upd_ew = []
            for d in (1, 3):
                m.submodules[f"neighbour{d}"] = upd_d = NeighbourUpdate()
                m.d.comb += [upd_d.cell.eq(self.nb[d]), upd_d.dir.eq(d), upd_d.mask.eq(self.pmask)]
                self.upd_ew.append(upd_d)
        # Whether the neighbour whose word arrives at TILE's steps 1..4 would be forced
        # or filled with three tracks once P is placed, known before any write (`QUIET`):
        # an empty square that P's colour enters and that another track of that colour
        # enters already.  (The update's own test counts the tracks, and its adders put
        # the UP5K below 24 MHz on this path.  The two agree when no forced square is
        # pending, the only case `QUIET` is for: an empty square then has at most one
        # track of a colour.)
        def stirs(rd, rdir):
            new_col = sent_colour(self.pmask, rdir)
            return ~rd.occ & Cat(*(rd.inc[d].as_value() == new_col for d in DIRS)).any()
        self.stirs = stirs(self.cells.rdata, self.rdir)
        if self.dual:                           # (the two words arriving)
            self.stirs |= stirs(self.cells.rdata2, self.rdir2)
        else:                                   # (a word arrives at some steps only)
            self.stirs &= self.cread
        if self.quad:
            self.stirs |= (stirs(self.cells.rdata3, self.rdir3) |
                           stirs(self.cells.rdata4, self.rdir4))
        self.stirred = Signal()                 # a neighbour read so far stirs

        # The colours entering P.
        self.p_inc = [self.pcell.inc[d] for d in DIRS]
        self.p_white, self.p_black = counts(self.p_inc)

    def consistent(self, mask):
        """A tile of white edges ``mask`` agrees with the colours entering P."""
        ok = Const(1)
        for d in DIRS:
            ok &= (self.p_inc[d] == Colour.NONE) | ((self.p_inc[d] == Colour.WHITE) == mask[d])
        return ok

    @staticmethod
    def forced_of(word):
        """The tile forced into the square of ``word``, from its two same-coloured entering
        tracks."""
        white, black = counts([word.inc[d] for d in DIRS])
        return Mux(popcount(white) >= 2, white, (~black)[:4])

    def log_full(self):
        """No room in the undo log for one more tile and the move's trailer."""
        return self.k == self.log_depth - 1

    def _key(self):
        """The position key's tile is P's; its output, the key of the position and the side
        to move (tt_spec.slot's bit 0).  Its strobes are the log push's and the take-back's
        (`join_write`, `untile`) and the reset's."""
        key = self.key.key
        self.m.d.comb += [self.key.x.eq(self.px), self.key.y.eq(self.py),
                          self.key.mask.eq(self.pmask),
                          self.engine_key.eq(Cat(key[0] ^ self.ply[0], key[1:]))]

    def _result(self):
        res = self.res.payload
        self.m.d.comb += [
            res.status.eq(self.status),
            res.placed.eq(self.placed),
            res.width.eq(self.width),
            res.height.eq(self.height),
            res.ply.eq(self.ply),
            res.winner.eq(self.winner),
            res.reason.eq(self.reason),
            res.pot.eq(self.ev.pot),
            res.att.eq(self.ev.att),
            res.col.eq(self.at_col),
            res.row.eq(self.at_row),
            res.tile.eq(self.at_tile),
            res.nodes.eq(self.nodes),
            res.variant.eq(self.variant),
        ]
        if self.scoped:
            tried = self.engine.tried
            self.m.d.comb += [res.box.eq(self.boxes.box), res.hull.eq(self.boxes.hull),
                              tried.valid.eq(self.tried_now),
                              tried.col.eq(self.tried_at.col), tried.row.eq(self.tried_at.row),
                              tried.tile.eq(self.tried_at.tile), tried.ended.eq(self.tried_ended),
                              tried.box.eq(self.boxes.box)]
            self.m.d.sync += [self.tried_now.eq(self.tried_next), self.tried_next.eq(0)]

    # -- the helpers the states share -------------------------------------------------------

    def finish(self, st):
        # (`placed` is cleared on a command's acceptance and set only by DECIDE and UNDO;
        # `status` may change freely during the 8x8 scan, which sets it last.)
        m = self.m
        m.d.sync += self.status.eq(st)
        with m.If(self.trial):
            m.next = "SCAN_NEXT"      # a trial placement that does not fit
        with m.Else():
            m.next = "RESULT"

    def read_neighbours(self):
        """Two ports: steps 0 and 1 address N and E, then S and W; steps 1 and 2 take their
        words."""
        m, cells = self.m, self.cells
        m.d.comb += cells.addr.eq(self.nb_addr)
        m.d.comb += cells.addr2.eq(self.nb_addr2)
        for c in range(2):
            m.d.comb += self.far[c].addr2.eq(self.nb_addr2)
        for i in range(2):
            for rev in range(2):            # the pair read at step i: (N, E) or (S, W)
                pair = 2 * (i ^ rev)
                with m.If((self.step == i + 1) & (self.rev == rev)):
                    m.d.sync += [self.nb[pair].eq(cells.rdata),
                                 self.nb[pair + 1].eq(cells.rdata2)]
        if self.quad:
            with m.If(self.step == 1):         # all four at once
                m.d.sync += [self.nb[Cat(0, ~self.rev)].eq(cells.rdata3),
                             self.nb[Cat(1, ~self.rev)].eq(cells.rdata4)]

    # The writes of one tile's placement (TILE_WRITE); the caller sets the store's write
    # address.
    def write_tile(self):
        """P, with its tile."""
        cells = self.cells
        self.m.d.comb += [cells.wdata.eq(self.pcell), *cells.wdata.tile(self.pmask),
                          cells.we.eq(self.all_lanes)]

    def join_write(self, i):
        """The joined path ends point at each other: A's far end at B's (i = 0, with the log
        entry), then B's at A's (i = 1)."""
        m, ends, entry = self.m, self.ends, self.log.push.payload
        if i == 0:
            tile = entry.u.tile
            m.d.comb += [self.log.push.valid.eq(1),
                         tile.p.x.eq(self.px), tile.p.y.eq(self.py), tile.mask.eq(self.pmask)]
            if not self.dual:
                m.d.comb += entry.trailer.eq(0)
            for d in DIRS:
                # What taking P back writes blind (see `untile`): whether a tile lay across
                # edge d, and the edge its far end's word held.
                m.d.comb += tile.back[d].eq(self.back[d])
                if not self.dual:
                    m.d.comb += tile.nocc[d].eq(self.pcell.inc[d] != Colour.NONE)
            for c in range(2):
                for s in range(2):
                    m.d.comb += [entry.u.tile.e[2 * c + s].x.eq(ends[c][s].x),
                                 entry.u.tile.e[2 * c + s].y.eq(ends[c][s].y)]
            if self.scoped:
                self.add_to_boxes()
        for c in range(2):
            ea, eb = ends[c][i], ends[c][1 - i]
            wd = eb.d
            if i == 1:
                # No track of this colour enters P: both its ends are P's own edges, and
                # P points to itself at their XOR (the finder's encoding).
                alone = ~(self.p_white if c == 0 else self.p_black).any()
                wd = Mux(alone, ea.d ^ eb.d, eb.d)
            wdata = self.far[c].wdata
            m.d.comb += [self.far[c].addr.eq(Cat(ea.x, ea.y)), wdata.x.eq(eb.x),
                         wdata.y.eq(eb.y), wdata.d.eq(wd), self.far[c].we.eq(1)]
        if i == 0:
            m.d.sync += self.k.eq(self.k + 1)
            if self.keyed:
                m.d.comb += self.key.toggle.eq(1)

    def add_to_boxes(self):
        """An engine of `scope`: P's tile, with the far ends it joins, in the move's boxes
        (as it is logged, or as QUIET decides a hunted move before its last tile is)."""
        boxes, ends = self.boxes, self.ends
        self.m.d.comb += [boxes.add.eq(1), boxes.first.eq(self.k == 0),
                          boxes.origin.x.eq(self.saved.minx), boxes.origin.y.eq(self.saved.miny),
                          boxes.p.x.eq(self.px), boxes.p.y.eq(self.py),
                          *(boxes.ends[2 * c + s].x.eq(ends[c][s].x) for c in range(2)
                            for s in range(2)),
                          *(boxes.ends[2 * c + s].y.eq(ends[c][s].y) for c in range(2)
                            for s in range(2))]

    def tried(self, ended):
        """An engine of `scope`: the move decided, on `tried` two cycles after."""
        if self.scoped:
            self.m.d.sync += [self.tried_next.eq(~self.trial), self.tried_ended.eq(ended),
                              self.tried_at.col.eq(self.at_col), self.tried_at.row.eq(self.at_row),
                              self.tried_at.tile.eq(self.at_tile)]

    def write_neighbour(self):
        """The neighbour across `wdir`, with P's colour entering it; whether it became forced
        or over-full is registered (for timing) and acted on the step after."""
        m = self.m
        m.d.comb += [self.cells.wdata.eq(self.upd.new),
                     self.cells.we.eq(self.live.replicate(len(self.cells.we)))]
        m.d.sync += [self.push_r.eq(self.upd.forced), self.three_r.eq(self.upd.full),
                     self.push_xy.eq(self.w_addr)]
        if self.dual:
            m.d.sync += [self.push_word.eq(self.upd.new), self.push_dir.eq(self.wdir)]
        if not self.dual:
            # Every neighbour's word is copied until the first forced one: it is known forced
            # a step after its write (`push_r`), and the copy's enable then comes from
            # registers alone (the update's own test put the UP5K below 24 MHz there).
            with m.If(~self.kept & ~self.push_r):
                m.d.sync += [self.kept_xy.eq(self.w_addr), self.kept_word.eq(self.upd.new)]

    def write_beside(self):
        """Two ports, TILE_WRITE: while the first port writes a neighbour across N or S (in
        P's bank), the second writes one across E or W (the other bank) if that one stays
        quiet, neither forced nor over-full: so it needs no push and no test the step
        after.  Returns the edge it writes, one-hot (0: none)."""
        m, cells, todo = self.m, self.cells, self.todo
        quiet = [todo[d] & ~u.forced & ~u.full for d, u in zip((1, 3), self.upd_ew)]
        go = (todo[0] | todo[2]) & (quiet[0] | quiet[1])
        m.d.comb += [cells.waddr2.eq(self.neighbour(Mux(quiet[0], 1, 3))),
                     cells.wdata2.eq(Mux(quiet[0], self.upd_ew[0].new, self.upd_ew[1].new)),
                     cells.we2.eq(go.replicate(len(cells.we2)))]
        return Mux(go, Mux(quiet[0], 0b0010, 0b1000), 0)

    def push_forced(self, taken=None):
        """Push the neighbour written the step before if it became forced, unless it is
        ``taken`` (its tile is the next: the dual-port schedule); returns whether the stack
        overflowed."""
        m, push = self.m, self.forced.push
        valid = self.push_r if taken is None else self.push_r & ~taken
        m.d.comb += [push.valid.eq(valid), push.payload.eq(self.push_xy)]
        cap_now = valid & ~push.ready
        with m.If(cap_now):
            m.d.sync += self.fault.eq(Status.CAPACITY)
        return cap_now

    def over_full(self):
        m = self.m
        with m.If(self.step == 0):
            m.d.sync += self.over3.eq(0)
        with m.Elif(self.three_r):
            m.d.sync += self.over3.eq(1)

    def tile_done(self, cap_now, ahead=None):
        """The tile's last step: on to the forced squares, or refuse the move.  A tile both
        over-full and over capacity is refused with `capacity`; `fault` is OK on entry.
        With ``ahead`` (the dual-port schedule: whether, where, and whether that is P) the
        next forced square is known already: its word is read now, unless it is P itself
        (pushed twice), whose word is being written in this step.  On one port, a kept
        neighbour (`write_neighbour`) is the next tile."""
        m = self.m
        m.d.sync += self.step.eq(0)
        if ahead is None:
            m.d.sync += self.kept.eq(0)
        else:
            known, at, is_p, start_nb, nb_xy, nb_word, south_west = ahead
            # The read is addressed whatever follows: the stack's read data (in `at` and
            # `is_p`) led the 85F's longest path to this address when it also chose here.
            with m.If(known):
                m.d.comb += self.cells.addr.eq(at)
        cap = (self.fault != Status.OK) | cap_now
        with m.If(cap | self.over3 | self.three_r):
            with m.If(~cap):
                m.d.sync += self.fault.eq(Status.THREE_TRACKS)
            self.take_back()
        if ahead is not None:
            with m.Elif(known & is_p):
                m.next = "POP"                  # P is filled: passed over, as when popped
            with m.Elif(start_nb):
                self.start_known(nb_xy, nb_word, south_west)
            with m.Elif(known):
                self.read_forced(at, addressed=True)
        else:
            kept = self.kept | self.push_r     # taken in this step, or before
            with m.Elif(kept & self.log_full()):
                # No room in the undo log for the kept tile and the move's trailer (as
                # `take_forced` refuses a popped one).
                m.d.sync += self.fault.eq(Status.CAPACITY)
                self.take_back()
            with m.Elif(kept):
                self.take_kept()
        with m.Elif(self.forced.empty & ~self.push_r & ~self.trial):
            self.decide()                       # nothing forced: decided in this step
        with m.Elif(~self.push_r & ~self.forced.empty):
            m.d.comb += self.forced.pop.eq(1)   # no push this step: pop at once
            m.next = "POP_READ"
        with m.Else():
            m.next = "POP"

    def decide(self):
        """The move is complete: who has won (the mover, with a loop or line of its colour;
        else the opponent, with one of theirs), a node counted; then the move stands
        (:meth:`_complete`) or, hunting and ending nothing, is taken back."""
        m, loop = self.m, self.joins.loop
        mover = self.ply[0]                        # 0 white, 1 black
        wins = loop | Mux(self.variant == Variant.LOOPTRAX, 0, self.joins.line)
        mine = Mux(mover, wins[1], wins[0])
        theirs = Mux(mover, wins[0], wins[1])
        mine_loop = Mux(mover, loop[1], loop[0])
        theirs_loop = Mux(mover, loop[0], loop[1])
        with m.If(mine):
            m.d.sync += [self.over.eq(1),
                         self.winner.eq(Mux(mover, Winner.BLACK, Winner.WHITE)),
                         self.reason.eq(Mux(mine_loop, Reason.LOOP, Reason.LINE))]
        with m.Elif(theirs):
            m.d.sync += [self.over.eq(1),
                         self.winner.eq(Mux(mover, Winner.WHITE, Winner.BLACK)),
                         self.reason.eq(Mux(theirs_loop, Reason.LOOP, Reason.LINE))]
        m.d.sync += self.nodes.eq(self.nodes + 1)
        self.tried(mine | theirs)
        with m.If(self.hunt & ~mine & ~theirs):
            # Hunting, a move that ends nothing: taken back at once, as a refused move is
            # (no trailer, the ply unchanged); `rolled_back` then goes on with the scan.
            self.take_back()
        with m.Else():
            self._complete(mine, theirs)

    def _complete(self, mine, theirs):
        """The move stands: its trailer, the ply; in 8x8 the draw scan, else the result."""
        m, prx, pry = self.m, self.prx, self.pry
        trailer = self.log.push.payload
        m.d.comb += [
            self.log.push.valid.eq(1),
            trailer.u.trailer.k.eq(self.k),
            trailer.u.trailer.area.eq(self.saved),
        ]
        if not self.dual:
            m.d.comb += trailer.trailer.eq(1)
        m.d.sync += [self.ply.eq(self.ply + 1), self.placed.eq(self.k)]
        with m.If((self.variant == Variant.EIGHT) & ~mine & ~theirs):
            # 8x8: drawn if no legal move remains.  Try placements until one fits.
            m.d.sync += [self.trial.eq(1), self.found.eq(0), prx.eq(-1), pry.eq(-1),
                         self.tile.eq(0)]
            m.next = "SCAN"
        with m.Else():
            self.finish(Status.OK)

    def neighbour(self, d, p=None):
        """The square across edge ``d`` of P (or of square ``p``, a `Pos`)."""
        wrap = self.wrap
        px, py = (self.px, self.py) if p is None else (p.x, p.y)
        return Cat(Mux(d == 1, wrap(px + 1), Mux(d == 3, wrap(px - 1), px)),
                   Mux(d == 0, wrap(py - 1), Mux(d == 2, wrap(py + 1), py)))

    def untile(self):
        """Taking P (the log's newest tile entry) back: only writes, each from the entry, so
        no store is read.  Step 0, P becomes the empty square it was: no tile, its path ends
        zero, and the colours entering it from the neighbours it had, which are its own
        edges' colours.  Then each edge's one write, the three stores' at once:

        * ``epend``, the board store: a neighbour that was empty when P was placed is empty
          still (the tiles placed after P are taken back first); its lane facing P is
          cleared, all of that lane an empty square's;
        * ``fpend[c]``, path-end store ``c``: across P's side a, then side b, of colour
          ``c``, where there was a neighbour, the far end P joined there gets back the
          word it had, pointing at the neighbour, at the entry's `back` edge.

        So a rollback leaves all three stores exactly as they were.  Returns whether this
        is the tile's last step; `ending` is set a cycle ahead for the move's last step.

        On two ports the board store is written in whole words, and its read ports are
        free: an empty neighbour's word is read a step before it is written back with its
        lane facing P cleared (`clear_lanes`), one in each bank a step."""
        m, tile, cells = self.m, self.entry.u.tile, self.cells
        # On two ports the writes go to the write ports, and the read ports read the empty
        # neighbours (`clear_lanes`) and, at the move's end, the square after P.
        waddr = cells.waddr if self.dual else cells.addr
        epend, fpend = self.epend, self.fpend
        epend_n = Signal(4)                            # the writes left after this step
        fpend_n = [Signal(2, name=f"fpend{c}_n") for c in range(2)]
        m.d.sync += [epend.eq(epend_n), *(fpend[c].eq(fpend_n[c]) for c in range(2))]

        edges = [tile.mask, ~tile.mask]                # each colour's edges of P
        split = split_r = split_now = None
        if self.dual:
            # Sides a and b of a colour are restored in one step when their far ends lie
            # in different banks (columns of different parity): one at each write port.
            # Registered at step 0 for the later steps, whose last one addresses the log
            # (`read_ahead`): deciding it from the log's read data made a path from the
            # log's block RAM back to its address, the 85F's longest.
            split = Cat(*(tile.e[2 * c].x[0] != tile.e[2 * c + 1].x[0] for c in range(2)))
            split_r = Signal(2)
            split_now = Mux(self.step == 0, split, split_r)

        def one_left(e, f, apart):  # a step with these writes pending is the tile's last
            if self.dual:       # (`e`: the neighbours still to read, each written a step on)
                return ((f[0] != 0b11) | apart[0]) & ((f[1] != 0b11) | apart[1]) & (e == 0)
            return (f[0] != 0b11) & (f[1] != 0b11) & ((e & (e - 1)) == 0)
        nocc = had_neighbours(tile, edges)
        last = Signal()
        # The move's last step known a cycle ahead: its end (`rolled_back`) drives the
        # enables of the area and the scan registers, too late for the UP5K at 24 MHz if
        # it waited for this cycle's pending writes and `k`.
        m.d.sync += self.ending.eq(~last & (self.k == 1) & one_left(epend_n, fpend_n, split_now))
        if self.keyed:
            # The tile's key is XORed out the cycle after step 0, from px, py and pmask
            # loaded there (a tile's take-back is never its step 0 alone).
            unkey = Signal()
            m.d.sync += unkey.eq(self.step == 0)
            m.d.comb += self.key.toggle.eq(unkey)
        with m.If(self.step == 0):
            # P's address straight from the entry, and the registers the later steps use
            # loaded from it: so the tile's take-back starts the cycle its entry arrives.
            m.d.sync += [self.px.eq(tile.p.x), self.py.eq(tile.p.y)]
            if self.keyed:
                m.d.sync += self.pmask.eq(tile.mask)
            if self.dual:
                m.d.sync += split_r.eq(split)
                m.d.comb += epend_n.eq(self.clear_lanes(~nocc, tile.p, first=True))
            else:
                m.d.comb += epend_n.eq(~nocc)
            for c in range(2):
                m.d.comb += fpend_n[c].eq(Cat(nocc.bit_select(one_hot_dir(edges[c]), 1),
                                              nocc.bit_select(top_dir(edges[c]), 1)))
            inc = [Mux(nocc[d], Mux(tile.mask[d], Colour.WHITE, Colour.BLACK), Colour.NONE)
                   for d in DIRS]
            m.d.comb += [waddr.eq(tile.p), *cells.wdata.empty(inc), cells.we.eq(self.all_lanes)]
            # P's word as the scan read it, the last tile's (the move's first) kept for
            # `resume_seek`.
            m.d.sync += self.pcell.empty(inc)
            for c in range(2):
                m.d.comb += [self.far[c].addr.eq(tile.p),
                             self.far[c].wdata.eq(0), self.far[c].we.eq(1)]
        with m.Else():
            if self.dual:
                m.d.comb += epend_n.eq(self.clear_lanes(epend, Cat(self.px, self.py)))
            else:
                e_dir = one_hot_dir(epend)
                m.d.comb += [waddr.eq(self.neighbour(e_dir)), cells.wdata.eq(0),
                             cells.we.eq(Mux(epend != 0, Const(1, 4) << (e_dir ^ 2), 0))]
                m.d.comb += epend_n.eq(epend & (epend - 1))
            for c in range(2):
                side_b = ~fpend[c][0]
                f_dir = Mux(side_b, top_dir(edges[c]), one_hot_dir(edges[c]))
                e = Mux(side_b, tile.e[2 * c + 1].as_value(), tile.e[2 * c].as_value())
                far = self.far[c]
                m.d.comb += [far.addr.eq(e), far.wdata.eq(Cat(self.neighbour(f_dir),
                                                              tile.back[f_dir])),
                             far.we.eq(fpend[c] != 0)]
                m.d.comb += fpend_n[c].eq(Mux(fpend[c][0], fpend[c] & 0b10, 0))
                if self.dual:
                    b_dir = top_dir(edges[c])
                    with m.If((fpend[c] == 0b11) & split_r[c]):
                        m.d.comb += [far.waddr2.eq(tile.e[2 * c + 1].as_value()),
                                     far.wdata2.eq(Cat(self.neighbour(b_dir), tile.back[b_dir])),
                                     far.we2.eq(1), fpend_n[c].eq(0)]
            m.d.comb += last.eq(one_left(epend, fpend, split_r))
        return last

    def first_reads(self, now):
        """Two ports: a tile's take-back reads S and E of P at its first step (``now``;
        `clear_lanes`), at addresses from the log entry that arrives in that very cycle.
        They are given here, after every state's, so that they are the read addresses'
        last choice: the entry's path to the store is then the two adders and the banks'
        choice alone.  (Chosen among the states' addresses, it was the 85F's longest.)"""
        p = self.entry.u.tile.p
        with self.m.If(now):
            self.m.d.comb += [self.cells.addr.eq(self.neighbour(2, p)),
                              self.cells.addr2.eq(self.neighbour(1, p))]

    def clear_lanes(self, epend, p, first=False):
        """Two ports: of the empty neighbours pending in ``epend``, one across S or N (in P's
        bank) read at `addr` and one across E or W (the other bank) at `addr2`; the two read
        the step before (`cleared`) written back at `waddr` and `waddr2` with their lanes
        facing P cleared.  At P's ``first`` step, which writes P, the reads are of S and E
        whatever is pending: those addresses come from the entry's square alone, not from
        the neighbours it had (derived from the entry's far ends on two ports, too late for
        the 85F's clock on the read address).  Returns the neighbours still to read.
        ``p``: P's square (a `Pos`)."""
        m, cells = self.m, self.cells
        p = Pos(self.L)(p)
        if first:
            reading = epend & 0b0110            # read at the addresses `first_reads` gives
        else:
            # S before N: the move's last step reads the square below P (`read_below`)
            # unless it writes it.
            ns, ew = epend & 0b0101, epend & 0b1010
            ns_dir, ew_dir = Mux(ns[2], 2, 0), Mux(ew[1], 1, 3)
            reading = Cat(ns[0] & ~ns[2], ew[1], ns[2], ew[3] & ~ew[1])
            m.d.comb += [cells.addr.eq(self.neighbour(ns_dir, p)),
                         cells.addr2.eq(self.neighbour(ew_dir, p))]
        cleared = self.cleared
        m.d.sync += cleared.eq(reading)
        if not first:
            for port, dirs, data in (("", (0, 2), cells.rdata), ("2", (1, 3), cells.rdata2)):
                d = Mux(cleared[dirs[1]], dirs[1], dirs[0])
                wdata = getattr(cells, "wdata" + port)
                m.d.comb += [getattr(cells, "waddr" + port).eq(self.neighbour(d)),
                             wdata.eq(data), wdata.lane[d ^ 2].eq(0),
                             getattr(cells, "we" + port).eq(cleared[dirs[0]] | cleared[dirs[1]])]
        return epend & ~reading

    def place(self, arrived=False):
        """The placed square's word is read (its checks follow), unless the area would
        outgrow the store.  ``arrived``: the state before addressed it, so its word is here
        now, and the checks follow at once."""
        m, prx, pry, NN = self.m, self.prx, self.pry, self.NN
        grow_x = (prx == -1) | (prx == self.width)
        grow_y = (pry == -1) | (pry == self.height)
        m.d.sync += [self.px.eq(self.wrap(self.minx + prx)), self.py.eq(self.wrap(self.miny + pry))]
        self.address_area()
        if arrived:
            m.d.sync += self.pcell.eq(self.cells.rdata)
        with m.If((grow_x & (self.width >= NN - 2)) | (grow_y & (self.height >= NN - 2))):
            self.finish(Status.CAPACITY)
        with m.Else():
            m.next = "PLACE_CHECK" if arrived else "PLACE_READ"

    def read_ahead(self):
        """The pointer moves back one entry at this edge: read the entry below it now, so
        that UNTILE has it the next cycle (`take_back`'s ways in leave the pointer still for
        a cycle, and the log's read data follows)."""
        self.m.d.comb += self.log.ahead.eq(1)

    def take_forced(self):
        """A forced tile's `TILE` step 0, where its square's word arrives (`POP_READ` read
        it): the tile from its two same-coloured tracks; a square filled since it was
        pushed is passed over (`POP`); no room in the log refuses the move."""
        m, rdata = self.m, self.cells.rdata
        m.d.sync += [self.fresh.eq(0), self.pcell.eq(rdata),
                     self.pmask.eq(self.forced_of(rdata))]
        with m.If(rdata.occ):
            m.d.sync += self.step.eq(0)
            m.next = "POP"
        with m.Elif(self.log_full()):
            # No room in the undo log for this tile and the move's trailer.
            m.d.sync += [self.fault.eq(Status.CAPACITY), self.step.eq(0)]
            self.take_back()

    def take_kept(self):
        """One port: the neighbour this tile made forced first (`write_neighbour` kept it)
        is the next tile, its word the one just written: no read, no `POP_READ`."""
        m, word = self.m, self.kept_word
        m.d.sync += [self.px.eq(self.kept_xy.x), self.py.eq(self.kept_xy.y), self.pcell.eq(word),
                     self.pmask.eq(self.forced_of(word))]
        m.next = "TILE"

    def take_back(self):
        """A refused move's take-back (or a trial's, or a hunted move's that ended nothing):
        its newest `k` tile entries, then the area from `saved` (`rolled_back`, at the last
        tile).  Every way in has placed a tile (`k` >= 1), left `step` at 0, and pushed its
        last entry a cycle before at least, so the entry is on the log's top next cycle."""
        self.m.next = "UNTILE"

    def untile_done(self):
        """The tile's last step: the next tile's take-back starts the next cycle, its entry
        read ahead (the move's last tile ends the take-back: `rolled_back`)."""
        m = self.m
        self.read_ahead()
        m.d.comb += self.log.pop.eq(1)
        m.d.sync += [self.step.eq(0), self.k.eq(self.k - 1)]

    def rolled_back(self, below=False):
        """The move's tiles are taken back: the area as it was, and the command's end (UNDO's
        and UNDO_SEEK's, a refused move's, or the 8x8 draw scan's trial placement).
        ``below``: the square after P is read in this step (for `resume_seek`)."""
        m, saved = self.m, self.saved
        self.restore_area()
        with m.If(self.undoing):
            m.d.sync += [self.ply.eq(self.ply - 1), self.over.eq(0),
                         self.winner.eq(Winner.NONE), self.reason.eq(Reason.NONE)]
            with m.If(self.seeking):
                self.seek_after_undo(saved.height)
            with m.Else():
                self.finish(Status.OK)
        with m.Elif(self.trial & self.found):
            # Not a draw: the move's own result (placed kept from DECIDE).
            m.d.sync += [self.trial.eq(0), self.status.eq(Status.OK)]
            m.next = "RESULT"
        with m.Elif(self.hunt & (self.fault == Status.OK)):
            # A hunted move that ended nothing: the scan goes on after it.
            self.hunted_on(addressed=below)
        with m.Else():
            self.finish(self.fault)

    def restore_area(self):
        saved = self.saved
        self.m.d.sync += [self.minx.eq(saved.minx), self.miny.eq(saved.miny),
                          self.width.eq(saved.width), self.height.eq(saved.height)]

    # -- the states ---------------------------------------------------------------------------

    def _clear_store(self):
        """The board store's word and both path-end words of square (prx, pry) of the area
        zeroed (an empty square's path ends are zero)."""
        m, cells, at = self.m, self.cells, self.phys(self.prx, self.pry)
        self.address_area()
        m.d.comb += [cells.wdata.eq(0), cells.we.eq(self.all_lanes)]
        for c in range(2):
            m.d.comb += [self.far[c].addr.eq(at), self.far[c].we.eq(1)]

    def _command_states(self):
        m, prx, pry, L = self.m, self.prx, self.pry, self.L
        with m.State("CLEAR_ALL"):
            # The whole store after configuration, and the path ends (see `untile`),
            # addressed as RESET addresses them: columns and rows 0 .. N-1 from the area's
            # corner cover the torus.
            self._clear_store()
            with m.If(prx == self.NN - 1):
                m.d.sync += [prx.eq(0), pry.eq(pry + 1)]
                with m.If(pry == self.NN - 1):
                    m.d.sync += pry.eq(0)
                    m.next = "IDLE"
            with m.Else():
                m.d.sync += prx.eq(prx + 1)

        with m.State("IDLE"):
            # Only register the command: nothing here depends combinationally on the payload
            # beyond a shallow "does it fit" test, so whatever drives `cmd` does not share a
            # timing path with the checks.
            m.d.comb += self.cmd.ready.eq(1)
            p = self.cmd.payload

            def fits(v):                 # representable in prx/pry without loss
                top = v[L + 1:]
                return (top == 0) | (top == (1 << len(top)) - 1)
            seeks = (p.op == Op.SEEK) | (p.op == Op.UNDO_SEEK)
            # (with `scope`, a PLACE may hunt too: the sequencer's walk of a list)
            hunts = seeks | (p.op == Op.PLACE) if self.scoped else seeks
            with m.If(self.cmd.valid):
                m.d.sync += [
                    prx.eq(p.col), pry.eq(p.row), self.tile.eq(p.tile),
                    self.wild.eq(~fits(p.col) | ~fits(p.row)),
                    self.undoing.eq((p.op == Op.UNDO) | (p.op == Op.UNDO_SEEK)),
                    self.k.eq(0), self.fault.eq(Status.OK), self.placed.eq(0),
                    self.seeking.eq(seeks), self.scanned.eq(0),
                    self.hunt.eq(p.hunt & hunts & (self.variant != Variant.EIGHT)),
                    self.nodes.eq(0),
                    self.at_col.eq(p.col), self.at_row.eq(p.row), self.at_tile.eq(p.tile),
                ]
                if self.scoped:
                    m.d.sync += [self.windowed.eq(p.window & seeks), self.wx1.eq(p.last_col),
                                 self.wy0.eq(p.first_row), self.wy1.eq(p.last_row)]
                with m.Switch(p.op):
                    with m.Case(Op.RESET):
                        m.d.sync += [prx.eq(-1), pry.eq(-1), self.variant.eq(p.variant)]
                        m.next = "RESET"
                    with m.Case(Op.DUMP):
                        m.d.sync += [prx.eq(0), pry.eq(0)]
                        m.next = "DUMP"
                    with m.Case(Op.EVAL):
                        first = -1 if self.dual else 0      # one port: not the ring's row
                        m.d.sync += [prx.eq(first), pry.eq(first), self.step.eq(0)]
                        if not self.dual:
                            # (EVAL holds P while `todo` is not 0)
                            m.d.sync += [self.todo.eq(0), self.row_end.eq(self.width <= 1)]
                        m.d.comb += self.ev.clear.eq(1)
                        m.next = "EVAL"
                    with m.Case(Op.UNDO, Op.UNDO_SEEK):
                        m.next = "UNDO"
                    with m.Case(Op.PLACE, Op.SEEK):
                        m.next = "CHECK"
                    with m.Default():    # the undefined op (7): refused, not lost
                        m.d.sync += self.status.eq(Status.RANGE)
                        m.next = "RESULT"

        with m.State("CHECK"):
            # The read starts before the checks end (PLACE's: on two ports in place() here,
            # on one in PLACE, which takes the word; SEEK's first square).
            self.address_area()
            with m.If(self.over):
                self.finish(Status.GAME_OVER)
            with m.Elif(self.ply == 0):
                with m.If(self.wild | (prx != -1) | (pry != -1) | (self.tile == Shape.BACKSLASH)):
                    self.finish(Status.FIRST_MOVE)
                with m.Else():
                    # (its square is the area's corner)
                    m.d.sync += [
                        self.pcell.eq(0),
                        self.pmask.eq(Mux(self.tile == Shape.PLUS, SHAPE_MASKS[Shape.PLUS][0],
                                          SHAPE_MASKS[Shape.SLASH][0])),
                        self.px.eq(self.minx - 1), self.py.eq(self.miny - 1),
                    ]
                    self.start_tile()
            # Columns -1 .. width and rows -1 .. height.
            with m.Elif(self.wild | (prx < -1) | (prx > self.width) |
                        (pry < -1) | (pry > self.height)):
                self.finish(Status.RANGE)
            with m.Elif(self.seeking):
                m.d.sync += [self.nx.eq(prx), self.ny.eq(pry)]
                m.next = "SEEK_READ"
            with m.Else():
                if self.dual:
                    self.place()                  # a cycle saved: the read starts here
                else:
                    m.next = "PLACE"

    def _board_states(self):
        m, prx, pry, cells = self.m, self.prx, self.pry, self.cells
        # -- reset: clear the area and its border ring, then an empty game ----------------
        with m.State("RESET"):
            self._clear_store()
            with m.If(prx >= self.width):
                m.d.sync += [prx.eq(-1), pry.eq(pry + 1)]
                with m.If(pry >= self.height):
                    m.d.sync += [self.ply.eq(0), self.over.eq(0), self.winner.eq(Winner.NONE),
                                 self.reason.eq(Reason.NONE), self.width.eq(0),
                                 self.height.eq(0)]
                    m.d.comb += self.log.clear.eq(1)
                    if self.keyed:
                        # The store is empty everywhere: a game starts at the same squares
                        # after every reset, so that the twin knows the keys' squares
                        # (tt_spec.store_coord).
                        m.d.sync += [self.minx.eq(0), self.miny.eq(0)]
                        m.d.comb += self.key.clear.eq(1)
                    self.finish(Status.OK)
            with m.Else():
                m.d.sync += prx.eq(prx + 1)

        # -- dump: the area's squares, row by row -----------------------------------------
        with m.State("DUMP"):
            with m.If((self.width == 0) | (pry >= self.height)):
                self.finish(Status.OK)
            with m.Else():
                self.address_area()
                m.d.sync += self.eol.eq(prx == self.width - 1)    # registered: a stream output
                m.next = "DUMP_OUT"
        with m.State("DUMP_OUT"):
            self.address_area()                                  # hold the read data
            m.d.comb += [
                self.dump.valid.eq(1),
                self.dump.payload.occ.eq(cells.rdata.occ),
                self.dump.payload.white.eq(cells.rdata.white),
                self.dump.payload.eol.eq(self.eol),
            ]
            with m.If(self.dump.ready):
                with m.If(self.eol):
                    m.d.sync += [prx.eq(0), pry.eq(pry + 1)]
                with m.Else():
                    m.d.sync += prx.eq(prx + 1)
                m.next = "DUMP"

    def eval_words(self):
        """The squares of a row EVAL reads a cycle: one on one port, two on two (one from
        each bank), four with four reads (two from each)."""
        return 4 if self.quad else 2 if self.dual else 1

    def eval_read(self):
        """EVAL's scan reads square (prx, pry) of the area and its ring, and on more ports
        the squares after it in its row (`eval_words`), at the read ports in turn: their
        columns alternate, so the banks do."""
        m, prx, pry, cells = self.m, self.prx, self.pry, self.cells
        self.address_area()
        for k, port in enumerate(("2", "3", "4")[:self.eval_words() - 1], start=1):
            m.d.comb += getattr(cells, "addr" + port).eq(self.phys(prx + k, pry))

    def eval_address(self):
        """EVAL's scan: square (prx, pry) of the area and its ring addressed (its word
        arrives next cycle, `step` bit 0, at px, py: on one port P moves with the scan, and
        `at_r` keeps the square of a path end arriving beside the word), and the scan moved
        on a square.  On more
        ports the squares after it in its row too (`group`: those in the ring), and the
        scan moves on as many; (`qrx`, `qry`) is the first of the group.  (On two or four
        ports `EVAL` reads whatever it decides, `eval_read`: the address does not wait for
        the words read.)"""
        m, prx, pry, w = self.m, self.prx, self.pry, self.eval_words()
        x, y = self.wrap(self.minx + prx), self.wrap(self.miny + pry)
        m.d.sync += [self.px.eq(x), self.py.eq(y)]
        if not self.dual:
            self.eval_read()
        m.d.sync += self.step.eq(1)
        if self.dual:
            m.d.sync += [self.group.eq(Cat(*((prx + (k - 1) if k > 1 else prx) < self.width
                                             for k in range(1, w)))),
                         self.qrx.eq(prx), self.qry.eq(pry)]
            last = prx if w == 1 else prx + (w - 1)     # the group's last square
            with m.If(last >= self.width):              # ... is the row's last
                m.d.sync += [prx.eq(-1), pry.eq(pry + 1)]
            with m.Else():
                m.d.sync += prx.eq(prx + w)
        else:
            # One port: the area alone, its squares' edges on the border noted (N, E, S, W).
            # (`row_end`, whether prx is the row's last, is worked out an address ahead:
            # the comparison is off the path from the word read to the scan's registers.)
            prx1, pry1 = Signal.like(prx), Signal.like(pry)
            m.d.comb += [prx1.eq(prx + 1), pry1.eq(pry + 1)]
            row_end = self.row_end
            m.d.sync += self.border.eq(Cat(pry == 0, row_end, pry1 == self.height, prx == 0))
            with m.If(row_end):
                m.d.sync += [prx.eq(0), pry.eq(pry1), row_end.eq(self.width <= 1)]
            with m.Else():
                m.d.sync += [prx.eq(prx1), row_end.eq(prx + 2 >= self.width)]

    def eval_rows_left(self):
        """The scan has rows left to address: the ring's last too on more ports."""
        return self.pry <= self.height if self.dual else self.pry < self.height

    def eval_done(self):
        """The scan is over; the sums wait for the last path end's weight.  (An empty board
        too: every result of EVAL waits for the sums, which makes the stream proof's
        invariant inductive.)"""
        self.m.d.sync += self.step.eq(0)
        self.m.next = "EVAL_DRAIN"

    def eval_entering(self, word):
        """An empty square's word as EVAL follows it: the edges white tracks enter it by
        (P's colours, standing in for a tile's), and the edges any track enters by."""
        white_in, _ = counts([word.inc[d] for d in DIRS])
        return white_in, Cat(*(word.inc[d] != Colour.NONE for d in DIRS))

    def eval_one_port(self):
        """EVAL on one port, P the square whose word arrives (`step` bit 0).  An empty
        square that a track enters, or a tile on the area's border (the ring is not read:
        a ring square's one track comes from the tile beside it), holds the scan while its
        edges (`todo`) are followed, one a cycle, the first addressed at once from the
        word: an empty square's across the edge it enters by, a border tile's at P itself
        (`at_p`) with P's colours turned half round, so that the finder looks back across
        the ring square's edge as it would from the ring square's word.  The cycle that
        addresses P's last edge also addresses the square after P; each path end arrives
        a cycle after its edge is addressed (`step` bit 1), beside that square's word."""
        m, step, word, todo = self.m, self.step, self.cells.rdata, self.todo
        white_in, tracks = self.eval_entering(word)
        white, tile = word.white, word.occ
        arrived = step[0]
        ring = Mux(arrived, tile, self.ringing)         # P is a border tile
        edges = Mux(arrived, Mux(tile, self.border, tracks), todo)
        first = one_hot_dir(edges)
        rest = edges & (edges - 1)
        for c in range(2):
            m.d.comb += self.far[c].addr.eq(self.nb_addr)
        m.d.comb += [self.ndir.eq(Mux(ring, 0, first)), self.at_p.eq(ring),
                     self.fdir.eq(first ^ Cat(0, ring))]
        with m.If(edges != 0):
            m.d.sync += [todo.eq(rest), self.ring_r.eq(ring)]
            with m.If(arrived):
                m.d.sync += [
                    self.pmask.eq(Mux(tile, white.rotate_left(2), white_in)),
                    self.ringing.eq(tile)]
            with m.If((rest == 0) & self.eval_rows_left()):
                self.eval_address()
                m.d.sync += step.eq(0b11)
            with m.Else():
                m.d.sync += step.eq(0b10)
        with m.Elif((self.width == 0) | ~self.eval_rows_left()):
            self.eval_done()
        with m.Else():
            self.eval_address()

    def _eval_states(self):
        """Every path end around the area: each empty square of the area and its ring; for
        every track entering it, the far end of that path (as TILE finds it, P's colours
        standing in for a tile's).  Every open path is seen from both of its ends.  On one
        port the scan reads the area alone, and a ring square's track is taken from the
        tile beside it, which sends one into the ring across each of its border edges."""
        m, prx, pry, cells, step = self.m, self.prx, self.pry, self.cells, self.step

        def ends_at(word):
            """More ports: the word arrived is of an empty square that a track enters; and
            the statements that make it P for EVAL_ENDS, its tracks to follow."""
            white_in, tracks = self.eval_entering(word)
            return step[0] & (~word.occ & (tracks != 0)), [
                self.pcell.eq(word), self.pmask.eq(white_in), step.eq(0), self.todo.eq(tracks)]

        weighed = self.ev.ends
        weigh = [weighed.payload.end.eq(self.finder.found.end),
                 weighed.payload.black.eq(self.finder.found.black)]
        if not self.dual:
            m.d.comb += weigh           # (a path end may arrive in EVAL: below)
        with m.State("EVAL"):
            # A square a cycle (`eval_words` on more ports): (prx, pry) addressed while the
            # word of the one addressed the cycle before (`step` bit 0) arrives.  An
            # empty square that a track enters holds the scan while its tracks are
            # followed: on one port here (`eval_one_port`), on more in EVAL_ENDS, whose
            # last cycle addresses the square after it; of a group the first such square
            # is followed, and the group's squares after it are read again after.
            if not self.dual:
                m.d.comb += weighed.valid.eq(step[1])
                self.eval_one_port()
            else:
                w = self.eval_words()
                self.eval_read()
                words = [cells.rdata, *(getattr(cells, f"rdata{k + 1}") for k in range(1, w))]
                for k, word in enumerate(words):
                    ends, take = ends_at(word)
                    with (m.If if k == 0 else m.Elif)(ends if k == 0 else ends & self.group[k - 1]):
                        m.d.sync += take
                        if k:
                            m.d.sync += self.px.eq(self.wrap(self.px + k))
                        if k + 1 < w:
                            with m.If(self.group[k]):
                                m.d.sync += [prx.eq(self.qrx + (k + 1)), pry.eq(self.qry)]
                        m.next = "EVAL_ENDS"
                with m.Elif((self.width == 0) | ~self.eval_rows_left()):
                    self.eval_done()
                with m.Else():
                    self.eval_address()
        if self.dual:
            with m.State("EVAL_ENDS"):
                # The edges a track enters P across (`todo`), lowest first, one a cycle;
                # each path end arrives the cycle after its edge is addressed (`step` bit 0).
                todo = self.todo
                for c in range(2):
                    m.d.comb += self.far[c].addr.eq(self.nb_addr)
                m.d.sync += [step.eq(todo != 0), todo.eq(todo & (todo - 1))]
                m.d.comb += self.ndir.eq(one_hot_dir(todo))
                m.d.comb += [cells.addr.eq(self.nb_addr), weighed.valid.eq(step[0] & self.occ),
                             *weigh]
                with m.If(todo == 0):
                    # The last edge's end arrives; the ports are free for the scan's next
                    # squares.
                    m.next = "EVAL"
                    self.eval_read()
                    with m.If(self.eval_rows_left()):
                        self.eval_address()
        with m.State("EVAL_DRAIN"):
            # The last path end's weight is still on its way to the sums (on one port it
            # may have arrived in EVAL's last cycle, one cycle later than on more).
            m.d.sync += step.eq(step + 1)
            with m.If(step == (1 if self.dual else 2)):
                self.finish(Status.OK)

    def _place_states(self):
        """The checks on the placed tile, then the area grown by it."""
        m, prx, pry = self.m, self.prx, self.pry
        with m.State("PLACE"):
            # On one port CHECK (and the 8x8 scan's SCAN) addressed the square already; on
            # two, CHECK does what PLACE does and the scan alone comes here.
            self.place(arrived=not self.dual)
        if self.dual:
            with m.State("PLACE_READ"):
                m.d.sync += self.pcell.eq(self.cells.rdata)
                m.next = "PLACE_CHECK"
        with m.State("PLACE_CHECK"):
            masks = Array([Const(SHAPE_MASKS[s][o], 4) for s in Shape for o in range(2)] +
                          [Const(0, 4)] * 2)
            m0 = masks[self.tile.as_value() * 2]
            m1 = masks[self.tile.as_value() * 2 + 1]
            grow_x = (prx == -1) | (prx == self.width)
            grow_y = (pry == -1) | (pry == self.height)
            limit = Mux(self.variant == Variant.EIGHT, 8, self.NN)
            with m.If(self.pcell.occ):
                self.finish(Status.OCCUPIED)
            with m.Elif((self.p_white | self.p_black) == 0):
                self.finish(Status.NOT_ADJACENT)
            with m.Elif(~self.consistent(m0) & ~self.consistent(m1)):
                self.finish(Status.MISMATCH)
            with m.Elif((grow_x & (self.width >= limit)) | (grow_y & (self.height >= limit))):
                self.finish(Status.BOUNDS)
            with m.Else():
                m.d.sync += self.pmask.eq(Mux(self.consistent(m0), m0, m1))
                self.start_tile()

    def start_tile(self, read=False):
        """The placement at (prx, pry) passed its checks: on to its tile.  If the caller
        ``read`` its first neighbours in this cycle, the tile starts at step 1, and what
        step 0 does for a move's first tile is done here: its area grown, its joins and
        forced squares cleared, `stirred` reset."""
        m = self.m
        if self.dual:
            m.d.sync += self.rev.eq(0)
        if read:
            m.d.sync += self.stirred.eq(0)
            self.grow()
        m.d.sync += self.step.eq(1 if read else 0)
        m.next = "TILE"

    def grow(self):
        """The move's first tile, at its `TILE` step 0: the area as it was kept (`saved`)
        and grown by the placement.  (Not in the cycle the placement passes its checks: the
        area's enables behind those checks were the UP5K's longest path.  On two ports a
        SEEK placement's tile starts at step 1, and its area grows as it is placed: the
        joins judge a line against the area a cycle old.)  The placed tile
        is the only one that can enlarge the area: a space outside it touches at most one
        tile, so it is never forced."""
        m, prx, pry = self.m, self.prx, self.pry
        m.d.sync += self._area_to(self.saved)
        with m.If(prx == -1):
            m.d.sync += [self.minx.eq(self.minx - 1), self.width.eq(self.width + 1)]
        with m.Elif(prx == self.width):
            m.d.sync += self.width.eq(self.width + 1)
        with m.If(pry == -1):
            m.d.sync += [self.miny.eq(self.miny - 1), self.height.eq(self.height + 1)]
        with m.Elif(pry == self.height):
            m.d.sync += self.height.eq(self.height + 1)
        m.d.comb += [self.forced.clear.eq(1), self.joins.clear.eq(1)]

    def scan_after(self, x, y):
        """The square after (x, y) in scan order (column -1 .. width, row -1 .. height, or
        the window's), as ``Cat(column, row)``."""
        first, last = self.scan_rows(self.height)
        down = y >= last
        return Cat(Mux(down, x + 1, x)[:self.L + 2], Mux(down, first, y + 1)[:self.L + 2])

    def scan_rows(self, height):
        """A scan's first and last rows: -1 and ``height``, or with an engine of `scope`
        its command's window's."""
        if not self.scoped:
            return -1, height
        return Mux(self.windowed, self.wy0, -1), Mux(self.windowed, self.wy1, height)

    def scan_last_col(self):
        """A scan's last column: the width, or its command's window's."""
        if not self.scoped:
            return self.width
        return Mux(self.windowed, self.wx1, self.width)

    def seek_after_undo(self, height):
        """UNDO_SEEK, its move taken back: on to CHECK as a SEEK from the placement after
        the one taken back, in the area of ``height`` rows as restored; from here on it is
        that SEEK (no longer undoing, so a refusal's rollback ends as a SEEK's does)."""
        self.next_placement(height)
        self.m.next = "CHECK"

    def hunted_on(self, addressed):
        """A hunted move taken back: a SEEK's scan goes on (`resume_seek`); with `scope`, a
        hunting PLACE's result says OK, the move taken back (no tiles placed, a node)."""
        if not self.scoped:
            self.resume_seek(addressed)
            return
        with self.m.If(self.seeking):
            self.resume_seek(addressed)
        with self.m.Else():
            self.finish(Status.OK)

    def resume_seek(self, addressed):
        """A hunted move of this SEEK taken back: the scan goes on from the placement after
        it.  The scan's registers still follow P (`scanned`: `pcell` P's word, nx, ny the
        square after it; the store as the scan read it), so CHECK and SEEK_READ's read of P
        are not needed: SEEK takes P's next tile, or SEEK_READ the next square, the cycle
        after the square after P is read (here if the caller ``addressed`` it, else in
        SEEK_ON).  That square is P's neighbour across edge 2, unless P is in the scan's
        last row; the first move's square was never scanned.  Those two go by CHECK."""
        m = self.m
        self.next_placement(self.saved.height)
        with m.If(~self.scanned | self.p_down):
            m.next = "CHECK"
        with m.Else():
            def seek_after():
                with m.If(self.tile == Shape.BACKSLASH):
                    m.next = "SEEK_READ"
                with m.Else():
                    m.next = "SEEK"
            if isinstance(addressed, bool):
                if addressed:
                    seek_after()
                else:
                    m.next = "SEEK_ON"
            else:
                with m.If(addressed):
                    seek_after()
                with m.Else():
                    m.next = "SEEK_ON"

    def read_below(self):
        """Read P's neighbour across edge 2 (the square after P, for `resume_seek`)."""
        self.m.d.comb += [self.ndir.eq(2), self.cells.addr.eq(self.nb_addr)]

    def next_placement(self, height):
        """The placement after the one taken back: the square's next tile, else the next
        square (in the area of ``height`` rows)."""
        m, prx, pry, tile = self.m, self.prx, self.pry, self.tile
        m.d.sync += [self.undoing.eq(0), self.placed.eq(0)]
        with m.If(tile == Shape.BACKSLASH):
            first, last = self.scan_rows(height)
            down = pry >= last
            col, row = Mux(down, prx + 1, prx), Mux(down, first, pry + 1)
            m.d.sync += [prx.eq(col), pry.eq(row), tile.eq(0),
                         self.at_col.eq(col), self.at_row.eq(row), self.at_tile.eq(0)]
        with m.Else():
            m.d.sync += [tile.eq(tile.as_value() + 1), self.at_tile.eq(tile.as_value() + 1)]

    def _seek_states(self):
        """SEEK: from P = (prx, pry) with `tile` on, the squares in scan order at one a
        cycle, the word of P in `pcell` (registered, for timing) while the next square's
        (nx, ny) arrives and the one after it is addressed.  (In SEEK_READ (nx, ny) is
        still P, so that both states share one scan step and one address.)  A square
        refused whatever its tile (occupied, no entering track, 8x8 bounds) or with no
        agreeing tile from `tile` on is passed over, as the sequencer's NEXT passes over it
        after a refused PLACE; the first agreeing tile is placed as PLACE places it.  Only
        reads: the stores are written, if at all, from TILE on, exactly as by a PLACE
        of that placement."""
        m, prx, pry, cells, L = self.m, self.prx, self.pry, self.cells, self.L
        after = self.scan_after(self.nx, self.ny)
        after_addr = self.phys(after[:L + 2], after[L + 2:])
        # Where P lies against the area, registered as P is taken (from prx, pry in
        # SEEK_READ, from nx, ny as the scan moves on): the comparisons with the area were
        # at the head of the UP5K's longest path, into the scan registers' enables.
        beyond, grow_x, grow_y = Signal(), Signal(), Signal()

        last_col, (_, last_row) = self.scan_last_col(), self.scan_rows(self.height)

        def square_is(x, y):
            return [beyond.eq(x > last_col), grow_x.eq((x == -1) | (x == self.width)),
                    grow_y.eq((y == -1) | (y == self.height)), self.p_down.eq(y >= last_row)]
        with m.State("SEEK_ON"):
            # `resume_seek` after a take-back, whose last step may write the store.
            self.read_below()
            with m.If(self.tile.as_value() == 0):       # on to the next square
                m.next = "SEEK_READ"
            with m.Else():
                m.next = "SEEK"
        with m.State("SEEK_READ"):
            m.d.sync += [self.pcell.eq(cells.rdata), Cat(self.nx, self.ny).eq(after),
                         self.scanned.eq(1), *square_is(prx, pry)]
            m.d.comb += cells.addr.eq(after_addr)
            m.next = "SEEK"
        with m.State("SEEK"):
            m.d.comb += cells.addr.eq(after_addr)
            if self.dual:
                # P's neighbours N and E are read as P is placed, so that its tile starts
                # at TILE's step 1 (`start_tile`): E's port and the path-end stores are
                # free in the scan, and the board store's first port reads N instead of
                # the scan's next square when P is placed.
                north, east = self.phys(prx, pry - 1), self.phys(prx + 1, pry)
                self.read_first(north, east, 0)
                if self.quad:
                    self.read_others(self.phys(prx, pry + 1), self.phys(prx - 1, pry))
            # The first tile from `tile` on that agrees with the entering colours.
            pick = Signal(Shape)
            pick_mask = Signal(4)
            agrees = Signal()
            for shape in reversed(Shape):
                m0, m1 = (Const(mk, 4) for mk in SHAPE_MASKS[shape])
                with m.If((self.consistent(m0) | self.consistent(m1)) &
                          (self.tile.as_value() <= shape.value)):
                    m.d.comb += [pick.eq(shape), agrees.eq(1),
                                 pick_mask.eq(Mux(self.consistent(m0), m0, m1))]
            limit = Mux(self.variant == Variant.EIGHT, 8, self.NN)
            with m.If(beyond):
                # The scan ran out: the placement after the last, refused as out of range.
                m.d.sync += [self.at_col.eq(prx), self.at_row.eq(pry), self.at_tile.eq(0)]
                self.finish(Status.RANGE)
            with m.Elif((grow_x & (self.width >= self.NN - 2)) |
                        (grow_y & (self.height >= self.NN - 2))):
                # PLACE's first check: the move is refused here, as PLACE refuses it.
                m.d.sync += [self.at_col.eq(prx), self.at_row.eq(pry),
                             self.at_tile.eq(self.tile)]
                self.finish(Status.CAPACITY)
            with m.Elif(self.pcell.occ | ((self.p_white | self.p_black) == 0) | ~agrees |
                        (grow_x & (self.width >= limit)) | (grow_y & (self.height >= limit))):
                m.d.sync += [prx.eq(self.nx), pry.eq(self.ny), self.tile.eq(0),
                             self.pcell.eq(cells.rdata), Cat(self.nx, self.ny).eq(after),
                             *square_is(self.nx, self.ny)]
            with m.Else():
                # (`tile` too: a hunt that takes the move back goes on from the next.)
                m.d.sync += [self.at_col.eq(prx), self.at_row.eq(pry), self.at_tile.eq(pick),
                             self.tile.eq(pick), self.pmask.eq(pick_mask),
                             self.px.eq(self.wrap(self.minx + prx)),
                             self.py.eq(self.wrap(self.miny + pry))]
                if self.dual:
                    m.d.comb += cells.addr.eq(north)
                self.start_tile(read=self.dual)

    def quiet_or_write(self):
        """TILE's last read step (4; 2 on two ports).  A hunted move's tile that forces
        nothing, fills no square with three tracks and leaves no forced square behind it is
        the move's last: `QUIET` decides the move before this tile is written.  Otherwise
        the writes."""
        m = self.m
        with m.If(self.hunt & self.forced.empty & ~self.stirred & ~self.stirs):
            m.next = "QUIET"
        with m.Else():
            m.next = "TILE_WRITE"
        # The neighbours TILE_WRITE writes: the empty ones (no track enters P from them).
        # A tile's word never changes.
        m.d.sync += [self.step.eq(0),
                     self.todo.eq(Cat(*(self.p_inc[d] == Colour.NONE for d in DIRS)))]

    def forced_ahead(self, before_last, last):
        """Dual-port: the next forced square, known by a tile's `last` step so that its word
        is read there (the read port is free) and its tile starts straight after this one's:
        the neighbour that became forced two steps before the last (taken in the step
        `before_last` instead of pushed), else the stack's newest (popped then), else the
        neighbour that became forced in the step before the last (taken in the last).
        Returns ``taken`` (for :meth:`push_forced`) and what :meth:`tile_done` needs."""
        m, forced = self.m, self.forced
        ahead = Signal()                        # a forced square taken `before_last`
        ahead_nb = Signal()                     # ... the neighbour, not the stack's
        ahead_xy = Signal(Pos(self.L))
        taken = Signal()
        ahead_word = Signal(Cell)
        ahead_dir = Signal(2)
        with m.If(before_last):
            m.d.comb += [taken.eq(self.push_r), forced.pop.eq(~self.push_r & ~forced.empty)]
            m.d.sync += [ahead.eq(self.push_r | ~forced.empty), ahead_nb.eq(self.push_r),
                         ahead_xy.eq(self.push_xy), ahead_word.eq(self.push_word),
                         ahead_dir.eq(self.push_dir)]
        with m.If(last):
            m.d.comb += taken.eq(~ahead & self.push_r)
        from_stack = ahead & ~ahead_nb
        nb_xy = Pos(self.L)(Mux(ahead, ahead_xy, self.push_xy))
        nb_word = Cell(Mux(ahead, ahead_word, self.push_word))
        # A neighbour's word is known: the one just written.  Across N or E of P, its own N
        # and E are not P, which this step writes: they are read now (`start_known`); across
        # S or W, its S and W.  While the log has room for its entry and the path-end stores
        # are free (from step 2).
        nb_dir = Mux(ahead, ahead_dir, self.push_dir)
        south_west = nb_dir[1]
        start_nb = Mux(ahead, ahead_nb, self.push_r) & (self.step >= 2) & ~self.log_full()
        # The stack's read data comes last (the 85F's longest path): it chooses alone.
        at = Pos(self.L)(Mux(from_stack, forced.top,
                             Mux(start_nb, self.neighbour(Cat(0, south_west), nb_xy), nb_xy)))
        is_p = from_stack & (forced.top.as_value() == Cat(self.px, self.py))
        return taken, (ahead | self.push_r, at, is_p, start_nb, nb_xy, nb_word, south_west)

    def tile_one_port(self):
        """One port, TILE: the board store reads P's empty neighbours (their words, which
        `TILE_WRITE` updates) while the path-end stores read its tile neighbours (their
        path ends, which P joins), lowest edge first, one of each a step from step 0.  Which
        neighbours are tiles follows from P's word alone: a track enters P from each of
        them.  Each arrives a step after it is read, and the joins take, as they arrive, a
        tile neighbour's far end (`finder`) and an empty one's, P's own open edge
        (`finder2`).  A tile thus takes one step more than the larger of the two counts (3
        to 5 cycles) where reading all four squares in all three stores took 5.  A forced
        tile's word arriving at step 0 (`fresh`, from `POP_READ`) holds step 0 a cycle: the
        reads are chosen from P's word in a register, not from the store's read data (on
        the UP5K's longest paths)."""
        m, step, cells = self.m, self.step, self.cells
        first = step == 0
        tiles = Cat(*(self.p_inc[d] != Colour.NONE for d in DIRS))
        cmask = Mux(first, ~tiles, self.cleft)
        fmask = Mux(first, tiles, self.fleft)
        m.d.comb += [self.ndir.eq(one_hot_dir(cmask)), self.at_p.eq(0),
                     cells.addr.eq(self.nb_addr), self.fdir.eq(one_hot_dir(fmask))]
        far_addr = self.neighbour(self.fdir)
        for c in range(2):
            m.d.comb += self.far[c].addr.eq(far_addr)
        with m.If(self.fresh):
            m.d.sync += [self.cread.eq(0), self.fread.eq(0)]
            self.take_forced()
        with m.Else():
            m.d.sync += [step.eq(step + 1), self.cleft.eq(cmask & (cmask - 1)),
                         self.fleft.eq(fmask & (fmask - 1)),
                         self.cread.eq(cmask != 0), self.fread.eq(fmask != 0)]
        with m.If(first & (self.k == 0)):
            self.grow()
        m.d.comb += [self.joins.take.eq(self.fread), self.joins.take2.eq(self.cread)]
        with m.If(self.fread):
            m.d.sync += self.back[self.rfdir].eq(self.finder.back)
        with m.If(self.cread):
            m.d.sync += self.nb[self.rdir].eq(cells.rdata)
        with m.If(first):
            m.d.sync += self.stirred.eq(0)
        with m.Elif(self.stirs):
            m.d.sync += self.stirred.eq(1)
        with m.If(~first & (cmask == 0) & (fmask == 0)):       # nothing more to arrive
            self.quiet_or_write()

    def tile_two_ports(self):
        """Two ports, TILE: steps 0..1 address N and E, then S and W (in the board store and
        both path-end stores); steps 1..2 take their words and the path ends across each edge
        (`read_neighbours`); with four reads, all four at step 0, taken at step 1.  A forced
        tile's own word arrives at step 0 (`fresh`)."""
        m, step = self.m, self.step
        m.d.sync += step.eq(step + 1)
        self.read_neighbours()
        with m.If(self.fresh):
            self.take_forced()
        with m.If((step == 0) & (self.k == 0)):
            self.grow()
        for c in range(2):
            m.d.comb += self.far[c].addr.eq(self.nb_addr)
        taking = step != 0
        m.d.comb += self.joins.take.eq(taking)
        with m.If(taking):
            m.d.sync += [self.back[self.rdir].eq(self.finder.back),
                         self.back[self.rdir2].eq(self.finder2.back)]
        if self.quad:
            with m.If(taking):
                m.d.sync += [self.back[self.rdir3].eq(self.finder3.back),
                             self.back[self.rdir4].eq(self.finder4.back)]
        else:
            m.d.comb += self.joins.take2.eq(taking)
        last = step == (1 if self.quad else 2)
        with m.If(step == 0):
            m.d.sync += self.stirred.eq(0)
        with m.Elif(self.stirs):
            m.d.sync += self.stirred.eq(1)
        with m.If(last):                    # the last neighbours' words
            self.quiet_or_write()

    def _tile_states(self):
        """One tile: read the neighbours and path ends, join, write, log, push."""
        m, step, cells = self.m, self.step, self.cells
        with m.State("TILE"):
            if self.dual:
                self.tile_two_ports()
            else:
                self.tile_one_port()

        with m.State("QUIET"):
            # A hunted move's last tile, not yet written.  If the move closes a loop or a
            # line, the tile is written and the move decided as any move is.  Else the move
            # ends nothing: a node counted, and its earlier tiles taken back (a one-tile move
            # has none: the area as it was, and the scan goes on after it).  This tile was
            # never written, so it has nothing to take back.  The line TILE's last step found
            # is judged here and the move decided in the same cycle, from the judgement
            # itself (`line_now`; on one port the one-hot state keeps that path within the
            # UP5K's 24 MHz).  It reads the square after P, for `resume_seek`.  (Written with
            # the step that decides, `deciding`, as when one port took a second step: the
            # same statements keep the dual-port devices' netlists, and their placements,
            # as they were.)
            self.read_below()
            ends = self.joins.loop.any() | self.joins.line.any()
            ends |= self.joins.line_now.any()
            deciding = Const(1)
            if self.scoped:
                self.add_to_boxes()
            m.d.sync += step.eq(1)
            with m.If(deciding):
                m.d.sync += step.eq(0)
                with m.If(ends):
                    m.next = "TILE_WRITE"
                with m.Else():
                    m.d.sync += self.nodes.eq(self.nodes + 1)
                    self.tried(0)
                    with m.If(self.k == 0):
                        self.restore_area()
                        self.hunted_on(addressed=True)
                    with m.Else():
                        self.take_back()

        with m.State("TILE_WRITE"):
            # The empty neighbours' entering colours, lowest edge first, one a step (on two
            # ports N and S first, each with a quiet E or W beside it: `write_beside`);
            # then P, once the path ends' two writes (steps 0, 1) are done.  From step 1,
            # the forced push and over-full test of the neighbour written the step before
            # (registered, for timing).  `fault` is OK on entry.
            todo = self.todo
            m.d.sync += step.eq(step + 1)
            if self.dual:
                first = Mux(todo[0], 0, Mux(todo[2], 2, Mux(todo[1], 1, 3)))
            else:
                first = one_hot_dir(todo)
            m.d.comb += [cells.addr.eq(self.nb_addr),       # P once `todo` is empty
                         self.ndir.eq(Mux(todo == 0, 0, first)),
                         self.at_p.eq(todo == 0)]
            with m.If(step == 0):
                self.join_write(0)
            with m.If(step == 1):
                self.join_write(1)
            if self.dual:
                # The write port where the read port was; the read port reads the next
                # forced square in the last step.
                m.d.comb += cells.waddr.eq(self.nb_addr)
                todo_next = todo & ~Cat(*(self.ndir == d for d in DIRS)) & ~self.write_beside()
                last = (todo == 0) & (step != 0)
                taken, ahead = self.forced_ahead((todo_next == 0) & ~last, last)
            else:
                todo_next = todo & (todo - 1)
                taken, ahead = self.push_r & ~self.kept, None
                with m.If(taken):
                    m.d.sync += self.kept.eq(1)
            cap_now = self.push_forced(taken)
            self.over_full()
            with m.If(todo != 0):
                self.write_neighbour()
                m.d.sync += todo.eq(todo_next)
            with m.Elif(step != 0):
                self.write_tile()                 # P itself
                self.tile_done(cap_now, ahead)

    def _forced_states(self):
        """The next forced square, its tile from its two same-coloured tracks."""
        m, forced = self.m, self.forced
        with m.State("POP"):
            with m.If(forced.empty & self.trial):
                m.d.sync += self.found.eq(1)
                self.take_back()
            with m.Elif(forced.empty):
                m.next = "DECIDE"
            with m.Else():
                m.d.comb += forced.pop.eq(1)
                m.next = "POP_READ"
        with m.State("POP_READ"):
            self.read_forced(forced.top)

    def start_known(self, xy, word, south_west):
        """Two ports: the forced neighbour at ``xy`` whose ``word`` was just written is the
        next tile, and its tile starts at step 1: its N (read at the address `tile_done`
        gives) and E are read now, or, if it lies across S or W of P (``south_west``), its S
        and W, as its N or E is P, which this step writes; N and E are then read at step 1
        (`rev`).  The joins take a colour's two ends in either order.  With `quad` all four
        are read now (`read_others`), P's word as this step writes it."""
        m = self.m
        m.d.sync += [self.px.eq(xy.x), self.py.eq(xy.y), self.pcell.eq(word),
                     self.pmask.eq(self.forced_of(word)), self.step.eq(1), self.stirred.eq(0),
                     self.rev.eq(south_west)]
        with m.If(south_west):
            self.read_first(self.neighbour(2, xy), self.neighbour(3, xy), 2)
            if self.quad:
                self.read_others(self.neighbour(0, xy), self.neighbour(1, xy))
        with m.Else():
            self.read_first(self.neighbour(0, xy), self.neighbour(1, xy), 0)
            if self.quad:
                self.read_others(self.neighbour(2, xy), self.neighbour(3, xy))
        m.next = "TILE"

    def read_others(self, third, fourth):
        """Four reads: a tile's other two neighbours, across the edges opposite
        `read_first`'s, read with them at ``third`` and ``fourth`` (`addr3`, `addr4`, the
        write ports' reads), so that its `TILE` takes all four at step 1.  Where
        one of them is the square written in this very step (the last tile, P, beside a
        known forced neighbour), its bank's write port writes it and shows the word
        written: its own read."""
        m = self.m
        for store in (self.cells, *self.far):
            m.d.comb += [store.addr3.eq(third), store.addr4.eq(fourth)]

    def read_first(self, first, second, ndir):
        """Two ports: a tile's first reads made before its `TILE` (which then starts at step
        1), of its neighbours across ``ndir`` at ``first`` (N or S) and the edge after it at
        ``second`` (E or W): the second's word at the board store's second port, both
        path-end stores at both, and where `read_neighbours` takes them.  The board store's
        first port, which reads ``first``, is addressed by the caller."""
        m = self.m
        m.d.comb += [self.cells.addr2.eq(second),
                     *(far.addr.eq(first) for far in self.far),
                     *(far.addr2.eq(second) for far in self.far)]
        m.d.sync += [self.rdir.eq(ndir), self.rpos.eq(first), self.rdir2.eq(ndir + 1),
                     self.rpos2.eq(second)]

    def read_forced(self, at, addressed=False):
        """Forced square ``at`` (a `Pos`) is read (unless the caller ``addressed`` the read);
        its tile's first step takes its word (`take_forced`)."""
        m = self.m
        m.d.sync += [self.px.eq(at.x), self.py.eq(at.y), self.fresh.eq(1), self.step.eq(0)]
        if self.dual:
            m.d.sync += self.rev.eq(0)
        if not addressed:
            m.d.comb += self.cells.addr.eq(at)
        m.next = "TILE"

    def _decide_states(self):
        """The move is complete: who has won?  In 8x8, is any legal move left?"""
        m, prx, pry = self.m, self.prx, self.pry
        with m.State("DECIDE"):
            self.decide()

        with m.State("SCAN"):
            with m.If(pry > self.height):
                m.d.sync += [self.trial.eq(0), self.over.eq(1), self.winner.eq(Winner.NONE),
                             self.reason.eq(Reason.DRAW), self.status.eq(Status.OK)]
                m.next = "RESULT"
            with m.Else():
                m.d.sync += [self.k.eq(0), self.fault.eq(Status.OK)]
                if not self.dual:
                    self.address_area()                     # PLACE's word
                m.next = "PLACE"
        with m.State("SCAN_NEXT"):
            with m.If(self.tile == Shape.BACKSLASH):
                m.d.sync += self.tile.eq(0)
                with m.If(prx >= self.width):
                    m.d.sync += [prx.eq(-1), pry.eq(pry + 1)]
                with m.Else():
                    m.d.sync += prx.eq(prx + 1)
            with m.Else():
                m.d.sync += self.tile.eq(self.tile.as_value() + 1)
            m.next = "SCAN"

    def _undo_states(self):
        """UNDO's trailer, then the tiles of a move taken back newest first (UNDO, and the
        rollback of a refused move or a trial placement)."""
        m, step, log, entry = self.m, self.step, self.log, self.entry
        with m.State("UNDO"):
            t = entry.u.trailer
            # The log must still hold the trailer and the move's k tiles.  (`avail <= k`,
            # not `avail < k + 1`: the log's read data starts the UP5K's longest path, and
            # one comparison is shorter than an addition and a comparison.)
            with m.If((self.ply == 0) | (log.avail == 0) | ~is_trailer(entry) |
                      (log.avail <= t.k)):
                self.finish(Status.NO_UNDO)
            with m.Else():
                # A move has a tile at least: its newest is read ahead for UNTILE.
                m.d.comb += log.pop.eq(1)
                m.d.sync += [self.saved.eq(t.area), self.k.eq(t.k), self.placed.eq(t.k),
                             self.step.eq(0)]
                m.next = "UNTILE"
            # Whatever the checks say (a refused UNDO's RESULT and IDLE read the newest
            # entry again): so the log's address does not wait on them.
            self.read_ahead()

        with m.State("UNTILE"):
            m.d.sync += step.eq(1)
            last = self.untile()
            # `ending` (the move's last step) implies `last`, and alone enables the end.
            with m.If(self.ending):
                self.untile_done()
                if self.dual:
                    # The square after P read now, where `SEEK_ON` would read it, unless
                    # this step writes it (the block RAM's read of a square written in
                    # the same cycle is undefined).
                    below = ~self.cleared[2]
                    with m.If(below):
                        self.read_below()
                    self.rolled_back(below)
                else:
                    self.rolled_back()
            with m.Elif(last):
                self.untile_done()
