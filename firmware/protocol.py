"""The protocol sequencer: runs the protocol's microcode against the line buffer, the engine
and the UART transmitter.

The protocol's control (dispatching lines, matching keywords, checking the notation's
grammar, sequencing engine commands, printing answers, choosing the board's move) is the
program of :mod:`traxfpga.firmware.program`, held in block RAM.  What is left in logic is
the datapath those instructions drive:

* ``pc`` and one return address; the next instruction is read at ``pc_next`` so that the
  word of ``pc`` is always at hand (a stalled instruction simply keeps ``pc``);
* the line pointer ``ptr``, also read at its next value, so ``c`` is always ``line[ptr]``;
* the move registers ``col``, ``acc`` (the row), ``tile``: filled by the notation
  accumulator (:func:`~traxfpga.hdl.notation.accumulate`) or by the player's answer, given
  to the engine, and printed by :class:`~traxfpga.hdl.notation.NumberText`;
* the game's context: ``role`` (contest colour), ``variant``, the side to move and whether
  the game has ended (both taken from every engine result), the error code, two flags;
* registered handshakes towards the other modules (see below), for timing.

Instruction semantics are in :mod:`traxfpga.firmware.isa`.
"""

from types import SimpleNamespace

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..hdl.engine import CellOut, Command, Result
from ..hdl.engine import Op as EngineOp
from ..hdl.linebuf import LineError, LineInfo
from ..hdl.notation import NumberText, TILE_CHARS, accumulate, is_digit, is_letter, is_tile, tile_of
from ..hdl.perft import COUNT_BITS, MAX_PERFT_DEPTH, PerftRequest
from ..hdl.request import SearchRequest
from ..hdl.tiles import Reason, Shape, Status, Variant
from .isa import ENGINE_OP_BITS, Cond, Num, Op, PC_BITS, Src, WORD_BITS, field_slices

assert EngineOp.as_shape().width == ENGINE_OP_BITS, "isa.ENGINE_OP_BITS is the engine's Op"
from .program import IDLE, program

__all__ = ["Protocol"]


class Protocol(wiring.Component):
    """Line protocol front end.

    Parameters
    ----------
    capacity : int
        Board size N of the engine (``:version``; the notation accumulator's width).
    player_id : str
        Answer to ``-T``.
    line_depth : int
        Size of the line buffer feeding ``line``.
    perft : bool
        The device has the perft unit (``:perft``; the ``perft`` port and a number printer
        wide enough for its count).

    Attributes
    ----------
    line, line_addr, line_data :
        The line buffer's offer and read port.
    tx : Out(stream.Signature(8))
        Bytes of the answers.
    engine_cmd, engine_res, engine_cells :
        To the engine.
    idle : Out(1)
        Waiting for a line, with no byte left in the output buffer.
    search : Out(SearchRequest)
        To the player (the search cores).
    perft : Out(PerftRequest)
        To the perft unit (only with ``perft``).
    thinking : Out(1)
        Choosing the board's move.
    error : Out(1)
        The last line was answered with an error (until the next line is read).
    """

    def __init__(self, *, capacity=128, player_id="trax-fpga", line_depth=128, perft=True):
        self.capacity = capacity
        self.line_depth = line_depth
        self.has_perft = perft
        self.asm = program(player_id=player_id, capacity=capacity, perft=perft)
        self.depth = 1 << max(8, (len(self.asm.code) - 1).bit_length())
        assert self.depth <= 1 << PC_BITS, "the program does not fit the pc"
        self.words = self.asm.assemble(self.depth)
        super().__init__({
            "line":         In(stream.Signature(LineInfo(line_depth))),
            "line_addr":    Out(range(line_depth)),
            "line_data":    In(8),
            "tx":           Out(stream.Signature(8)),
            "engine_cmd":   Out(stream.Signature(Command)),
            "engine_res":   In(stream.Signature(Result)),
            "engine_cells": In(stream.Signature(CellOut)),
            "search":       Out(SearchRequest),
            **({"perft": Out(PerftRequest)} if perft else {}),
            "idle":         Out(1),
            "thinking":     Out(1),
            "error":        Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        r = self._state(m)
        self._handshakes(m, r)
        self._guard(m, r)
        self._output(m, r)
        self._jobs(m, r)
        self._number(m, r)
        self._next(m, r)
        self._registers(m, r)
        m.d.comb += [
            self.idle.eq((r.pc == self.asm.labels[IDLE]) & ~r.ofull),
            self.thinking.eq(r.f["think"]),
            self.error.eq(r.err != 0),
        ]
        return m

    def _state(self, m):
        """The program ROM, the number printer and the registers, in one namespace that the
        parts of :meth:`elaborate` share."""
        r = SimpleNamespace()
        r.bits = bits = max(4, self.capacity.bit_length())      # saturation 2**bits - 1 > N
        m.submodules.rom = rom = Memory(shape=WORD_BITS, depth=self.depth, init=self.words)
        fetch = rom.read_port(domain="sync")
        m.submodules.num = r.num = NumberText(COUNT_BITS if self.has_perft else 16)

        # -- the instruction -----------------------------------------------------------------
        r.pc = Signal(PC_BITS, name="pc")
        r.pc_next = Signal(PC_BITS, name="pc_next")
        r.ret = Signal(PC_BITS, name="ret")
        m.d.comb += fetch.addr.eq(r.pc_next)
        m.d.sync += r.pc.eq(r.pc_next)
        r.f = {name: fetch.data[lo:hi] for name, (lo, hi) in field_slices().items()}
        r.op, r.imm = r.f["op"], r.f["imm"]

        # -- registers -----------------------------------------------------------------------
        r.ptr = Signal(range(self.line_depth), name="ptr")
        r.ptr_next = Signal(range(self.line_depth), name="ptr_next")
        m.d.comb += self.line_addr.eq(r.ptr_next)
        m.d.sync += r.ptr.eq(r.ptr_next)
        r.col = Signal(signed(bits + 1), name="col")
        r.acc = Signal(signed(bits + 1), name="acc")
        r.tile = Signal(Shape, name="tile")
        r.role = Signal(2, name="role")             # 0 none, 1 white, 2 black (as Winner)
        r.variant = Signal(Variant, name="variant")
        r.new_variant = Signal(Variant, name="new_variant")
        r.err = Signal(5, name="err")
        r.flags = Signal(2, name="flags")
        r.side = Signal(name="side")                # the result's ply is odd: Black to move
        r.ended = Signal(name="ended")              # the result's game has ended
        r.num_go = Signal(name="num_go")            # a NUM has started its number
        r.num_kick = Signal(name="num_kick")        # ... in the previous cycle: start it
        r.c = self.line_data
        r.res = self.engine_res.payload
        r.cell = self.engine_cells.payload
        return r

    def _handshakes(self, m, r):
        """Outgoing handshakes are registered, to keep the sequencer's decisions off the
        other modules' paths: a one-byte buffer in front of the transmitter, and ``ready``s
        raised the cycle after the instruction that takes something.  Meanwhile that
        something still shows as offered, so the conditions mask it."""
        r.obuf = Signal(8, name="obuf")
        r.ofull = Signal(name="ofull")
        r.res_taken = Signal(name="res_taken")
        r.cell_taken = Signal(name="cell_taken")
        r.line_taken = Signal(name="line_taken")
        m.d.comb += [
            self.tx.valid.eq(r.ofull),
            self.tx.payload.eq(r.obuf),
            self.engine_res.ready.eq(r.res_taken),
            self.engine_cells.ready.eq(r.cell_taken),
            self.line.ready.eq(r.line_taken),
        ]

    def _guard(self, m, r):
        """Whether the instruction's condition holds (xor its ``neg``): ``r.guard``."""
        res, cell, acc, imm = r.res, r.cell, r.acc, r.imm
        res_offered = self.engine_res.valid & ~r.res_taken
        cell_offered = self.engine_cells.valid & ~r.cell_taken
        line_offered = self.line.valid & ~r.line_taken
        r.at_end = at_end = r.ptr == self.line.payload.length
        # The character tests see NUL at the end of the line: what the buffer holds there is
        # left over from an earlier, longer line, and must not be read as part of this one.
        # (Registered from the pointer's next value, like `c`, to keep the comparison off the
        # guard's path; a line is offered cycles before its first character is tested.)
        past_end = Signal(name="past_end")
        m.d.sync += past_end.eq(r.ptr_next == self.line.payload.length)
        ch = Mux(past_end, 0, r.c)
        status = res.status

        # Everything tested about a result or a square is registered, to keep the engine's
        # outputs off the guard's path: valid from the second cycle something is offered
        # (the program tests them only after waiting for the offer).
        registered = {
            Cond.RES_OK:     status == Status.OK,
            Cond.RES_ENDED:  res.reason != Reason.NONE,
            Cond.RES_OVER:   status == Status.GAME_OVER,
            Cond.CELL_OCC:   cell.occ,
            Cond.CELL_EOL:   cell.eol,
        }
        sampled = {}
        for cond, value in registered.items():
            sampled[cond] = Signal(name=f"cond_{cond.name.lower()}")
            m.d.sync += sampled[cond].eq(value)

        conds = {
            Cond.ALWAYS:     Const(1),
            Cond.EQ:         ch == imm,
            Cond.AT_END:     at_end,
            Cond.WORD_END:   at_end | (ch == ord(" ")),
            Cond.LETTER:     is_letter(ch),
            Cond.DIGIT:      is_digit(ch),
            Cond.NONZERO:    is_digit(ch) & (ch != ord("0")),
            Cond.TILE:       is_tile(ch),
            Cond.LINE:       line_offered,
            Cond.LINE_BAD:   self.line.payload.error != LineError.NONE,
            Cond.RES:        res_offered,
            Cond.CELL:       cell_offered,
            **sampled,
            Cond.TURN:       (r.role != 0) & (r.ended | Mux(r.role == 1, r.side, ~r.side)),
            Cond.FLAG0:      r.flags[0],
            Cond.FLAG1:      r.flags[1],
            Cond.FOUND:      self.search.found,
        }
        if self.has_perft:
            conds[Cond.PERFT_DEPTH] = acc < MAX_PERFT_DEPTH
        table = [Const(0)] * 32
        for cond, value in conds.items():
            table[cond] = value
        r.guard = Signal(name="guard")
        m.d.comb += r.guard.eq(Array(table)[r.f["cond"]] ^ r.f["neg"])

    def _output(self, m, r):
        """The output bytes (EMIT's and NUM's) and the engine's command."""
        op, imm, tile = r.op, r.imm, r.tile
        w = r.cell.white
        cell1 = Mux(w[0], ord("N"), Mux(w[1], ord("E"), Mux(w[2], ord("S"), ord("W"))))
        cell2 = Mux(w[3], ord("W"), Mux(w[2], ord("S"), Mux(w[1], ord("E"), ord("N"))))
        tile_char = Mux(tile == Shape.PLUS, TILE_CHARS[Shape.PLUS],
                        Mux(tile == Shape.SLASH, TILE_CHARS[Shape.SLASH],
                            TILE_CHARS[Shape.BACKSLASH]))
        special = Mux(imm == Src.CELL1, cell1, Mux(imm == Src.CELL2, cell2, tile_char))

        emitting = r.guard & (op == Op.EMIT)
        r.numbering = r.guard & (op == Op.NUM)
        r.commanding = op == Op.ENGINE                   # never guarded (see isa.Asm.i)
        num_streaming = r.numbering & r.num_go
        r.room = room = ~r.ofull | self.tx.ready         # the buffer can take a byte
        m.d.comb += r.num.out.ready.eq(num_streaming & room)
        with m.If(emitting & room):
            m.d.sync += [r.obuf.eq(Mux(imm[7], special, imm)), r.ofull.eq(1)]
        with m.Elif(r.num.out.valid & r.num.out.ready):
            m.d.sync += [r.obuf.eq(r.num.out.payload), r.ofull.eq(1)]
        with m.Elif(self.tx.ready):
            m.d.sync += r.ofull.eq(0)
        m.d.comb += [
            self.engine_cmd.valid.eq(r.commanding),
            self.engine_cmd.payload.op.eq(imm[:ENGINE_OP_BITS]),
            self.engine_cmd.payload.col.eq(r.col),
            self.engine_cmd.payload.row.eq(r.acc),
            self.engine_cmd.payload.tile.eq(tile),
            self.engine_cmd.payload.variant.eq(r.new_variant),
        ]

    def _jobs(self, m, r):
        """Whether the op waits (``r.waits``) and whether it fires (``r.fire``).

        SEARCH: raise ``search.req`` while waiting, until the player is done (a four-phase
        handshake: it drops ``search.done`` once ``search.req`` falls after the answer).
        PERFT: the same with the perft unit, the depth from acc."""
        op = r.op
        searching = op == Op.SEARCH                      # never guarded (see isa.Asm.i)
        search_req = Signal(name="search_req")
        m.d.comb += self.search.req.eq(search_req)
        r.waits = waits = Signal(name="waits")
        jobs = [(searching, search_req)]
        if self.has_perft:
            perfting = op == Op.PERFT                    # never guarded (see isa.Asm.i)
            perft_req = Signal(name="perft_req")
            m.d.comb += [self.perft.req.eq(perft_req), self.perft.depth.eq(r.acc + 1)]
            jobs.append((perfting, perft_req))
            # Both jobs' answers in one register, so that the second job adds nothing to
            # `waits` (the sequencer's longest path ends in the line buffer's address); it is
            # cleared as the op goes on, so a job right after another waits for its own.
            job = searching | perfting
            job_done = Signal(name="job_done")
            m.d.sync += job_done.eq(((search_req & self.search.done) |
                                     (perft_req & self.perft.done)) & ~(job & ~waits))
            job_waits = job & ~job_done
        else:
            job_waits = searching & ~(search_req & self.search.done)
        # Whether the op would have to wait, computed without the guard (an ENGINE op is never
        # guarded), so that the guard comes last in everything below.
        m.d.comb += waits.eq(((op == Op.EMIT) & ~r.room) |
                             ((op == Op.NUM) & ~(r.num_go & ~r.num_kick & ~r.num.busy)) |
                             (r.commanding & ~self.engine_cmd.ready) |
                             job_waits)
        for running, req in jobs:
            m.d.sync += req.eq(running & waits)
        r.fire = Signal(name="fire")
        m.d.comb += r.fire.eq(r.guard & ~waits)

    def _number(self, m, r):
        """NUM: start the number (from a register, off the guard's path), stream it, go on."""
        res, num, imm = r.res, r.num, r.imm
        value = Array([res.placed, res.width, res.height, res.ply, r.col, r.acc + 1,
                       self.perft.count if self.has_perft else Const(0), Const(0)])[imm[:3]]
        m.d.comb += [num.start.eq(r.num_kick), num.value.eq(value),
                     num.column.eq(imm == Num.COL)]
        m.d.sync += r.num_kick.eq(r.numbering & ~r.num_go)
        with m.If(r.numbering & ~r.num_go):
            m.d.sync += r.num_go.eq(1)
        with m.If(r.numbering & r.num_go & ~r.num_kick & ~num.busy):
            m.d.sync += r.num_go.eq(0)

    def _next(self, m, r):
        """The next instruction and the line pointer."""
        res, op, imm = r.res, r.op, r.imm
        index = Array([Const(0), r.err, res.winner.as_value(), res.reason.as_value(),
                       r.variant.as_value(), r.role, self.line.payload.error.as_value(),
                       Const(0)])[imm[:3]]
        target = r.f["target"]
        taken = Signal(PC_BITS, name="taken")  # where the instruction goes when its guard holds
        m.d.comb += taken.eq(Mux(r.waits, r.pc,
                                 Mux(op == Op.RET, r.ret,
                                     Mux(_is_op(op, Op.JUMP, Op.CALL), target | index,
                                         target))))
        m.d.comb += r.pc_next.eq(Mux(r.guard, taken, r.pc + 1))

        ptr_plus = Signal.like(r.ptr, name="ptr_plus")
        m.d.comb += ptr_plus.eq(r.ptr + 1)
        advance = Mux(r.guard, ~r.waits & r.f["inc"], r.f["inc_else"])
        r.release = release = op == Op.RELEASE         # never guarded (see isa.Asm.i)
        m.d.comb += r.ptr_next.eq(Mux(release, 0, Mux(advance, ptr_plus, r.ptr)))

    def _registers(self, m, r):
        """The other ops: what they take from the streams, and the registers they write."""
        op, imm, res, c = r.op, r.imm, r.res, r.c
        col, acc, tile = r.col, r.acc, r.tile
        m.d.sync += [
            r.res_taken.eq(r.fire & _is_op(op, Op.ACK, Op.ERR_STATUS)),
            r.cell_taken.eq(r.fire & (op == Op.ACK_CELL)),
            r.line_taken.eq(r.release),
        ]
        with m.If(self.engine_res.valid & self.engine_res.ready):
            m.d.sync += [r.side.eq(res.ply[0]), r.ended.eq(res.reason != Reason.NONE)]

        # The move registers: each op's new value is computed from the op and the data alone,
        # and `fire` only enables the write (no adder behind the guard).
        col_new = Signal.like(col, name="col_new")
        acc_new = Signal.like(acc, name="acc_new")
        tile_new = Signal(Shape, name="tile_new")
        m.d.comb += [col_new.eq(col), acc_new.eq(acc), tile_new.eq(tile)]
        with m.Switch(op):
            with m.Case(Op.ACC_LETTER):
                m.d.comb += acc_new.eq(c - ord("A"))
            with m.Case(Op.ACC_M1):
                m.d.comb += acc_new.eq(-1)
            with m.Case(Op.ACC_MUL):
                m.d.comb += acc_new.eq(accumulate(m, acc, c, imm[0], r.bits))
            with m.Case(Op.COL_M1):
                m.d.comb += [col_new.eq(acc), acc_new.eq(-1)]
            with m.Case(Op.COL_DIGIT):
                m.d.comb += [col_new.eq(acc), acc_new.eq(c - ord("1"))]
            with m.Case(Op.TILE_C):
                m.d.comb += tile_new.eq(tile_of(c))
            with m.Case(Op.SEARCH):
                m.d.comb += [col_new.eq(self.search.col), acc_new.eq(self.search.row),
                             tile_new.eq(self.search.tile)]
        with m.If(r.fire):
            m.d.sync += [col.eq(col_new), acc.eq(acc_new), tile.eq(tile_new)]
            with m.Switch(op):
                with m.Case(Op.CALL):
                    m.d.sync += r.ret.eq(r.pc + 1)
                with m.Case(Op.SET_ROLE):
                    m.d.sync += r.role.eq(imm)
                with m.Case(Op.SET_VAR):
                    m.d.sync += r.new_variant.eq(imm)
                with m.Case(Op.KEEP_VAR):
                    m.d.sync += r.new_variant.eq(r.variant)
                with m.Case(Op.COMMIT_VAR):
                    m.d.sync += r.variant.eq(r.new_variant)
                with m.Case(Op.SET_ERR):
                    m.d.sync += r.err.eq(imm)
                with m.Case(Op.ERR_STATUS):
                    m.d.sync += r.err.eq(res.status)
                with m.Case(Op.SET_FLAGS):
                    m.d.sync += r.flags.eq(imm)


def _is_op(op, *ops):
    return Cat(*(op == o for o in ops)).any()
