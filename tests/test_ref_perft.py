"""perft from the start position: one count per (space, tile) placement."""

import time

import pytest

from traxfpga.host.reference.trax import Game, perft

EXPECTED = {1: 2, 2: 24, 3: 432, 4: 9568}


@pytest.mark.parametrize("depth, count", sorted(EXPECTED.items()))
def test_perft(depth, count):
    assert Game().perft(depth) == count


def test_perft_5():
    t = time.perf_counter()
    assert perft(5) == 246888
    assert time.perf_counter() - t < 10


def test_perft_0_and_game_over():
    assert Game().perft(0) == 1
    g = Game()
    for m in ("@0/", "A0\\", "@2\\"):
        g.play(m)
    assert g.over and g.perft(1) == 0 and g.perft(0) == 1


def test_perft_matches_legal_moves_walk():
    """perft's bulk counting agrees with playing every move via the public API."""
    def walk(g, depth):
        if depth == 0:
            return 1
        n = 0
        for m in g.legal_moves():
            g.play(m)
            n += walk(g, depth - 1)
            g.undo()
        return n
    assert walk(Game(), 3) == 432
    for variant in ("8x8", "looptrax"):
        assert Game(variant).perft(3) == walk(Game(variant), 3)


def test_perft_leaves_the_game_unchanged():
    g = Game()
    for m in ("@0/", "B1+", "A2/"):
        g.play(m)
    before = (g.board_rows(), g.moves[:], g.size)
    g.perft(3)
    assert (g.board_rows(), g.moves, g.size) == before
