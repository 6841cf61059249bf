"""The neighbour update: a neighbour's word once a tile is placed next to it, and whether it
became forced or over-full.  (Taking the tile back writes the neighbour's lane facing it
blind: ``Control.untile``.)

An empty square keeps the colour of the track entering it across each edge, so placing a
tile changes one field of each empty neighbour, and two tracks of one colour entering it
make it forced, three make the move illegal.  Combinational: the engine registers what it
needs for timing.
"""

from amaranth.hdl import Cat, Const, Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .tiles import DIRS, Cell, Colour, opposite

__all__ = ["NeighbourSignature", "NeighbourUpdate", "counts", "popcount", "sent_colour"]


def counts(incs):
    """The masks of the white and of the black tracks among entering colours ``incs``."""
    white = Cat(*(c == Colour.WHITE for c in incs))
    black = Cat(*(c == Colour.BLACK for c in incs))
    return white, black


def sent_colour(mask, d):
    """The colour of the track a tile of white edges ``mask`` sends across its edge ``d``."""
    return Mux(mask.bit_select(d, 1), Colour.WHITE, Colour.BLACK)


def popcount(v):
    return sum((v[i] for i in range(len(v))), Const(0, 3))


class NeighbourSignature(wiring.Signature):
    """The update seen from the engine.

    In: ``cell``, the neighbour's word; ``dir``, the edge of P it lies across; ``mask``,
    P's white edges.  Out: ``new``, the neighbour's word after; ``forced``, it is empty
    with two tracks of one colour entering it; ``full``, with three or more.
    """

    def __init__(self):
        super().__init__({
            "cell":   In(Cell),
            "dir":    In(2),
            "mask":   In(4),
            "new":    Out(Cell),
            "forced": Out(1),
            "full":   Out(1),
        })


class NeighbourUpdate(wiring.Component):
    def __init__(self):
        super().__init__(NeighbourSignature())

    def elaborate(self, platform):
        m = Module()
        new_col = sent_colour(self.mask, self.dir)
        m.d.comb += self.new.eq(self.cell)
        for j in DIRS:
            with m.If(self.dir == opposite(j)):
                m.d.comb += self.new.inc[j].eq(new_col)
        # A square outside the area touches at most one tile: it never counts two.
        white, black = counts([self.new.inc[i] for i in DIRS])
        live = ~self.cell.occ
        m.d.comb += [
            self.forced.eq(live & ((popcount(white) == 2) | (popcount(black) == 2))),
            self.full.eq(live & ((popcount(white) >= 3) | (popcount(black) >= 3))),
        ]
        return m
