"""The answer printer: plays a template of the text ROM out as bytes, filling in its fields.

Templates and tables are laid out by :mod:`traxfpga.firmware.text`.  The printer reads the
ROM one byte a cycle: a printable byte or LF goes out as it is; a NUL ends the template (or
returns from a table name); a field byte formats a value given on the printer's inputs:

* ``placed``, ``width``, ``height``, ``ply``: the engine result's numbers, in decimal
  (:class:`~traxfpga.hdl.notation.NumberText`);
* ``winner``, ``reason``, ``variant``, ``role``, ``error``: a name, by a jump into its
  table and back (one level of return address);
* ``move``: the move in notation (column letters, row digits, tile);
* ``cell``, ``sep``: one board square and what follows it.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..hdl.engine import CellOut, Result
from ..hdl.notation import TILE_CHARS, NumberText
from ..hdl.tiles import Shape, Variant
from .text import FIELDS, TABLES

__all__ = ["Printer"]

LF = 0x0A


class Printer(wiring.Component):
    """Prints templates of a text ROM.

    Parameters
    ----------
    image : list of int
        The text ROM (:func:`~traxfpga.firmware.text.text_rom`).

    Attributes
    ----------
    start : In(1)
        Begin printing the template at ``template`` (when not ``busy``).
    template : In(range(len(image)))
    busy : Out(1)
        From the cycle after ``start`` until the template's last byte has been taken.
    out : Out(stream.Signature(8))
        The bytes.
    result, variant, role, error, move_col, move_row, move_tile, cell : In
        The values of the fields; they must hold while a template using them prints.
    """

    def __init__(self, image):
        self._image = list(image)
        depth = len(self._image)
        assert depth & (depth - 1) == 0
        super().__init__({
            "start":     In(1),
            "template":  In(range(depth)),
            "busy":      Out(1),
            "out":       Out(stream.Signature(8)),
            "result":    In(Result),
            "variant":   In(Variant),
            "role":      In(2),
            "error":     In(5),
            "move_col":  In(signed(16)),
            "move_row":  In(signed(16)),
            "move_tile": In(Shape),
            "cell":      In(CellOut),
        })

    def elaborate(self, platform):
        m = Module()
        depth = len(self._image)
        AW = (depth - 1).bit_length()

        m.submodules.rom = rom = Memory(shape=8, depth=depth, init=self._image)
        rd = rom.read_port(domain="sync")
        m.submodules.num = num = NumberText()

        # The ROM is addressed by the pointer's next value, so `c` is always rom[ptr].
        ptr = Signal(AW)
        ptr_next = Signal(AW)
        ret = Signal(AW)
        call = Signal()
        m.d.comb += [ptr_next.eq(ptr), rd.addr.eq(ptr_next)]
        m.d.sync += ptr.eq(ptr_next)
        c = rd.data

        def table(name, index):
            base, stride, _ = TABLES[name]
            shift = stride.bit_length() - 1
            return Const(base, AW) | (index << shift)

        res = self.result
        w = self.cell.white
        first = Mux(w[0], ord("N"), Mux(w[1], ord("E"), Mux(w[2], ord("S"), ord("W"))))
        second = Mux(w[3], ord("W"), Mux(w[2], ord("S"), Mux(w[1], ord("E"), ord("N"))))
        tile_char = Mux(self.move_tile == Shape.PLUS, TILE_CHARS[Shape.PLUS],
                        Mux(self.move_tile == Shape.SLASH, TILE_CHARS[Shape.SLASH],
                            TILE_CHARS[Shape.BACKSLASH]))

        def emit(byte, then=None):
            m.d.comb += [self.out.valid.eq(1), self.out.payload.eq(byte)]
            with m.If(self.out.ready):
                m.d.comb += ptr_next.eq(ptr + 1)
                if then is not None:
                    m.next = then

        def jump(address):
            m.d.comb += ptr_next.eq(address)
            m.d.sync += [ret.eq(ptr + 1), call.eq(1)]

        def number(value, column=0):
            m.d.comb += [num.start.eq(1), num.value.eq(value), num.column.eq(column)]

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += ptr_next.eq(self.template)
                with m.If(self.start):
                    m.next = "RUN"

            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                with m.If(c == 0):
                    with m.If(call):
                        m.d.comb += ptr_next.eq(ret)
                        m.d.sync += call.eq(0)
                    with m.Else():
                        m.next = "IDLE"
                with m.Elif((c >= 0x20) | (c == LF)):
                    emit(c)
                with m.Else():
                    with m.Switch(c):
                        with m.Case(FIELDS["placed"]):
                            number(res.placed)
                            m.next = "NUMBER"
                        with m.Case(FIELDS["width"]):
                            number(res.width)
                            m.next = "NUMBER"
                        with m.Case(FIELDS["height"]):
                            number(res.height)
                            m.next = "NUMBER"
                        with m.Case(FIELDS["ply"]):
                            number(res.ply)
                            m.next = "NUMBER"
                        with m.Case(FIELDS["winner"]):
                            jump(table("colour", res.winner.as_value()))
                        with m.Case(FIELDS["reason"]):
                            jump(table("reason", res.reason.as_value()))
                        with m.Case(FIELDS["variant"]):
                            jump(table("variant", self.variant.as_value()))
                        with m.Case(FIELDS["role"]):
                            jump(table("colour", self.role))
                        with m.Case(FIELDS["error"]):
                            jump(table("error", self.error))
                        with m.Case(FIELDS["move"]):
                            number(self.move_col + 1, column=1)
                            m.next = "MOVE_COL"
                        with m.Case(FIELDS["cell"]):
                            m.next = "CELL"
                        with m.Case(FIELDS["sep"]):
                            emit(Mux(self.cell.eol, LF, ord(" ")))
                        with m.Default():
                            m.d.comb += ptr_next.eq(ptr + 1)       # not a field: skipped

            # A number is being printed: its characters go out instead of the ROM's.
            for state, then in (("NUMBER", None), ("MOVE_COL", "MOVE_ROW"),
                                ("MOVE_ROW", "MOVE_TILE")):
                with m.State(state):
                    m.d.comb += [
                        self.busy.eq(1),
                        self.out.valid.eq(num.out.valid),
                        self.out.payload.eq(num.out.payload),
                        num.out.ready.eq(self.out.ready),
                    ]
                    with m.If(~num.busy):
                        if then is None:
                            m.d.comb += ptr_next.eq(ptr + 1)
                            m.next = "RUN"
                        elif then == "MOVE_ROW":
                            number(self.move_row + 1)
                            m.next = then
                        else:
                            m.next = then
            with m.State("MOVE_TILE"):
                m.d.comb += self.busy.eq(1)
                emit(tile_char, "RUN")

            with m.State("CELL"):
                m.d.comb += self.busy.eq(1)
                with m.If(self.cell.occ):
                    m.d.comb += [self.out.valid.eq(1), self.out.payload.eq(first)]
                    with m.If(self.out.ready):
                        m.next = "CELL2"
                with m.Else():
                    emit(ord("."), "RUN")
            with m.State("CELL2"):
                m.d.comb += self.busy.eq(1)
                emit(second, "RUN")

        return m
