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
  accumulator (:func:`~traxfpga.hdl.notation.accumulate`) or by the player's scan, given
  to the engine, and printed by :class:`~traxfpga.hdl.notation.NumberText`;
* the game's context: ``role`` (contest colour), ``variant``, the side to move and whether
  the game has ended (both taken from every engine result), the error code, two flags;
* registered handshakes towards the other modules (see below), for timing.

Instruction semantics are in :mod:`traxfpga.firmware.isa`.
"""

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
        bits = max(4, self.capacity.bit_length())      # saturation 2**bits - 1 > N
        m.submodules.rom = rom = Memory(shape=WORD_BITS, depth=self.depth, init=self.words)
        fetch = rom.read_port(domain="sync")
        m.submodules.num = num = NumberText(COUNT_BITS if self.has_perft else 16)

        # -- the instruction -----------------------------------------------------------------
        pc = Signal(PC_BITS)
        pc_next = Signal(PC_BITS)
        ret = Signal(PC_BITS)
        m.d.comb += fetch.addr.eq(pc_next)
        m.d.sync += pc.eq(pc_next)
        f = {name: fetch.data[lo:hi] for name, (lo, hi) in field_slices().items()}
        op, imm = f["op"], f["imm"]

        # -- registers -----------------------------------------------------------------------
        ptr = Signal(range(self.line_depth))
        ptr_next = Signal(range(self.line_depth))
        m.d.comb += self.line_addr.eq(ptr_next)
        m.d.sync += ptr.eq(ptr_next)
        col = Signal(signed(bits + 1))
        acc = Signal(signed(bits + 1))
        tile = Signal(Shape)
        role = Signal(2)                # 0 none, 1 white, 2 black (as Winner)
        variant = Signal(Variant)
        new_variant = Signal(Variant)
        err = Signal(5)
        flags = Signal(2)
        side = Signal()                 # the result's ply is odd: Black to move
        ended = Signal()                # the result's game has ended
        num_go = Signal()               # a NUM has started its number
        num_kick = Signal()             # ... in the previous cycle: start the printer

        c = self.line_data
        res = self.engine_res.payload
        cell = self.engine_cells.payload

        # Outgoing handshakes are registered, to keep the sequencer's decisions off the
        # other modules' paths: a one-byte buffer in front of the transmitter, and `ready`s
        # raised the cycle after the instruction that takes something.  Meanwhile that
        # something still shows as offered, so the conditions mask it.
        obuf = Signal(8)
        ofull = Signal()
        res_taken = Signal()
        cell_taken = Signal()
        line_taken = Signal()
        m.d.comb += [
            self.tx.valid.eq(ofull),
            self.tx.payload.eq(obuf),
            self.engine_res.ready.eq(res_taken),
            self.engine_cells.ready.eq(cell_taken),
            self.line.ready.eq(line_taken),
        ]
        res_offered = self.engine_res.valid & ~res_taken
        cell_offered = self.engine_cells.valid & ~cell_taken
        line_offered = self.line.valid & ~line_taken
        at_end = ptr == self.line.payload.length
        # The character tests see NUL at the end of the line: what the buffer holds there is
        # left over from an earlier, longer line, and must not be read as part of this one.
        # (Registered from the pointer's next value, like `c`, to keep the comparison off the
        # guard's path; a line is offered cycles before its first character is tested.)
        past_end = Signal()
        m.d.sync += past_end.eq(ptr_next == self.line.payload.length)
        ch = Mux(past_end, 0, c)
        status = res.status

        # Everything tested about a result or a square is registered, to keep the engine's
        # outputs off the guard's path: valid from the second cycle something is offered
        # (the program tests them only after waiting for the offer).
        registered = {
            Cond.RES_OK:     status == Status.OK,
            Cond.RES_ENDED:  res.reason != Reason.NONE,
            Cond.RES_OVER:   status == Status.GAME_OVER,
            Cond.RES_SQUARE: ((status == Status.OCCUPIED) | (status == Status.NOT_ADJACENT) |
                              (status == Status.RANGE) | (status == Status.CAPACITY) |
                              (status == Status.BOUNDS) | (status == Status.FIRST_MOVE) |
                              (tile == Shape.BACKSLASH)),
            Cond.ROW_LAST:   acc >= res.height,
            Cond.COL_LAST:   col >= res.width,
            Cond.CELL_OCC:   cell.occ,
            Cond.CELL_EOL:   cell.eol,
        }
        sampled = {}
        for cond, value in registered.items():
            sampled[cond] = Signal(name=f"cond_{cond.name.lower()}")
            m.d.sync += sampled[cond].eq(value)

        # -- conditions ---------------------------------------------------------------------
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
            Cond.TURN:       (role != 0) & (ended | Mux(role == 1, side, ~side)),
            Cond.FLAG0:      flags[0],
            Cond.FLAG1:      flags[1],
            Cond.FOUND:      self.search.found,
        }
        if self.has_perft:
            conds[Cond.PERFT_DEPTH] = acc < MAX_PERFT_DEPTH
        table = [Const(0)] * 32
        for cond, value in conds.items():
            table[cond] = value
        guard = Signal()
        m.d.comb += guard.eq(Array(table)[f["cond"]] ^ f["neg"])

        def is_op(*ops):
            return Cat(*(op == o for o in ops)).any()

        # -- waiting ops and the output bytes ------------------------------------------------
        w = cell.white
        cell1 = Mux(w[0], ord("N"), Mux(w[1], ord("E"), Mux(w[2], ord("S"), ord("W"))))
        cell2 = Mux(w[3], ord("W"), Mux(w[2], ord("S"), Mux(w[1], ord("E"), ord("N"))))
        tile_char = Mux(tile == Shape.PLUS, TILE_CHARS[Shape.PLUS],
                        Mux(tile == Shape.SLASH, TILE_CHARS[Shape.SLASH],
                            TILE_CHARS[Shape.BACKSLASH]))
        special = Mux(imm == Src.CELL1, cell1, Mux(imm == Src.CELL2, cell2, tile_char))

        emitting = guard & (op == Op.EMIT)
        numbering = guard & (op == Op.NUM)
        commanding = op == Op.ENGINE                     # never guarded (see isa.Asm.i)
        num_streaming = numbering & num_go
        room = ~ofull | self.tx.ready                    # the buffer can take a byte
        m.d.comb += num.out.ready.eq(num_streaming & room)
        with m.If(emitting & room):
            m.d.sync += [obuf.eq(Mux(imm[7], special, imm)), ofull.eq(1)]
        with m.Elif(num.out.valid & num.out.ready):
            m.d.sync += [obuf.eq(num.out.payload), ofull.eq(1)]
        with m.Elif(self.tx.ready):
            m.d.sync += ofull.eq(0)
        m.d.comb += [
            self.engine_cmd.valid.eq(commanding),
            self.engine_cmd.payload.op.eq(imm[:ENGINE_OP_BITS]),
            self.engine_cmd.payload.col.eq(col),
            self.engine_cmd.payload.row.eq(acc),
            self.engine_cmd.payload.tile.eq(tile),
            self.engine_cmd.payload.variant.eq(new_variant),
        ]
        # SEARCH: raise `search.req` while waiting, until the player is done (a four-phase
        # handshake: it drops `search.done` once `search.req` falls after the answer).
        # PERFT: the same with the perft unit, the depth from acc.
        searching = op == Op.SEARCH                      # never guarded (see isa.Asm.i)
        search_req = Signal()
        m.d.comb += self.search.req.eq(search_req)
        waits = Signal()
        jobs = [(searching, search_req)]
        if self.has_perft:
            perfting = op == Op.PERFT                    # never guarded (see isa.Asm.i)
            perft_req = Signal()
            m.d.comb += [self.perft.req.eq(perft_req), self.perft.depth.eq(acc + 1)]
            jobs.append((perfting, perft_req))
            # Both jobs' answers in one register, so that the second job adds nothing to
            # `waits` (the sequencer's longest path ends in the line buffer's address); it is
            # cleared as the op goes on, so a job right after another waits for its own.
            job = searching | perfting
            job_done = Signal()
            m.d.sync += job_done.eq(((search_req & self.search.done) |
                                     (perft_req & self.perft.done)) & ~(job & ~waits))
            job_waits = job & ~job_done
        else:
            job_waits = searching & ~(search_req & self.search.done)
        # Whether the op would have to wait, computed without the guard (an ENGINE op is never
        # guarded), so that the guard comes last in everything below.
        m.d.comb += waits.eq(((op == Op.EMIT) & ~room) |
                             ((op == Op.NUM) & ~(num_go & ~num_kick & ~num.busy)) |
                             (commanding & ~self.engine_cmd.ready) |
                             job_waits)
        for running, req in jobs:
            m.d.sync += req.eq(running & waits)
        fire = Signal()
        m.d.comb += fire.eq(guard & ~waits)

        # NUM: start the number (from a register, off the guard's path), stream it, go on.
        value = Array([res.placed, res.width, res.height, res.ply, col, acc + 1,
                       self.perft.count if self.has_perft else Const(0), Const(0)])[imm[:3]]
        m.d.comb += [num.start.eq(num_kick), num.value.eq(value), num.column.eq(imm == Num.COL)]
        m.d.sync += num_kick.eq(numbering & ~num_go)
        with m.If(numbering & ~num_go):
            m.d.sync += num_go.eq(1)
        with m.If(numbering & num_go & ~num_kick & ~num.busy):
            m.d.sync += num_go.eq(0)

        # -- next instruction, line pointer -------------------------------------------------------
        index = Array([Const(0), err, res.winner.as_value(), res.reason.as_value(),
                       variant.as_value(), role, self.line.payload.error.as_value(),
                       Const(0)])[imm[:3]]
        target = f["target"]
        taken = Signal(PC_BITS)         # where the instruction goes when its guard holds
        m.d.comb += taken.eq(Mux(waits, pc,
                                 Mux(op == Op.RET, ret,
                                     Mux(is_op(Op.JUMP, Op.CALL), target | index, target))))
        m.d.comb += pc_next.eq(Mux(guard, taken, pc + 1))

        ptr_plus = Signal.like(ptr)
        m.d.comb += ptr_plus.eq(ptr + 1)
        advance = Mux(guard, ~waits & f["inc"], f["inc_else"])
        release = op == Op.RELEASE                      # never guarded (see isa.Asm.i)
        m.d.comb += ptr_next.eq(Mux(release, 0, Mux(advance, ptr_plus, ptr)))

        # -- the other ops --------------------------------------------------------------------
        m.d.sync += [
            res_taken.eq(fire & is_op(Op.ACK, Op.ERR_STATUS, Op.NEXT_TILE, Op.NEXT_ROW,
                                      Op.NEXT_COL)),
            cell_taken.eq(fire & (op == Op.ACK_CELL)),
            line_taken.eq(release),
        ]
        with m.If(self.engine_res.valid & self.engine_res.ready):
            m.d.sync += [side.eq(res.ply[0]), ended.eq(res.reason != Reason.NONE)]

        # The move registers: each op's new value is computed from the op and the data alone,
        # and `fire` only enables the write (no adder behind the guard).
        col_new = Signal.like(col)
        acc_new = Signal.like(acc)
        tile_new = Signal(Shape)
        m.d.comb += [col_new.eq(col), acc_new.eq(acc), tile_new.eq(tile)]
        with m.Switch(op):
            with m.Case(Op.ACC_LETTER):
                m.d.comb += acc_new.eq(c - ord("A"))
            with m.Case(Op.ACC_M1):
                m.d.comb += acc_new.eq(-1)
            with m.Case(Op.ACC_MUL):
                m.d.comb += acc_new.eq(accumulate(m, acc, c, imm[0], bits))
            with m.Case(Op.COL_M1):
                m.d.comb += [col_new.eq(acc), acc_new.eq(-1)]
            with m.Case(Op.COL_DIGIT):
                m.d.comb += [col_new.eq(acc), acc_new.eq(c - ord("1"))]
            with m.Case(Op.TILE_C):
                m.d.comb += tile_new.eq(tile_of(c))
            with m.Case(Op.SCAN_START):
                m.d.comb += [col_new.eq(-1), acc_new.eq(-1), tile_new.eq(Shape.PLUS)]
            with m.Case(Op.NEXT_TILE):
                m.d.comb += tile_new.eq(tile.as_value() + 1)
            with m.Case(Op.NEXT_ROW):
                m.d.comb += [acc_new.eq(acc + 1), tile_new.eq(Shape.PLUS)]
            with m.Case(Op.NEXT_COL):
                m.d.comb += [col_new.eq(col + 1), acc_new.eq(-1), tile_new.eq(Shape.PLUS)]
            with m.Case(Op.SEARCH):
                m.d.comb += [col_new.eq(self.search.col), acc_new.eq(self.search.row),
                             tile_new.eq(self.search.tile)]
        with m.If(fire):
            m.d.sync += [col.eq(col_new), acc.eq(acc_new), tile.eq(tile_new)]
            with m.Switch(op):
                with m.Case(Op.CALL):
                    m.d.sync += ret.eq(pc + 1)
                with m.Case(Op.SET_ROLE):
                    m.d.sync += role.eq(imm)
                with m.Case(Op.SET_VAR):
                    m.d.sync += new_variant.eq(imm)
                with m.Case(Op.KEEP_VAR):
                    m.d.sync += new_variant.eq(variant)
                with m.Case(Op.COMMIT_VAR):
                    m.d.sync += variant.eq(new_variant)
                with m.Case(Op.SET_ERR):
                    m.d.sync += err.eq(imm)
                with m.Case(Op.ERR_STATUS):
                    m.d.sync += err.eq(status)
                with m.Case(Op.SET_FLAGS):
                    m.d.sync += flags.eq(imm)

        m.d.comb += [
            self.idle.eq((pc == self.asm.labels[IDLE]) & ~ofull),
            self.thinking.eq(f["think"]),
            self.error.eq(err != 0),
        ]
        return m
