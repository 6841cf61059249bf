"""The board's own move: the player interface, and a player that plays the first legal move.

A player takes over the engine between ``start`` and ``done`` (the protocol routes the
engine's ``cmd``/``res`` streams to it meanwhile) and must leave it with its chosen move
applied.  It then reports the move, in notation coordinates relative to the area *before*
the move, which is what the protocol prints.

:class:`FirstLegalPlayer` tries placements in a fixed order, column ``-1`` to ``width``,
row ``-1`` to ``height``, tiles ``+ / \\``, each with a ``PLACE``: the engine rolls an
illegal trial back by itself, so the first trial it accepts is the move.  A trial refused
for its square (occupied, not adjacent, out of range, capacity, bounds) skips the square's
other tiles.
"""

from amaranth.hdl import Module, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..hdl.engine import Command, Op, Result
from ..hdl.tiles import Shape, Status

__all__ = ["PlayerPort", "FirstLegalPlayer"]

#: The protocol's side of a player: ``start`` a search; ``done`` pulses once when it ends,
#: with ``found`` (a move was played: ``col``, ``row``, ``tile``) or ``over`` (the game was
#: already over), both held until the next ``start``.  When a move was found, the engine's
#: result for it is left offered, not taken: the protocol prints from it, then takes it.
PlayerPort = wiring.Signature({
    "start": Out(1),
    "done":  In(1),
    "found": In(1),
    "over":  In(1),
    "col":   In(signed(16)),
    "row":   In(signed(16)),
    "tile":  In(Shape),
})


class FirstLegalPlayer(wiring.Component):
    """Plays the first legal move in scan order.

    Parameters
    ----------
    capacity : int
        The engine's board size N (bounds the coordinates the player counts to).

    Attributes
    ----------
    control : In(PlayerPort)
    cmd : Out(stream.Signature(Command))
    res : In(stream.Signature(Result))
    """

    def __init__(self, *, capacity=128):
        self.capacity = capacity
        super().__init__({
            "control": In(PlayerPort),
            "cmd":     Out(stream.Signature(Command)),
            "res":     In(stream.Signature(Result)),
        })

    def elaborate(self, platform):
        m = Module()
        ctl = self.control
        bits = self.capacity.bit_length() + 2
        col = Signal(signed(bits))
        row = Signal(signed(bits))
        tile = Signal(Shape)

        m.d.comb += [
            ctl.col.eq(col), ctl.row.eq(row), ctl.tile.eq(tile),
            self.cmd.payload.op.eq(Op.PLACE),
            self.cmd.payload.col.eq(col),
            self.cmd.payload.row.eq(row),
            self.cmd.payload.tile.eq(tile),
        ]
        m.d.sync += ctl.done.eq(0)

        res = self.res.payload
        with m.FSM():
            with m.State("IDLE"):
                with m.If(ctl.start):
                    m.d.sync += [col.eq(-1), row.eq(-1), tile.eq(Shape.PLUS),
                                 ctl.found.eq(0), ctl.over.eq(0)]
                    m.next = "TRY"
            with m.State("TRY"):
                m.d.comb += self.cmd.valid.eq(1)
                with m.If(self.cmd.ready):
                    m.next = "WAIT"
            with m.State("WAIT"):
                # The result of the move played is left for the protocol to take.
                m.d.comb += self.res.ready.eq(res.status != Status.OK)
                with m.If(self.res.valid):
                    square = ((res.status == Status.OCCUPIED) | (res.status == Status.NOT_ADJACENT) |
                              (res.status == Status.RANGE) | (res.status == Status.CAPACITY) |
                              (res.status == Status.BOUNDS) | (res.status == Status.FIRST_MOVE))
                    m.next = "TRY"
                    with m.If(res.status == Status.OK):
                        m.d.sync += [ctl.found.eq(1), ctl.done.eq(1)]
                        m.next = "IDLE"
                    with m.Elif(res.status == Status.GAME_OVER):
                        m.d.sync += [ctl.over.eq(1), ctl.done.eq(1)]
                        m.next = "IDLE"
                    with m.Elif(square | (tile == Shape.BACKSLASH)):
                        m.d.sync += tile.eq(Shape.PLUS)
                        # The position is unchanged by a refused trial, so the result's
                        # width and height bound the scan.
                        with m.If(row >= res.height):
                            m.d.sync += row.eq(-1)
                            with m.If(col >= res.width):
                                m.d.sync += ctl.done.eq(1)      # no legal move
                                m.next = "IDLE"
                            with m.Else():
                                m.d.sync += col.eq(col + 1)
                        with m.Else():
                            m.d.sync += row.eq(row + 1)
                    with m.Else():
                        m.d.sync += tile.eq(tile.as_value() + 1)
        return m
