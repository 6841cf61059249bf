"""The forced-play stack (hdl/engine_forced.py) alone, against a list."""

import random

from traxfpga.hdl.engine_forced import ForcedStack

from engine_harness import simulate

L = 4
DEPTH = 6


def test_against_list():
    """Random pushes, pops and clears: the squares come back newest first, ``empty`` and
    ``push.ready`` follow the count, and a push onto a full stack is not taken."""
    dut = ForcedStack(L, DEPTH)
    rng = random.Random(7)
    seen = {"full": 0, "pop": 0, "clear": 0}

    async def tb(ctx):
        model = []
        for _ in range(2000):
            assert ctx.get(dut.empty) == (not model)
            assert ctx.get(dut.push.ready) == (len(model) < DEPTH)
            roll = rng.random()
            if roll < 0.03:
                ctx.set(dut.clear, 1)
                await ctx.tick()
                ctx.set(dut.clear, 0)
                model = []
                seen["clear"] += 1
            elif roll < 0.5 and model:
                ctx.set(dut.pop, 1)
                await ctx.tick()
                ctx.set(dut.pop, 0)
                want = model.pop()
                top = ctx.get(dut.top)
                assert (top.x, top.y) == want
                seen["pop"] += 1
            else:
                square = (rng.randrange(1 << L), rng.randrange(1 << L))
                ctx.set(dut.push.payload, {"x": square[0], "y": square[1]})
                ctx.set(dut.push.valid, 1)
                if len(model) < DEPTH:
                    model.append(square)
                else:
                    seen["full"] += 1
                await ctx.tick()
                ctx.set(dut.push.valid, 0)

    simulate(dut, tb)
    assert all(seen.values()), seen
