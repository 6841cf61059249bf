"""``trax-fpga bench work``: the twin's placements to complete an iteration."""

import argparse

import pytest

from traxfpga.host.cmd_bench import bench_work
from traxfpga.host.reference.pvs import run
from traxfpga.host.reference.trax import Game
from traxfpga.sim.bench import search_positions


def _args(**kw):
    return argparse.Namespace(**{"positions": 1, "depth": 2, "seed": 1, "log2n": 7,
                                 "board": "icebreaker", **kw})


def test_bench_work_counts_the_twins_search_to_the_iteration():
    got = bench_work(_args(positions=2))
    assert got["table"] is True and got["iteration"] == 2
    # each position's count is the twin's own, searched to iteration 2 with no budget
    for moves, nodes in zip(search_positions(2, 1), got["nodes_each"]):
        game = Game()
        for mv in moves:
            game.play(mv)
        assert run(game, seed=1, max_iter=2).nodes == nodes
    assert got["nodes"] == sum(got["nodes_each"]) > 0
    assert bench_work(_args(board="hx8k"))["table"] is False


@pytest.mark.parametrize("kw, message", [({"positions": 0}, "--positions"),
                                         ({"depth": 0}, "--depth"),
                                         ({"depth": 14}, "--depth"),
                                         ({"board": "nope"}, "no board")])
def test_bench_work_refuses_bad_arguments(kw, message):
    with pytest.raises(SystemExit, match=message):
        bench_work(_args(**kw))
