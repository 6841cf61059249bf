"""The search sequencer: a small machine that runs a search written as a program
(:mod:`.pvs_program`, principal variation search with iterative deepening and a
win-by-force search along threats) on the move engine's ``PLACE``, ``UNDO`` and ``EVAL``.
The instruction set is :mod:`.pvs_isa`; the twin that runs the same program on the
reference engine is :mod:`traxfpga.host.reference.pvs`; docs/player.md ("The search
sequencer") describes both.

One instruction a cycle from a block-RAM program.  The frames (16 registers a level) are a
second block RAM with one read port, so an instruction that reads a frame register takes
two cycles; an engine command takes a cycle more than the engine does.
"""

from amaranth.hdl import Cat, Module, Mux, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .engine import Command, Op as EngineOp, Result
from .pvs_isa import (ATT_PENALTY, FRAME_REGS, LEAF_CLAMP, LEAF_WIN, LEVELS, NOISE_MAX,
                      WIN, WORD_BITS, Cond, Insn, MoveWord, Op, Rel)
from .pvs_program import program
from .search import LFSR_SEED, SearchRequest, lfsr_step
from .share import check_core
from .stage import Stage
from .tiles import Reason, Shape, Status, Winner

__all__ = ["PVSCore"]


class PVSCore(wiring.Component):
    """Runs the search program on the engine it borrows (``active``), and answers on
    ``ctl`` like the hand-wired :class:`~traxfpga.hdl.search.Searcher`.

    Attributes
    ----------
    ctl : In(SearchRequest)
    seed : In(16)
        The noise generator's start, read when a search starts (never 0).
    seed_used : Out(16)
        The ``seed`` the last search started from (the twin's ``seed``).
    budget_cycles, node_limit : In(32)
        The search stops after this many cycles or legal placements (0: no limit), once its
        first iteration is complete; the twin takes ``node_limit`` only.
    depth : Out(4)
        The deepest iteration completed, in plies (0: the opening, not searched).
    value : Out(signed(16))
        Its value for the side to move.
    nodes, insns, cycles : Out(32)
        Legal placements, instructions run and cycles of the last search.
    engine_cycles : Out(32)
        Of those cycles, the ones spent waiting for the engine (the rest is the program's).
    active : Out(1)
    cmd : Out(stream.Signature(Command))
    res : In(stream.Signature(Result))
    """

    def __init__(self, code=None, *, core=0, cores=1):
        check_core(core, cores)
        self.core, self.cores = core, cores
        self.code = program(cores=cores).assemble() if code is None else code
        super().__init__({
            "ctl":           In(SearchRequest),
            "seed":          In(16, init=LFSR_SEED),
            "seed_used":     Out(16),
            "budget_cycles": In(32),
            "node_limit":    In(32),
            "depth":         Out(4),
            "value":         Out(signed(WORD_BITS)),
            "nodes":         Out(32),
            "insns":         Out(32),
            "cycles":        Out(32),
            "engine_cycles": Out(32),
            "active":        Out(1),
            "cmd":           Out(stream.Signature(Command)),
            "res":           In(stream.Signature(Result)),
        })

    def elaborate(self, platform):
        m = Module()
        depth = 1 << max(1, (len(self.code) - 1).bit_length())
        m.submodules.rom = rom = Memory(shape=Insn.size, depth=depth, init=self.code)
        m.submodules.frames = frames = Memory(shape=WORD_BITS, depth=LEVELS * FRAME_REGS,
                                              init=[])
        rd = rom.read_port()
        fr = frames.read_port()
        fw = frames.write_port()
        res = self.res.payload
        # The commands pass through a register stage: the guard would otherwise run on
        # into the engine's state decoding, the UP5K device's longest path.  A cycle a
        # command.
        m.submodules.cmd_stage = stage = Stage(Command)
        cmd = stage.i
        wiring.connect(m, stage.o, wiring.flipped(self.cmd))

        pc = Signal(range(depth))
        npc = Signal(range(depth))
        phase = Signal()                          # 1: the operand or the result is here
        ins = data.View(Insn, rd.data)
        m.d.comb += rd.addr.eq(npc)              # the next instruction, read a cycle ahead

        lv = Signal(range(LEVELS))
        acc = Signal(signed(WORD_BITS))
        col, row = Signal(signed(8)), Signal(signed(8))
        tile = Signal(2)
        w, h = Signal(8), Signal(8)
        gt, eq, lt = Signal(), Signal(), Signal()
        ok, ended, square, won, lost = Signal(), Signal(), Signal(), Signal(), Signal()
        over, empty, armed = Signal(), Signal(), Signal()
        past = Signal()                           # the last NEXT left the area (DONE)
        deal = Signal(range(self.cores))          # the core the root's next move goes to
        mine = Signal()                           # the last DEAL was to this core (MINE)
        ans = Signal(MoveWord)
        lfsr = Signal(16)

        # The operand's frame register.
        level = Signal(range(LEVELS))
        with m.Switch(ins.a.rel):
            with m.Case(Rel.SELF):
                m.d.comb += level.eq(lv)
            with m.Case(Rel.CHILD):
                m.d.comb += level.eq(lv + 1)
            with m.Case(Rel.LIST):
                m.d.comb += level.eq(LEVELS - 1)
            with m.Default():
                m.d.comb += level.eq(0)
        m.d.comb += [fr.addr.eq(Cat(ins.a.reg, level)), fw.addr.eq(Cat(ins.a.reg, level))]
        operand = fr.data.as_signed()

        # Registered: two 32-bit comparisons in front of the guard missed 24 MHz on the
        # UP5K; the counters are a cycle old when a node's entry reads it (no count changes
        # within the cycles before one).
        spent = Signal()
        m.d.sync += spent.eq(((self.budget_cycles != 0) & (self.cycles >= self.budget_cycles))
                             | ((self.node_limit != 0) & (self.nodes >= self.node_limit)))
        conds = {
            Cond.ALWAYS: 1, Cond.GT: gt, Cond.EQ: eq, Cond.LT: lt, Cond.OK: ok,
            Cond.ENDED: ended, Cond.DONE: past,
            Cond.ROOT: lv == 1, Cond.OUT: armed & spent, Cond.ZERO: acc == 0,
            Cond.OVER: over, Cond.EMPTY: empty, Cond.WON: won, Cond.LOST: lost,
            Cond.MINE: mine,
        }
        held = Signal()
        with m.Switch(ins.cond):
            for c, v in conds.items():
                with m.Case(c):
                    m.d.comb += held.eq(v)
        guard = held ^ ins.neg

        x = ins.x.as_signed()
        advance = Signal()                        # the instruction completes this cycle
        m.d.comb += npc.eq(Mux(advance, pc + 1, pc))

        # The engine's command: the scan register, or a probe far out of range.
        probe = ins.op == Op.PROBE
        m.d.comb += [
            cmd.payload.op.eq(Mux(ins.op == Op.UNDO, EngineOp.UNDO,
                                  Mux(ins.op == Op.EVAL, EngineOp.EVAL, EngineOp.PLACE))),
            cmd.payload.col.eq(Mux(probe, -(1 << 15), col)),
            cmd.payload.row.eq(Mux(probe, -(1 << 15), row)),
            cmd.payload.tile.eq(Mux(probe, 0, tile)),
        ]

        # EVAL's value for the side to move (pvs_isa.leaf_value), from the result's figures
        # registered the cycle it arrives (the arithmetic behind the engine's result was the
        # UP5K device's longest path).
        black = res.ply[0]
        pot_s, pot_o = Signal(16), Signal(16)
        att_s, att_o = Signal(8), Signal(8)
        leafing = Signal()                        # EVAL's result is in: acc takes its value
        diff = Signal(signed(20))
        m.d.comb += diff.eq(pot_s - pot_o - att_o * ATT_PENALTY)
        leaf = Mux(att_s != 0, LEAF_WIN,
                   Mux(att_o >= 4, -LEAF_WIN,
                       Mux(diff > LEAF_CLAMP, LEAF_CLAMP,
                           Mux(diff < -LEAF_CLAMP, -LEAF_CLAMP, diff)))) \
            + lfsr[:NOISE_MAX.bit_length()]
        # PLACE's outcome for the player who moved (after the move, an odd ply: White).
        mover = Mux(res.ply[0], Winner.WHITE.value, Winner.BLACK.value)
        refused_square = ((res.status != Status.OK) & (res.status != Status.MISMATCH)
                          & (res.status != Status.THREE_TRACKS))

        with m.If(self.active):
            m.d.sync += self.cycles.eq(self.cycles + 1)
        with m.If(advance):
            m.d.sync += [pc.eq(pc + 1), phase.eq(0), self.insns.eq(self.insns + 1)]

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += npc.eq(0)
                with m.If(self.ctl.req):
                    m.d.sync += [
                        pc.eq(0), phase.eq(0), lv.eq(0), acc.eq(0), armed.eq(0),
                        col.eq(0), row.eq(0), tile.eq(0),
                        gt.eq(0), eq.eq(0), lt.eq(0), ok.eq(0), ended.eq(0),
                        square.eq(0), won.eq(0), lost.eq(0), over.eq(0), empty.eq(0), past.eq(0),
                        leafing.eq(0),
                        self.ctl.found.eq(0), self.depth.eq(0), self.value.eq(0),
                        self.nodes.eq(0), self.insns.eq(0), self.cycles.eq(0),
                        self.engine_cycles.eq(0),
                        lfsr.eq(self.seed), self.seed_used.eq(self.seed),
                        self.active.eq(1),
                    ]
                    m.next = "RUN"

            with m.State("RUN"):
                with m.If(~guard):
                    m.d.comb += advance.eq(1)
                with m.Else():
                    with m.Switch(ins.op):
                        with m.Case(Op.JMP):
                            m.d.comb += npc.eq(ins.x)
                            m.d.sync += [pc.eq(ins.x), phase.eq(0),
                                         self.insns.eq(self.insns + 1)]
                        with m.Case(Op.JA):
                            m.d.comb += npc.eq(acc)
                            m.d.sync += [pc.eq(acc), phase.eq(0),
                                         self.insns.eq(self.insns + 1)]
                        with m.Case(Op.LDI):
                            m.d.comb += advance.eq(1)
                            m.d.sync += acc.eq(x)
                        with m.Case(Op.ST):
                            m.d.comb += [advance.eq(1), fw.data.eq(acc), fw.en.eq(1)]
                        with m.Case(Op.SAVE):
                            m.d.comb += [advance.eq(1), fw.en.eq(1),
                                         fw.data.eq(Cat(tile, (row + 1)[:7], (col + 1)[:7]))]
                        with m.Case(Op.ADDI):
                            m.d.comb += advance.eq(1)
                            m.d.sync += acc.eq(acc + x)
                        with m.Case(Op.NEG):
                            m.d.comb += advance.eq(1)
                            m.d.sync += acc.eq(-acc)
                        with m.Case(Op.CMPI):
                            m.d.comb += advance.eq(1)
                            m.d.sync += [gt.eq(acc > x), eq.eq(acc == x), lt.eq(acc < x)]
                        with m.Case(Op.SCAN0):
                            m.d.comb += advance.eq(1)
                            m.d.sync += [col.eq(-1), row.eq(-1), tile.eq(0)]
                            with m.If(lv == 1):
                                m.d.sync += deal.eq(0)
                        with m.Case(Op.DEAL):
                            m.d.comb += advance.eq(1)
                            m.d.sync += [mine.eq(deal == self.core),
                                         deal.eq(Mux(deal == self.cores - 1, 0, deal + 1))]
                        with m.Case(Op.NEXT):
                            # DONE is registered here (a comparison in front of the guard
                            # was the UP5K's longest path); the program tests it right after
                            m.d.comb += advance.eq(1)
                            m.d.sync += [square.eq(0), past.eq(col > w)]
                            with m.If(square | (tile == 2)):
                                m.d.sync += tile.eq(0)
                                with m.If(row >= h):
                                    m.d.sync += [row.eq(-1), col.eq(col + 1),
                                                 past.eq(col + 1 > w)]
                                with m.Else():
                                    m.d.sync += row.eq(row + 1)
                            with m.Else():
                                m.d.sync += tile.eq(tile + 1)
                        with m.Case(Op.TERM):
                            m.d.comb += advance.eq(1)
                            m.d.sync += acc.eq(Mux(won, WIN - lv, Mux(lost, lv - WIN, 0)))
                        with m.Case(Op.UP):
                            m.d.comb += advance.eq(1)
                            m.d.sync += lv.eq(lv + 1)
                        with m.Case(Op.DOWN):
                            m.d.comb += advance.eq(1)
                            m.d.sync += lv.eq(lv - 1)
                        with m.Case(Op.ARM):
                            m.d.comb += advance.eq(1)
                            m.d.sync += armed.eq(1)
                        with m.Case(Op.DEPTH):
                            m.d.comb += advance.eq(1)
                            m.d.sync += self.depth.eq(acc)
                        with m.Case(Op.VALUE):
                            m.d.comb += advance.eq(1)
                            m.d.sync += self.value.eq(acc)
                        with m.Case(Op.FINISH):
                            m.d.sync += self.insns.eq(self.insns + 1)
                            m.next = "DONE"
                        # Two cycles: the frame register is read, then used.
                        with m.Case(Op.LD, Op.CMP, Op.REST, Op.ANSWER):
                            with m.If(~phase):
                                m.d.sync += phase.eq(1)
                            with m.Else():
                                m.d.comb += advance.eq(1)
                                with m.Switch(ins.op):
                                    with m.Case(Op.LD):
                                        m.d.sync += acc.eq(operand)
                                    with m.Case(Op.CMP):
                                        m.d.sync += [gt.eq(acc > operand),
                                                     eq.eq(acc == operand),
                                                     lt.eq(acc < operand)]
                                    with m.Case(Op.REST):
                                        word = data.View(MoveWord, fr.data)
                                        m.d.sync += [col.eq(word.col - 1),
                                                     row.eq(word.row - 1),
                                                     tile.eq(word.tile)]
                                    with m.Case(Op.ANSWER):
                                        m.d.sync += [ans.eq(fr.data), self.ctl.found.eq(1)]
                        # Engine commands: offered until taken, then the result.
                        with m.Case(Op.PLACE, Op.UNDO, Op.EVAL, Op.PROBE):
                            m.d.sync += self.engine_cycles.eq(self.engine_cycles + 1)
                            with m.If(~phase):
                                m.d.comb += cmd.valid.eq(1)
                                with m.If(cmd.ready):
                                    m.d.sync += phase.eq(1)
                            with m.Elif(leafing):
                                m.d.comb += advance.eq(1)
                                m.d.sync += [acc.eq(leaf), lfsr.eq(lfsr_step(lfsr)),
                                             leafing.eq(0)]
                            with m.Else():
                                m.d.comb += self.res.ready.eq(1)
                                with m.If(self.res.valid):
                                    m.d.comb += advance.eq(ins.op != Op.EVAL)
                                    with m.If(ins.op != Op.EVAL):
                                        m.d.sync += [w.eq(res.width), h.eq(res.height)]
                                    with m.Switch(ins.op):
                                        with m.Case(Op.PLACE):
                                            good = res.status == Status.OK
                                            winner = res.winner.as_value()
                                            m.d.sync += [
                                                ok.eq(good), square.eq(refused_square),
                                                ended.eq(good & ((winner != 0)
                                                                 | (res.reason != Reason.NONE))),
                                                won.eq(good & (winner == mover)),
                                                lost.eq(good & (winner != 0)
                                                        & (winner != mover)),
                                            ]
                                            with m.If(good):
                                                m.d.sync += self.nodes.eq(self.nodes + 1)
                                        with m.Case(Op.UNDO):
                                            m.d.sync += square.eq(0)
                                        with m.Case(Op.EVAL):
                                            m.d.sync += [
                                                pot_s.eq(Mux(black, res.pot[1], res.pot[0])),
                                                pot_o.eq(Mux(black, res.pot[0], res.pot[1])),
                                                att_s.eq(Mux(black, res.att[1], res.att[0])),
                                                att_o.eq(Mux(black, res.att[0], res.att[1])),
                                                leafing.eq(1),
                                            ]
                                        with m.Case(Op.PROBE):
                                            m.d.sync += [over.eq(res.reason != Reason.NONE),
                                                         empty.eq(res.ply == 0)]

            with m.State("DONE"):
                m.d.comb += [npc.eq(0), self.ctl.done.eq(self.ctl.req)]
                m.d.sync += self.active.eq(0)
                with m.If(~self.ctl.req):
                    m.next = "IDLE"

        m.d.comb += [
            self.ctl.col.eq(ans.col - 1),
            self.ctl.row.eq(ans.row - 1),
            self.ctl.tile.eq(ans.tile),
        ]
        return m
