"""The design as the compiled backends simulate it: its own ports plus ``clk``, no reset.

Amaranth gives a design's ``sync`` domain a reset input.  Every register's next value then
depends on a top-level input, and Verilator evaluates all of that logic again whenever an
input may have changed (twice a cycle, with the clock): 27% of its time on the device.  A board never
asserts that reset after power-on either; the registers start from their initial values,
as Amaranth's simulator starts them.  So the compiled backends simulate the design
through this wrapper, whose ``sync`` domain has no reset.
"""

from amaranth.hdl import ClockDomain, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In

__all__ = ["FreeRunning"]


class FreeRunning(wiring.Component):
    """``design``'s ports under the same names, and ``clk``, which clocks its ``sync``
    domain."""

    def __init__(self, design):
        members = dict(design.signature.members.items())
        if "clk" in members:
            raise ValueError("the design already has a port named clk")
        self._design = design
        super().__init__({**members, "clk": In(1)})

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = sync = ClockDomain("sync", reset_less=True)
        m.d.comb += sync.clk.eq(self.clk)
        m.submodules.design = design = self._design
        for name, member in design.signature.members.items():
            outer, inner = getattr(self, name), getattr(design, name)
            if member.is_signature:
                wiring.connect(m, wiring.flipped(outer), inner)
            elif member.flow == wiring.In:
                m.d.comb += inner.eq(outer)
            else:
                m.d.comb += outer.eq(inner)
        return m
