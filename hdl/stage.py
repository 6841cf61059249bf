"""A register stage that cuts every combinational path through a stream.

``o.valid``/``o.payload`` and ``i.ready`` all come from flip-flops, so a long path between
two modules (a client's instruction decoding and the engine's state decoding, say) is cut
in two.  It holds one transfer at a time and takes the next only the cycle after passing it
on: half a stream's full rate, which costs nothing to a client that waits for each result
before its next command.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Stage"]


class Stage(wiring.Component):
    """Passes the transfers of ``i`` on to ``o`` in order, one cycle later."""

    def __init__(self, shape):
        self._shape = shape
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        full = Signal()
        held = Signal(self._shape)
        m.d.comb += [self.i.ready.eq(~full), self.o.valid.eq(full), self.o.payload.eq(held)]
        with m.If(full):
            with m.If(self.o.ready):
                m.d.sync += full.eq(0)
        with m.Elif(self.i.valid):
            m.d.sync += [held.eq(self.i.payload), full.eq(1)]
        return m
