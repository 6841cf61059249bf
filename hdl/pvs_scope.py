"""The search sequencer's scoped scans (docs/player.md, "Scoped scans"): the lists a
recorded scan leaves, the move ``UP`` latches, and a scoped scan's window and list walk.
The twin's are :mod:`traxfpga.host.reference.scoped_scan`; ``host/reference/scope.py``
argues the rule.

Built into the sequencer's module, as the engine's control is into the engine's: the
scans share the sequencer's scan register, flags and engine port, instruction by
instruction.  Coordinates: a list's moves and boxes are notation plus one in the frame of
the position it was recorded in (P), as the engine gives them; the scoped scan runs in the
frame after the latched move (P + t), which is P's moved one column (row) on when the move
placed a tile at P's column (row) -1.
"""

from amaranth.hdl import Array, Cat, Mux, Signal, signed
from amaranth.lib import data
from amaranth.lib.memory import Memory

from .engine import Op as EngineOp
from .engine_scope import Box
from .pvs_isa import LATCH, LEVELS, LIST_ENTRIES, PASSED_OVER, WINDOW, Op, ScanMode
from .pvs_layout import MoveWord
from .tiles import STATUS_CODES, Reason, Status, Variant, Winner

__all__ = ["ListEntry", "ScopedScans"]

#: A list's entry: a placement tried in P, its tiles' extent, whether it ended the game,
#: whether its forced tiles refused it (its extent then unknown: always kept).
ListEntry = data.StructLayout({"move": MoveWord, "box": Box, "ended": 1, "refused": 1})

#: The statuses of the refusals a scan passes over.
_PASSED_OVER = tuple(s for s, code in STATUS_CODES.items() if code in PASSED_OVER)

#: Signed coordinates for the scans' arithmetic (a box's, widened, and the window's).
_COORD = signed(10)


def _signed_box(name):
    return {k: Signal(_COORD, name=f"{name}_{k}") for k in ("x0", "x1", "y0", "y1")}


class ScopedScans:
    """The scoped scans of sequencer ``core`` (a :class:`~.pvs.PVSCore`), in its module
    ``m`` with its registers ``r``.  The sequencer calls in at its instructions: see each
    method."""

    def __init__(self, core, m, r):
        self.core, self.m, self.r = core, m, r
        m.submodules.lists = lists = Memory(shape=ListEntry, depth=LEVELS * LIST_ENTRIES,
                                            init=[])
        self.rd, self.wr = lists.read_port(), lists.write_port()
        self.mode = Signal(ScanMode)
        self.listing = Signal()                 # a scoped scan's list part (else its window)
        self.idx = Signal(range(LIST_ENTRIES + 1))
        self.count = Array(Signal(range(LIST_ENTRIES + 1), name=f"count{k}")
                           for k in range(LEVELS))
        self.kept = Signal(LEVELS)              # each level's list is whole
        self.latched = Signal()
        self.box = _signed_box("latched_box")      # t's tiles' extent, in P
        self.hull = _signed_box("latched_hull")    # widened by one, with the ends, in P
        self.shift = Signal(2)                      # P + t's frame against P's: (x, y)
        self.eight = Signal()                   # the game is 8x8 (no scoped scans)
        # the window's last column, first and last rows, in P + t (its first column is only
        # where the scan register starts)
        self.window = {k: Signal(_COORD, name=f"window_{k}") for k in ("x1", "y0", "y1")}
        self.walking = Signal()                 # the list walk has the engine
        self.walk_op = Signal(EngineOp)
        self.parent = Signal(range(LEVELS))     # the level whose list a scoped scan walks
        m.d.comb += self.parent.eq(r.lv - 1)
        self._record()

    # -- the instructions --------------------------------------------------------------------

    def start(self):
        """A search starts: no lists, nothing latched."""
        self.m.d.sync += [self.kept.eq(0), self.latched.eq(0), self.mode.eq(ScanMode.PLAIN),
                          self.walking.eq(0)]

    def scan0(self):
        """SCAN0 (after the sequencer's own): the scan's mode, from x."""
        m, r = self.m, self.r
        mode = r.ins.x[:2]
        m.d.sync += self.mode.eq(ScanMode.PLAIN)
        with m.If(mode == ScanMode.RECORD):
            m.d.sync += [self.mode.eq(ScanMode.RECORD), self.count[r.lv].eq(0),
                         self.kept.bit_select(r.lv, 1).eq(1)]
        with m.Elif((mode == ScanMode.SCOPED) & self.latched & ~self.eight
                    & self.kept.bit_select(self.parent, 1)):
            self._window()

    def _window(self):
        """A scoped scan's start: its window, and the scan register at its first square."""
        m, r, box, win = self.m, self.r, self.box, self.window
        sx, sy = self.shift[0], self.shift[1]
        # notation in P + t = notation plus one in P, less one, plus the shift
        x0 = box["x0"] - 1 + sx - WINDOW
        x1 = box["x1"] - 1 + sx + WINDOW
        y0 = box["y0"] - 1 + sy - WINDOW
        y1 = box["y1"] - 1 + sy + WINDOW
        x0, y0 = Mux(x0 < -1, -1, x0), Mux(y0 < -1, -1, y0)
        x1, y1 = Mux(x1 > r.w, r.w, x1), Mux(y1 > r.h, r.h, y1)
        m.d.sync += [self.mode.eq(ScanMode.SCOPED), self.listing.eq(0),
                     win["x1"].eq(x1), win["y0"].eq(y0), win["y1"].eq(y1),
                     r.col.eq(x0), r.row.eq(y0), r.tile.eq(0)]

    def next(self):
        """NEXT in a scoped scan (:meth:`scoped`): the window's next placement, on to the
        list after its last; the list's next place."""
        m, r, win = self.m, self.r, self.window
        count = self.count[self.parent]
        m.d.sync += r.square.eq(0)
        with m.If(self.listing):
            m.d.sync += [self.idx.eq(self.idx + 1), r.past.eq(self.idx + 1 >= count)]
        with m.Elif(r.square | (r.tile == 2)):
            m.d.sync += [r.tile.eq(0), r.past.eq(0)]
            with m.If(r.row < win["y1"]):
                m.d.sync += r.row.eq(r.row + 1)
            with m.Elif(r.col < win["x1"]):
                m.d.sync += [r.row.eq(win["y0"]), r.col.eq(r.col + 1)]
            with m.Else():
                m.d.sync += [self.listing.eq(1), self.idx.eq(0), r.past.eq(count == 0)]
        with m.Else():
            m.d.sync += [r.tile.eq(r.tile + 1), r.past.eq(0)]

    def scoped(self):
        """Whether NEXT, HUNT and UHUNT go by the scoped scan."""
        return self.mode == ScanMode.SCOPED

    def up(self):
        """UP: with LATCH, the last placement's boxes kept for the scoped scan below (the
        hull widened to hold the tiles' extent widened by one).  The engine's boxes are
        on its result's payload whether or not a result is offered, and still the
        placement's: no command came between (they settle two cycles after its last
        tile, so they are read here rather than with the result)."""
        m, r = self.m, self.r
        res = self.core.res.payload
        b, h = _signed_box("last_box"), _signed_box("last_hull")
        m.d.comb += [*(b[k].eq(res.box[k]) for k in b), *(h[k].eq(res.hull[k]) for k in h)]
        with m.If(r.ins.x == LATCH):
            m.d.sync += [self.latched.eq(1), self.shift.eq(Cat(b["x0"] == 0, b["y0"] == 0)),
                         *(self.box[k].eq(b[k]) for k in self.box),
                         self.hull["x0"].eq(Mux(h["x0"] < b["x0"] - 1, h["x0"], b["x0"] - 1)),
                         self.hull["x1"].eq(Mux(h["x1"] > b["x1"] + 1, h["x1"], b["x1"] + 1)),
                         self.hull["y0"].eq(Mux(h["y0"] < b["y0"] - 1, h["y0"], b["y0"] - 1)),
                         self.hull["y1"].eq(Mux(h["y1"] > b["y1"] + 1, h["y1"], b["y1"] + 1))]

    def rest(self):
        """REST: the scan goes on as PLAIN."""
        self.m.d.sync += self.mode.eq(ScanMode.PLAIN)

    # -- the engine's results, the lists ----------------------------------------------------

    def result(self, res):
        """An engine result of the instruction's (not the walk's): the variant, a recorded
        scan's placement refused by its forced tiles, and a windowed hunt that ran out."""
        m = self.m
        m.d.sync += self.eight.eq(res.variant == Variant.EIGHT)
        with m.If(self.recording() & (res.status == Status.THREE_TRACKS)):
            self._put(res.col, res.row, res.tile, 0, 0, refused=1)
        with m.If(self.window_ran_out(res)):
            m.d.sync += [self.listing.eq(1), self.idx.eq(0)]

    def hunting(self):
        return (self.r.ins.op == Op.HUNT) | (self.r.ins.op == Op.UHUNT)

    def recording(self):
        return (self.mode == ScanMode.RECORD) & self.hunting()

    def _record(self):
        """Every cycle: a recorded scan's legal placements (the engine's ``tried``) into its
        level's list.  (``tried`` comes two cycles after a placement is decided, when a
        hunt that returned one may have completed: any placement while the scan is recorded
        is listed.  Only its hunts place tiles before it ends, and a list is started anew
        before it is used.)"""
        tried = self.core.tried
        with self.m.If((self.mode == ScanMode.RECORD) & tried.valid):
            self._put(tried.col, tried.row, tried.tile, tried.box, tried.ended, refused=0)

    def _put(self, col, row, tile, box, ended, refused):
        m, r, wr = self.m, self.r, self.wr
        count = self.count[r.lv]
        entry = data.View(ListEntry, wr.data)
        index_bits = (LIST_ENTRIES - 1).bit_length()
        with m.If(count == LIST_ENTRIES):
            m.d.sync += self.kept.bit_select(r.lv, 1).eq(0)    # too many: no list
        with m.Else():
            m.d.comb += [wr.addr.eq(Cat(count[:index_bits], r.lv)), wr.en.eq(1),
                         entry.move.col.eq(col + 1), entry.move.row.eq(row + 1),
                         entry.move.tile.eq(tile), entry.box.eq(box), entry.ended.eq(ended),
                         entry.refused.eq(refused)]
            m.d.sync += count.eq(count + 1)

    # -- the window's hunt, the list's walk --------------------------------------------------

    def windowed(self):
        """Whether a hunt scans the window: the engine command's fields."""
        return self.scoped() & ~self.listing & self.hunting()

    def window_fields(self, cmd):
        win = self.window
        return [cmd.window.eq(self.windowed()), cmd.last_col.eq(win["x1"]),
                cmd.first_row.eq(win["y0"]), cmd.last_row.eq(win["y1"])]

    def window_ran_out(self, res):
        """A windowed hunt's result: its window ran out, and the walk of the list goes on
        (the instruction does not complete)."""
        return self.windowed() & (res.status == Status.RANGE)

    def takes_over(self):
        """The instruction is the list's walk's (a hunt of the list, begun or going on)."""
        return self.walking | (self.scoped() & self.listing & self.hunting())

    def walk(self, flags):
        """The instruction that walks the list: from the place after the last (UHUNT, after
        taking it back) or at it (HUNT), each place the scan tries is PLACEd; one that ends
        nothing is taken back (a node, as a hunt's), and the walk goes on; one that ends the
        game, or that is refused other than by its square's word, or the list's end, ends
        the instruction.  ``flags(res)`` sets the scan's flags from a result."""
        m, r, core = self.m, self.r, self.core
        res = core.res.payload
        count = self.count[self.parent]
        index_bits = (LIST_ENTRIES - 1).bit_length()
        entry = data.View(ListEntry, self.rd.data)
        # The entry after this one is read while this one is tested: a place passed over
        # costs a cycle.
        step_on = Signal()
        at = Mux(step_on, self.idx + 1, self.idx)
        m.d.comb += self.rd.addr.eq(Cat(at[:index_bits], self.parent))
        with m.FSM(name="walk"):
            with m.State("IDLE"):
                m.d.sync += [self.walking.eq(1), r.phase.eq(1)]
                with m.If(~r.phase & (r.ins.op == Op.UHUNT)):
                    m.next = "UNDO"
                with m.Else():
                    m.next = "READ"
            with m.State("READ"):
                with m.If(self.idx >= count):
                    self._ran_out()
                with m.Else():
                    m.next = "TEST"
            with m.State("TEST"):
                with m.If(self._tries(entry)):
                    sx, sy = self.shift[0], self.shift[1]
                    m.d.sync += [r.col.eq(entry.move.col - 1 + sx),
                                 r.row.eq(entry.move.row - 1 + sy), r.tile.eq(entry.move.tile)]
                    m.next = "PLACE"
                with m.Else():
                    m.d.sync += self.idx.eq(self.idx + 1)
                    with m.If(self.idx + 1 >= count):
                        self._ran_out()
                    with m.Else():
                        m.d.comb += step_on.eq(1)
            for name, op, then in (("PLACE", EngineOp.PLACE, "PLACED"),
                                   ("UNDO", EngineOp.UNDO, "UNDONE")):
                with m.State(name):
                    m.d.comb += [self.walk_op.eq(op), r.cmd_stream.valid.eq(1)]
                    with m.If(r.cmd_stream.ready):
                        m.next = then
            with m.State("PLACED"):
                m.d.comb += [self.walk_op.eq(EngineOp.PLACE), core.res.ready.eq(1)]
                with m.If(core.res.valid):
                    m.d.sync += [core.report.nodes.eq(core.report.nodes + res.nodes),
                                 r.w.eq(res.width), r.h.eq(res.height)]
                    ends = (res.winner != Winner.NONE) | (res.reason != Reason.NONE)
                    passed = Cat(res.status == s for s in _PASSED_OVER).any()
                    # (a hunting PLACE: one that ends nothing is taken back already)
                    with m.If(((res.status == Status.OK) & ~ends) | passed):
                        m.d.sync += self.idx.eq(self.idx + 1)
                        m.next = "READ"
                    with m.Else():
                        flags(res)
                        self._done()
            with m.State("UNDONE"):
                m.d.comb += [self.walk_op.eq(EngineOp.UNDO), core.res.ready.eq(1)]
                with m.If(core.res.valid):
                    m.d.sync += [self.idx.eq(self.idx + 1), r.w.eq(res.width),
                                 r.h.eq(res.height)]
                    m.next = "READ"

    def _ran_out(self):
        """The list's end: the hunt refused as a scan that ran out."""
        r = self.r
        self.m.d.sync += [r.ok.eq(0), r.square.eq(1), r.ended.eq(0), r.won.eq(0), r.lost.eq(0)]
        self._done()

    def _done(self):
        self.m.d.comb += self.r.advance.eq(1)
        self.m.d.sync += self.walking.eq(0)
        self.m.next = "IDLE"

    def _tries(self, entry):
        """Whether the scan tries a list's place: outside the window (the window's own are
        scanned there), and refused by its forced tiles, or ending the game, or with an
        extent that, widened by one, meets the latched hull (all in P)."""
        box, hull = self.box, self.hull
        c, r_ = entry.move.col, entry.move.row
        inside = ((c >= box["x0"] - WINDOW) & (c <= box["x1"] + WINDOW)
                  & (r_ >= box["y0"] - WINDOW) & (r_ <= box["y1"] + WINDOW))
        e = entry.box
        meets = ((e.x0 <= hull["x1"] + 1) & (hull["x0"] <= e.x1 + 1)
                 & (e.y0 <= hull["y1"] + 1) & (hull["y0"] <= e.y1 + 1))
        return ~inside & (entry.refused | entry.ended | meets)
