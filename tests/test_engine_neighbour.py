"""The neighbour update (hdl/engine_neighbour.py) alone, against a model, over every
word a neighbour can hold."""

import itertools

from traxfpga.hdl.engine_neighbour import NeighbourUpdate
from traxfpga.hdl.tiles import SHAPE_MASKS, Colour, Shape

from engine_harness import simulate

MASKS = [SHAPE_MASKS[s][o] for s in (Shape.PLUS, Shape.SLASH, Shape.BACKSLASH) for o in range(2)]
COLOURS = [Colour.NONE, Colour.WHITE, Colour.BLACK]


def model(inc, occ, d, mask):
    """The neighbour across edge ``d`` of P: P's colour on that edge enters it across the
    opposite edge."""
    new = list(inc)
    colour = Colour.WHITE if (mask >> d) & 1 else Colour.BLACK
    new[d ^ 2] = colour
    whites = sum(c == Colour.WHITE for c in new)
    blacks = sum(c == Colour.BLACK for c in new)
    forced = not occ and (whites == 2 or blacks == 2)
    full = not occ and (whites >= 3 or blacks >= 3)
    return new, forced, full


def test_every_word():
    dut = NeighbourUpdate()
    seen = {"forced": 0, "full": 0}

    async def tb(ctx):
        for inc in itertools.product(COLOURS, repeat=4):
            for occ, d, mask in itertools.product((0, 1), range(4), MASKS[::2]):
                ctx.set(dut.cell, {"lane": [{"inc": inc[j], "white": (mask >> j) & 1,
                                             "occ": occ} for j in range(4)]})
                ctx.set(dut.dir, d)
                ctx.set(dut.mask, mask)
                new, forced, full = model(inc, occ, d, mask)
                got = ctx.get(dut.new).lane
                assert [Colour(got[j].inc) for j in range(4)] == new
                assert [(got[j].occ, got[j].white) for j in range(4)] == [
                    (occ, (mask >> j) & 1) for j in range(4)]
                assert (ctx.get(dut.forced), ctx.get(dut.full)) == (forced, full)
                seen["forced"] += forced
                seen["full"] += full

    simulate(dut, tb, clock=False)
    assert all(seen.values()), seen
