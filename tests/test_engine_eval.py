"""EVAL's pipeline (hdl/engine_eval.py) alone: path ends in, the sums out, against a model."""

import random

from traxfpga.hdl.engine_eval import EvalPipeline
from traxfpga.hdl.eval_weights import ATT_MAX, EVAL_LINE, EVAL_MAX, EVAL_WEIGHTS

from engine_harness import simulate

L = 4
N = 1 << L
DX = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}


def model_item(at, end, area, lines):
    """The weight, line potential and attack of one path end, as docs/player.md defines them."""
    minx, miny, width, height = area
    x, y, d = end
    fx, fy = (x + DX[d][0]) % N, (y + DX[d][1]) % N
    ring_x = lambda v: (v - minx + 1) % N          # noqa: E731
    ring_y = lambda v: (v - miny + 1) % N          # noqa: E731
    adx, ady = abs(ring_x(fx) - ring_x(at[0])), abs(ring_y(fy) - ring_y(at[1]))
    dist = adx + ady
    if dist == 1:
        weight = EVAL_WEIGHTS["adjacent"]
    elif adx == 1 and ady == 1:
        weight = EVAL_WEIGHTS["corner"]
    else:
        weight = {2: EVAL_WEIGHTS["two"], 3: EVAL_WEIGHTS["three"],
                  4: EVAL_WEIGHTS["four"]}.get(dist, 0)
    line = 0
    if lines and (adx >= 4 or ady >= 4):
        full = max(width, 8) if adx > ady else max(height, 8)
        short = (full + 1 - max(adx, ady)) % (1 << (L + 2))
        line = EVAL_LINE[short] if short < len(EVAL_LINE) else 0
    return weight + line, dist == 1


async def start(ctx, dut, minx, miny, width, height):
    """A new EVAL over the area: its sums cleared."""
    ctx.set(dut.area, {"minx": minx, "miny": miny, "width": width, "height": height})
    ctx.set(dut.clear, 1)
    await ctx.tick()
    ctx.set(dut.clear, 0)


def run(items_per_eval, seed):
    """Random EVALs; the pipeline's sums must be the model's once ``busy`` falls, four
    cycles after the last item."""
    dut = EvalPipeline(L)
    rng = random.Random(seed)
    checked = []

    async def tb(ctx):
        for _ in range(12):
            area = (rng.randrange(N), rng.randrange(N), rng.randint(1, N - 2),
                    rng.randint(1, N - 2))
            lines = rng.random() < 0.7
            ctx.set(dut.lines, lines)
            await start(ctx, dut, *area)
            assert ctx.get(dut.pot) == [0, 0] and ctx.get(dut.att) == [0, 0]
            pot, att = [0, 0], [0, 0]
            for _ in range(items_per_eval):
                black = rng.randrange(2)
                end = (rng.randrange(N), rng.randrange(N), rng.randrange(4))
                at = (rng.randrange(N), rng.randrange(N))
                w, attack = model_item(at, end, area, lines)
                pot[black] = min(pot[black] + w, EVAL_MAX)
                att[black] = min(att[black] + attack, ATT_MAX)
                ctx.set(dut.ends.valid, 1)
                ctx.set(dut.ends.payload, {"black": black, "end": {"x": end[0], "y": end[1],
                                                                   "d": end[2]}})
                ctx.set(dut.at, {"x": at[0], "y": at[1]})       # taken with the item
                await ctx.tick()
                ctx.set(dut.at, {"x": 0, "y": 0})               # gone: the next square's
                ctx.set(dut.ends.valid, rng.random() < 0.3)     # held: a repeat, or none
                if ctx.get(dut.ends.valid):
                    w2, attack2 = model_item((0, 0), end, area, lines)
                    pot[black] = min(pot[black] + w2, EVAL_MAX)
                    att[black] = min(att[black] + attack2, ATT_MAX)
                assert ctx.get(dut.busy)
                await ctx.tick()
                ctx.set(dut.ends.valid, 0)
            waited = 0
            while ctx.get(dut.busy):
                await ctx.tick()
                waited += 1
            assert 2 <= waited <= 3
            assert (ctx.get(dut.pot), ctx.get(dut.att)) == (pot, att)
            checked.append(sum(pot))

    simulate(dut, tb)
    return checked


def test_sums_match_model():
    assert any(run(items_per_eval=20, seed=1))


def test_one_adjacent_end():
    """A white path whose ends run into neighbouring squares: one loop attack."""
    dut = EvalPipeline(L)

    async def tb(ctx):
        await start(ctx, dut, 3, 3, 4, 4)
        # The far end at (5, 4) leaves by its E edge, into (6, 4); P is (6, 5).
        ctx.set(dut.ends.valid, 1)
        ctx.set(dut.ends.payload, {"black": 0, "end": {"x": 5, "y": 4, "d": 1}})
        ctx.set(dut.at, {"x": 6, "y": 5})
        await ctx.tick()
        ctx.set(dut.ends.valid, 0)
        for _ in range(4):
            await ctx.tick()
        assert ctx.get(dut.pot) == [EVAL_WEIGHTS["adjacent"], 0]
        assert ctx.get(dut.att) == [1, 0]

    simulate(dut, tb)


def test_sums_saturate():
    """Many adjacent ends: ``att`` stops at ATT_MAX, ``pot`` at EVAL_MAX."""
    dut = EvalPipeline(L)

    async def tb(ctx):
        await start(ctx, dut, 0, 0, 8, 8)
        ctx.set(dut.ends.payload, {"black": 1, "end": {"x": 2, "y": 2, "d": 2}})
        ctx.set(dut.at, {"x": 3, "y": 3})
        ctx.set(dut.ends.valid, 1)
        items = EVAL_MAX // EVAL_WEIGHTS["adjacent"] + 2
        for _ in range(items):
            await ctx.tick()
        ctx.set(dut.ends.valid, 0)
        for _ in range(4):
            await ctx.tick()
        assert items * EVAL_WEIGHTS["adjacent"] > EVAL_MAX
        assert ctx.get(dut.att) == [0, ATT_MAX]
        assert ctx.get(dut.pot) == [0, EVAL_MAX]

    simulate(dut, tb)
