"""The reference engine's CLI commands: replay (the JSON contract), perft, show,
play, bench, demo; the engine registry and the pictures."""

import argparse
import importlib
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from traxfpga.host.reference.corpus import load_corpus
from traxfpga.host.reference.trax import Game

GAME1 = next(g for g in load_corpus() if g["id"] == 1)
KEYS = ["engine", "variant", "applied", "illegal", "winner", "reason", "size", "steps", "board"]


def run_cmd(name, argv, capsys, stdin=None, monkeypatch=None):
    """Run ``trax-fpga NAME ARGV`` in-process; returns (exit code, stdout, stderr)."""
    mod = importlib.import_module(f"traxfpga.host.cmd_{name}")
    parser = argparse.ArgumentParser(prog=f"trax-fpga {name}")
    mod.add_arguments(parser)
    if stdin is not None:
        import io

        class _In(io.StringIO):
            buffer = io.BytesIO(stdin.encode())
        monkeypatch.setattr(sys, "stdin", _In(stdin))
    rc = mod.run(parser.parse_args(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def game1_file(tmp_path):
    p = tmp_path / "game1.txt"
    p.write_text("# game 1 from the corpus\n" + " ".join(GAME1["moves"][:8]) + "  # first part\n"
                 + "\n".join(GAME1["moves"][8:]) + "\n")
    return p


# ------------------------------------------------------------------ replay

def test_replay_json_contract(game1_file, capsys):
    rc, out, err = run_cmd("replay", ["--json", str(game1_file)], capsys)
    assert rc == 0 and err == ""
    data = json.loads(out)
    assert list(data) == KEYS
    exp = GAME1["expect"]
    assert data["engine"] == "ref" and data["variant"] == "trax"
    assert data["applied"] == 17 and data["illegal"] is None
    assert (data["winner"], data["reason"], data["size"], data["board"]) == \
        (exp["winner"], exp["reason"], exp["size"], exp["board"])
    assert data["steps"][0] == {"move": "@0/", "placed": 1, "size": [1, 1]}
    assert all(list(s) == ["move", "placed", "size"] for s in data["steps"])
    assert sum(s["placed"] for s in data["steps"]) == 37


def test_replay_illegal_move_exit_2(tmp_path, capsys):
    p = tmp_path / "bad.txt"
    p.write_text("@0/ B1\\ A2+ B2/ A1+\n")
    rc, out, _ = run_cmd("replay", ["--json", str(p)], capsys)
    data = json.loads(out)
    assert rc == 2
    assert data["applied"] == 3
    assert data["illegal"]["index"] == 3 and data["illegal"]["move"] == "B2/"
    assert data["illegal"]["reason"].startswith("mismatch: ")
    assert data["board"] == ["NW NE", "EW ."] and data["size"] == [2, 2]


@pytest.mark.parametrize("moves, index, code", [
    (["a1/"], 0, "syntax"),
    (["A1/"], 0, "first-move"),
    (["@0/", "C1+"], 1, "range"),
    (["@0/", "A1+"], 1, "occupied"),
    (["@0/", "B1+", "@0/"], 2, "not-adjacent"),
])
def test_replay_reports_each_code(tmp_path, capsys, moves, index, code):
    p = tmp_path / "g.txt"
    p.write_text(" ".join(moves))
    rc, out, _ = run_cmd("replay", ["--json", str(p)], capsys)
    data = json.loads(out)
    assert rc == 2 and data["illegal"]["index"] == index
    assert data["illegal"]["reason"].split(":")[0] == code


def test_replay_stops_at_the_end_of_the_game(tmp_path, capsys):
    p = tmp_path / "g.txt"
    p.write_text(" ".join(GAME1["moves"] + ["A1+", "B1+"]))
    rc, out, _ = run_cmd("replay", ["--json", str(p)], capsys)
    data = json.loads(out)
    assert rc == 2 and data["applied"] == 17 and data["winner"] == "white"
    assert data["illegal"]["index"] == 17 and data["illegal"]["reason"].startswith("game-over: ")


def test_replay_stdin_and_variant(capsys, monkeypatch):
    text = "@0+ # white N-S\n" + " ".join(f"{c}1+" for c in "BCDEFGH") + "\n"
    rc, out, _ = run_cmd("replay", ["--json", "--variant", "looptrax", "-"], capsys, text,
                         monkeypatch)
    data = json.loads(out)
    assert rc == 0 and data["variant"] == "looptrax" and data["winner"] is None
    rc, out, _ = run_cmd("replay", ["--json"], capsys, text, monkeypatch)
    data = json.loads(out)
    assert (data["winner"], data["reason"]) == ("black", "line")


def test_replay_empty_input(capsys, monkeypatch):
    rc, out, _ = run_cmd("replay", ["--json", "-"], capsys, "# nothing\n", monkeypatch)
    data = json.loads(out)
    assert rc == 0 and data["applied"] == 0 and data["size"] == [0, 0] and data["board"] == []


def test_replay_unusable_input_exit_1(tmp_path, capsys):
    rc, out, err = run_cmd("replay", ["--json", str(tmp_path / "missing.txt")], capsys)
    assert rc == 1 and out == "" and "no such file" in err
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00@0/")
    rc, out, err = run_cmd("replay", [str(binary)], capsys)
    assert rc == 1 and "UTF-8" in err
    rc, out, err = run_cmd("replay", [str(tmp_path)], capsys)
    assert rc == 1 and "directory" in err
    rc, out, err = run_cmd("replay", ["--engine", "nosuch", str(binary)], capsys)
    assert rc == 1


def test_replay_unknown_engine_exit_1(game1_file, capsys):
    rc, out, err = run_cmd("replay", ["--engine", "nosuch:x", str(game1_file)], capsys)
    assert rc == 1 and "unknown engine" in err and "Traceback" not in err


def test_replay_readable_report(game1_file, capsys):
    rc, out, _ = run_cmd("replay", [str(game1_file)], capsys)
    assert rc == 0
    assert "White wins with a loop after 17 moves (7x7)." in out
    assert "@   A   B" in out and "x / o" in out


def test_replay_through_a_registered_engine(game1_file, capsys):
    from traxfpga.host import engines

    opened = []

    def factory(arg, variant):
        opened.append((arg, variant))
        return engines.RefEngine(variant)

    engines.register_engine("testfake", factory)
    try:
        rc, out, _ = run_cmd("replay", ["--json", "--engine", "testfake:port0", str(game1_file)],
                             capsys)
    finally:
        del engines.ENGINES["testfake"]
    assert rc == 0 and opened == [("port0", "trax")]
    assert json.loads(out)["engine"] == "testfake:port0"


def test_engine_registry():
    from traxfpga.host.engines import ENGINES, UnknownEngine, open_engine
    assert "ref" in ENGINES
    e = open_engine("ref", "8x8")
    assert e.play("@0/").size == (1, 1) and e.board_rows() == ["NW"]
    e.close()
    with pytest.raises(UnknownEngine):
        open_engine("nosuch")
    with pytest.raises(ValueError):
        open_engine("ref:extra")


# ------------------------------------------------------------------ perft, show

def test_perft_command(capsys):
    rc, out, _ = run_cmd("perft", ["3"], capsys)
    assert rc == 0 and out == "432\n"
    rc, out, _ = run_cmd("perft", ["2", "--divide"], capsys)
    assert out.split() == ["@0+", "12", "@0/", "12", "24"]
    rc, out, _ = run_cmd("perft", ["2", "--variant", "8x8"], capsys)
    assert out == "24\n"
    rc, _, err = run_cmd("perft", ["-1"], capsys)
    assert rc == 1


def test_show_writes_svg(game1_file, tmp_path, capsys):
    svg = tmp_path / "pos.svg"
    rc, out, _ = run_cmd("show", ["--svg", str(svg), str(game1_file)], capsys)
    assert rc == 0
    assert "White wins with a loop" in out and ". o ." in out.replace("x", "o")
    assert out.rstrip().endswith(f"wrote {svg}")
    root = ET.fromstring(svg.read_text())
    assert root.tag.endswith("svg")
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "@" in texts and "H" in texts and "0" in texts and "8" in texts
    paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
    assert len(paths) == 2 * 37    # both tracks of every tile


def test_show_illegal_and_missing(tmp_path, capsys):
    p = tmp_path / "g.txt"
    p.write_text("@0/ B1+ Q9+")
    rc, out, err = run_cmd("show", [str(p)], capsys)
    assert rc == 2 and "range" in err and "After 2 moves" in out
    rc, out, err = run_cmd("show", [str(tmp_path / "nope")], capsys)
    assert rc == 1


# ------------------------------------------------------------------ play, demo, bench

def test_play_session_scripted():
    from traxfpga.host.cmd_play import play_session
    from traxfpga.host.reference.ai import AIOpponent

    lines = iter(["help", "b1+", "moves", "@0/", "undo", "@0+", "undo", "undo", "@0/", "quit"])
    out = []
    rc = play_session(Game(), AIOpponent(seed=1), "white", read=lambda prompt: next(lines),
                      write=out.append)
    text = "\n".join(out)
    assert rc == 0
    assert "Not played: syntax:" in text and "(did you mean B1+?)" in text
    assert "@0+ @0/" in text                      # the legal first moves
    assert "you play @0/" in text and "reference AI plays" in text
    assert "Nothing to take back." in text
    assert "Game abandoned." in text


def test_play_to_the_end_against_a_scripted_opponent():
    from traxfpga.host.cmd_play import play_session

    class Scripted:
        name = "script"

        def __init__(self, moves):
            self.moves = iter(moves)

        def reply(self, game):
            return next(self.moves)

    out = []
    lines = iter(["@0/", "@2\\"])
    rc = play_session(Game(), Scripted(["A0\\"]), "white", read=lambda p: next(lines),
                      write=out.append)
    assert rc == 0 and "You win: white loop after 3 moves." in out
    out = []
    rc = play_session(Game(), Scripted(["Z9+"]), "black", read=lambda p: "quit", write=out.append)
    assert rc == 1 and any("illegal move" in o for o in out)


def test_play_command_eof(capsys, monkeypatch):
    rc, out, _ = run_cmd("play", ["--as", "black", "--seed", "3", "--opponent", "ai"], capsys, "",
                         monkeypatch)
    assert rc == 0 and "reference AI plays @0" in out and "Game abandoned." in out


def test_demo_runs(capsys):
    rc, out, _ = run_cmd("demo", [], capsys)          # on the simulated device
    assert "Every answer and board of the device matched the reference (17 moves)." in out
    assert rc == 0
    assert "Result: White wins with a loop after 17 moves (7x7, 37 tiles)." in out
    assert out.count("@   A") >= 4            # the board is shown as it grows
    rc, out, err = run_cmd("demo", ["--game", "99999"], capsys)
    assert rc == 1


def test_bench_ref(capsys):
    rc, out, _ = run_cmd("bench", ["ref", "--json", "--rounds", "1"], capsys)
    data = json.loads(out)
    assert rc == 0
    assert data["perft4"]["count"] == 9568 and data["perft5"]["count"] == 246888
    assert data["replay"]["games"] == 300 and data["replay"]["moves"] > 5000
    assert data["replay"]["moves_per_second"] > 0


def test_bench_targets_are_extensible():
    from traxfpga.host import cmd_bench
    assert "ref" in cmd_bench.TARGETS
    cmd_bench.register_target("dummy", lambda args: {"target": "dummy"}, "test")
    try:
        parser = argparse.ArgumentParser()
        cmd_bench.add_arguments(parser)
        assert parser.parse_args(["dummy"]).target == "dummy"
    finally:
        del cmd_bench.TARGETS["dummy"]


# ------------------------------------------------------------------ the real console script

def _cli_buildable():
    try:
        from traxfpga.host.cli import build_parser
        build_parser()
    except ModuleNotFoundError as e:
        if e.name and not e.name.startswith("traxfpga.host"):
            return f"another part of the CLI is missing: {e.name}"
        raise
    return None


def test_console_script_replay(game1_file):
    why = _cli_buildable()
    if why:
        pytest.skip(why)
    exe = Path(sys.executable).with_name("trax-fpga")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "traxfpga.host.cli"]
    r = subprocess.run(cmd + ["replay", "--json", str(game1_file)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["winner"] == "white"
    r = subprocess.run(cmd + ["replay", "--json", "-"], input="@0/ A1/", capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and json.loads(r.stdout)["illegal"]["reason"].startswith("occupied")


def test_version(capsys):
    import pytest as _pytest

    from traxfpga.host.cli import main
    with _pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("trax-fpga 0.")


def test_replay_bad_core_size(tmp_path, capsys):
    from traxfpga.host.cli import main
    game = tmp_path / "game.txt"
    game.write_text("@0+\n")
    assert main(["replay", "--engine", "core:abc", str(game)]) == 1
    err = capsys.readouterr().err
    assert "3 .. 9" in err and "invalid literal" not in err


def test_help_lists_the_engines_and_players(capsys):
    """``replay --help`` names every engine, ``referee --help`` every player kind."""
    from traxfpga.host.cli import main
    for argv, names in ((["replay", "--help"], ("ref", "core", "sim", "serial:PORT")),
                        (["referee", "--help"], ("ref", "random", "model", "sim", "serial:",
                                                 "cmd:", "per-game"))):
        with pytest.raises(SystemExit):
            main(argv)
        out = " ".join(capsys.readouterr().out.split())
        for name in names:
            assert name in out, (argv, name)
