"""The engine's position key (hdl/engine_key.py): the part alone against tt_spec's, and the
engine's against the twin's (host/reference/ttable.py) after every command of random games:
placements, refusals, forced plays, take-backs, hunts, resets."""

import random

import pytest

from engine_harness import check_step, random_probe, simulate
from traxfpga.hdl.engine_key import PositionKey
from traxfpga.hdl.tiles import Status
from traxfpga.hdl.tt_spec import KEY_MASK, position_key, tile_key
from traxfpga.host.reference.pvs import hunt
from traxfpga.host.reference.trax import Game
from traxfpga.host.reference.ttable import game_key
from traxfpga.sim.core import CoreSim


@pytest.fixture(scope="module", params=[(7, False, False), (5, True, False), (6, True, True)],
                ids=["one-port", "dual", "four-reads"])
def core(request):
    log2n, dual, quad = request.param
    with CoreSim(log2n=log2n, dual=dual, quad=quad, keyed=True) as c:
        yield c, log2n


def _same(core, log2n, game, history):
    got, want = core.key(), game_key(game, log2n)
    assert got == want, f"after `{' '.join(history)}`: key {got:#x}, twin {want:#x}"


def test_key_follows_every_command(core):
    core, log2n = core
    rng = random.Random(5)
    for n in range(6):
        core.reset("trax")
        game, history = Game("trax"), []
        _same(core, log2n, game, history)
        while not game.over and game.ply < 40 and max(game.width, game.height) < (1 << log2n) - 4:
            check_step(core, game, random_probe(game, rng), history) if game.ply else None
            _same(core, log2n, game, history)
            if history and rng.random() < 0.2:
                assert core.undo().status == Status.OK
                game.undo()
                history.pop()
            elif game.ply and rng.random() < 0.2:
                # a hunt: every move that ends nothing placed and taken back in the engine
                res = core.seek(-1, -1, "+", hunt=True)
                col, row, tile, exc, _ = hunt(game, -1, -1, 0)
                assert (res.status == Status.OK) == (exc is None)
                if exc is None:
                    history.append("(hunted)")
                    _same(core, log2n, game, history)
                    assert core.undo().status == Status.OK
                    game.undo()
                    history.pop()
            else:
                check_step(core, game, rng.choice(game.legal_moves()), history)
            _same(core, log2n, game, history)


def test_key_is_the_xor_of_tile_keys():
    tiles = [(1, 2, 0b0101), (3, 4, 0b1001), (127, 0, 0b0011)]
    assert position_key(tiles) == position_key(reversed(tiles))
    assert position_key([]) == 0
    assert 0 <= position_key(tiles) <= KEY_MASK


def test_the_part_alone_xors_tile_keys_in_and_out():
    dut = PositionKey(7)
    rng = random.Random(3)
    tiles = [(rng.randrange(128), rng.randrange(128), rng.choice((3, 5, 6, 9, 10, 12)))
             for _ in range(12)]

    async def bench(ctx):
        async def toggle(t):
            ctx.set(dut.x, t[0])
            ctx.set(dut.y, t[1])
            ctx.set(dut.mask, t[2])
            ctx.set(dut.toggle, 1)
            await ctx.tick()
            ctx.set(dut.toggle, 0)
            await ctx.tick()
            await ctx.tick()
        on = []
        for t in tiles:
            await toggle(t)
            on.append(t)
            assert ctx.get(dut.key) == position_key(on)
        for t in reversed(tiles[4:]):
            await toggle(t)
            on.remove(t)
            assert ctx.get(dut.key) == position_key(on)
        ctx.set(dut.clear, 1)
        await ctx.tick()
        assert ctx.get(dut.key) == 0
        assert tile_key(*tiles[0]) != 0
    simulate(dut, bench)
