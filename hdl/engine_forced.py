"""The forced-play stack: the squares a move's tiles left with two same-coloured tracks
entering them, to be filled before the move is complete.

A stack, not a queue: the order of forced plays does not change the result, and a stack
needs one pointer.  A square may be pushed twice (by two tiles); the engine skips it when
popped if it is already filled.  The squares are kept in block RAM, read synchronously.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .collision import NO_COLLISION
from .tiles import Pos

__all__ = ["ForcedSignature", "ForcedStack"]


class ForcedSignature(wiring.Signature):
    """The stack seen from the engine.

    ``push``: a forced square, taken when ``ready`` (not full); a square offered while
    full is the engine's to refuse (the move is over capacity).  ``pop``: take the newest
    square off the stack (never when ``empty``, never with a push); it is on ``top`` the
    next cycle.  ``clear``: empty the stack (a new move).
    """

    def __init__(self, log2n):
        super().__init__({
            "push":  In(stream.Signature(Pos(log2n))),
            "pop":   In(1),
            "top":   Out(Pos(log2n)),
            "empty": Out(1),
            "clear": In(1),
        })


class ForcedStack(wiring.Component):
    """``depth`` forced squares at most."""

    def __init__(self, log2n, depth):
        self.depth = depth
        super().__init__(ForcedSignature(log2n))

    def elaborate(self, platform):
        m = Module()
        # The read port reads just below the square the write port writes
        # (`NO_COLLISION`).
        m.submodules.mem = mem = Memory(shape=self.push.payload.shape(), depth=self.depth,
                                        init=[], attrs=NO_COLLISION)
        rd = mem.read_port(domain="sync")
        wr = mem.write_port()
        sp = Signal(range(self.depth + 1))
        # Always read just below the pointer: a pop's square is then there the next cycle.
        m.d.comb += [rd.addr.eq(sp - 1), self.top.eq(rd.data),
                     self.empty.eq(sp == 0), self.push.ready.eq(sp != self.depth),
                     wr.addr.eq(sp), wr.data.eq(self.push.payload)]
        with m.If(self.push.valid & self.push.ready):
            m.d.comb += wr.en.eq(1)
            m.d.sync += sp.eq(sp + 1)
        with m.If(self.pop):
            m.d.sync += sp.eq(sp - 1)
        with m.If(self.clear):
            m.d.sync += sp.eq(0)
        return m
