"""Harnesses for :mod:`traxfpga.hdl.engine`: the command/result streams, refused moves."""

from amaranth.hdl import Assert, Assume, Elaboratable, Module, ResetSignal, Signal

from traxfpga.hdl.engine import Engine, Op
from traxfpga.hdl.tiles import Status

__all__ = ["StreamHarness"]


def small_engine():
    """The smallest engine: an 8x8 store, a 4-entry log and a 4-entry forced stack."""
    return Engine(log2n=3, log_depth=4, stack_depth=4, clear_on_start=False)


class StreamHarness(Elaboratable):
    """Engine: the ``cmd``, ``res`` and ``cells`` streams.

    Any command at any time (an arbitrary op and payload, ``valid`` held until ``ready``
    and the payload stable meanwhile, as the stream rules ask of a producer); ``res.ready``
    and ``cells.ready`` free.  The harness counts commands taken and results given.
    Proved: ``cmd.ready`` only when no command is outstanding (idle) and ``busy`` exactly
    when not ready; ``res.valid`` only while one command is outstanding, so at most one
    result per command, and no command taken before the previous result; ``cells.valid``
    only during a ``DUMP``; ``res`` and ``cells`` keep ``valid`` and their payload until
    ``ready``.
    """

    def __init__(self, mutant=None):
        self.mutant = mutant
        self.dut = small_engine()
        d = self.dut
        self.ports = [d.cmd.valid, d.cmd.payload.as_value(), d.res.ready, d.cells.ready]

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = dut = self.dut
        m.d.comb += Assume(~ResetSignal())
        cmd, res, cells = dut.cmd, dut.res, dut.cells

        def past(v):
            r = Signal.like(v)
            m.d.sync += r.eq(v)
            return r

        p_cmd_valid, p_cmd_ready = past(cmd.valid), past(cmd.ready)
        p_cmd = past(cmd.payload.as_value())
        with m.If(p_cmd_valid & ~p_cmd_ready):
            m.d.comb += Assume(cmd.valid & (cmd.payload.as_value() == p_cmd))
        if self.mutant != "any_op":
            # Op has 3 bits but 5 values: the engine takes an undefined op (5..7) and
            # gives no result (the "any_op" mutant shows it).  Producers send defined ops.
            m.d.comb += Assume(cmd.payload.op.as_value() <= max(o.value for o in Op))

        outstanding = Signal(2)
        op = Signal(Op)
        taken = cmd.valid & cmd.ready
        given = res.valid & res.ready
        m.d.sync += outstanding.eq(outstanding + taken - given)
        with m.If(taken):
            m.d.sync += op.eq(cmd.payload.op)

        m.d.comb += [
            Assert(~cmd.ready | (outstanding == 0), "cmd.ready only when idle"),
            Assert(dut.busy == ~cmd.ready, "busy exactly when not ready"),
            Assert(~res.valid | (outstanding == 1), "a result only for the outstanding command"),
            Assert(outstanding <= 1, "one command at a time"),
            Assert(~cells.valid | ((outstanding == 1) & (op == Op.DUMP)),
                   "cells only during a DUMP"),
        ]
        for name, s in (("res", res), ("cells", cells)):
            p_valid, p_ready = past(s.valid), past(s.ready)
            p_payload = past(s.payload.as_value())
            with m.If(p_valid & ~p_ready):
                m.d.comb += [
                    Assert(s.valid, f"{name}: valid held until ready"),
                    Assert(s.payload.as_value() == p_payload, f"{name}: payload stable"),
                ]
        return m
