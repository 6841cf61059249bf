"""The serial protocol: reads a line, acts on it with the engine (and the player), prints the answer.

See ``docs/protocol.md`` for the protocol itself.  :class:`Protocol` is one sequential FSM:

1. take a line from the :class:`~traxfpga.hdl.linebuf.LineBuffer` (or its error);
2. read it a character per cycle: ``-X`` contest commands, ``:word`` engine commands (the
   word matched against the keyword ROM), or a move for the
   :class:`~traxfpga.hdl.notation.MoveParser`; then only spaces may follow;
3. run the engine command, or hand the engine to the player while it thinks;
4. print the answer with the :class:`~traxfpga.firmware.printer.Printer`, holding the
   engine's result meanwhile so the printer reads its fields straight from it;
5. release the line.  Bytes arriving during 2-5 make busy lines (see the line buffer).
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import enum, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..hdl.engine import CellOut, Command, Op, Result
from ..hdl.linebuf import LineError, LineInfo
from ..hdl.notation import MoveParser
from ..hdl.tiles import Status, Variant, Winner
from . import text
from .player import PlayerPort
from .printer import Printer

__all__ = ["Protocol", "Role"]


class Role(enum.Enum, shape=2):
    """The colour the board plays in contest mode (encoded as Winner, for the name table)."""
    NONE  = 0
    WHITE = 1
    BLACK = 2


class _Act(enum.Enum, shape=4):
    ID = 0
    WHITE = 1
    BLACK = 2
    CONTEST_MOVE = 3
    PLAY = 4
    BOARD = 5
    RESET = 6
    UNDO = 7
    VERSION = 8
    STATUS = 9
    MOVE = 10


# keyword slot -> action, for the engine commands
_COMMAND_ACTS = {"play": _Act.PLAY, "board": _Act.BOARD, "reset": _Act.RESET, "undo": _Act.UNDO,
                 "version": _Act.VERSION, "status": _Act.STATUS, "move": _Act.MOVE}

_LINE_ERRORS = {LineError.OVERLONG: text.E_OVERLONG, LineError.FRAMING: text.E_FRAMING,
                LineError.BUSY: text.E_BUSY}


class Protocol(wiring.Component):
    """Line protocol front end.

    Parameters
    ----------
    capacity : int
        Board size N of the engine (printed by ``:version``).
    player_id : str
        Answer to ``-T``.
    line_depth : int
        Size of the line buffer feeding ``line``.

    Attributes
    ----------
    line, line_addr, line_data :
        The line buffer's offer and read port.
    tx : Out(stream.Signature(8))
        Bytes of the answers.
    engine_cmd, engine_res, engine_cells :
        To the engine.
    player, player_cmd, player_res :
        To the player; while it thinks (``thinking``) its streams are the engine's.
    idle : Out(1)
        Waiting for a line.
    thinking : Out(1)
    error : Out(1)
        Pulses when an error line is started.
    """

    def __init__(self, *, capacity=128, player_id="trax-fpga", line_depth=128):
        self.capacity = capacity
        self.line_depth = line_depth
        self.text_image, self.layout = text.text_rom(player_id=player_id, capacity=capacity)
        super().__init__({
            "line":         In(stream.Signature(LineInfo(line_depth))),
            "line_addr":    Out(range(line_depth)),
            "line_data":    In(8),
            "tx":           Out(stream.Signature(8)),
            "engine_cmd":   Out(stream.Signature(Command)),
            "engine_res":   In(stream.Signature(Result)),
            "engine_cells": In(stream.Signature(CellOut)),
            "player":       Out(PlayerPort),
            "player_cmd":   In(stream.Signature(Command)),
            "player_res":   Out(stream.Signature(Result)),
            "idle":         Out(1),
            "thinking":     Out(1),
            "error":        Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        T = self.layout.addr

        m.submodules.printer = printer = Printer(self.text_image)
        m.submodules.parser = parser = MoveParser()
        m.submodules.keywords = kw_rom = Memory(shape=8, depth=len(text.keyword_rom()),
                                                init=text.keyword_rom())
        kw = kw_rom.read_port(domain="sync")

        # -- state ----------------------------------------------------------------------
        role = Signal(Role)
        variant = Signal(Variant)
        new_variant = Signal(Variant)
        side = Signal()                 # ply parity: 1 when Black is to move
        over = Signal()                 # the game has a winner
        err = Signal(5)
        act = Signal(_Act)
        engine_mode = Signal()          # the move being read is a :play (else contest)
        template = Signal(range(len(self.text_image)))
        hold = Signal()                 # release the engine's result after printing
        op = Signal(Op)

        # Line read pointer, addressed by its next value: `c` is always line[ptr].
        ptr = Signal(range(self.line_depth))
        ptr_next = Signal(range(self.line_depth))
        wstart = Signal(range(self.line_depth))
        m.d.comb += [ptr_next.eq(ptr), self.line_addr.eq(ptr_next)]
        m.d.sync += ptr.eq(ptr_next)
        c = self.line_data
        at_end = ptr == self.line.payload.length
        word_end = at_end | (c == ord(" "))

        # Keyword ROM: slot and offset, addressed by their next values.
        slot = Signal(4)
        slot_next = Signal(4)
        koff = Signal(4)
        koff_next = Signal(4)
        last_slot = Signal(4)
        m.d.comb += [slot_next.eq(slot), koff_next.eq(koff),
                     kw.addr.eq(Cat(koff_next, slot_next))]
        m.d.sync += [slot.eq(slot_next), koff.eq(koff_next)]
        k = kw.data

        # -- the engine: ours, or the player's while it thinks -------------------------------
        cmd = Signal.like(self.engine_cmd.payload)
        m.d.comb += [
            cmd.op.eq(op),
            cmd.col.eq(parser.col),
            cmd.row.eq(parser.row),
            cmd.tile.eq(parser.tile),
            cmd.variant.eq(new_variant),
        ]
        cmd_valid = Signal()
        res_ready = Signal()
        with m.If(self.thinking):
            m.d.comb += [
                self.engine_cmd.payload.eq(self.player_cmd.payload),
                self.engine_cmd.valid.eq(self.player_cmd.valid),
                self.player_cmd.ready.eq(self.engine_cmd.ready),
                self.engine_res.ready.eq(self.player_res.ready),
            ]
        with m.Else():
            m.d.comb += [
                self.engine_cmd.payload.eq(cmd),
                self.engine_cmd.valid.eq(cmd_valid),
                self.engine_res.ready.eq(res_ready),
            ]
        m.d.comb += [
            self.player_res.payload.eq(self.engine_res.payload),
            self.player_res.valid.eq(self.engine_res.valid & self.thinking),
        ]
        res = self.engine_res.payload
        with m.If(self.engine_res.valid & self.engine_res.ready):
            m.d.sync += [side.eq(res.ply[0]), over.eq(res.winner != Winner.NONE)]

        # -- printer --------------------------------------------------------------------
        m.d.comb += [
            printer.template.eq(template),
            printer.result.eq(res),
            printer.variant.eq(variant),
            printer.role.eq(role),
            printer.error.eq(err),
            printer.move_col.eq(self.player.col),
            printer.move_row.eq(self.player.row),
            printer.move_tile.eq(self.player.tile),
            printer.cell.eq(self.engine_cells.payload),
        ]
        wiring.connect(m, printer.out, wiring.flipped(self.tx))

        def fail(code):
            m.d.sync += err.eq(code)
            m.next = "ERROR"

        def answer(name, keep=False):
            m.d.sync += [template.eq(T[name]), hold.eq(keep)]
            m.next = "PRINT"

        def command(operation, then):
            m.d.sync += op.eq(operation)
            m.next = then

        def match_keywords(first, last):
            m.d.comb += [slot_next.eq(first), koff_next.eq(0)]
            m.d.sync += [wstart.eq(ptr_next), last_slot.eq(last)]

        # -- the FSM --------------------------------------------------------------------
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += [self.idle.eq(1), ptr_next.eq(0)]
                with m.If(self.line.valid):
                    with m.Switch(self.line.payload.error):
                        for line_error, code in _LINE_ERRORS.items():
                            with m.Case(line_error):
                                fail(code)
                        with m.Default():
                            with m.If(self.line.payload.length == 0):
                                m.next = "RELEASE"          # an empty line: nothing to do
                            with m.Else():
                                m.next = "DISPATCH"

            with m.State("DISPATCH"):
                with m.If(c == ord("-")):
                    m.d.comb += ptr_next.eq(1)
                    m.next = "DASH"
                with m.Elif(c == ord(":")):
                    m.d.comb += ptr_next.eq(1)
                    match_keywords(0, len(text.COMMANDS) - 1)
                    m.next = "COMMAND"
                with m.Else():
                    m.d.comb += parser.start.eq(1)
                    m.d.sync += engine_mode.eq(0)
                    m.next = "MOVE"

            # -T -W -B -R
            with m.State("DASH"):
                m.d.comb += ptr_next.eq(2)
                m.next = "DASH_END"
                with m.If(at_end):
                    fail(text.E_UNKNOWN)
                with m.Elif(c == ord("T")):
                    m.d.sync += act.eq(_Act.ID)
                with m.Elif(c == ord("W")):
                    m.d.sync += act.eq(_Act.WHITE)
                with m.Elif((c == ord("B")) | (c == ord("R"))):
                    m.d.sync += act.eq(_Act.BLACK)
                with m.Else():
                    fail(text.E_UNKNOWN)
            with m.State("DASH_END"):
                with m.If(word_end):
                    m.next = "END"
                with m.Else():
                    fail(text.E_UNKNOWN)

            # Keyword matching, for the command word and the :reset variant: compare the
            # word with one keyword slot at a time.
            for state in ("COMMAND", "VARIANT"):
                with m.State(state):
                    with m.If((k == 0) & word_end):
                        if state == "COMMAND":
                            with m.Switch(slot):
                                for name, a in _COMMAND_ACTS.items():
                                    with m.Case(text.COMMANDS.index(name)):
                                        m.d.sync += act.eq(a)
                            m.next = "ARGS"
                        else:
                            m.d.sync += new_variant.eq(slot[:2])
                            m.next = "END"
                    with m.Elif((k != 0) & ~word_end & (k == c)):
                        m.d.comb += [ptr_next.eq(ptr + 1), koff_next.eq(koff + 1)]
                    with m.Elif(slot == last_slot):
                        fail(text.E_UNKNOWN if state == "COMMAND" else text.E_SYNTAX)
                    with m.Else():
                        m.d.comb += [ptr_next.eq(wstart), slot_next.eq(slot + 1),
                                     koff_next.eq(0)]

            with m.State("ARGS"):
                # After the command word: skip spaces, then its argument (if any).
                with m.If((c == ord(" ")) & ~at_end):
                    m.d.comb += ptr_next.eq(ptr + 1)
                with m.Elif(act == _Act.PLAY):
                    m.d.comb += parser.start.eq(1)
                    m.d.sync += engine_mode.eq(1)
                    m.next = "MOVE"
                with m.Elif((act == _Act.RESET) & ~at_end):
                    match_keywords(text.VARIANT_SLOT, text.VARIANT_SLOT + len(text.VARIANTS) - 1)
                    m.next = "VARIANT"
                with m.Else():
                    m.d.sync += new_variant.eq(variant)
                    m.next = "END"

            with m.State("MOVE"):
                with m.If(parser.error):
                    fail(text.E_SYNTAX)
                with m.Elif(parser.done):
                    m.d.sync += act.eq(Mux(engine_mode, _Act.PLAY, _Act.CONTEST_MOVE))
                    m.next = "END"
                with m.Else():
                    m.d.comb += [parser.valid.eq(1), parser.char.eq(c), parser.end.eq(word_end)]
                    with m.If(~word_end):
                        m.d.comb += ptr_next.eq(ptr + 1)

            with m.State("END"):
                # Only spaces may follow.
                with m.If(at_end):
                    m.next = "EXEC"
                with m.Elif(c == ord(" ")):
                    m.d.comb += ptr_next.eq(ptr + 1)
                with m.Else():
                    fail(text.E_SYNTAX)

            with m.State("EXEC"):
                with m.Switch(act):
                    with m.Case(_Act.ID):
                        answer("id")
                    with m.Case(_Act.VERSION):
                        answer("version")
                    with m.Case(_Act.WHITE, _Act.BLACK):
                        m.d.sync += [new_variant.eq(variant),
                                     role.eq(Mux(act == _Act.WHITE, Role.WHITE, Role.BLACK))]
                        command(Op.RESET, "RESET")
                    with m.Case(_Act.RESET):
                        m.d.sync += role.eq(Role.NONE)
                        command(Op.RESET, "RESET")
                    with m.Case(_Act.CONTEST_MOVE):
                        theirs = Mux(role == Role.WHITE, side, ~side)
                        with m.If((role == Role.NONE) | ~(theirs | over)):
                            fail(text.E_TURN)
                        with m.Else():
                            command(Op.PLACE, "APPLY")
                    with m.Case(_Act.PLAY):
                        command(Op.PLACE, "APPLY")
                    with m.Case(_Act.UNDO):
                        command(Op.UNDO, "APPLY")
                    with m.Case(_Act.BOARD):
                        command(Op.DUMP, "BOARD")
                    with m.Case(_Act.STATUS):
                        m.d.sync += template.eq(T["status"])
                        command(Op.DUMP, "QUERY")
                    with m.Case(_Act.MOVE):
                        m.next = "THINK"

            # -- engine commands ------------------------------------------------------------
            with m.State("RESET"):
                m.d.comb += cmd_valid.eq(1)
                with m.If(self.engine_cmd.ready):
                    m.next = "RESET_DONE"
            with m.State("RESET_DONE"):
                m.d.comb += res_ready.eq(1)
                with m.If(self.engine_res.valid):
                    m.d.sync += variant.eq(new_variant)
                    with m.Switch(act):
                        with m.Case(_Act.WHITE):
                            m.next = "THINK"
                        with m.Case(_Act.BLACK):
                            m.next = "RELEASE"
                        with m.Default():
                            answer("reset")

            with m.State("APPLY"):                  # PLACE or UNDO
                m.d.comb += cmd_valid.eq(1)
                with m.If(self.engine_cmd.ready):
                    m.next = "APPLIED"
            with m.State("APPLIED"):
                with m.If(self.engine_res.valid):
                    with m.If(res.status != Status.OK):
                        m.d.comb += res_ready.eq(1)
                        fail(res.status.as_value())
                    with m.Elif(act == _Act.CONTEST_MOVE):
                        m.d.comb += res_ready.eq(1)
                        with m.If(res.winner != Winner.NONE):
                            m.next = "RELEASE"     # the opponent's move ended the game
                        with m.Else():
                            m.next = "THINK"
                    with m.Else():
                        answer("result", keep=True)

            with m.State("BOARD"):
                m.d.comb += cmd_valid.eq(1)
                m.d.sync += template.eq(T["cell"])        # ready before the first square
                with m.If(self.engine_cmd.ready):
                    m.next = "BOARD_CELLS"
            with m.State("BOARD_CELLS"):
                with m.If(self.engine_res.valid):
                    answer("board_end", keep=True)
                with m.Elif(self.engine_cells.valid):
                    m.d.comb += printer.start.eq(1)
                    m.next = "BOARD_CELL"
            with m.State("BOARD_CELL"):
                # The engine holds the square until it is taken: print it, then take it.
                with m.If(~printer.busy):
                    m.d.comb += self.engine_cells.ready.eq(1)
                    m.next = "BOARD_CELLS"

            # :status: a DUMP whose squares are dropped, for the result's numbers.
            with m.State("QUERY"):
                m.d.comb += cmd_valid.eq(1)
                with m.If(self.engine_cmd.ready):
                    m.next = "QUERY_WAIT"
            with m.State("QUERY_WAIT"):
                m.d.comb += self.engine_cells.ready.eq(1)
                with m.If(self.engine_res.valid):
                    m.d.sync += hold.eq(1)
                    m.next = "PRINT"

            # -- the player ---------------------------------------------------------------
            with m.State("THINK"):
                m.d.comb += self.player.start.eq(1)
                m.next = "THINKING"
            with m.State("THINKING"):
                m.d.comb += self.thinking.eq(1)
                with m.If(self.player.done):
                    # The engine still offers the result of the player's move.
                    with m.If(self.player.found):
                        with m.If(act == _Act.MOVE):
                            answer("move_result", keep=True)
                        with m.Else():
                            answer("move", keep=True)
                    with m.Else():
                        fail(Mux(self.player.over, Status.GAME_OVER.value, text.E_NOMOVE))

            # -- answers --------------------------------------------------------------------
            with m.State("ERROR"):
                m.d.comb += self.error.eq(1)
                answer("error")
            with m.State("PRINT"):
                m.d.comb += printer.start.eq(1)
                m.next = "PRINTING"
            with m.State("PRINTING"):
                with m.If(~printer.busy):
                    m.d.comb += res_ready.eq(hold)
                    m.next = "RELEASE"
            with m.State("RELEASE"):
                m.d.comb += self.line.ready.eq(1)
                m.next = "IDLE"

        return m
