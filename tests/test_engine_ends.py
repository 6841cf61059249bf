"""The path-end finder (hdl/engine_ends.py) and the joins (hdl/engine_joins.py) alone."""

import random

from traxfpga.hdl.engine_ends import PathEndFinder
from traxfpga.hdl.engine_joins import FourJoins, Joins
from traxfpga.hdl.tiles import SHAPE_MASKS, Shape

from engine_harness import simulate

L = 4


def model_end(p, mask, d, pos, occ, far):
    """The far end across edge ``d`` of a tile of white edges ``mask`` at ``p``."""
    white = (mask >> d) & 1
    if not occ:
        return (p[0], p[1], d)
    x, y, fd = far[0] if white else far[1]
    if (x, y) == pos:                   # the neighbour's track has both ends open: its
        return (x, y, fd ^ (d ^ 2))     # entry holds their XOR
    return (x, y, fd)


def test_finder_against_model():
    dut = PathEndFinder(L)
    rng = random.Random(11)
    masks = [SHAPE_MASKS[s][o] for s in (Shape.PLUS, Shape.SLASH, Shape.BACKSLASH)
             for o in range(2)]

    async def tb(ctx):
        hits = 0
        for _ in range(2000):
            p = (rng.randrange(16), rng.randrange(16))
            mask = rng.choice(masks)
            d = rng.randrange(4)
            pos = (rng.randrange(16), rng.randrange(16))
            occ = rng.random() < 0.8
            far = [(rng.randrange(16), rng.randrange(16), rng.randrange(4)) for _ in range(2)]
            if rng.random() < 0.3:      # the neighbour points to itself
                far[rng.randrange(2)] = (pos[0], pos[1], rng.randrange(1, 4))
            ctx.set(dut.p, {"x": p[0], "y": p[1]})
            ctx.set(dut.mask, mask)
            ctx.set(dut.dir, d)
            ctx.set(dut.pos, {"x": pos[0], "y": pos[1]})
            ctx.set(dut.occ, occ)
            ctx.set(dut.far, [{"x": f[0], "y": f[1], "d": f[2]} for f in far])
            end = ctx.get(dut.found.end)
            want = model_end(p, mask, d, pos, occ, far)
            assert (end.x, end.y, end.d) == want, (p, mask, d, pos, occ, far)
            white = (mask >> d) & 1
            assert ctx.get(dut.found.black) == (not white)
            same = [e for e in range(4) if ((mask >> e) & 1) == white]
            assert ctx.get(dut.found.second) == (d == max(same))
            if occ:                     # what a take-back writes into the far end's word
                home = far[1 - white][:2] == pos
                assert ctx.get(dut.back) == (far[1 - white][2] if home else d ^ 2)
            hits += occ and far[1 - white][:2] == pos
        assert hits > 100

    simulate(dut, tb, clock=False)       # combinational: no clock


def test_joins_loop_and_line():
    """A white path from the area's W edge to its E edge (8 wide) is a line; a black side b
    whose neighbour's edge facing P is side a's far end closes a loop; ``clear`` forgets
    both."""
    dut = Joins(L)

    async def take(ctx, end, black, second, facing=(0, 0, 0), occ=0):
        ctx.set(dut.take, 1)
        ctx.set(dut.found.end, {"x": end[0], "y": end[1], "d": end[2]})
        ctx.set(dut.found.black, black)
        ctx.set(dut.found.second, second)
        ctx.set(dut.facing, {"x": facing[0], "y": facing[1], "d": facing[2]})
        ctx.set(dut.occ, occ)
        await ctx.tick()
        ctx.set(dut.take, 0)

    async def tb(ctx):
        ctx.set(dut.area, {"minx": 2, "miny": 3, "width": 8, "height": 5})
        # White: W edge of column 2, then E edge of column 9.
        await take(ctx, (2, 4, 3), 0, 0)
        await take(ctx, (9, 6, 1), 0, 1)
        assert ctx.get(dut.line) == 0           # a cycle later
        await ctx.tick()
        assert ctx.get(dut.line) == 0b01 and ctx.get(dut.loop) == 0
        ends = ctx.get(dut.ends)
        assert (ends[0][0].x, ends[0][0].y, ends[0][0].d) == (2, 4, 3)
        assert (ends[0][1].x, ends[0][1].y, ends[0][1].d) == (9, 6, 1)
        # Black: N and S edges, but only 5 tall: no line; side b closes a loop.
        await take(ctx, (5, 3, 0), 1, 0)
        await take(ctx, (5, 7, 2), 1, 1, facing=(5, 3, 0), occ=1)
        await ctx.tick()
        assert ctx.get(dut.line) == 0b01 and ctx.get(dut.loop) == 0b10
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        assert ctx.get(dut.line) == 0 and ctx.get(dut.loop) == 0
        # Facing the right square but empty there: no loop; the wrong edge: none either.
        await take(ctx, (1, 1, 0), 0, 0)
        await take(ctx, (1, 1, 2), 0, 1, facing=(1, 1, 0), occ=0)
        await take(ctx, (1, 1, 2), 0, 1, facing=(1, 1, 1), occ=1)
        await ctx.tick()
        assert ctx.get(dut.loop) == 0 and ctx.get(dut.line) == 0

    simulate(dut, tb)


def test_four_joins_agree_with_joins_in_turn():
    """``FourJoins`` (four ends at once, in any order of its ports) and ``Joins`` (one a cycle,
    in edge order; or, as the one-port engine takes them, the tile neighbours' ends at the
    first port in edge order beside the empty ones' at the second) on random tiles: the same
    ends, loops and lines, after each tile."""
    rng = random.Random(5)
    area = {"minx": 2, "miny": 3, "width": 8, "height": 9}
    edges = [(2, rng.randrange(3, 12), 3), (9, rng.randrange(3, 12), 1),
             (rng.randrange(2, 10), 3, 0), (rng.randrange(2, 10), 11, 2)]
    tiles = []
    for _ in range(1000):
        mask = rng.choice([m for shape in Shape for m in SHAPE_MASKS[shape]])
        ends, facing = [], []
        for d in range(4):
            # ends often on the area's outermost edges, so that lines happen
            ends.append(rng.choice(edges) if rng.random() < 0.5 else
                        (rng.randrange(16), rng.randrange(16), rng.randrange(4)))
            facing.append((rng.randrange(16), rng.randrange(16), rng.randrange(4)))
        occ = [rng.random() < 0.7 for _ in range(4)]
        for c in range(2):                      # often side b facing side a's end: a loop
            a, b = [d for d in range(4) if ((mask >> d) & 1) == (1 - c)]
            # (An empty neighbour's end is P's own edge, which no neighbour faces.)
            if rng.random() < 0.3 and occ[a]:
                facing[b] = ends[a]
        tiles.append((mask, ends, facing, occ, rng.sample(range(4), 4)))

    def found(mask, d):
        white = (mask >> d) & 1
        same = [e for e in range(4) if ((mask >> e) & 1) == white]
        return 1 - white, int(d == same[1])

    def put(ctx, port, end, black, second, facing, occ):
        ctx.set(getattr(one_or_four, "found" + port).end, dict(zip("xyd", end)))
        ctx.set(getattr(one_or_four, "found" + port).black, black)
        ctx.set(getattr(one_or_four, "found" + port).second, second)
        ctx.set(getattr(one_or_four, "facing" + port), dict(zip("xyd", facing)))
        ctx.set(getattr(one_or_four, "occ" + port), occ)

    def outcome(ctx, dut):
        e = ctx.get(dut.ends)
        return (ctx.get(dut.loop), ctx.get(dut.line),
                [[(e[c][s].x, e[c][s].y, e[c][s].d) for s in range(2)] for c in range(2)])

    results = {}
    for name, dut in (("turn", Joins(L)), ("split", Joins(L)), ("four", FourJoins(L))):
        one_or_four = dut
        out = results[name] = []

        async def tb(ctx):
            ctx.set(dut.area, area)
            for mask, ends, facing, occ, order in tiles:
                ctx.set(dut.clear, 1)
                await ctx.tick()
                ctx.set(dut.clear, 0)
                if name == "turn":
                    for d in range(4):
                        put(ctx, "", ends[d], *found(mask, d), facing[d], occ[d])
                        ctx.set(dut.take, 1)
                        await ctx.tick()
                elif name == "split":
                    tiles_in = [d for d in range(4) if occ[d]]
                    empty_in = [d for d in range(4) if not occ[d]]
                    for i in range(max(len(tiles_in), len(empty_in))):
                        for port, side in (("", tiles_in), ("2", empty_in)):
                            if i < len(side):
                                d = side[i]
                                put(ctx, port, ends[d], *found(mask, d), facing[d], occ[d])
                            ctx.set(getattr(dut, "take" + port), i < len(side))
                        await ctx.tick()
                    ctx.set(dut.take2, 0)
                else:
                    for port, d in zip(("", "2", "3", "4"), order):
                        put(ctx, port, ends[d], *found(mask, d), facing[d], occ[d])
                    ctx.set(dut.take, 1)
                    await ctx.tick()
                ctx.set(dut.take, 0)
                await ctx.tick()                # the line, a cycle after
                out.append(outcome(ctx, dut))

        simulate(dut, tb)
    assert results["four"] == results["turn"]
    assert results["split"] == results["turn"]
    loops = sum(bool(r[0]) for r in results["four"])
    lines = sum(bool(r[1]) for r in results["four"])
    assert loops > 30 and lines > 30
