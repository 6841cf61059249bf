"""``trax-fpga bench work``: the twin's placements to complete an iteration."""

import argparse

import pytest

from traxfpga.hdl.pvs_program import program
from traxfpga.host.cmd_bench import bench_work
from traxfpga.host.reference.pvs import run
from traxfpga.host.reference.trax import Game
from traxfpga.host.reference.ttable import Table
from traxfpga.sim.bench import search_positions


def _args(**kw):
    return argparse.Namespace(**{"positions": 1, "depth": 2, "seed": 1, "log2n": 7,
                                 "board": "icebreaker", "tt_entries": None, "scope": False,
                                 "sites": False, "scoped": False, **kw})


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


def test_bench_work_keeps_a_table_of_the_size_asked():
    device = bench_work(_args(depth=4))
    assert device["table_entries"] == 8192
    assert bench_work(_args(depth=4, tt_entries=8192)) == device
    # a table of 16 entries: the twin's own count with that table, and more placements
    # than with the device's (its few entries keep replacing each other)
    small = bench_work(_args(depth=4, tt_entries=16))
    game = Game.after(search_positions(1, 1)[0])
    table = Table(7, index_bits=4)
    assert run(game, seed=1, max_iter=4, table=table).nodes == small["nodes"]
    assert small["table_entries"] == 16 and small["nodes"] > device["nodes"]


@pytest.mark.parametrize("kw, message", [({"positions": 0}, "--positions"),
                                         ({"depth": 0}, "--depth"),
                                         ({"depth": 14}, "--depth"),
                                         ({"board": "nope"}, "no board"),
                                         ({"tt_entries": 100}, "power of two"),
                                         ({"tt_entries": 8}, "power of two"),
                                         ({"tt_entries": 1024, "board": "hx8k"},
                                          "needs the table")])
def test_bench_work_refuses_bad_arguments(kw, message):
    with pytest.raises(SystemExit, match=message):
        bench_work(_args(**kw))


def test_bench_work_counts_the_scope_of_the_and_nodes_scans():
    plain = bench_work(_args(depth=3))
    got = bench_work(_args(depth=3, scope=True))
    # counting leaves the search as it was
    assert {k: v for k, v in got.items() if k != "scope"} == plain
    for kind in ("and", "or"):
        scope = got["scope"][kind]
        assert scope["scans"] > 0
        assert scope["ending"] <= scope["kept"] <= scope["kept_by_extents"] \
            <= scope["kept_by_boxes"] < scope["replies"]
    assert got["scope"]["and"]["ending"] > 0


def test_bench_work_counts_the_program_with_scoped_scans():
    plain = bench_work(_args(depth=4))
    got = bench_work(_args(depth=4, scoped=True))
    assert got["scoped"] is True and 0 < got["nodes"] < plain["nodes"]
    game = Game.after(search_positions(1, 1)[0])
    code = program(4, tt=True, scoped=True).words()
    assert run(game, seed=1, code=code).nodes == got["nodes"]


def test_bench_work_counts_the_placements_of_each_part_of_the_program():
    plain = bench_work(_args(depth=3))
    got = bench_work(_args(depth=3, sites=True))
    assert {k: v for k, v in got.items() if k != "sites"} == plain
    sites = got["sites"]
    assert sum(sites.values()) == got["nodes"]
    # the AND nodes' hunts for a reply that ends the game make most of them
    assert max(sites, key=sites.get) == "and_see"
