"""The search sequencer: a small machine that runs a search written as a program
(:mod:`.pvs_program`, principal variation search with iterative deepening and a
win-by-force search along threats) on the move engine's ``PLACE``, ``SEEK``, ``UNDO`` and
``EVAL``.  The instruction set is :mod:`.pvs_isa`; the twin that runs the same program on the
reference engine is :mod:`traxfpga.host.reference.pvs`; docs/player.md describes both.

One instruction a cycle from a block-RAM program.  The frames (16 registers a level) are a
second block RAM with one read port, so an instruction that reads a frame register takes
two cycles; an engine command takes a cycle more than the engine does.
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .engine import Command, Op as EngineOp, Result, Tried
from .eval_weights import ATT_MAX, EVAL_MAX
from .lfsr import lfsr_step
from .pvs_isa import (ATT_PENALTY, FRAME_REGS, KEY_WORDS, LEAF_CLAMP, LEAF_WIN, LEVELS,
                      NOISE_MAX, WIN, WORD_BITS, Cond, Op, Rel)
from .pvs_layout import Insn, MoveWord
from .pvs_program import MAX_ITER, TEST_CAP, program
from .pvs_scope import ScopedScans
from .request import SearchLimits, SearchReport, SearchRequest
from .share import check_core
from .stage import Stage
from .tiles import Reason, Status, Winner
from .tt_spec import DEPTH_BITS, INDEX_BITS, KEY_BITS
from .ttable import TTable

__all__ = ["PVSCore"]


class PVSCore(wiring.Component):
    """Runs the search program on the engine it borrows (``active``), core ``core`` of
    ``cores`` (:mod:`.cores`: with many, the root searches only the moves dealt to it);
    with ``tt``, a transposition table for the threat search (:mod:`.ttable`, in an
    SPRAM with ``spram``) of ``2**tt_bits`` entries, cleared as each search starts, and
    root moves' tests cut short after ``cap`` AND nodes, and with the table the opening
    book ``book`` (:func:`~.pvs_program.program`; None: the device's).  With ``staged`` (the default)
    its engine commands pass through a register stage, a cycle each.  With ``scoped``, the
    program's threat search scans the AND nodes' replies in the scope of the attacker's
    move (:mod:`.pvs_scope`), on an engine of ``scope``.  ``max_iter``: the program's last
    iteration (a benchmark's; the devices' is ``MAX_ITER``).

    Attributes
    ----------
    ctl : In(SearchRequest)
        The search's handshake and its answer.
    limits : In(SearchLimits)
        The noise generator's start and the budgets, read when a search starts.
    report : In(SearchReport)
        How the last search went (``busy`` is its ``cycles``; ``core`` is 0: the cores'
        combiner names the core).
    active : Out(1)
        The sequencer has the engine.
    key : In(KEY_BITS)
        With ``tt``: the engine's key (:class:`~.engine.Engine`'s).
    tried : In(Tried)
        With ``scoped``: the engine's legal placements (:class:`~.engine.Engine`'s).
    cmd, res :
        Its engine port (:func:`~traxfpga.hdl.share.share_engine`).
    """

    def __init__(self, code=None, *, core=0, cores=1, tt=False, spram=False, staged=True,
                 cap=TEST_CAP, book=None, scoped=False, max_iter=MAX_ITER, tt_bits=INDEX_BITS):
        check_core(core, cores)
        self.core, self.cores, self.tt_bits = core, cores, tt_bits
        self.staged = staged
        self.tt, self.spram, self.scoped = tt, spram, scoped
        self.code = (program(max_iter, cores=cores, tt=tt, cap=cap, book=book,
                             scoped=scoped).assemble()
                     if code is None else code)
        super().__init__({
            "ctl":    In(SearchRequest),
            "limits": In(SearchLimits),
            "report": In(SearchReport),
            "active": Out(1),
            "cmd":    Out(stream.Signature(Command)),
            "res":    In(stream.Signature(Result)),
            **({"key": In(KEY_BITS)} if tt else {}),
            **({"tried": In(Tried)} if scoped else {}),
        })

    def elaborate(self, platform):
        m = Module()
        depth = 1 << max(1, (len(self.code) - 1).bit_length())
        m.submodules.rom = rom = Memory(shape=Insn.size, depth=depth, init=self.code)
        m.submodules.frames = frames = Memory(shape=WORD_BITS, depth=LEVELS * FRAME_REGS,
                                              init=[])
        rd = rom.read_port()
        r = self._registers(depth)
        r.ins = data.View(Insn, rd.data)
        if self.staged:
            # The commands pass through a register stage: the guard would otherwise run
            # on into the engine's state decoding, the UP5K device's longest path.  A
            # cycle a command.
            m.submodules.cmd_stage = stage = Stage(Command)
            wiring.connect(m, stage.o, wiring.flipped(self.cmd))
            r.cmd_stream = stage.i
        else:
            r.cmd_stream = self.cmd
        r.cmd = r.cmd_stream.payload
        r.fr, r.fw = frames.read_port(), frames.write_port()
        if self.tt:
            m.submodules.table = r.table = TTable(spram=self.spram, index_bits=self.tt_bits)
        self.scans = ScopedScans(self, m, r) if self.scoped else None
        m.d.comb += rd.addr.eq(r.npc)              # the next instruction, read a cycle ahead
        self._frame_address(m, r)
        guard = self._guard(m, r)
        self._command(m, r)
        leaf = self._leaf(m, r)

        report = self.report
        with m.If(self.active):
            m.d.sync += report.cycles.eq(report.cycles + 1)
        with m.If(r.advance):
            m.d.sync += [r.pc.eq(r.pc + 1), r.phase.eq(0), report.insns.eq(report.insns + 1)]

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += r.npc.eq(0)
                with m.If(self.ctl.req):
                    self._start(m, r)
                    if self.tt:
                        m.d.comb += r.table.clear.eq(1)
                    m.next = "RUN"
            with m.State("RUN"):
                if self.tt:
                    self._query(m, r)
                with m.If(~guard):
                    m.d.comb += r.advance.eq(1)
                with m.Else():
                    self._execute(m, r, leaf)
            with m.State("DONE"):
                m.d.comb += [r.npc.eq(0), self.ctl.done.eq(self.ctl.req)]
                m.d.sync += self.active.eq(0)
                with m.If(~self.ctl.req):
                    m.next = "IDLE"

        m.d.comb += [
            self.ctl.col.eq(r.ans.col - 1),
            self.ctl.row.eq(r.ans.row - 1),
            self.ctl.tile.eq(r.ans.tile),
            report.busy.eq(report.cycles),
        ]
        return m

    def _registers(self, depth):
        """The machine's state, in one namespace that the parts of :meth:`elaborate` share
        (each signal named as its field, for waveforms)."""
        shapes = {
            "pc": range(depth), "npc": range(depth),
            "phase": 1,                 # 1: the operand or the result is here
            "advance": 1,               # the instruction completes this cycle
            "lv": range(LEVELS), "acc": signed(WORD_BITS),
            "col": signed(8), "row": signed(8), "tile": 2, "w": 8, "h": 8,
            "gt": 1, "eq": 1, "lt": 1,
            "ok": 1, "ended": 1, "square": 1, "won": 1, "lost": 1,
            "over": 1, "empty": 1, "armed": 1,
            "past": 1,                  # the last NEXT left the area (DONE)
            "deal": range(self.cores),  # the core the root's next move goes to
            "mine": 1,                  # the last DEAL was to this core (MINE)
            "ans": MoveWord, "lfsr": 16,
            "leafing": 1,               # EVAL's result is in: acc takes its value
            "pot_s": range(EVAL_MAX + 1), "pot_o": range(EVAL_MAX + 1),
            "att_s": range(ATT_MAX + 1), "att_o": range(ATT_MAX + 1),
        }
        return SimpleNamespace(**{name: Signal(shape, name=name)
                                  for name, shape in shapes.items()})

    def _frame_address(self, m, r):
        """The operand's frame register: its number within the frame of the level its
        ``rel`` names."""
        level = Signal(range(LEVELS))
        with m.Switch(r.ins.a.rel):
            with m.Case(Rel.SELF):
                m.d.comb += level.eq(r.lv)
            with m.Case(Rel.CHILD):
                m.d.comb += level.eq(r.lv + 1)
            with m.Case(Rel.LIST):
                m.d.comb += level.eq(LEVELS - 1)
            with m.Default():
                m.d.comb += level.eq(0)
        m.d.comb += [r.fr.addr.eq(Cat(r.ins.a.reg, level)),
                     r.fw.addr.eq(Cat(r.ins.a.reg, level))]
        r.operand = r.fr.data.as_signed()

    def _guard(self, m, r):
        """Whether the instruction's condition holds (xor its ``neg``)."""
        # Registered: two 32-bit comparisons in front of the guard missed 24 MHz on the
        # UP5K; the counters are a cycle old when a node's entry reads it (no count changes
        # within the cycles before one).
        limits, report = self.limits, self.report
        spent = Signal()
        m.d.sync += spent.eq(
            ((limits.budget_cycles != 0) & (report.cycles >= limits.budget_cycles))
            | ((limits.node_limit != 0) & (report.nodes >= limits.node_limit)))
        conds = {
            Cond.ALWAYS: 1, Cond.GT: r.gt, Cond.EQ: r.eq, Cond.LT: r.lt, Cond.OK: r.ok,
            Cond.ENDED: r.ended, Cond.DONE: r.past,
            Cond.ROOT: r.lv == 1, Cond.OUT: r.armed & spent, Cond.ZERO: r.acc == 0,
            Cond.OVER: r.over, Cond.EMPTY: r.empty, Cond.WON: r.won, Cond.LOST: r.lost,
            Cond.MINE: r.mine,
        }
        if self.tt:
            # The opening book's test: each key word compared with acc every cycle,
            # registered (off the guard's path), so the test sees acc a cycle old.
            keyed = Signal(KEY_WORDS)
            m.d.sync += keyed.eq(Cat(r.acc.as_unsigned() == self.key.word_select(k, WORD_BITS)
                                     for k in range(KEY_WORDS)))
            conds[Cond.KEY] = keyed.bit_select(r.ins.a.reg[:(KEY_WORDS - 1).bit_length()], 1)
        held = Signal()
        with m.Switch(r.ins.cond):
            for c, v in conds.items():
                with m.Case(c):
                    m.d.comb += held.eq(v)
        return held ^ r.ins.neg

    def _command(self, m, r):
        """The engine's command: the scan register, or a probe far out of range."""
        probe = r.ins.op == Op.PROBE
        m.d.comb += [
            r.npc.eq(Mux(r.advance, r.pc + 1, r.pc)),
            r.cmd.col.eq(Mux(probe, -(1 << 15), r.col)),
            r.cmd.row.eq(Mux(probe, -(1 << 15), r.row)),
            r.cmd.tile.eq(Mux(probe, 0, r.tile)),
        ]
        engine_ops = {Op.UNDO: EngineOp.UNDO, Op.EVAL: EngineOp.EVAL, Op.SEEK: EngineOp.SEEK,
                      Op.USEEK: EngineOp.UNDO_SEEK, Op.HUNT: EngineOp.SEEK,
                      Op.UHUNT: EngineOp.UNDO_SEEK}
        m.d.comb += r.cmd.hunt.eq((r.ins.op == Op.HUNT) | (r.ins.op == Op.UHUNT))
        with m.Switch(r.ins.op):
            for op, engine_op in engine_ops.items():
                with m.Case(op):
                    m.d.comb += r.cmd.op.eq(engine_op)
            with m.Default():                       # PLACE, and PROBE: a far-out PLACE
                m.d.comb += r.cmd.op.eq(EngineOp.PLACE)
        if self.scoped:
            m.d.comb += self.scans.window_fields(r.cmd)
            with m.If(self.scans.walking):          # the list's walk: a hunting PLACE, UNDO
                m.d.comb += [r.cmd.op.eq(self.scans.walk_op),
                             r.cmd.hunt.eq(self.scans.walk_op == EngineOp.PLACE),
                             r.cmd.window.eq(0)]

    def _leaf(self, m, r):
        """EVAL's value for the side to move (``pvs_isa.leaf_value``), from the result's
        figures registered the cycle it arrives (the arithmetic behind the engine's result
        was the UP5K device's longest path)."""
        diff = Signal(signed(20))
        m.d.comb += diff.eq(r.pot_s - r.pot_o - r.att_o * ATT_PENALTY)
        return Mux(r.att_s != 0, LEAF_WIN,
                   Mux(r.att_o >= 4, -LEAF_WIN,
                       Mux(diff > LEAF_CLAMP, LEAF_CLAMP,
                           Mux(diff < -LEAF_CLAMP, -LEAF_CLAMP, diff)))) \
            + r.lfsr[:NOISE_MAX.bit_length()]

    def _start(self, m, r):
        """A request: clear the machine and the report, and take the limits' seed."""
        report = self.report
        m.d.sync += [
            r.pc.eq(0), r.phase.eq(0), r.lv.eq(0), r.acc.eq(0), r.armed.eq(0),
            r.col.eq(0), r.row.eq(0), r.tile.eq(0),
            r.gt.eq(0), r.eq.eq(0), r.lt.eq(0), r.ok.eq(0), r.ended.eq(0),
            r.square.eq(0), r.won.eq(0), r.lost.eq(0), r.over.eq(0), r.empty.eq(0),
            r.past.eq(0), r.leafing.eq(0),
            self.ctl.found.eq(0), report.depth.eq(0), report.value.eq(0),
            report.nodes.eq(0), report.insns.eq(0), report.cycles.eq(0),
            report.engine_cycles.eq(0), report.tt_probes.eq(0), report.tt_hits.eq(0),
            r.lfsr.eq(self.limits.seed), report.seed_used.eq(self.limits.seed),
            self.active.eq(1),
        ]
        if self.scoped:
            self.scans.start()

    def _execute(self, m, r, leaf):
        """The instruction whose guard holds."""
        report = self.report
        x = r.ins.x.as_signed()
        with m.Switch(r.ins.op):
            with m.Case(Op.JMP, Op.JA):
                target = Mux(r.ins.op == Op.JMP, r.ins.x, r.acc)
                m.d.comb += r.npc.eq(target)
                m.d.sync += [r.pc.eq(target), r.phase.eq(0), report.insns.eq(report.insns + 1)]
            with m.Case(Op.LDI):
                m.d.comb += r.advance.eq(1)
                m.d.sync += r.acc.eq(x)
            with m.Case(Op.ST):
                m.d.comb += [r.advance.eq(1), r.fw.data.eq(r.acc), r.fw.en.eq(1)]
            with m.Case(Op.SAVE):
                m.d.comb += [r.advance.eq(1), r.fw.en.eq(1),
                             r.fw.data.eq(Cat(r.tile, (r.row + 1)[:7], (r.col + 1)[:7]))]
            with m.Case(Op.ADDI):
                m.d.comb += r.advance.eq(1)
                m.d.sync += r.acc.eq(r.acc + x)
            with m.Case(Op.NEG):
                m.d.comb += r.advance.eq(1)
                m.d.sync += r.acc.eq(-r.acc)
            with m.Case(Op.CMPI):
                m.d.comb += r.advance.eq(1)
                m.d.sync += [r.gt.eq(r.acc > x), r.eq.eq(r.acc == x), r.lt.eq(r.acc < x)]
            with m.Case(Op.SCAN0, Op.DEAL, Op.NEXT):
                m.d.comb += r.advance.eq(1)
                self._scan(m, r)
            with m.Case(Op.TERM):
                m.d.comb += r.advance.eq(1)
                m.d.sync += r.acc.eq(Mux(r.won, WIN - r.lv, Mux(r.lost, r.lv - WIN, 0)))
            with m.Case(Op.UP, Op.DOWN, Op.ARM, Op.DEPTH, Op.VALUE):
                m.d.comb += r.advance.eq(1)
                self._set(m, r)
            with m.Case(Op.FINISH):
                m.d.sync += report.insns.eq(report.insns + 1)
                m.next = "DONE"
            # Two cycles: the frame register is read, then used.
            with m.Case(Op.LD, Op.CMP, Op.REST, Op.ANSWER):
                with m.If(~r.phase):
                    m.d.sync += r.phase.eq(1)
                with m.Else():
                    m.d.comb += r.advance.eq(1)
                    self._use_operand(m, r)
            if self.tt:
                with m.Case(Op.TTGET, Op.TTPUT):
                    self._table(m, r)
            # Engine commands: offered until taken, then the result.
            with m.Case(Op.PLACE, Op.SEEK, Op.USEEK, Op.HUNT, Op.UHUNT, Op.UNDO, Op.EVAL,
                        Op.PROBE):
                m.d.sync += report.engine_cycles.eq(report.engine_cycles + 1)
                self._engine(m, r, leaf)

    def _query(self, m, r):
        """The table's query, offered from a TTGET's or TTPUT's second cycle.  Those are
        never guarded (``pvs_isa.Asm.i``), so the guard stays off the table's paths (the
        UP5K device's longest path ran from the guard through the query)."""
        q = r.table.q
        m.d.comb += [
            q.valid.eq(((r.ins.op == Op.TTGET) | (r.ins.op == Op.TTPUT)) & r.phase),
            q.payload.key.eq(self.key),
            q.payload.kind.eq(r.ins.x[0]),
            q.payload.depth.eq(r.fr.data[:DEPTH_BITS]),
            q.payload.put.eq(r.ins.op == Op.TTPUT),
            q.payload.win.eq(r.acc[0]),
        ]

    def _table(self, m, r):
        """The transposition table's instructions: the depth read from the frame, then the
        query offered until the table takes it with its answer (TTGET's flags)."""
        q, a = r.table.q, r.table.answer
        with m.If(~r.phase):
            m.d.sync += r.phase.eq(1)
        with m.Else():
            with m.If(q.ready):
                m.d.comb += r.advance.eq(1)
                with m.If(r.ins.op == Op.TTGET):
                    m.d.sync += [r.gt.eq(a.win), r.lt.eq(a.fail), r.eq.eq(~a.win & ~a.fail),
                                 self.report.tt_probes.eq(self.report.tt_probes + 1),
                                 self.report.tt_hits.eq(self.report.tt_hits
                                                        + (a.win | a.fail))]

    def _scan(self, m, r):
        """The scan register's instructions: its start, the next placement, the deal."""
        with m.Switch(r.ins.op):
            with m.Case(Op.SCAN0):
                m.d.sync += [r.col.eq(-1), r.row.eq(-1), r.tile.eq(0)]
                with m.If(r.lv == 1):
                    m.d.sync += r.deal.eq(0)
                if self.scoped:
                    self.scans.scan0()
            with m.Case(Op.DEAL):
                m.d.sync += [r.mine.eq(r.deal == self.core),
                             r.deal.eq(Mux(r.deal == self.cores - 1, 0, r.deal + 1))]
            with m.Case(Op.NEXT):
                if self.scoped:
                    with m.If(self.scans.scoped()):
                        self.scans.next()
                    with m.Else():
                        self._next(m, r)
                else:
                    self._next(m, r)

    def _next(self, m, r):
        """NEXT: the placement after the scan register's, in scan order."""
        # DONE is registered here (a comparison in front of the guard was the UP5K's
        # longest path); the program tests it right after
        m.d.sync += [r.square.eq(0), r.past.eq(r.col > r.w)]
        with m.If(r.square | (r.tile == 2)):
            m.d.sync += r.tile.eq(0)
            with m.If(r.row >= r.h):
                m.d.sync += [r.row.eq(-1), r.col.eq(r.col + 1), r.past.eq(r.col + 1 > r.w)]
            with m.Else():
                m.d.sync += r.row.eq(r.row + 1)
        with m.Else():
            m.d.sync += r.tile.eq(r.tile + 1)

    def _set(self, m, r):
        """The one-register instructions: the level, the arming, the report's figures."""
        with m.Switch(r.ins.op):
            with m.Case(Op.UP):
                m.d.sync += r.lv.eq(r.lv + 1)
                if self.scoped:
                    self.scans.up()
            with m.Case(Op.DOWN):
                m.d.sync += r.lv.eq(r.lv - 1)
            with m.Case(Op.ARM):
                m.d.sync += r.armed.eq(1)
            with m.Case(Op.DEPTH):
                m.d.sync += self.report.depth.eq(r.acc)
            with m.Case(Op.VALUE):
                m.d.sync += self.report.value.eq(r.acc)

    def _use_operand(self, m, r):
        """The second cycle of an instruction that reads a frame register."""
        with m.Switch(r.ins.op):
            with m.Case(Op.LD):
                m.d.sync += r.acc.eq(r.operand)
            with m.Case(Op.CMP):
                m.d.sync += [r.gt.eq(r.acc > r.operand), r.eq.eq(r.acc == r.operand),
                             r.lt.eq(r.acc < r.operand)]
            with m.Case(Op.REST):
                word = data.View(MoveWord, r.fr.data)
                m.d.sync += [r.col.eq(word.col - 1), r.row.eq(word.row - 1),
                             r.tile.eq(word.tile)]
                if self.scoped:
                    self.scans.rest()
            with m.Case(Op.ANSWER):
                m.d.sync += [r.ans.eq(r.fr.data), self.ctl.found.eq(1)]

    def _engine(self, m, r, leaf):
        """An engine command: offered until the stage takes it, then its result (an
        ``EVAL``'s a cycle later, as the registered leaf); or a scoped scan's walk of its
        list, commands one after another (:mod:`.pvs_scope`)."""
        if self.scoped:
            with m.If(self.scans.takes_over()):
                self.scans.walk(lambda res: self._flags(m, r, res))
            with m.Else():
                self._command_result(m, r, leaf)
        else:
            self._command_result(m, r, leaf)

    def _command_result(self, m, r, leaf):
        with m.If(~r.phase):
            m.d.comb += r.cmd_stream.valid.eq(1)
            with m.If(r.cmd_stream.ready):
                m.d.sync += r.phase.eq(1)
        with m.Elif(r.leafing):
            m.d.comb += r.advance.eq(1)
            m.d.sync += [r.acc.eq(leaf), r.lfsr.eq(lfsr_step(r.lfsr)), r.leafing.eq(0)]
        with m.Else():
            m.d.comb += self.res.ready.eq(1)
            with m.If(self.res.valid):
                # (a scoped scan's window ran out: on to its list, this instruction still)
                on = (~self.scans.window_ran_out(self.res.payload) if self.scoped else 1)
                m.d.comb += r.advance.eq((r.ins.op != Op.EVAL) & on)
                with m.If(r.ins.op != Op.EVAL):
                    m.d.sync += [r.w.eq(self.res.payload.width),
                                 r.h.eq(self.res.payload.height)]
                self._result(m, r)

    def _flags(self, m, r, res):
        """A placement's flags, from its result: its outcome for the player who moved, and
        whether its square refused it whatever its tile."""
        # after the move, an odd ply: White moved
        mover = Mux(res.ply[0], Winner.WHITE.value, Winner.BLACK.value)
        refused_square = ((res.status != Status.OK) & (res.status != Status.MISMATCH)
                          & (res.status != Status.THREE_TRACKS))
        good = res.status == Status.OK
        winner = res.winner.as_value()
        m.d.sync += [
            r.ok.eq(good), r.square.eq(refused_square),
            r.ended.eq(good & ((winner != 0) | (res.reason != Reason.NONE))),
            r.won.eq(good & (winner == mover)),
            r.lost.eq(good & (winner != 0) & (winner != mover)),
        ]

    def _result(self, m, r):
        """What an engine result sets: a placement's outcome for the player who moved,
        the leaf's figures for the side to move, the probe's flags."""
        res = self.res.payload
        black = res.ply[0]
        if self.scoped:
            self.scans.result(res)
        with m.Switch(r.ins.op):
            with m.Case(Op.PLACE, Op.SEEK, Op.USEEK, Op.HUNT, Op.UHUNT):
                self._flags(m, r, res)
                # (a hunt's placements taken back count too, refused or not at its end)
                m.d.sync += self.report.nodes.eq(self.report.nodes + res.nodes)
                with m.If(r.ins.op != Op.PLACE):          # the scan register follows SEEK
                    m.d.sync += [r.col.eq(res.col), r.row.eq(res.row), r.tile.eq(res.tile)]
            with m.Case(Op.UNDO):
                m.d.sync += r.square.eq(0)
            with m.Case(Op.EVAL):
                m.d.sync += [
                    r.pot_s.eq(Mux(black, res.pot[1], res.pot[0])),
                    r.pot_o.eq(Mux(black, res.pot[0], res.pot[1])),
                    r.att_s.eq(Mux(black, res.att[1], res.att[0])),
                    r.att_o.eq(Mux(black, res.att[0], res.att[1])),
                    r.leafing.eq(1),
                ]
            with m.Case(Op.PROBE):
                m.d.sync += [r.over.eq(res.reason != Reason.NONE), r.empty.eq(res.ply == 0)]
