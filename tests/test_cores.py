"""Many search cores (hdl/cores.py): the cores' combined answer against the twin's
``choose_cores``, on recorded positions and in whole games, and the engines kept equal by
the broadcast (every result of the combined engine port agrees with the reference after
searches).  perft on many cores is in test_device_perft.py."""

import random

import pytest

from traxfpga.hdl.search_params import SPLITS, owns
from traxfpga.host.reference.ai import choose_move
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.searcher import choose, choose_cores
from traxfpga.host.reference.trax import Game, format_move, parse_move
from traxfpga.sim import cxxrtl
from traxfpga.sim.bench import search_positions

from search_harness import SEED, _play_both, _replay, _reply_cycles, needs_cxx
from test_search import _wins_within

CORES = 3


@pytest.fixture(scope="module")
def sim():
    from traxfpga.sim.search import SearchSim
    if not cxxrtl.available():
        pytest.skip("needs a C++ compiler")
    # no budget to speak of: each core searches to the end, as the twin does; the engines on
    # the dual-port schedule of the block-RAM boards, which hold many cores
    with SearchSim(log2n=6, budget=None, max_depth=3, max_defence=3, cores=CORES,
                   dual=True) as s:
        s.set_budget(1 << 31)
        yield s


def _check(sim, game):
    """The cores' answer is the twin's; when a core finds a win, the others are stopped,
    so then the answer is some core's win: a win at once or by force as the twin finds
    one, and it wins as the reference plays it."""
    got = sim.search()
    assert got.cycles < sim.budget, "the test positions are searched to the end"
    want = choose_cores(game, CORES, max_depth=sim.max_depth, max_defence=sim.max_defence,
                        seed=got.seed)
    if got.win or got.forced or want.win or want.forced:
        assert (got.win or got.forced) and (want.win or want.forced), game.moves
        assert _wins_within(game, parse_move(got.move), 1 if got.win else got.depth), \
            game.moves
        assert got.win or not want.win or want.core != got.core, game.moves
        return got
    assert (got.move, got.depth, got.defence, got.core) == \
        (format_move(want.move), want.depth, want.defence, want.core), game.moves
    return got


def test_candidates_are_dealt_round_the_cores():
    # every legal placement to exactly one core, in scan order, and each core gets its share
    from traxfpga.host.reference.searcher import _placed
    for cores in (1, 2, 3, 5):
        owners = [[c for c in range(cores) if owns(i, c, cores)] for i in range(20)]
        assert all(len(o) == 1 for o in owners)
        assert [o[0] for o in owners][:2 * cores] == list(range(cores)) * 2
    g = load_corpus()[0]
    game = Game()
    for mv in g["moves"][:10]:
        game.play(mv)

    def candidates(own=None):
        probe, out = game.copy(), []
        for mv in _placed(probe, own=own):
            out.append(format_move(mv))
            probe.undo()
        return out
    whole = candidates()
    shares = []
    for core in range(CORES):
        share = candidates((core, CORES))
        assert share == whole[core::CORES]
        shares += share
    assert sorted(shares) == sorted(whole) and len(whole) > CORES
    # a share halved: its halves take every other candidate of it, and halve again alike
    for level in range(SPLITS):
        for sub in range(1 << level):
            share = [i for i in range(200) if owns(i, 1, CORES, level, sub)]
            lo = [i for i in range(200) if owns(i, 1, CORES, level + 1, sub)]
            hi = [i for i in range(200) if owns(i, 1, CORES, level + 1, sub | 1 << level)]
            assert lo == share[0::2] and hi == share[1::2]


def test_twin_cores_choose_among_every_candidate():
    # one core's twin is the twin; many cores see every candidate between them: a win at
    # once is always found, whichever core holds it
    rng = random.Random(SEED)
    for g in rng.sample([g for g in load_corpus() if g["variant"] == "trax"], 12):
        game = Game()
        for mv in g["moves"][:rng.randrange(4, max(5, len(g["moves"])))]:
            game.play(mv)
        if game.over:
            continue
        one = choose(game, max_depth=2, max_defence=2)
        assert format_move(choose_cores(game, 1, max_depth=2, max_defence=2).move) == \
            format_move(one.move)
        many = choose_cores(game, CORES, max_depth=2, max_defence=2)
        after = game.copy()
        after.play(many.move)                   # legal
        assert many.win == bool(game.winning_moves())


@needs_cxx
@pytest.mark.slow
def test_cores_match_twin_on_recorded_positions(sim):
    rng = random.Random(SEED + 7)
    sample = rng.sample([g for g in load_corpus() if engine_variant(g) == "trax"], 10)
    splits = 0
    for g in sample:
        cut = rng.randrange(0, max(1, min(len(g["moves"]), 30)))
        game = _replay(sim, g["moves"][:cut])
        if game.over:
            continue
        got = _check(sim, game)
        splits += got.splits
        # every engine was left as it was: the move plays exactly as on the reference
        _play_both(sim, game, got.move)
    # cores that finished early took halves of the others' shares, and the answers are
    # still the twin's (the best of the halves' answers is the whole share's)
    assert splits > 0


@needs_cxx
@pytest.mark.slow
def test_cores_budget_with_helpers(sim):
    """Budgets that end the search while cores started late on halves of others' shares
    are searching: the answer is some core's, in time, legal, and every engine is left as
    it was."""
    game = _replay(sim, search_positions(1, 1)[0])
    full = sim.search()
    assert full.splits > 0 and full.cycles < sim.budget
    try:
        for i in range(1, 8):
            budget = full.cycles * i // 8
            sim.set_budget(budget)
            got = sim.search()
            assert got.move is not None and got.cycles < budget + _reply_cycles(game)
            if i == 7:
                assert got.splits > 0
            _play_both(sim, game, got.move)         # legal, on engines left as they were
            sim.undo()
            game.undo()
    finally:
        sim.set_budget(1 << 31)


@needs_cxx
@pytest.mark.slow
def test_cores_play_whole_games(sim):
    """A game against the reference AI: every choice the twin's, every result the
    reference's (the broadcast keeps the engines equal through searches and undos)."""
    rng = random.Random(f"{SEED}-cores")
    sim.reset("trax")
    game = Game()
    cores_used = set()
    while not game.over and len(game.moves) < 30:
        if len(game.moves) % 2 == 0:
            got = _check(sim, game)
            cores_used.add(got.core)
            mv = got.move
        else:
            mv = format_move(choose_move(game, rng=rng))
        _play_both(sim, game, mv)
        if len(game.moves) == 6:                # an undo reaches every engine
            sim.undo()
            game.undo()
            _play_both(sim, game, mv)
    assert len(cores_used) > 1, cores_used


@pytest.fixture(scope="module")
def dev():
    from traxfpga.sim.device import DeviceSim
    with DeviceSim(capacity=32, cores=CORES, player="search", max_defence=2,
                   dual=True) as d:
        yield d


@pytest.mark.slow
def test_perft_on_many_cores(dev):
    """The cores' counts add up to the reference's, from the start and from recorded
    positions (perft 0 is counted once), and every engine is left as it was."""
    def say(line):
        return dev.exchange(line)
    assert say(":perft 0") == ["= 1"]
    for depth, count in enumerate([1, 2, 24, 432], start=0):
        assert say(f":perft {depth}") == [f"= {count}"], depth
    g = next(g for g in load_corpus() if engine_variant(g) == "trax" and len(g["moves"]) > 12)
    game = Game()
    for mv in g["moves"][:8]:
        game.play(mv)
        assert say(f":play {mv}")[0].startswith("= ok"), mv
    board = say(":board")
    for d in (1, 2):
        assert say(f":perft {d}") == [f"= {game.perft(d)}"], d
    assert say(":board") == board
    # the engines are still equal: the rest of the game plays as the reference's, and the
    # device's moves are the twin's cores' choice
    for mv in g["moves"][8:12]:
        game.play(mv)
        assert say(f":play {mv}")[0].startswith("= ok"), mv
    for _ in range(4):
        if game.over:
            break
        (answer,) = say(":move")
        played = parse_move(answer.split()[-1])
        want = choose_cores(game, CORES, max_defence=2, seed=dev.search_seed)
        if want.win or want.forced:             # some core's win (see _check)
            assert _wins_within(game, played, 3), game.moves
        else:
            assert format_move(played) == format_move(want.move), game.moves
        step = game.play(played)
        assert answer == (f"= ok {step.placed} {step.size[0]} {step.size[1]} {game.ply} "
                          f"{step.winner or '-'} {step.reason or '-'} "
                          f"{format_move(played)}"), game.moves
    assert say(":board")[:-1] == game.board_rows()
