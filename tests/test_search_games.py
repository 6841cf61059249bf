"""The board's player on recorded positions and in whole games of all three variants: the
hardware searcher (hdl/search.py) against its software twin (host/reference/searcher.py), move for
move (the other searcher tests are in test_search.py)."""

import random

import pytest

from traxfpga.host.reference.ai import choose_move
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.trax import Game, format_move
from traxfpga.sim import cxxrtl

from search_harness import SEED, _check_search, _play_both, _replay, needs_cxx


@pytest.fixture(scope="module")
def sim():
    from traxfpga.sim.search import SearchSim
    if not cxxrtl.available():
        pytest.skip("needs a C++ compiler")
    # the main search (deepening: small_sim; defence: defence_sim)
    with SearchSim(log2n=7, max_depth=2, max_defence=1) as s:
        yield s


@needs_cxx
@pytest.mark.slow
def test_hardware_matches_twin_on_recorded_positions(sim):
    rng = random.Random(SEED + 1)
    games = load_corpus()
    sample = rng.sample(games, 24)
    for g in sample:
        cut = rng.randrange(0, max(1, min(len(g["moves"]), 40)))
        game = _replay(sim, g["moves"][:cut], engine_variant(g))
        if game.over:
            continue
        got = _check_search(sim, game)
        # the search left the position as it was: its move plays exactly as on the reference
        _play_both(sim, game, got.move)


@needs_cxx
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["trax", "8x8", "looptrax"])
def test_hardware_games_against_opponents(sim, variant):
    """Whole games: the hardware searcher against the reference AI and random moves, every
    choice checked against the twin and every move's result against the reference."""
    rng = random.Random(f"{SEED}-{variant}")
    forced = 0
    for opponent in ("ref", "random"):
        for board_white in (True, False):
            sim.reset(variant)
            game = Game(variant)
            while not game.over and game.ply < 24:
                if (game.to_move == "white") == board_white:
                    got = _check_search(sim, game)
                    mv, forced = got.move, forced + got.forced
                elif opponent == "ref":
                    mv = format_move(choose_move(game, rng))
                else:
                    mv = format_move(rng.choice(game.legal_moves()))
                _play_both(sim, game, mv)
            if game.over:           # nothing left to choose: the searcher says so
                got = sim.search()
                assert got.move is None and not got.win
    if variant == "trax":
        assert forced, "no win by force came up: the third ply went untested"
