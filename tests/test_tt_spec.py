"""The transposition table's key and entries (hdl/tt_spec.py): the tile key is one-to-one,
the entries answer as the table's rules say, and the table in hardware (hdl/ttable.py)
answers and stores as the spec does."""

import random

import pytest

from engine_harness import simulate
from traxfpga.hdl.tt_spec import (AND, ANY_DEPTH, CHECK_BITS, ENTRIES, INDEX_BITS, KEY_BITS, OR,
                                  check, key_coord, merge, probe, slot, store_coord, tile_key,
                                  worth)
from traxfpga.hdl.ttable import TTable
from traxfpga.host.reference.trax import TILE_MASKS

MASKS = [m for pair in TILE_MASKS.values() for m in pair]


def test_tile_keys_are_one_to_one_on_a_128_square_store():
    keys = {tile_key(x, y, m) for x in range(128) for y in range(128) for m in MASKS}
    assert len(keys) == 128 * 128 * len(MASKS)
    assert all(0 < k < 1 << KEY_BITS for k in keys)


def test_a_smaller_store_keys_the_squares_near_the_first_tile_as_the_largest():
    """A store of 64 or 32 squares a side sign-extends its coordinates into the key: one to
    one, and the same as the 128x128 store's within 32 squares of the first tile."""
    for log2n in (5, 6):
        coords = [key_coord(c, log2n) for c in range(1 << log2n)]
        assert len(set(coords)) == len(coords) and max(coords) < 128
        near = range(-(1 << log2n - 1) + 1, 1 << log2n - 1)
        assert all(key_coord(store_coord(o, log2n), log2n) == store_coord(o, 7) for o in near)
    assert [key_coord(c, 7) for c in range(128)] == list(range(128))


def test_an_entry_answers_as_deep_as_it_knows():
    e = merge((0, 0, 0), 5, True, 3)            # a win at 3
    assert probe(e, 5, 3) == (True, False) and probe(e, 5, 7) == (True, False)
    assert probe(e, 5, 2) == (False, False)     # not known at 2
    assert probe(e, 6, 3) == (False, False)     # another position's check
    e = merge(e, 5, False, 2)                   # and a failure at 2
    assert probe(e, 5, 1) == (False, True) and probe(e, 5, 2) == (False, True)
    assert merge(e, 5, True, 5) == (5, 3, 2)    # a win deeper changes nothing
    assert merge(e, 9, False, 4) == (9, 0, 4)   # another position replaces it


def test_another_positions_deeper_verdict_stays():
    """An entry is worth its deeper depth, a failure at ANY_DEPTH (found at once) none; a
    verdict on another position replaces it only if worth as much."""
    e = (5, 0, 4)                               # a failure at 4
    assert worth(0, 4) == 4 and worth(3, 2) == 3 and worth(2, ANY_DEPTH) == 2
    assert merge(e, 9, True, 3) == e            # a win at 3 on another: the entry stays
    assert merge(e, 9, False, ANY_DEPTH) == e   # and a failure found at once
    assert merge(e, 9, True, 4) == (9, 4, 0)    # as deep: replaced
    assert merge(e, 9, False, 6) == (9, 0, 6)
    assert merge(e, 5, True, 1) == (5, 1, 4)    # the same position's is always merged
    at_once = (5, 0, ANY_DEPTH)                 # worth nothing: anything replaces it
    assert merge(at_once, 9, True, 1) == (9, 1, 0)
    assert merge((0, 0, 0), 9, False, ANY_DEPTH) == (9, 0, ANY_DEPTH)


def test_the_slot_separates_side_and_kind():
    key = 0x1234567
    slots = {slot(key, stm, kind) for stm in (0, 1) for kind in (OR, AND)}
    assert len(slots) == 4 and all(0 <= s < ENTRIES for s in slots)
    assert check(key) < 1 << CHECK_BITS
    # a smaller table's check: the key's bits above its index, as many as an entry holds
    top = 1 << KEY_BITS - 1
    assert check(key | top, INDEX_BITS - 1) == check(key, INDEX_BITS - 1) < 1 << CHECK_BITS
    assert check(key | top) != check(key)
    big = key | top           # a larger table's (the twin's): every bit above the index
    assert check(big, INDEX_BITS + 1) == big >> INDEX_BITS + 1
    with pytest.raises(ValueError, match="index"):
        TTable(index_bits=INDEX_BITS + 1)


@pytest.mark.parametrize("bits", [INDEX_BITS, INDEX_BITS - 1])
def test_the_table_in_hardware_follows_the_spec(bits):
    """The iCEBreaker's table, and one of half the entries (the 25F's cores'), whose check
    leaves out the key's top bit."""
    dut = TTable(index_bits=bits)
    entries = 1 << bits
    rng = random.Random(7)
    keys = [rng.getrandbits(KEY_BITS) for _ in range(6)]
    # two keys in one slot whose checks differ in their top bit: a replacement
    keys.append(keys[0] ^ 1 << bits + CHECK_BITS - 1)
    # and a key the smaller table cannot tell from another (the same check)
    keys.append(keys[1] ^ 1 << KEY_BITS - 1)
    model = {}
    kept = 0                # stores the table declined: another position's entry worth more

    async def bench(ctx):
        nonlocal kept
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        for _ in range(entries + 2):
            await ctx.tick()
        for n in range(300):
            key, kind = rng.choice(keys), rng.choice((OR, AND))
            depth, put, win = rng.randint(1, 7), rng.random() < 0.5, rng.random() < 0.5
            for name, v in (("key", key), ("kind", kind), ("depth", depth), ("put", put),
                            ("win", win)):
                ctx.set(getattr(dut.q.payload, name), v)
            ctx.set(dut.q.valid, 1)
            await ctx.tick().until(dut.q.ready)
            ctx.set(dut.q.valid, 0)
            at = slot(key, 0, kind, bits)
            entry = model.get(at, (0, 0, 0))
            want = probe(entry, check(key, bits), depth)
            got = (ctx.get(dut.answer.win), ctx.get(dut.answer.fail))
            assert got == tuple(map(int, want)), n
            if put:
                model[at] = merge(entry, check(key, bits), win, depth)
                kept += model[at][0] != check(key, bits)
        assert any(w or f for _, w, f in model.values()) and kept
        # cleared: no entry answers any more
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        for _ in range(entries + 2):
            await ctx.tick()
        for key in keys:
            for kind in (OR, AND):
                ctx.set(dut.q.payload.key, key)
                ctx.set(dut.q.payload.kind, kind)
                ctx.set(dut.q.payload.depth, 7)
                ctx.set(dut.q.payload.put, 0)
                ctx.set(dut.q.valid, 1)
                await ctx.tick().until(dut.q.ready)
                ctx.set(dut.q.valid, 0)
                assert (ctx.get(dut.answer.win), ctx.get(dut.answer.fail)) == (0, 0)
    simulate(dut, bench)
