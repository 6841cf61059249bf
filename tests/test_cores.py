"""Many search cores (hdl/cores.py): the root's moves dealt round the sequencers, their
combined answer against the twins' (``run_cores``), and the engines kept equal by the
broadcast (every result of the combined engine port agrees with the reference after
searches, undos and counts)."""

import random

import pytest

from traxfpga.hdl.pvs_isa import WIN
from traxfpga.hdl.pvs_program import DECIDED, REFUTED, answer_rank
from traxfpga.host.reference.ai import choose_move
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.pvs import run, run_cores
from traxfpga.host.reference.trax import Game, format_move, parse_move
from traxfpga.sim.bench import search_positions

from player_harness import SEED, needs_cxx

CORES = 3
TT_BITS = 12            # the 25F's tables


def test_cores_share_the_roots_moves():
    """Dealt round the cores, the root's moves are all searched, each by one core: the
    one-ply search's value (the best root move's) is the same on 1, 2 and 3 cores."""
    for moves in search_positions(6, SEED + 6):
        game = Game()
        for mv in moves:
            game.play(mv)
        one = run(game, max_iter=1, threats=False, seed=None)
        for cores in (2, 3):
            parts = [run(game, max_iter=1, threats=False, seed=None, core=k, cores=cores)
                     for k in range(cores)]
            assert max(p.value for p in parts) == one.value, moves
            assert run_cores(game, cores, max_iter=1, threats=False,
                             seed=None).value == one.value


#: (depth, value) of cores' answers: every class of ``answer_rank`` and its edges.
ANSWERS = [(d, v) for d in (0, 1, 5, 12)
           for v in (-WIN, REFUTED, -DECIDED - 1, -DECIDED, -5, 0, 55, DECIDED, DECIDED + 1, WIN)]


def test_a_deeper_answer_is_played_before_a_shallower_ones_value():
    """A core whose moves all lose at iteration 2 keeps its iteration-1 answer: its value
    (55, of one ply) does not compare with a core's of iteration 8 (-28), whose answer is
    played (the position of ply 18 of the e018899 match's seed 12, game 17, on the 25F);
    a won game beats any depth, and a lost one comes last."""
    assert answer_rank(8, -28) > answer_rank(1, 55)
    assert answer_rank(3, DECIDED + 1) > answer_rank(12, 400) > answer_rank(1, REFUTED)
    assert answer_rank(5, WIN) > answer_rank(2, DECIDED + 1)        # the quicker win


def test_run_cores_plays_the_greatest_answer(monkeypatch):
    from traxfpga.host.reference import pvs
    told = {0: pvs.PVSChoice((0, 0, 1), 8, -28, 100, 10),
            1: pvs.PVSChoice((1, 0, 1), 1, 55, 7, 1), 2: pvs.PVSChoice(None, 9, -32000, 1, 1)}
    monkeypatch.setattr(pvs, "run", lambda game, limit, core=0, **kw: told[core])
    got = run_cores(Game(), 3)
    assert (got.move, got.depth, got.value, got.nodes, got.insns) == ((0, 0, 1), 8, -28, 108, 12)


def test_the_combiners_rank_is_the_twins():
    """``Cores``' combiner orders the answers as ``answer_rank``."""
    from amaranth.hdl import Module, Signal, signed
    from amaranth.sim import Simulator
    from traxfpga.hdl.cores import _rank
    depth, value = Signal(4), Signal(signed(16))
    rank = Signal(32)
    m = Module()
    m.d.comb += rank.eq(_rank(depth, value))
    got = {}

    async def bench(ctx):
        for d, v in ANSWERS:
            ctx.set(depth, d)
            ctx.set(value, v)
            got[d, v] = ctx.get(rank)
    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    for a in ANSWERS:
        for b in ANSWERS:
            assert (got[a] > got[b]) == (answer_rank(*a) > answer_rank(*b)), (a, b)


#: The node limit of the device's answers in the many-core tests, so that the twin predicts
#: every one.
NODES = 1500


@pytest.fixture(scope="module")
def dev():
    from traxfpga.sim.device import DeviceSim
    # the ECP5 boards' cores (block RAM read four squares a cycle, each core with its
    # table, of the 25F's 4,096 entries): one compiled design for every test of this file
    with DeviceSim(capacity=32, cores=CORES, dual=True, quad=True, tt=True, tt_bits=TT_BITS,
                   node_limit=NODES) as d:
        yield d


def _ok(game, step):
    """The device's answer to a move, from the reference's step."""
    return (f"= ok {step.placed} {step.size[0]} {step.size[1]} {game.ply} "
            f"{step.winner or '-'} {step.reason or '-'}")


def _play(dev, game, move):
    step = game.play(move)
    assert dev.exchange(f":play {format_move(move)}") == [_ok(game, step)], game.moves


@needs_cxx
def test_hardware_cores_run_as_the_twins(dev):
    """Three sequencers with their engines and tables (half the iCEBreaker's entries): the
    combined answer is the twins' (the move, depth, value, nodes, instructions and the
    tables' probes), under node limits, through a game against the
    reference AI with an undo; every engine result agrees with the reference, so the
    engines stay equal."""
    rng = random.Random(SEED)
    assert dev.exchange(":reset trax") == ["= trax"]
    game = Game()
    try:
        while not game.over and game.ply < 16:
            if game.ply % 2 == 0:
                _play(dev, game, choose_move(game, rng))
                continue
            limit = 600 + 50 * game.ply
            dev.set_node_limit(limit)
            (answer,) = dev.exchange(":move")
            want = run_cores(game, CORES, limit, seed=dev.search_seed, log2n=5,
                             tt_bits=TT_BITS)
            got = (answer.split()[-1], dev.search_depth, dev.search_value, dev.search_nodes,
                   dev.search_insns, dev.search_tt)
            assert got == (format_move(want.move), want.depth, want.value, want.nodes,
                           want.insns, (want.tt_probes, want.tt_hits)), game.moves
            step = game.play(want.move)
            assert answer == f"{_ok(game, step)} {format_move(want.move)}", game.moves
            if game.ply == 7:                   # an undo reaches every engine
                assert dev.exchange(":undo")[0].startswith("= ok "), game.moves
                game.undo()
                _play(dev, game, want.move)
    finally:
        dev.set_node_limit(NODES)
    assert dev.exchange(":board")[:-1] == game.board_rows()


@pytest.mark.slow
def test_perft_and_moves_on_many_cores(dev):
    """The cores' counts add up to the reference's, from the start and from recorded
    positions (perft 0 is counted once), every engine is left as it was, and the device's
    moves are the twins' combined choice."""
    def say(line):
        return dev.exchange(line)
    assert say(":reset trax") == ["= trax"]
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
    for _ in range(4):
        if game.over:
            break
        (answer,) = say(":move")
        played = parse_move(answer.split()[-1])
        want = run_cores(game, CORES, NODES, seed=dev.search_seed, log2n=5, tt_bits=TT_BITS)
        assert format_move(played) == format_move(want.move), game.moves
        step = game.play(played)
        assert answer == f"{_ok(game, step)} {format_move(played)}", game.moves
    assert say(":board")[:-1] == game.board_rows()
