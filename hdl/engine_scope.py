"""The scope of a move, for the sequencer's scoped scans (docs/player.md, "Scoped scans";
``host/reference/scope.py`` argues the rule): the extent of the tiles a placement places,
and the hull of those tiles with the far ends of the paths they join, as the engine logs
each tile.

Both are in the frame of the area before the move, as notation coordinates plus one
(column ``-1``, ``@``, is 0): the move's tiles and the far ends it joins lie in that area
or one square around it, so they fit in ``log2n`` bits without wrapping.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .tiles import Pos

__all__ = ["Box", "ScopeSignature", "ScopeBoxes"]

#: A box's coordinates in the engine's result and the sequencer: notation plus one, as a
#: :data:`~traxfpga.hdl.pvs_isa.MOVE_FIELDS` word's (a capacity of up to 128 squares).
BOX_BITS = 7
Box = data.StructLayout({"x0": BOX_BITS, "x1": BOX_BITS, "y0": BOX_BITS, "y1": BOX_BITS})


class ScopeSignature(wiring.Signature):
    """The boxes seen from the engine: ``add`` a logged tile (its square ``p`` and the four
    far ends ``ends`` it joined) of the move whose area began at ``origin`` (its top-left
    square on the torus); ``first`` with the move's first tile starts the boxes anew.
    ``box`` and ``hull`` hold the tiles added so far two cycles after (a tile's squares are
    registered before they are compared: the comparisons behind the engine's state were the
    25F's longest path)."""

    def __init__(self, log2n):
        super().__init__({
            "add":    In(1),
            "first":  In(1),
            "origin": In(Pos(log2n)),
            "p":      In(Pos(log2n)),
            "ends":   In(data.ArrayLayout(Pos(log2n), 4)),
            "box":    Out(Box),
            "hull":   Out(Box),
        })


class ScopeBoxes(wiring.Component):
    """The two boxes of the move being placed (see the module's docstring)."""

    def __init__(self, log2n):
        assert log2n <= BOX_BITS
        self.log2n = log2n
        super().__init__(ScopeSignature(log2n).flip())

    def elaborate(self, platform):
        m = Module()
        L = self.log2n

        def rel(pos):
            # (the square minus the area's corner, plus one, on the torus of 2**L squares)
            return ((pos.x - self.origin.x + 1)[:L], (pos.y - self.origin.y + 1)[:L])

        def widen(box, points, first):
            """``box`` (kept unless ``first``) grown to hold ``points``: its new fields."""
            lo_x = lo_y = hi_x = hi_y = None
            for x, y in points:
                lo_x = x if lo_x is None else Mux(x < lo_x, x, lo_x)
                hi_x = x if hi_x is None else Mux(x > hi_x, x, hi_x)
                lo_y = y if lo_y is None else Mux(y < lo_y, y, lo_y)
                hi_y = y if hi_y is None else Mux(y > hi_y, y, hi_y)
            return [box.x0.eq(Mux(first | (lo_x < box.x0), lo_x, box.x0)),
                    box.x1.eq(Mux(first | (hi_x > box.x1), hi_x, box.x1)),
                    box.y0.eq(Mux(first | (lo_y < box.y0), lo_y, box.y0)),
                    box.y1.eq(Mux(first | (hi_y > box.y1), hi_y, box.y1))]

        add, first = Signal(), Signal()
        points = [(Signal(L, name=f"x{i}"), Signal(L, name=f"y{i}")) for i in range(5)]
        m.d.sync += [add.eq(self.add), first.eq(self.first)]
        for (x, y), pos in zip(points, [self.p, *self.ends]):
            rx, ry = rel(pos)
            m.d.sync += [x.eq(rx), y.eq(ry)]
        with m.If(add):
            m.d.sync += widen(self.box, points[:1], first)
            m.d.sync += widen(self.hull, points, first)
        return m
