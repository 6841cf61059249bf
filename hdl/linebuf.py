"""Line buffer: received bytes in, whole lines (or one error per bad line) out.

:class:`LineBuffer` takes every byte the UART receiver delivers (it never holds the
receiver back) and collects a line in a block RAM until its end: LF, CR, or CR LF (one end
of line: an LF right after a CR that ended a line is dropped), so a terminal that sends CR
alone for Enter is answered too.  The finished line is offered on ``line`` with its length;
its characters are read through ``rd_addr``/``rd_data`` (synchronous: data one cycle after
the address).  The consumer takes the transfer (``line.ready``) only when it is done with
the line *and* with its answer.

One error per bad line, decided at its end, in this order of precedence:

``BUSY``
    A byte of the line arrived while the previous line was still being handled (offered and
    not yet taken).  Such a line is not stored; the buffer counts finished busy lines (up to
    :data:`BUSY_MAX`) and offers one ``BUSY`` line per count once the consumer is free again.
``FRAMING``
    A byte of the line had a framing error (its stop bit was low: a break, noise, a wrong
    baud rate).
``OVERLONG``
    The line had more than ``depth - 1`` characters (its end of line not counted).

The contents of a bad line are never looked at, and a line is never split or merged: bytes
after an error are dropped up to the line's end, so the next line starts clean.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .uart import RxByte

__all__ = ["LineError", "LineInfo", "LineBuffer", "BUSY_MAX"]

LF = 0x0A
CR = 0x0D
#: Busy lines counted at most while a line is being handled (more get no error of their own).
BUSY_MAX = 15


class LineError(enum.Enum, shape=2):
    NONE     = 0
    OVERLONG = 1
    FRAMING  = 2
    BUSY     = 3


def LineInfo(depth):
    return data.StructLayout({"length": range(depth + 1), "error": LineError})


class LineBuffer(wiring.Component):
    """Collects received bytes into lines.

    Parameters
    ----------
    depth : int
        Bytes of storage; a line may hold ``depth - 1`` characters.

    Attributes
    ----------
    rx : In(stream.Signature(RxByte, always_ready=True))
        Received bytes; always ready (``rx.ready`` is the constant 1), so the receiver is never
        held back.
    line : Out(stream.Signature(LineInfo(depth)))
        A finished line (``error`` NONE) or a bad one; taken when its handling is complete.
    rd_addr : In(range(depth))
    rd_data : Out(8)
        The character at the ``rd_addr`` of the previous cycle.
    """

    def __init__(self, depth=128):
        assert depth >= 4
        self.depth = depth
        super().__init__({
            "rx":      In(stream.Signature(RxByte, always_ready=True)),
            "line":    Out(stream.Signature(LineInfo(depth))),
            "rd_addr": In(range(depth)),
            "rd_data": Out(8),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self.depth

        m.submodules.mem = mem = Memory(shape=8, depth=depth, init=[])
        rd = mem.read_port(domain="sync")
        wr = mem.write_port()
        m.d.comb += [rd.addr.eq(self.rd_addr), self.rd_data.eq(rd.data)]

        wptr = Signal(range(depth + 1))     # characters stored of the line being received
        after_cr = Signal()                 # the last byte was a CR that ended a line
        err = Signal(LineError)             # error of the line being received
        nbusy = Signal(range(BUSY_MAX + 1))  # finished busy lines not yet offered

        offered = self.line.valid
        # While a line is offered, or busy lines still wait to be offered, every byte that
        # arrives belongs to a busy line.
        engaged = Signal()
        release = Signal()                  # the consumer is done with the offered line
        take = Signal()                     # offer one counted busy line now
        busy_done = Signal()                # a busy line ends: one more to offer
        m.d.comb += [
            engaged.eq(offered | (nbusy != 0)),
            release.eq(offered & self.line.ready),
            take.eq((~offered | self.line.ready) & (nbusy != 0)),
            self.line.payload.length.eq(wptr),
        ]

        byte = self.rx.payload.data
        clean = ~self.rx.payload.framing_error     # a damaged LF or CR ends nothing
        with m.If(self.rx.valid):
            m.d.sync += after_cr.eq(clean & (byte == CR))
            with m.If(clean & (byte == LF) & after_cr):
                pass                        # the LF of a CR LF: its line has already ended
            with m.Elif(clean & ((byte == LF) | (byte == CR))):
                m.d.sync += err.eq(LineError.NONE)
                with m.If(engaged):
                    m.d.comb += busy_done.eq(nbusy != BUSY_MAX)
                with m.Else():
                    m.d.sync += [
                        offered.eq(1),
                        self.line.payload.error.eq(err),
                    ]
            with m.Else():
                with m.If(engaged):
                    m.d.sync += err.eq(LineError.BUSY)
                with m.Elif(self.rx.payload.framing_error):
                    with m.If(err != LineError.BUSY):
                        m.d.sync += err.eq(LineError.FRAMING)
                with m.Elif(err == LineError.NONE):
                    with m.If(wptr < depth - 1):
                        m.d.comb += [wr.addr.eq(wptr), wr.data.eq(byte), wr.en.eq(1)]
                        m.d.sync += wptr.eq(wptr + 1)
                    with m.Else():
                        m.d.sync += err.eq(LineError.OVERLONG)

        with m.If(release):
            m.d.sync += [offered.eq(0), wptr.eq(0)]
        with m.If(take):
            m.d.sync += [offered.eq(1), self.line.payload.error.eq(LineError.BUSY)]
        with m.If(busy_done & ~take):
            m.d.sync += nbusy.eq(nbusy + 1)
        with m.Elif(take & ~busy_done):
            m.d.sync += nbusy.eq(nbusy - 1)

        return m
