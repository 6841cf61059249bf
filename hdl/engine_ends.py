"""The path-end finder: the far end of the path a tile at P joins across one of its edges.

Nothing ever walks a path: for every tile and colour the far-end stores (``far_w``,
``far_b``) hold the far end of the path that leaves the tile by an open edge.  So the far
end across an edge of P follows from the neighbour's far-end entry of the edge's colour
alone, and whether the neighbour is a tile; an empty neighbour leaves P's own edge open.
A tile whose track of a colour has both ends open points to itself, and its entry's edge
is the XOR of the two: the far end seen from either is that edge XOR the entry's, so the
finder needs no neighbour's tile.  One finder serves the
placement (P's new tile) and EVAL (an empty square's entering tracks standing in for a
tile's).  It is combinational: the neighbour's words arrive from the stores' read ports.
"""

from amaranth.hdl import Array, Const, Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .tiles import End, Pos

__all__ = ["FoundEndSignature", "PathEndSignature", "PathEndFinder", "one_hot_dir", "second_edge"]


def one_hot_dir(mask):
    """The lowest edge set in a 4-bit mask of edges."""
    return Mux(mask[0], 0, Mux(mask[1], 1, Mux(mask[2], 2, 3)))


def top_dir(mask):
    """The highest edge set in a 4-bit mask of edges."""
    return Mux(mask[3], 3, Mux(mask[2], 2, Mux(mask[1], 1, 0)))


def second_edge(mask, d):
    """Edge ``d`` of a tile of white-edge ``mask`` is the second (higher) edge of its colour:
    its side b, where the join of the colour's two ends is decided."""
    return Array([Const(0), mask[0] == mask[1], (mask[0] == mask[2]) | (mask[1] == mask[2]),
                  Const(1)])[d]


class FoundEndSignature(wiring.Signature):
    """A far end found across an edge of P: ``end``; ``black``, the edge is black;
    ``second``, it is P's second edge of its colour (side b)."""

    def __init__(self, log2n):
        super().__init__({
            "end":    Out(End(log2n)),
            "black":  Out(1),
            "second": Out(1),
        })


class PathEndSignature(wiring.Signature):
    """The finder seen from the engine.

    In: ``p``, the square of the tile; ``mask``, its white edges; ``dir``, the edge of P
    looked across; ``pos``, the neighbour's square there; ``occ``, the neighbour is a tile;
    ``far``, its far-end entries (white, black).  Out: ``found``, the far end of the path P
    joins across ``dir``; ``back``, the edge of the far end's path-end word before P joins
    it (the neighbour's edge facing P, or, where the neighbour pointed at itself, its
    entry's edge), which taking P back writes there again.
    """

    def __init__(self, log2n):
        super().__init__({
            "p":      In(Pos(log2n)),
            "mask":   In(4),
            "dir":    In(2),
            "pos":    In(Pos(log2n)),
            "occ":    In(1),
            "far":    In(data.ArrayLayout(End(log2n), 2)),
            "found":  Out(FoundEndSignature(log2n)),
            "back":   Out(2),
        })


class PathEndFinder(wiring.Component):
    def __init__(self, log2n):
        super().__init__(PathEndSignature(log2n))

    def elaborate(self, platform):
        m = Module()
        d, occ = self.dir, self.occ
        white = self.mask.bit_select(d, 1)
        raw = Mux(white, self.far[0].as_value(), self.far[1].as_value())
        found = self.found
        raw = data.View(found.end.shape(), raw)
        # A neighbour whose track of this colour has both ends open points to itself, at
        # the XOR of its two open edges: the far end is the edge facing P XOR that.
        selfp = (raw.x == self.pos.x) & (raw.y == self.pos.y)
        other = raw.d ^ d ^ 2
        m.d.comb += [
            found.end.x.eq(Mux(occ, raw.x, self.p.x)),
            found.end.y.eq(Mux(occ, raw.y, self.p.y)),
            found.end.d.eq(Mux(occ, Mux(selfp, other, raw.d), d)),
            found.black.eq(~white),
            found.second.eq(second_edge(self.mask, d)),
            self.back.eq(Mux(selfp, raw.d, d ^ 2)),
        ]
        return m
