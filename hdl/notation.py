"""Trax notation in hardware: a move parser fed one character per cycle, and a number printer.

Notation (as in the reference engine's ``parse_move``)::

    move   = column row tile
    column = "@" | letter+          "@" is -1, "A" 0 ... "Z" 25, "AA" 26 ...
    row    = "0" | [1-9] digit*     "0" is -1, "1" 0 ...
    tile   = "+" | "/" | "\\"

:class:`MoveParser` checks this grammar exactly and produces the area-relative ``col``,
``row`` and ``tile`` of the engine's command.  Columns and rows of any length are accepted:
a value too large for the accumulator saturates to :data:`SATURATED`, far beyond any board,
which the engine then refuses as out of range.

:class:`NumberText` prints an unsigned number as decimal digits, or as the letters of a
notation column, one character per transfer on a stream.
"""

from amaranth.hdl import Array, Const, Module, Mux, Signal, signed
from amaranth.lib import enum, stream, wiring
from amaranth.lib.wiring import In, Out

from .tiles import Shape

__all__ = ["ACC_BITS", "SATURATED", "MoveParser", "NumberText", "TILE_CHARS"]

#: Width of the parser's accumulator; column and row numbers saturate at 2**ACC_BITS - 1.
ACC_BITS = 11
#: The notation number (column + 1 or row + 1) a saturated column or row stands for.
SATURATED = (1 << ACC_BITS) - 1

#: Shape -> its notation character.
TILE_CHARS = {Shape.PLUS: ord("+"), Shape.SLASH: ord("/"), Shape.BACKSLASH: ord("\\")}


class _P(enum.Enum, shape=3):
    COL0  = 0   # expecting "@" or the first letter
    COL   = 1   # in the letters
    ROW0  = 2   # after "@": the first digit
    ROW   = 3   # in the digits after a non-zero first digit
    TILE  = 4   # after the row "0": the tile
    END   = 5   # after the tile: only the end may follow
    ERROR = 6


class MoveParser(wiring.Component):
    """Checks and converts one move, a character per cycle.

    Attributes
    ----------
    start : In(1)
        Forget the previous move; the next character is the first.
    valid : In(1)
        ``char`` (or, with ``end``, the end of the move) is presented this cycle.
    char : In(8)
    end : In(1)
        The move ends here (``char`` is ignored).
    done : Out(1)
        The move ended and was well formed: ``col``, ``row``, ``tile`` hold it.
    error : Out(1)
        The characters so far cannot be (the start of) a move; sticky until ``start``.
    col, row : Out(signed(16))
        Area-relative: -1 for ``@`` / ``0``.
    tile : Out(Shape)
    """

    start: In(1)
    valid: In(1)
    char:  In(8)
    end:   In(1)
    done:  Out(1)
    error: Out(1)
    col:   Out(signed(16))
    row:   Out(signed(16))
    tile:  Out(Shape)

    def elaborate(self, platform):
        m = Module()
        state = Signal(_P)
        acc = Signal(ACC_BITS)          # the number being read (column + 1 or row + 1)
        colnum = Signal(ACC_BITS)       # the column's number once its letters are read

        c = self.char
        is_letter = (c >= ord("A")) & (c <= ord("Z"))
        is_digit = (c >= ord("0")) & (c <= ord("9"))
        is_nonzero = is_digit & (c != ord("0"))
        is_tile = (c == ord("+")) | (c == ord("/")) | (c == ord("\\"))
        tile_of = Mux(c == ord("+"), Shape.PLUS, Mux(c == ord("/"), Shape.SLASH, Shape.BACKSLASH))

        # acc * 26 + letter value, or acc * 10 + digit, saturating.
        in_letters = state == _P.COL
        times = (acc << 3) + (acc << 1) + Mux(in_letters, acc << 4, 0)       # * 10 or * 26
        value = Mux(is_letter, c - (ord("A") - 1), c - ord("0"))[:5]
        nxt = Signal(ACC_BITS + 6)
        m.d.comb += nxt.eq(times + value)
        nxt_sat = Mux((acc == SATURATED) | (nxt >= SATURATED), SATURATED, nxt[:ACC_BITS])

        m.d.comb += [
            self.error.eq(state == _P.ERROR),
            self.col.eq(colnum - 1),
            self.row.eq(acc - 1),
        ]
        # `done` stays high only for a move that ended: END is entered by the tile, so the
        # end marker itself must be seen there.  A tile followed by more characters is an error.
        ended = Signal()
        m.d.comb += self.done.eq(ended)

        with m.If(self.start):
            m.d.sync += [state.eq(_P.COL0), ended.eq(0), acc.eq(0), colnum.eq(0)]
        with m.Elif(self.valid & (state != _P.ERROR) & ~ended):
            with m.If(self.end):
                with m.If(state == _P.END):
                    m.d.sync += ended.eq(1)
                with m.Else():
                    m.d.sync += state.eq(_P.ERROR)
            with m.Else():
                with m.Switch(state):
                    with m.Case(_P.COL0):
                        with m.If(c == ord("@")):
                            m.d.sync += [acc.eq(0), state.eq(_P.ROW0)]
                        with m.Elif(is_letter):
                            m.d.sync += [acc.eq(value), state.eq(_P.COL)]
                        with m.Else():
                            m.d.sync += state.eq(_P.ERROR)
                    with m.Case(_P.COL):
                        with m.If(is_letter):
                            m.d.sync += acc.eq(nxt_sat)
                        with m.Elif(c == ord("0")):
                            m.d.sync += [colnum.eq(acc), acc.eq(0), state.eq(_P.TILE)]
                        with m.Elif(is_nonzero):
                            m.d.sync += [colnum.eq(acc), acc.eq(value), state.eq(_P.ROW)]
                        with m.Else():
                            m.d.sync += state.eq(_P.ERROR)
                    with m.Case(_P.ROW0):
                        with m.If(c == ord("0")):
                            m.d.sync += state.eq(_P.TILE)
                        with m.Elif(is_nonzero):
                            m.d.sync += [acc.eq(value), state.eq(_P.ROW)]
                        with m.Else():
                            m.d.sync += state.eq(_P.ERROR)
                    with m.Case(_P.ROW):
                        with m.If(is_digit):
                            m.d.sync += acc.eq(nxt_sat)
                        with m.Elif(is_tile):
                            m.d.sync += [self.tile.eq(tile_of), state.eq(_P.END)]
                        with m.Else():
                            m.d.sync += state.eq(_P.ERROR)
                    with m.Case(_P.TILE):
                        with m.If(is_tile):
                            m.d.sync += [self.tile.eq(tile_of), state.eq(_P.END)]
                        with m.Else():
                            m.d.sync += state.eq(_P.ERROR)
                    with m.Default():               # END: nothing may follow the tile
                        m.d.sync += state.eq(_P.ERROR)
        return m


class NumberText(wiring.Component):
    """Prints an unsigned number, one character per transfer on ``out``.

    Decimal: digits without leading zeros (``0`` for zero).  Column (``column`` high): the
    number is a notation column plus one, printed as its letters: 0 is ``@``, 1 ``A``, 26
    ``Z``, 27 ``AA``, up to 702 ``ZZ`` (two letters at most).

    One subtraction per cycle: at most 9 per decimal digit (26 per column letter).

    Attributes
    ----------
    start : In(1)
        Load ``value``/``column`` and begin (when idle).
    value : In(16)
    column : In(1)
    out : Out(stream.Signature(8))
    busy : Out(1)
        From ``start`` until the last character has been taken.
    """

    start:  In(1)
    value:  In(16)
    column: In(1)
    out:    Out(stream.Signature(8))
    busy:   Out(1)

    def elaborate(self, platform):
        m = Module()
        v = Signal(16)
        col = Signal()
        at = Signal()                   # column 0: just "@"
        p = Signal(3)                   # index of the current power
        digit = Signal(5)
        started = Signal()              # a non-zero digit has been printed

        powers = Array([Const(x, 16) for x in (10000, 1000, 100, 10, 1)])
        pw = Mux(col, Mux(p == 3, 26, 1), powers[p])
        last = p == 4
        ge = v >= pw

        # Decimal digits from '0'; a column's leading letter from '@' (its digit is 1..26),
        # its last letter from 'A' (0..25).
        base = Mux(col, Mux(last, ord("A"), ord("@")), ord("0"))
        m.d.comb += self.out.payload.eq(Mux(at, ord("@"), base + digit))

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [
                        col.eq(self.column),
                        at.eq(self.column & (self.value == 0)),
                        v.eq(Mux(self.column, self.value - 1, self.value)),
                        p.eq(Mux(self.column, 3, 0)),
                        digit.eq(0),
                        started.eq(0),
                    ]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                with m.If(at):
                    m.d.comb += self.out.valid.eq(1)
                    with m.If(self.out.ready):
                        m.next = "IDLE"
                with m.Elif(ge):
                    m.d.sync += [v.eq(v - pw), digit.eq(digit + 1)]
                with m.Else():
                    show = (digit != 0) | started | last
                    m.d.comb += self.out.valid.eq(show)
                    with m.If(~show | self.out.ready):
                        m.d.sync += [p.eq(p + 1), digit.eq(0), started.eq(started | show)]
                        with m.If(last):
                            m.next = "IDLE"
        return m
