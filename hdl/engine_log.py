"""The undo log: a ring of entries in block RAM, one per placed tile and a trailer per move.

Rolling back a refused move and undoing a move both read it newest first.  The ring
overwrites its oldest entries; ``avail`` counts the entries still held, so that UNDO
reaches back only as far as whole moves remain.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .collision import NO_COLLISION
from .engine_layouts import LogEntry

__all__ = ["UndoLogSignature", "UndoLog"]


class UndoLogSignature(wiring.Signature):
    """The log seen from the engine.

    ``push``: an entry, always taken.  ``pop``: drop the newest entry (never with a push).
    ``top``: the newest entry, read one cycle after the pointer moves, so it stays put while
    that entry is being taken back; ``ahead``: read the entry below the newest instead,
    so that it is on ``top`` the cycle after a ``pop`` (for a schedule that takes the next
    entry back at once).  ``avail``: entries held (up to the depth); ``clear`` forgets them
    all (a new game).  ``head``: where the next entry goes.
    """

    def __init__(self, log2n, depth, compact=False):
        entry = LogEntry(log2n, depth, compact)
        super().__init__({
            "push":  In(stream.Signature(entry, always_ready=True)),
            "pop":   In(1),
            "ahead": In(1),
            "clear": In(1),
            "top":   Out(entry),
            "avail": Out(range(depth + 1)),
            "head":  Out(range(depth)),
        })


class UndoLog(wiring.Component):
    """``depth`` entries (a power of two: the pointer wraps); ``compact`` entries
    (:func:`~.engine_layouts.LogEntry`)."""

    def __init__(self, log2n, depth, compact=False):
        assert depth & (depth - 1) == 0, "the log's depth must be a power of two"
        self.depth = depth
        super().__init__(UndoLogSignature(log2n, depth, compact))

    def elaborate(self, platform):
        m = Module()
        # The read port reads below the entry the write port writes (`NO_COLLISION`): the
        # newest, or with `ahead` (only with a pop, never with a push) the one below it.
        m.submodules.mem = mem = Memory(shape=self.push.payload.shape(), depth=self.depth,
                                        init=[], attrs=NO_COLLISION)
        rd = mem.read_port(domain="sync")
        wr = mem.write_port()
        wptr = Signal(range(self.depth))
        avail = Signal(range(self.depth + 1))
        m.d.comb += [rd.addr.eq(Mux(self.ahead, wptr - 2, wptr - 1)), self.top.eq(rd.data),
                     wr.addr.eq(wptr), wr.data.eq(self.push.payload), wr.en.eq(self.push.valid),
                     self.avail.eq(avail), self.head.eq(wptr)]
        with m.If(self.push.valid):
            m.d.sync += [wptr.eq(wptr + 1),
                         avail.eq(Mux(avail == self.depth, avail, avail + 1))]
        with m.If(self.pop):
            m.d.sync += [wptr.eq(wptr - 1), avail.eq(avail - 1)]
        with m.If(self.clear):
            m.d.sync += avail.eq(0)
        return m
