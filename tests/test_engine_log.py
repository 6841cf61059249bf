"""The undo log (hdl/engine_log.py) alone, against a list."""

import random

import pytest

from traxfpga.hdl.engine_log import UndoLog

from engine_harness import simulate

L = 4
DEPTH = 8


@pytest.mark.parametrize("compact", [False, True], ids=["flagged", "compact"])
def test_against_list(compact):
    """Random pushes, pops (each followed by reading the entry now newest, sometimes read
    ahead) and clears: ``top`` is the newest entry, ``avail`` counts the entries held up to
    the depth, and the oldest are overwritten (entries of either layout)."""
    dut = UndoLog(L, DEPTH, compact)
    width = len(dut.push.payload.as_value())
    rng = random.Random(3)
    seen = {"wrapped": 0, "pop": 0, "ahead": 0, "clear": 0}

    async def tb(ctx):
        ring = [0] * DEPTH              # the memory, as the model knows it
        head = avail = 0
        for _ in range(3000):
            roll = rng.random()
            if roll < 0.02:
                ctx.set(dut.clear, 1)
                await ctx.tick()
                ctx.set(dut.clear, 0)
                avail = 0
                seen["clear"] += 1
            elif roll < 0.45 and avail:
                ahead = rng.random() < 0.5
                ctx.set(dut.pop, 1)
                ctx.set(dut.ahead, ahead)
                await ctx.tick()
                ctx.set(dut.pop, 0)
                ctx.set(dut.ahead, 0)
                head, avail = (head - 1) % DEPTH, avail - 1
                if ahead:               # the entry below the old newest: the new newest
                    assert ctx.get(dut.top.as_value()) == ring[(head - 1) % DEPTH]
                    seen["ahead"] += 1
                seen["pop"] += 1
            else:
                value = rng.getrandbits(width)
                ctx.set(dut.push.payload.as_value(), value)
                ctx.set(dut.push.valid, 1)
                await ctx.tick()
                ctx.set(dut.push.valid, 0)
                ring[head] = value
                head = (head + 1) % DEPTH
                seen["wrapped"] += avail == DEPTH
                avail = min(avail + 1, DEPTH)
            assert ctx.get(dut.avail) == avail
            assert ctx.get(dut.head) == head
            await ctx.tick()            # the read follows the pointer a cycle later
            assert ctx.get(dut.top.as_value()) == ring[(head - 1) % DEPTH]

    simulate(dut, tb)
    assert all(seen.values()), seen
