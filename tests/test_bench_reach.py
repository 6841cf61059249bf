"""``bench reach``: the board's budget-cut answers in game records as positions, and the
twin's nodes to complete an iteration the device's budget stops short of."""

import argparse

import pytest

from traxfpga.hdl.pvs_program import program
from traxfpga.host.bench_report import report
from traxfpga.host.positions import long_answers
from traxfpga.host.reference.movetext import UnusableInput
from traxfpga.host.reference.pvs import run
from traxfpga.host.reference.trax import Game

from player_harness import needs_cxx

MOVES = ["@0/", "@1/", "@1/", "A0/", "A0/", "@2+", "A0/", "A0/", "C6+", "E5/", "C3\\", "D3+",
         "D2/", "B7\\"]


def _record(folder, times, white="sim (trax-fpga), simulated clock",
            black="ref (reference AI), wall clock"):
    """A record of MOVES as the referee writes it, move ``i`` taking ``times.get(i)``."""
    folder.mkdir(exist_ok=True)
    lines = ["# trax-fpga referee", f"# white: {white}", f"# black: {black}",
             "# time limit: 1 s, move cap: 400",
             "# result: 1-0  White (sim) wins by loop after 14 moves"]
    lines += [f"{mv:<8} # {i + 1:3}. {('white', 'black')[i % 2]:<5} {times.get(i, 0.01):.6f} s"
              for i, mv in enumerate(MOVES)]
    (folder / "game-001.txt").write_text("\n".join(lines) + "\n")
    return folder


def test_the_long_answers_are_the_simulated_boards_alone(tmp_path):
    # White (the board) used its budget at move 13 and 0.79 s at move 3; Black (on the
    # wall clock) took 0.9 s at move 12, which is not the board's budget.
    rec = _record(tmp_path / "r", {12: 0.800088, 2: 0.79, 11: 0.9})
    assert long_answers([rec], 0.8) == [("game-001.txt", MOVES[:12])]
    both = _record(tmp_path / "b", {11: 0.9, 12: 0.8}, black="sim (trax-fpga), simulated clock")
    assert long_answers([both], 0.8) == [("game-001.txt", MOVES[:11]),
                                         ("game-001.txt", MOVES[:12])]
    (tmp_path / "empty").mkdir()
    with pytest.raises(UnusableInput, match="no game records"):
        long_answers([tmp_path / "empty"], 0.8)
    with pytest.raises(UnusableInput, match="cannot read"):
        long_answers([tmp_path / "missing.txt"], 0.8)


def _args(records, depth, clock_mhz, twin=True):
    return argparse.Namespace(records=[records], positions=5, seed=1, depth=depth,
                              clock_mhz=clock_mhz, twin=twin)


def _measure(records, depth, clock_mhz, sim, twin=True):
    from traxfpga.host.positions import sample_long_answers
    from traxfpga.sim.bench_reach import bench_reach
    picked, answers = sample_long_answers([records], 5, 1, 0.8)
    assert answers == len(picked) == 1
    return bench_reach(_args(records, depth, clock_mhz, twin), picked, sim=sim)


@pytest.fixture(scope="module")
def sim():
    needs_cxx()
    from traxfpga.sim.pvs import PVSSim
    with PVSSim(log2n=7, profile=True) as s:
        yield s


def test_bench_reach_counts_the_twins_nodes_past_the_budget(sim, tmp_path):
    """A budget of 160,000 cycles (0.8 s at 0.2 MHz) completes iteration 2 at move 13; the
    twin, running the same program with the same noise, stops where the device stopped
    when given the device's nodes, and completes iteration 3 with more."""
    rec = _record(tmp_path / "r", {12: 0.8, 11: 0.9})
    got = _measure(rec, 3, 0.2, sim)
    assert (got["positions"], got["cut_by_the_budget"]) == (1, 1)
    [short] = got["short"]
    assert (short["ply"], short["iteration"]) == (12, 2)
    assert short["twin_nodes"] > short["nodes"] and got["multiples_needed"] == [
        round(short["twin_nodes"] / short["nodes"], 1)]
    code = program(3, tt=True).words()
    assert run(Game.after(MOVES[:12]), short["nodes"], code=code).depth == 2
    assert run(Game.after(MOVES[:12]), short["twin_nodes"], code=code).depth == 3
    # without the twin: the same device's search, and no count past it
    alone = _measure(rec, 3, 0.2, sim, twin=False)
    assert alone["short"] == [{k: short[k] for k in ("source", "ply", "iteration", "nodes")}]
    assert "multiples_needed" not in alone and alone["reached"] == "0 of 1"
    assert alone["depth_reached_at_budget"] == got["depth_reached_at_budget"] == {"2": 1}
    text = report(alone)
    assert "the device's nodes" in text and "multiple" not in text
    # 0.8 s at 0.5 MHz completes iteration 3 there: nothing short of it
    got = _measure(rec, 3, 0.5, sim)
    assert got["reached"] == "1 of 1" and got["short"] == []


def test_bench_reach_without_the_twin_measures_any_boards_device(tmp_path, monkeypatch):
    """--no-twin takes the board's device as built, many cores and all, which the twin's
    count refuses."""
    import traxfpga.sim.bench_reach as reach
    from traxfpga.host.cmd_bench import bench_reach
    seen = {}
    monkeypatch.setattr(reach, "bench_reach", lambda args, picked, progress: seen.update(
        vars(args)) or {"target": "reach"})
    rec = _record(tmp_path / "r", {12: 0.8})
    args = argparse.Namespace(records=[rec], positions=5, seed=1, depth=8, board="ulx3s-85f",
                              log2n=6, no_twin=True)
    bench_reach(args)
    assert (seen["twin"], seen["cores"], seen["table"], seen["quad"], seen["clock_mhz"]) == (
        False, 6, True, True, 25 / 7 * 12)
    # --cores, --table and --tt-entries measure another device on the board: the 25F's
    # before its second core, one core with a full table, which the twin can count
    args = argparse.Namespace(records=[rec], positions=5, seed=1, depth=8, board="ulx3s-25f",
                              log2n=6, cores=1, tt_entries=8192)
    bench_reach(args)
    assert (seen["twin"], seen["cores"], seen["table"], seen["tt_bits"]) == (True, 1, True, 13)
    bench_reach(argparse.Namespace(**{**vars(args), "cores": 3, "table": False,
                                      "tt_entries": None, "no_twin": True}))
    assert (seen["twin"], seen["cores"], seen["table"]) == (False, 3, False)


def test_bench_reach_says_what_it_cannot_measure(tmp_path):
    from traxfpga.host.cmd_bench import bench_reach
    from traxfpga.host.positions import sample_long_answers
    args = argparse.Namespace(records=None, positions=5, seed=1, depth=6, board="icebreaker",
                              log2n=7)
    with pytest.raises(SystemExit, match="--records"):
        bench_reach(args)
    args.records = [tmp_path]
    for change, says in (({"depth": 1}, "--depth"), ({"positions": 0}, "--positions"),
                         ({"board": "ulx3s-85f"}, "one core with the table.*--no-twin"),
                         ({"board": "hx8k"}, "one core with the table"),
                         ({"table": False}, "not of 1 core.s. without it"),
                         ({"board": "ulx3s-25f"}, "not of 2 core.s. with it"),
                         ({"cores": 0}, "--cores must be 1 .. "),
                         ({"tt_entries": 16384}, "--tt-entries must be a power of two"),
                         ({"tt_entries": 64, "table": False}, "--tt-entries needs the table")):
        with pytest.raises(SystemExit, match=says):
            bench_reach(argparse.Namespace(**{**vars(args), **change}))
    bad = _record(tmp_path / "bad", {12: 0.9})
    text = (bad / "game-001.txt").read_text().replace("C6+ ", "Z9+ ")
    (bad / "game-001.txt").write_text(text)
    with pytest.raises(UnusableInput, match="illegal"):
        sample_long_answers([bad], 5, 1, 0.8)
    wall = _record(tmp_path / "w", {12: 0.9}, white="cmd:x, wall clock")
    with pytest.raises(UnusableInput, match="no answer of a simulated board"):
        sample_long_answers([wall], 5, 1, 0.8)
    with pytest.raises(UnusableInput, match="no answer of a simulated board"):
        bench_reach(argparse.Namespace(**{**vars(args), "records": [wall]}))
