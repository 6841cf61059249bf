"""EVAL's pipeline: each path end the engine finds around the area, weighted into the
attacking potential of its colour.

The engine feeds it one item per path end (the end's colour and the far end of its path)
and keeps the empty square the path runs into at ``at``; four registered stages (the item,
the distances, the weights, the sums) keep each stage's logic shallow, so the scan of the
area runs at one neighbour a cycle.  Weights: :mod:`traxfpga.hdl.eval_weights`, shared
with the software model (``host/reference/searcher.py``).
"""

from amaranth.hdl import Array, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .engine_layouts import Area
from .eval_weights import ATT_MAX, END_MAX, EVAL_LINE, EVAL_MAX, EVAL_WEIGHTS, LINE_MAX
from .tiles import End, Pos

__all__ = ["EvalItem", "Across", "EvalSignature", "EvalPipeline"]

assert all(0 <= v <= END_MAX for v in EVAL_WEIGHTS.values()), EVAL_WEIGHTS
assert all(0 <= v <= LINE_MAX for v in EVAL_LINE), EVAL_LINE


def EvalItem(log2n):
    """One path end: its colour (0 white, 1 black) and the far end of its path."""
    return data.StructLayout({"black": 1, "end": End(log2n)})


#: Where the path runs into: ``at`` itself, or (``valid``) its neighbour across edge
#: ``dir``, a square of the ring around the area whose path end the engine takes from the
#: area's edge tile ``at`` without reading the ring (on one port).
Across = data.StructLayout({"valid": 1, "dir": 2})


class EvalSignature(wiring.Signature):
    """The pipeline seen from the engine.

    ``ends``: one item per path end, taken whenever valid (there is no back-pressure);
    ``at``: the empty square the path runs into, taken with its item, or with ``across``
    the tile beside it;
    ``area``, ``lines``: the area and whether lines count (not in Loop Trax), constant
    during an EVAL; ``clear``: zero the sums (a new EVAL); ``pot``, ``att``: the sums, final
    four cycles after the last item; ``busy``: an item is still on its way to them.
    """

    def __init__(self, log2n):
        super().__init__({
            "ends":  In(stream.Signature(EvalItem(log2n), always_ready=True)),
            "at":    In(Pos(log2n)),
            "across": In(Across),
            "area":  In(Area(log2n)),
            "lines": In(1),
            "clear": In(1),
            "pot":   Out(data.ArrayLayout(16, 2)),
            "att":   Out(data.ArrayLayout(8, 2)),
            "busy":  Out(1),
        })


class EvalPipeline(wiring.Component):
    """Weights each path end by how close the path is to closing a loop or spanning a line
    and adds it to its colour's ``pot`` (and, at distance one, ``att``), both saturating."""

    def __init__(self, log2n):
        self.log2n = log2n
        super().__init__(EvalSignature(log2n))

    def elaborate(self, platform):
        m = Module()
        L = self.log2n
        area = self.area

        # Stage 1: the item.
        ev_valid = Signal()
        ev_col = Signal()
        ev_end = Signal(End(L))
        def ring(v, lo):
            return (v - lo + 1)[:L]
        # The item is registered whatever `valid` says: an enable would put the store's
        # output (the engine's `valid` depends on the word read) in front of 18 flip-flops.
        # The square `at` (from the ring) is taken with it: the engine addresses the next
        # square as the last item of one arrives.
        # With `across`, the square is the ring's beyond the tile `at`: a column or row
        # further out (the offset is 0, 1 or 2 where `ring` adds 1).
        at_x = Signal(L)
        at_y = Signal(L)
        across = self.across
        off_x = Mux(across.valid & (across.dir == 1), 2,
                    Mux(across.valid & (across.dir == 3), 0, 1))
        off_y = Mux(across.valid & (across.dir == 2), 2,
                    Mux(across.valid & (across.dir == 0), 0, 1))
        m.d.sync += [ev_valid.eq(self.ends.valid),
                     ev_col.eq(self.ends.payload.black), ev_end.eq(self.ends.payload.end),
                     at_x.eq((self.at.x + off_x - area.minx)[:L]),
                     at_y.eq((self.at.y + off_y - area.miny)[:L])]

        # Stage 2: the distance between the square the path runs into and the square its
        # far end runs into, as columns and rows from the area's left/top ring (unique: the
        # ring spans at most N squares).
        e = ev_end
        fx = Mux(e.d == 1, e.x + 1, Mux(e.d == 3, e.x - 1, e.x))
        fy = Mux(e.d == 2, e.y + 1, Mux(e.d == 0, e.y - 1, e.y))

        def absdiff(a, b):
            return Mux(a >= b, a - b, b - a)[:L]
        adx = Signal(L)
        ady = Signal(L)
        ev_valid2 = Signal()
        ev_col2 = Signal()
        m.d.sync += [adx.eq(absdiff(ring(fx, area.minx), at_x)),
                     ady.eq(absdiff(ring(fy, area.miny), at_y)),
                     ev_valid2.eq(ev_valid), ev_col2.eq(ev_col)]

        # Stage 3: the weights.
        dist = adx + ady
        weight = Signal(4)
        attack = Signal()
        ev_valid3 = Signal()
        ev_col3 = Signal()
        m.d.sync += [weight.eq(0), attack.eq(dist == 1), ev_valid3.eq(ev_valid2),
                     ev_col3.eq(ev_col2)]
        with m.If(dist == 1):
            m.d.sync += weight.eq(EVAL_WEIGHTS["adjacent"])
        with m.Elif((adx == 1) & (ady == 1)):
            m.d.sync += weight.eq(EVAL_WEIGHTS["corner"])
        with m.Elif(dist == 2):
            m.d.sync += weight.eq(EVAL_WEIGHTS["two"])
        with m.Elif(dist == 3):
            m.d.sync += weight.eq(EVAL_WEIGHTS["three"])
        with m.Elif(dist == 4):
            m.d.sync += weight.eq(EVAL_WEIGHTS["four"])
        # Line potential: the span (the larger distance less one) against the area's
        # width or height along it (at least 8).  `short` = full + 1 - the larger distance,
        # from full + 1 registered beforehand (the area does not change during EVAL), so
        # the two subtractions and the comparison run side by side.
        full_x1 = Signal(L + 1)
        full_y1 = Signal(L + 1)
        m.d.sync += [full_x1.eq(Mux(area.width < 8, 8, area.width) + 1),
                     full_y1.eq(Mux(area.height < 8, 8, area.height) + 1)]
        short_x = Signal(L + 2)
        short_y = Signal(L + 2)
        m.d.comb += [short_x.eq(full_x1 - adx), short_y.eq(full_y1 - ady)]
        short = Mux(adx > ady, short_x, short_y)
        line_w = Signal(5)
        m.d.sync += line_w.eq(0)
        with m.If(self.lines & ((adx >= 4) | (ady >= 4))):
            with m.Switch(short):
                for n_short, v in enumerate(EVAL_LINE):
                    with m.Case(n_short):
                        m.d.sync += line_w.eq(v)

        # Stage 4: the sums.
        pot = Array(Signal(range(EVAL_MAX + 1), name=f"pot{c}") for c in range(2))
        att = Array(Signal(range(ATT_MAX + 1), name=f"att{c}") for c in range(2))
        with m.If(ev_valid3):
            pot_sum = pot[ev_col3] + weight + line_w
            m.d.sync += pot[ev_col3].eq(Mux(pot_sum > EVAL_MAX, EVAL_MAX, pot_sum))
            with m.If(attack & (att[ev_col3] != ATT_MAX)):
                m.d.sync += att[ev_col3].eq(att[ev_col3] + 1)
        with m.If(self.clear):
            for c in range(2):
                m.d.sync += [pot[c].eq(0), att[c].eq(0)]
        for c in range(2):
            m.d.comb += [self.pot[c].eq(pot[c]), self.att[c].eq(att[c])]
        m.d.comb += self.busy.eq(ev_valid | ev_valid2 | ev_valid3)
        return m
