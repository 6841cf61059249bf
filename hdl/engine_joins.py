"""The joins of one tile: the two path ends of each colour it joins, and whether a move
closes a loop or completes a line.

The engine hands it the far ends found across the edges of the tile, two a cycle: on one
port a tile neighbour's (tile neighbours in edge order) and an empty neighbour's (P's own
edge), in whatever order they are read; on two ports two neighbours', S and W possibly
before N and E; with four reads a cycle all four at once (`FourJoins`).  A loop
is closed when, across side b, the neighbour's edge facing the tile is side a's far end
(or, the same path seen from its other end, across side a the facing edge is side b's
far end), judged at the colour's later end; a line when the two
ends of a joined path lie on opposite outermost edges of an area at least 8 wide (or
tall).  Only the move's first tile can enlarge the area, so each join is judged against
the move's final area as it happens.
"""

from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .engine_ends import FoundEndSignature
from .engine_layouts import Area
from .tiles import End

__all__ = ["JoinsSignature", "Joins", "FourJoinsSignature", "FourJoins"]


class JoinsSignature(wiring.Signature):
    """The joins seen from the engine.

    In, at each of two ports (the second's names end in 2): ``take``, a far end ``found``
    this cycle (the end, of colour ``black``, across P's ``second`` edge of that colour or
    its first); ``facing``, the neighbour's edge facing P there, and ``occ``, whether the
    neighbour holds a tile.  A colour's two ends come in either order, in one cycle or two.
    ``area``; ``clear``, a new move (no loop, no line).  Out: ``ends``, per colour (white,
    black) the far ends of sides a and b; ``loop``, ``line``, per colour, of the move so far
    (a line a cycle after its colour's later end); ``line_now``, the line that judgement
    sets, in its own cycle, which the engine decides a hunted move's last tile from
    (`QUIET`).
    """

    def __init__(self, log2n):
        end = End(log2n)
        port = {"take":   In(1),
                "found":  In(FoundEndSignature(log2n)),
                "facing": In(end),
                "occ":    In(1)}
        super().__init__({
            **port,
            **{f"{name}2": member for name, member in port.items()},
            "area":   In(Area(log2n)),
            "clear":  In(1),
            "ends":   Out(data.ArrayLayout(data.ArrayLayout(end, 2), 2)),
            "loop":   Out(2),
            "line":   Out(2),
            "line_now": Out(2),
        })


class Joins(wiring.Component):
    """See :class:`JoinsSignature`."""

    def __init__(self, log2n):
        super().__init__(JoinsSignature(log2n))

    def elaborate(self, platform):
        m = Module()
        end_l = self.found.end.shape()
        ends = [[Signal(end_l, name=f"end{c}{s}") for s in range(2)] for c in range(2)]
        loop = Signal(2)
        line = Signal(2)
        for c in range(2):
            for s in range(2):
                m.d.comb += self.ends[c][s].eq(ends[c][s])
        m.d.comb += [self.loop.eq(loop), self.line.eq(line)]

        ports = [(self.take, self.found, self.facing, self.occ),
                 (self.take2, self.found2, self.facing2, self.occ2)]
        # A colour's two ends may come in one cycle, one at each port (on two ports a
        # corner tile's two edges of a colour, N and E or S and W; on one port a tile
        # neighbour's end and an empty one's, either side first): the second port's is
        # then the later.
        pair = Signal()
        m.d.comb += pair.eq(self.take & self.take2 & (self.found.black == self.found2.black))
        later = self._later(m, ports, pair)
        for i, (take, found, facing, occ) in enumerate(ports):
            # The loop test of a colour's later end: is the other side's far end the
            # neighbour's edge facing P here?  (Either way round: the path from one side's
            # facing edge runs to the other's.)
            other = [Mux(found.second, ends[c][0].as_value(), ends[c][1].as_value())
                     for c in range(2)]
            if i == 1:
                other = [Mux(pair, self.found.end.as_value(), o) for o in other]
            loop_now = Cat(*(occ & (other[c] == facing.as_value()) for c in range(2)))
            with m.If(take):
                for c in range(2):
                    with m.If(found.black == c):
                        with m.If(~found.second):
                            m.d.sync += ends[c][0].eq(found.end)
                        with m.Else():
                            m.d.sync += ends[c][1].eq(found.end)
                        with m.If(later[i]):
                            m.d.sync += loop[c].eq(loop[c] | loop_now[c])
            # (Where both ports' later ends close a loop, each sets its own colour's bit:
            # the two `loop[c]` updates are of different colours.)
        self._lines(m, ports, pair, later, line)

        with m.If(self.clear):
            m.d.sync += [loop.eq(0), line.eq(0)]
        return m

    def _later(self, m, ports, pair):
        """For each port, whether the end it takes is its colour's later one in this tile,
        the one a loop or a line is judged at.  A colour's side b may come first (on two
        ports a forced neighbour across S or W whose word is known has S and W read first;
        on one port the empty neighbours are read apart from the tiles: docs/engine.md), so
        `half` tells, per colour, that one end of it is in (each tile takes exactly two of
        each colour, so it is clear again after every tile)."""
        half = Signal(2)
        flip = [Cat(*(take & (found.black == c) for c in range(2)))
                for take, found, _, _ in ports]
        m.d.sync += half.eq(half ^ flip[0] ^ flip[1])
        with m.If(self.clear):
            m.d.sync += half.eq(0)
        return [half.bit_select(self.found.black, 1),
                half.bit_select(self.found2.black, 1) | pair]

    def _lines(self, m, ports, pair, later, line):
        """A line, one step after its colour's later end is taken: from the end just
        registered (`elast`) and the outermost edges registered with the earlier end of the
        same colour (or, for the second port's, the first port's end the same cycle)."""
        area = self.area
        end_l = self.found.end.shape()
        # The outermost edges of each colour's earlier end.
        flags_a = Array(Signal(4, name=f"flags_a{c}") for c in range(2))
        far = _far_edges(m, area)
        pair_r = Signal()
        m.d.sync += pair_r.eq(pair)
        flags = []
        for i, (take, found, _, _) in enumerate(ports):
            n = "" if i == 0 else str(i + 1)
            elast = Signal(end_l, name=f"elast{n}")
            lvalid = Signal(name=f"lvalid{n}")
            lcol = Signal(name=f"lcol{n}")
            lside = Signal(name=f"lside{n}")       # the later end of its colour
            m.d.sync += lvalid.eq(take)
            with m.If(take):
                m.d.sync += [elast.eq(found.end), lcol.eq(found.black), lside.eq(later[i])]
            fl = _outermost(elast, area, far)
            fa = flags_a[lcol] if i == 0 else Mux(pair_r, flags[0], flags_a[lcol])
            with m.If(lvalid):
                with m.If(~lside):
                    m.d.sync += flags_a[lcol].eq(fl)
                with m.Elif(_crosses(fa, fl, area)):
                    m.d.comb += self.line_now.bit_select(lcol, 1).eq(1)
                    m.d.sync += line.bit_select(lcol, 1).eq(1)
            flags.append(fl)


class FourJoinsSignature(wiring.Signature):
    """The joins of an engine that reads a tile's four neighbours at once (``quad``): as
    :class:`JoinsSignature`, but ``take`` takes the far ends across all four edges in one
    cycle, ``found``, ``facing``, ``occ`` across N and ``found2`` .. ``found4`` (and the
    rest) across E, S and W, in any order (each colour's two in it)."""

    def __init__(self, log2n):
        end = End(log2n)
        port = {"found":  In(FoundEndSignature(log2n)),
                "facing": In(end),
                "occ":    In(1)}
        super().__init__({
            "take":   In(1),
            **{f"{name}{n}": member for n in ("", "2", "3", "4")
               for name, member in port.items()},
            "area":   In(Area(log2n)),
            "clear":  In(1),
            "ends":   Out(data.ArrayLayout(data.ArrayLayout(end, 2), 2)),
            "loop":   Out(2),
            "line":   Out(2),
            "line_now": Out(2),
        })


class FourJoins(wiring.Component):
    """See :class:`FourJoinsSignature`.  With a colour's two ends in one cycle, each is
    picked by its port's ``black`` and ``second`` (side a, side b), and the loop test is
    side b's alone (the facing edge there is side a's far end); the line is judged a cycle
    later from the ends as registered."""

    def __init__(self, log2n):
        super().__init__(FourJoinsSignature(log2n))

    def elaborate(self, platform):
        m = Module()
        names = ("", "2", "3", "4")
        found = [getattr(self, "found" + n) for n in names]
        facing = [getattr(self, "facing" + n).as_value() for n in names]
        occ = [getattr(self, "occ" + n) for n in names]
        end_l = self.found.end.shape()
        ends = [[Signal(end_l, name=f"end{c}{s}") for s in range(2)] for c in range(2)]
        loop = Signal(2)
        line = Signal(2)
        judge = Signal()                        # the ends registered last cycle are a tile's
        m.d.sync += judge.eq(self.take)
        far = _far_edges(m, self.area)
        for c in range(2):
            # Side a and b of colour c: the port of each (one-hot, so an OR picks it).
            side = [[(f.black == c) & (f.second == s) for f in found] for s in range(2)]
            ends_found = [f.end.as_value() for f in found]
            end_a, end_b = _pick(ends_found, side[0]), _pick(ends_found, side[1])
            facing_b, occ_b = _pick(facing, side[1]), _pick(occ, side[1])
            with m.If(self.take):
                m.d.sync += [ends[c][0].eq(end_a), ends[c][1].eq(end_b),
                             loop[c].eq(loop[c] | (occ_b & (end_a == facing_b)))]
            crosses = _crosses(_outermost(ends[c][0], self.area, far),
                               _outermost(ends[c][1], self.area, far), self.area)
            with m.If(judge & crosses):
                m.d.comb += self.line_now[c].eq(1)
                m.d.sync += line[c].eq(1)
            for s in range(2):
                m.d.comb += self.ends[c][s].eq(ends[c][s])
        m.d.comb += [self.loop.eq(loop), self.line.eq(line)]
        with m.If(self.clear):
            m.d.sync += [loop.eq(0), line.eq(0)]
        return m


def _pick(values, sel):
    """The one of ``values`` whose bit of the one-hot ``sel`` is set (an AND-OR)."""
    picked = [v & s.replicate(len(v)) for v, s in zip(values, sel)]
    out = picked[0]
    for p in picked[1:]:
        out = out | p
    return out


def _far_edges(m, area):
    """The area's far column and row (``maxx``, ``maxy``), registered, a cycle behind the
    area: only the move's first tile changes the area, in the step before its first end is
    taken, and an end is judged the step after it is taken.  (Their adders, in front of the
    judgement, were the UP5K's longest path.)"""
    maxx = Signal.like(area.minx)
    maxy = Signal.like(area.miny)
    m.d.sync += [maxx.eq(area.minx + area.width - 1), maxy.eq(area.miny + area.height - 1)]
    return maxx, maxy


def _outermost(e, area, far):
    """Which outermost edge of the area end ``e`` lies on: W, E, N, S (``far``: the
    registered far column and row)."""
    maxx, maxy = far
    return Cat((e.d == 3) & (e.x == area.minx), (e.d == 1) & (e.x == maxx),
               (e.d == 0) & (e.y == area.miny), (e.d == 2) & (e.y == maxy))


def _crosses(fa, fb, area):
    """A path whose ends lie on the outermost edges ``fa`` and ``fb`` (as `_outermost` gives
    them) is a line: they are opposite edges of an area 8 or more wide (tall)."""
    horiz = ((fa[0] & fb[1]) | (fa[1] & fb[0])) & (area.width >= 8)
    vert = ((fa[2] & fb[3]) | (fa[3] & fb[2])) & (area.height >= 8)
    return horiz | vert
