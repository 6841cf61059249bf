"""``trax-fpga bench``: tables for people (the depth reached included), ``--json`` for
programs, progress on standard error."""

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from traxfpga.host import cli
from traxfpga.host.bench_report import report

PLAYER = {
    "target": "player", "player": "sim", "seed": 1, "clock_mhz": 24.0,
    "search_depth": {"pvs_iterations_max": 13, "pvs_plies_max": 7,
                     "threat_search_moves_max": 7},
    "vs_ref": {"games": 50, "wins": 44, "losses": 6, "draws": 0, "illegal": 0, "timeouts": 0,
               "win_rate": 0.88, "answers": 35,
               "time_limits": {"player": 1.0, "opponent": 5.0},
               "cycles_per_answer": {"mean": 1612032, "p99": 19201296, "max": 19201296},
               "nodes_per_second": 300000, "depth_reached": {"0": 5, "1": 10, "9": 20},
               "tt": {"probes": 40000, "hits": 7300, "hit_rate": 0.182}},
}


def test_player_report_is_a_table_with_the_depth_reached():
    text = report(PLAYER)
    assert "{" not in text and "}" not in text          # no raw Python dicts
    assert "depth reached against ref (35 answers)" in text
    assert re.search(r"^iteration 9: PVS 3 plies, threat search 7 moves +20 +57%$", text,
                     re.M), text
    assert re.search(r"^iteration 1: PVS 1 ply +10 +29%$", text, re.M), text
    assert re.search(r"^the opening \(no search\) +5 +14%$", text, re.M), text
    assert "44 / 50 (88%)" in text
    assert "transposition table against ref: 7,300 of 40,000 probes answered (18.2%)" in text
    assert re.search(r"^ref +1 / 5 s +44 / 50", text, re.M), text
    # wins because the opponent answered late are told apart
    late = dict(PLAYER, vs_ref=dict(PLAYER["vs_ref"], wins_on_time=3))
    assert "44 / 50 (88%, 3 on its time)" in report(late)
    # the answers the budget cut, apart: the depth the bar is judged by
    cut = dict(PLAYER, vs_ref=dict(PLAYER["vs_ref"], depth_reached_at_budget={"9": 12},
                                   threats_5_at_budget="12 of 12"))
    text = report(cut)
    assert re.search(r"^iteration 9: PVS 3 plies, threat search 7 moves +20 +57% +12$", text,
                     re.M), text
    assert re.search(r"^iteration 1: PVS 1 ply +10 +29% +0$", text, re.M), text
    assert "the threat search at 5 moves or more in 12 of 12" in text


def test_engine_and_sim_reports_have_no_raw_dicts():
    engine = {"target": "engine", "capacity": 128, "backend": "verilator", "moves": 5254,
              "cycles_per_move": {"mean": 35.2, "p99": 102, "max": 227},
              "cycles_per_tile": {"mean": 16.5}, "simulated_cycles_per_second": 88800}
    sim = {"target": "sim", "backends": {"verilator": {"cycles": 12063944, "seconds": 13.2,
                                                       "cycles_per_second": 914121,
                                                       "default": True}},
           "workload": {"design": "device, capacity 16", "lines": [":reset", ":move"],
                        "answers": [["= trax"], ["= ok 1 1 1 1 - - @0+"]]}}
    for figures in (engine, sim):
        text = report(figures)
        assert "{" not in text and "[" not in text, text
    assert "cycles per move max" in report(engine) and "914,121" in report(sim)


def test_pvs_report_has_a_row_for_each_position():
    pvs = {"target": "pvs", "nodes": 900, "cycles_per_node": 40.0,
           "cycles_per_node_in": {"TILE": 8.0, "EVAL": 3.0},
           "by_position": [
               {"ply": 14, "depth": 9, "nodes": 100, "cycles_per_node": 104.0,
                "eval_cycles_per_node": 62.0},
               {"ply": 30, "depth": 6, "nodes": 800, "cycles_per_node": 28.0,
                "eval_cycles_per_node": 0.5}]}
    text = report(pvs)
    assert "{" not in text and "[" not in text, text
    assert re.search(r"^ +1 +14 +9 +100 +104.0 +62.0$", text, re.M), text
    assert re.search(r"^ +2 +30 +6 +800 +28.0 +0.5$", text, re.M), text
    plain = [dict(p) for p in pvs["by_position"]]
    for p in plain:
        del p["eval_cycles_per_node"]       # without --profile: no EVAL column
    text = report(dict(pvs, by_position=plain))
    assert "of which EVAL" not in text and re.search(r"^ +2 +30 +6 +800 +28.0$", text, re.M)


def test_reach_report_has_a_row_for_each_position_short_of_the_iteration():
    reach = {"target": "reach", "iteration": 6, "cut_by_the_budget": 2, "reached": "0 of 2",
             "multiples_needed": [1.4], "max_multiple": 8, "beyond_max_multiple": 1,
             "short": [{"source": "game-009.txt", "ply": 28, "iteration": 4, "nodes": 697915,
                        "twin_nodes": None, "multiple": None},
                       {"source": "game-003.txt", "ply": 20, "iteration": 5, "nodes": 707500,
                        "twin_nodes": 1022938, "multiple": 1.4}]}
    text = report(reach)
    assert "{" not in text and "[" not in text, text
    assert re.search(r"^game-009.txt +28 +4 +697,915 +- +more than 8x$", text, re.M), text
    assert re.search(r"^game-003.txt +20 +5 +707,500 +1,022,938 +1.4x$", text, re.M), text
    assert "the twin's to iteration 6" in text


def test_bench_player_progress_table_and_json(capsys):
    argv = ["bench", "player", "--player", "random", "--opponents", "random", "--games", "2"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "random vs random: game 1/2" in err and "random vs random: game 2/2" in err
    assert "opponent" in out and "depth reached against random" in out
    assert "game 1" not in out                          # progress stays off stdout
    assert cli.main(argv + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["vs_random"]["games"] == 2


def test_bench_player_against_a_contest_program_in_its_own_folder(tmp_path, capsys):
    """``--opponents`` keeps a spec's own options (``cmd,per-game,cwd=DIR:``) with it: a
    contest program that plays one game per run, beside ``random``."""
    client = Path(__file__).parent / "contest_client.py"
    (tmp_path / "client.py").write_text(
        "import runpy, sys\n"
        "sys.argv = ['contest_client.py']\n"
        f"runpy.run_path({str(client)!r}, run_name='__main__')\n")
    spec = f"cmd,per-game,cwd={tmp_path}:{shlex.quote(sys.executable)} client.py"
    argv = ["bench", "player", "--player", "random", "--opponents", f"random,{spec}",
            "--games", "2", "--time", "10", "--json"]
    assert cli.main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["vs_random"]["games"] == 2 and data[f"vs_{spec}"]["games"] == 2
    assert data[f"vs_{spec}"]["wins_on_time"] == 0


def test_bench_player_counts_the_wins_on_the_opponents_time(capsys):
    """An opponent that answers late loses on time: those wins are counted apart."""
    client = Path(__file__).parent / "contest_client.py"
    spec = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(client))} --sleep-at 2 --sleep 3"
    argv = ["bench", "player", "--player", "random", "--opponents", spec, "--games", "2",
            "--time", "0.4", "--json"]
    assert cli.main(argv) == 0
    fig = json.loads(capsys.readouterr().out)[f"vs_{spec}"]
    assert fig["wins"] == fig["wins_on_time"] == 2 and fig["timeouts"] == 0


def test_bench_player_gives_the_opponent_its_own_time(capsys):
    """``--opponent-time``: an opponent that thinks longer than the board's ``--time`` is
    not late, while the board keeps its own limit."""
    client = Path(__file__).parent / "contest_client.py"
    spec = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(client))} --sleep-at 2 --sleep 1"
    argv = ["bench", "player", "--player", "random", "--opponents", spec, "--games", "2",
            "--time", "0.4", "--json"]
    assert cli.main(argv + ["--opponent-time", "3"]) == 0
    fig = json.loads(capsys.readouterr().out)[f"vs_{spec}"]
    assert fig["time_limits"] == {"player": 0.4, "opponent": 3.0}
    assert fig["wins_on_time"] == 0 and fig["timeouts"] == 0
    # the same opponent under the board's limit is late
    assert cli.main(argv) == 0
    fig = json.loads(capsys.readouterr().out)[f"vs_{spec}"]
    assert fig["time_limits"] == {"player": 0.4, "opponent": 0.4}
    assert fig["wins_on_time"] == 2


def test_opponent_specs_keep_their_options():
    from traxfpga.host.players import split_specs
    assert split_specs("random,ref") == ["random", "ref"]
    assert split_specs("sim,board=hx8k,cores=1,cmd,per-game,cwd=/x:./trax --a,b,model") == [
        "sim,board=hx8k,cores=1", "cmd,per-game,cwd=/x:./trax --a,b", "model"]
    assert split_specs("serial:/dev/ttyUSB1@19200,sim:cxxrtl") == [
        "serial:/dev/ttyUSB1@19200", "sim:cxxrtl"]


def test_the_model_is_the_sequencers_twin_and_reports_its_search():
    """``model`` plays the board's program on the reference engine with a node budget: its
    answer is the twin's for the seed it drew, and it reports depth and nodes as the
    simulated board does (its transposition table's probes and hits too)."""
    import random

    from traxfpga.host.players import open_player
    from traxfpga.host.reference.pvs import run
    from traxfpga.host.reference.trax import Game, format_move
    with open_player("model,nodes=400", seed=7) as player:
        player.start("black")
        answer = player.reply("@0+")            # (not a position of the opening book)
    seed = random.Random(7).randrange(1, 1 << 16)
    game = Game()
    game.play("@0+")
    want = run(game, 400, seed=seed)
    assert answer == format_move(want.move)
    # (400 nodes do not finish a search of the position: the budget cut it)
    assert player.last_search == {"depth": want.depth, "nodes": want.nodes,
                                  "tt_probes": want.tt_probes, "tt_hits": want.tt_hits,
                                  "budget_cut": True}
    assert want.depth >= 1 and want.nodes >= 400 and want.tt_probes > 0


def test_bench_perft_checks_the_device_against_the_reference(capsys):
    """``bench perft``: the simulated device's count, checked against the reference, its
    cycles per leaf and leaves per second (also at the ULX3S's clock); a table without raw
    dicts, or one JSON object."""
    assert cli.main(["bench", "perft", "--depth", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["count"] == data["reference"] == 432 and data["matches_reference"]
    assert 20 < data["cycles_per_leaf"] < 500 and data["clock_mhz"] == 24.0
    assert data["ulx3s_clock_mhz"] == pytest.approx(42.857, abs=1e-3)
    assert data["leaves_per_second_at_ulx3s_clock"] > data["leaves_per_second"] > 0
    assert "perft(3) = 432" in err
    text = report(data)
    assert "{" not in text and "cycles per leaf" in text


def test_bench_perft_on_a_block_ram_board(capsys):
    """``bench perft --board``: that board's device (its clock and capacity), its engines on
    the dual-port schedule of a block-RAM store (four reads a cycle on ECP5), unless
    ``--one-port``; fewer cycles a leaf."""
    per_leaf = {}
    for extra in ([], ["--one-port"]):
        assert cli.main(["bench", "perft", "--depth", "2", "--board", "ulx3s-25f",
                         "--json", *extra]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["count"] == data["reference"] == 24 and data["matches_reference"]
        assert data["clock_mhz"] == 50.0 and data["board"] == "ulx3s-25f"
        per_leaf[data["store"]] = data["cycles_per_leaf"]
    assert per_leaf["dual-port, four reads"] < per_leaf["one-port"]
    with pytest.raises(SystemExit, match="no board 'nosuch'"):
        cli.main(["bench", "perft", "--board", "nosuch"])


def test_bench_engine_on_each_schedule(capsys):
    """``bench engine --board``: the engine's cycles on the recorded games on that board's
    store's schedule (``--two-reads``: two reads a cycle on a four-read board); the
    block-RAM schedules are not synthesized for the UP5K.  Each takes fewer cycles a move."""
    per_move = {}
    for board, extra in (("icebreaker", []), ("ulx3s-25f", []), ("ulx3s-25f", ["--two-reads"])):
        assert cli.main(["bench", "engine", "--no-synth", "--board", board, "--json",
                         *extra]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["board"] == board and data["moves"] > 5000
        per_move[data["store"]] = data["cycles_per_move"]["mean"]
    assert per_move["dual-port, four reads"] < per_move["dual-port"] < per_move["one-port"]
    with pytest.raises(SystemExit, match="add --no-synth"):
        cli.main(["bench", "engine", "--board", "hx8k"])


def test_bench_player_records_its_games(tmp_path, capsys):
    """``bench player --record DIR``: each game in the referee's notation files, which
    replay on the reference; a folder that cannot be made is one clear error."""
    from traxfpga.host.reference.trax import Game
    folder = tmp_path / "games"
    argv = ["bench", "player", "--player", "random", "--opponents", "random", "--games", "2",
            "--record", str(folder), "--json"]
    assert cli.main(argv) == 0
    capsys.readouterr()
    files = sorted(folder.glob("*.txt"))
    assert [f.name for f in files] == ["game-001.txt", "game-002.txt"]
    for k, f in enumerate(files):
        lines = f.read_text().splitlines()
        assert lines[0] == f"# trax-fpga bench player: random vs random: game {k + 1} of 2"
        game = Game()
        for line in lines:
            if not line.startswith("#"):
                game.play(line.split("#")[0].strip())
        assert game.over
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit, match="record directory: it is not a directory"):
        cli.main(argv[:-3] + ["--record", str(tmp_path / "file")])


def test_bench_player_counts_the_different_games(capsys):
    """Two players that answer a position the same way every game play two games over
    and over (one a colour): the report says how few of the match's games differ."""
    client = Path(__file__).parent / "contest_client.py"
    me = f"cmd,per-game:{shlex.quote(sys.executable)} {shlex.quote(str(client))}"
    other = f"{me} --seed 1 --id other"
    argv = ["bench", "player", "--player", me, "--opponents", other, "--games", "4",
            "--time", "10"]
    assert cli.main(argv + ["--json"]) == 0
    fig = json.loads(capsys.readouterr().out)[f"vs_{other}"]
    assert fig["games"] == 4 and fig["different_games"] == 2
    text = report(dict(PLAYER, vs_ref=dict(PLAYER["vs_ref"], different_games=7)))
    assert re.search(r"^ref +1 / 5 s +44 / 50 \(88%\) +7 ", text, re.M), text


def test_bench_player_counts_the_answers_the_budget_cut_apart(capsys):
    """The model's searches at a small node limit: those the limit cut are counted again
    apart, each at its depth, with how many reached the threat search at 5 moves."""
    from traxfpga.hdl.pvs_program import schedule
    argv = ["bench", "player", "--player", "model,nodes=2000", "--opponents", "random",
            "--games", "2", "--seed", "1", "--json"]
    assert cli.main(argv) == 0
    fig = json.loads(capsys.readouterr().out)["vs_random"]
    every, cut = fig["depth_reached"], fig["depth_reached_at_budget"]
    assert cut and all(0 < n <= every[d] for d, n in cut.items())
    assert sum(cut.values()) < sum(every.values())      # the opening is never cut
    deep = sum(n for d, n in cut.items() if schedule(int(d))[1] >= 5)
    assert fig["threats_5_at_budget"] == f"{deep} of {sum(cut.values())}"
