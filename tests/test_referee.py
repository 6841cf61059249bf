"""The contest referee: players behind one interface (ref, random, cmd, serial over TCP, the
simulated board), every move checked, illegal moves, error lines, timeouts and crashes lose,
colours swap, the --json contract and --record files."""

import argparse
import json
import os
import random
import shlex
import socket
import sys
from pathlib import Path

import pytest

from traxfpga.host import cmd_referee
from traxfpga.host.reference.movetext import read_moves
from traxfpga.host.players import (EnginePlayer, Fault, LineTransport, OpenError,
                                   ProtocolPlayer, SpecError, _parse_serial, open_player)
from traxfpga.host.referee import GameRecord, play_game, run_match
from traxfpga.host.reference.trax import Game

sys.path.insert(0, str(Path(__file__).parent))
from contest_client import ContestClient, Crash  # noqa: E402
from fake_device import LineServer  # noqa: E402

CLIENT = Path(__file__).parent / "contest_client.py"
SLOW = 10.0        # a time limit nobody should reach on a loaded machine


def client_spec(*options):
    return "cmd:" + shlex.join([sys.executable, str(CLIENT), *options])


def replay_ok(rec: GameRecord):
    """Every recorded move is legal on the reference and the result is the reference's."""
    game = Game()
    for mv in rec.moves:
        assert not game.over
        game.play(mv)
    assert len(rec.times) == len(rec.moves)
    if rec.reason in ("loop", "line"):
        assert (game.winner, game.reason) == (rec.winner, rec.reason)
    else:
        assert not game.over
    if rec.reason == "cap":
        assert rec.winner is None and game.ply == rec.max_moves
    return game


def run_cli(argv, capsys):
    parser = argparse.ArgumentParser()
    cmd_referee.add_arguments(parser)
    rc = cmd_referee.run(parser.parse_args(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# -- in-process players -----------------------------------------------------------------------

def test_ref_beats_random_and_every_move_is_checked():
    match = run_match("ref", "random", games=6, seed=11, time_limit=SLOW)
    assert len(match.records) == 6
    for rec in match.records:
        replay_ok(rec)
        assert rec.reason in ("loop", "line") and rec.fault is None
    ref, rnd = match.stats("ref"), match.stats("random")
    assert ref["wins"] + rnd["wins"] == 6 and ref["losses"] == rnd["wins"]
    assert ref["wins"] >= 5
    assert ref["illegal"] == ref["timeouts"] == rnd["illegal"] == rnd["timeouts"] == 0
    assert ref["moves"] + rnd["moves"] == sum(len(r.moves) for r in match.records)
    assert 0 < ref["mean_time"] <= ref["max_time"] < SLOW


def test_colours_swap_and_same_spec_gets_two_labels():
    match = run_match("random", "random", games=5, seed=3, time_limit=SLOW, max_moves=400)
    assert match.labels == ("random#1", "random#2")
    assert [r.white for r in match.records] == ["random#1", "random#2"] * 2 + ["random#1"]
    assert [r.black for r in match.records] == ["random#2", "random#1"] * 2 + ["random#2"]
    for rec in match.records:
        replay_ok(rec)
    a, b = match.stats("random#1"), match.stats("random#2")
    assert (a["as_white"], b["as_white"]) == (3, 2)
    assert a["wins"] + a["losses"] + a["draws"] == 5
    assert (a["wins"], a["losses"], a["draws"]) == (b["losses"], b["wins"], b["draws"])


def test_matches_are_reproducible_from_the_seed():
    moves = lambda seed: [r.moves for r in run_match("ref", "random", games=2, seed=seed,  # noqa: E731
                                                       time_limit=SLOW).records]
    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


def test_move_cap_is_a_draw():
    match = run_match("random", "ref", games=2, seed=1, time_limit=SLOW, max_moves=2)
    for rec in match.records:
        replay_ok(rec)
        assert (rec.winner, rec.reason, len(rec.moves)) == (None, "cap", 2)
        assert rec.result_code == "1/2-1/2" and "Draw" in rec.summary()
    assert match.stats("ref")["draws"] == 2 and match.stats("ref")["wins"] == 0


def test_engine_player_interface():
    p = open_player("random", seed=1)
    assert isinstance(p, EnginePlayer) and p.clock == "wall"
    first = p.start("white")
    assert first in ("@0+", "@0/") and p.last_time >= 0
    assert p.start("black") is None
    answer = p.reply("@0/")
    g = Game()
    g.play("@0/")
    g.play(answer)                      # legal
    with pytest.raises(ValueError):
        p.start("red")


@pytest.mark.parametrize("spec", ["", "nobody", "ref:x", "random:1", "cmd:", "cmd:'unclosed",
                                  "serial:", "serial:@9600", "sim:fast", "sim,clock=50",
                                  "sim,board=", "sim,board=icestick", "sim,board=nowhere",
                                  "sim,board=hx8k,board=hx8k", "sim,cores=0", "sim,cores=x",
                                  "sim,cores=", "sim,cores=2,cores=3", "sim,cores=65",
                                  "sim,player=pvs", "sim,player=search", "model:x",
                                  "model,nodes=0", "model,nodes=x", "model,cores=65",
                                  "model,depth=3", "model,nodes=5,nodes=6", "sim,nodes=0",
                                  "sim,nodes=", "sim,nodes=4294967296", "sim,cap=", "sim,cap=-1",
                                  "sim,cap=32768", "sim,cap=x", "sim,cap=1,cap=2"])
def test_bad_specs(spec):
    with pytest.raises(SpecError):
        open_player(spec)


def test_serial_spec_baud():
    assert _parse_serial("/dev/ttyUSB1") == ("/dev/ttyUSB1", 115200)
    assert _parse_serial("/dev/ttyUSB1@19200") == ("/dev/ttyUSB1", 19200)
    assert _parse_serial("socket://127.0.0.1:7000@9600") == ("socket://127.0.0.1:7000", 9600)
    assert _parse_serial("socket://127.0.0.1:7000") == ("socket://127.0.0.1:7000", 115200)


# -- programs on stdin/stdout -------------------------------------------------------------------

def test_contest_client_against_ref():
    match = run_match(client_spec("--seed", "2", "--id", "team-x"), "ref", games=2, seed=4,
                      time_limit=SLOW)
    label = match.labels[0]
    assert match.idents[label] == "team-x"
    for rec in match.records:
        replay_ok(rec)
        assert rec.reason in ("loop", "line") and rec.fault is None
    s = match.stats(label)
    assert s["wins"] + s["losses"] == 2 and s["illegal"] == s["timeouts"] == 0


def _fault_match(options, games=2, time_limit=SLOW, opponent="ref"):
    spec = client_spec(*options)
    match = run_match(spec, opponent, games=games, seed=7, time_limit=time_limit)
    return spec, match


def test_illegal_move_loses():
    spec, match = _fault_match(["--illegal-at", "3"])
    rec = match.records[0]
    replay_ok(rec)
    assert (rec.white, rec.winner, rec.reason) == (spec, "black", "illegal")
    f = rec.fault
    assert f["colour"] == "white" and f["kind"] == "illegal"
    assert "occupied" in f["detail"] and f["answer"].endswith("+")
    assert len(rec.moves) == 4                         # W B W B, then the bad fifth
    # The player was not broken, only wrong: the second game is played out normally.
    assert match.records[1].reason in ("loop", "line")
    s = match.stats(spec)
    assert (s["illegal"], s["timeouts"]) == (1, 0) and s["losses"] >= 1


@pytest.mark.parametrize("option, words", [
    ("--error-at", "error line '! nomove'"),
    ("--garbage-at", "not a move"),
])
def test_error_and_malformed_lines_lose(option, words):
    spec, match = _fault_match([option, "2"], games=1)
    rec = match.records[0]
    assert (rec.winner, rec.reason, len(rec.moves)) == ("black", "illegal", 2)
    assert words in rec.fault["detail"]


def test_sleeping_past_the_limit_loses_on_time():
    # Only the sleeping program has the short limit: the reference keeps a long one, so a
    # loaded machine cannot make it the late one.
    spec, match = _fault_match(["--sleep-at", "2", "--sleep", "3"], time_limit=(0.4, SLOW))
    for rec, colour in zip(match.records, ("white", "black")):
        # The program was restarted after the first timeout, so it sleeps again in game 2.
        assert rec.reason == "timeout" and rec.fault["colour"] == colour
        assert rec.fault["answer"] is None and "no answer within 0.4 s" in rec.fault["detail"]
        replay_ok(rec)
    assert match.stats(spec)["timeouts"] == 2


def test_each_player_has_its_own_time_limit():
    """``time_limit=(a, b)``: each player's limit follows it when the colours swap.  The
    program's second answer takes 0.6 s, within its own 2 s; with 0.4 s it is late."""
    spec = client_spec("--sleep-at", "2", "--sleep", "0.6")
    match = run_match(spec, "ref", games=2, seed=7, time_limit=(2.0, 5.0))
    for rec, colour in zip(match.records, ("white", "black")):
        assert rec.reason in ("loop", "line"), rec.summary()
        assert rec.time_limits == {colour: 2.0, ("black" if colour == "white" else "white"): 5.0}
    assert match.records[0].times[2] >= 0.6             # White's second answer
    assert (match.stats(spec)["time_limit"], match.stats("ref")["time_limit"]) == (2.0, 5.0)
    assert "time limits: White 2 s, Black 5 s" in match.records[0].notation()
    late = run_match(spec, "ref", games=1, seed=7, time_limit=(0.4, 5.0)).records[0]
    assert (late.reason, late.fault["colour"]) == ("timeout", "white")
    with pytest.raises(ValueError, match="positive"):
        run_match(spec, "ref", time_limit=(1.0, 0))


def test_crash_loses_and_the_program_is_restarted():
    spec, match = _fault_match(["--crash-at", "2"], games=3)
    for rec in match.records:
        assert rec.reason == "timeout" and rec.fault["colour"] == ("white" if rec.white == spec
                                                                   else "black")
        assert "exited with status 3" in rec.fault["detail"]
        assert "crashing as told" in rec.fault["detail"]
    assert match.stats(spec)["timeouts"] == 3


def test_a_line_when_no_answer_is_due_loses():
    # The chatty client says something after -B; it is caught as unsolicited or taken as
    # its answer, either way an illegal line.
    spec, match = _fault_match(["--chatty"], games=2)
    rec = match.records[1]
    assert rec.black == spec and (rec.winner, rec.reason) == ("white", "illegal")
    assert "hello, I am Black" in rec.fault["detail"]


class _Script(LineTransport):
    """A transport playing back canned lines: (seconds after the send, text)."""

    def __init__(self, answers):
        self.answers = dict(answers)        # sent line -> list of (seconds, text)
        self.sent = []
        self.queue = []

    def send_line(self, text):
        self.sent.append(text)
        self.queue += self.answers.get(text, [])

    def read_line(self, timeout):
        if not self.queue:
            raise Fault("timeout", f"no answer within {timeout:g} s")
        seconds, text = self.queue.pop(0)
        if seconds > timeout:
            raise Fault("timeout", f"no answer within {timeout:g} s")
        return text, seconds

    def pending(self):
        out, self.queue = [t for _, t in self.queue], []
        return out

    def resync(self):
        self.queue = []
        return False


def test_protocol_player_over_a_transport():
    t = _Script({"-T": [(0.1, "bot 1")], "-W": [(0.2, ""), (0.3, "@0/")],
                 "-B": [(0.0, "surprise")], "B1+": [(0.5, "B2\\")]})
    p = ProtocolPlayer("script", t)
    assert p.ident == "bot 1" and t.sent == ["-T"]
    assert p.start("white", limit=1.0) == "@0/" and p.last_time == 0.3    # blank line skipped
    assert p.reply("B1+", limit=1.0) == "B2\\" and p.last_time == 0.5
    with pytest.raises(Fault) as e:
        p.reply("A1+", limit=1.0)
    assert e.value.kind == "timeout"
    assert p.start("black", limit=1.0) is None
    with pytest.raises(Fault) as e:                # "surprise" was never asked for
        p.reply("@0/", limit=1.0)
    assert e.value.kind == "illegal" and "surprise" in e.value.detail
    assert t.sent[-1] == "-B"                      # the move was not even sent
    with pytest.raises(OpenError):
        ProtocolPlayer("mute", _Script({}))
    with pytest.raises(OpenError):
        ProtocolPlayer("error", _Script({"-T": [(0.0, "! unknown")]}))


def test_a_late_answer_loses_even_when_it_came():
    class Slow(EnginePlayer):
        def reply(self, move, *, limit=None):
            answer = super().reply(move, limit=limit)
            self.last_time = 2.5
            return answer
    slow = Slow("ref", 1)
    slow.name = "slow"
    rec = play_game(open_player("random"), slow, time_limit=2.0, rng=random.Random(0))
    assert (rec.winner, rec.reason, len(rec.moves)) == ("white", "timeout", 1)
    assert "after 2.500 s" in rec.fault["detail"] and rec.fault["seconds"] == 2.5


def test_programs_are_cleaned_up():
    p = open_player(client_spec("--sleep-at", "1", "--sleep", "30"))
    proc = p.transport.proc
    with pytest.raises(Fault):
        p.start("white", limit=0.2)
    p.close()
    assert proc.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)


def test_missing_program_and_mute_program():
    with pytest.raises(OpenError, match="cannot run"):
        open_player("cmd:/nonexistent/contest-client")
    with pytest.raises(OpenError, match="no answer to -T"):
        open_player(f"cmd:{shlex.quote(sys.executable)} -c 'import sys; sys.exit(4)'")


# -- a board behind a pyserial URL (here a TCP socket on 127.0.0.1) -----------------------------

class _TCPClient(LineServer):
    """The contest client served on one TCP connection on 127.0.0.1."""

    def __init__(self, **options):
        self.client = ContestClient(**options)
        self.lines = []
        super().__init__(self._answer)

    def _answer(self, line):
        self.lines.append(line)
        try:
            answers = self.client.handle(line)
        except Crash:
            return None
        return b"".join(a.encode() + b"\r\n" for a in answers)


def test_serial_player_over_tcp():
    with _TCPClient(seed=3, ident="tcp-board") as srv:
        match = run_match(f"serial:{srv.url}@19200", "ref", games=2, seed=2, time_limit=SLOW)
    assert match.idents[match.labels[0]] == "tcp-board"        # CR LF line ends are fine
    for rec in match.records:
        replay_ok(rec)
        assert rec.reason in ("loop", "line")
    # An empty line first (it ends a partial line another program may have left); no
    # :reset for a program that is not a trax-fpga board.
    assert srv.lines[:3] == ["", "-T", "-W"] and "-B" in srv.lines
    assert not any(line.startswith(":") for line in srv.lines)


def test_serial_player_that_disconnects_loses():
    with _TCPClient(crash_at=2) as srv:
        match = run_match(f"serial:{srv.url}", "random", games=1, seed=2, time_limit=SLOW)
    rec = match.records[0]
    assert rec.reason == "timeout" and "port failed" in rec.fault["detail"]


def test_serial_port_that_cannot_be_opened():
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    with pytest.raises(OpenError, match="cannot open serial port"):
        open_player(f"serial:socket://127.0.0.1:{port}")


# -- the simulated board ------------------------------------------------------------------------

#: The simulated board's budget in legal placements where its strength is not the point:
#: its answers come in thousands of cycles instead of its whole budget's 19.2 million.
QUICK = 400


@pytest.fixture(scope="module")
def sim_player():
    with open_player(f"sim,nodes={QUICK}") as p:
        yield p


def test_simulated_board_plays_only_legal_moves(sim_player):
    assert sim_player.clock == "simulated" and sim_player.ident == "trax-fpga"
    rng = random.Random(8)
    for colour in ("white", "black"):
        opponent = open_player("random")
        white, black = (sim_player, opponent) if colour == "white" else (opponent, sim_player)
        rec = play_game(white, black, time_limit=1.0, rng=rng, max_moves=40)
        replay_ok(rec)
        assert rec.fault is None and rec.reason in ("loop", "line", "cap")
        assert rec.clocks[colour] == "simulated"
        mine = rec.times[0 if colour == "white" else 1::2]
        # Simulated time: a line each way (at least 7 bytes at 3 Mbaud, 10 at most: 33 us)
        # and the player's work, which its budget keeps within its think time.
        budget = sim_player.transport.sim.device.think_time
        assert mine and all(0.00002 < t < budget + 0.0001 for t in mine)


def test_sim_options_take_the_boards_settings():
    from traxfpga.boards.platforms import BOARDS
    from traxfpga.host.players import _parse_sim_options
    board = BOARDS["ulx3s-85f"]
    want = {"clk_freq": 42_857_143, "capacity": board.capacity, "perft": True,
            "cores": board.cores, "dual": True,     # block RAM: the dual-port schedule,
            "quad": True,                           # ... four reads a cycle,
            "tt": True, "tt_bits": 13}              # ... each core with its table
    assert _parse_sim_options("s", ["board=ulx3s-85f"]) == want
    assert _parse_sim_options("s", ["board=icebreaker"])["dual"] is False     # SPRAM
    assert _parse_sim_options("s", ["board=hx8k"])["quad"] is False          # iCE40 block RAM
    assert _parse_sim_options("s", ["board=ulx3s-25f"])["quad"] is True      # four reads
    assert _parse_sim_options("s", ["board=ulx3s-25f"])["tt"] is True        # and the table
    assert _parse_sim_options("s", ["board=ulx3s-25f"])["tt_bits"] == 12     # of 4,096 entries
    assert _parse_sim_options("s", ["board=hx8k"])["tt"] is False
    # cores= overrides the board's, before or after it
    for options in (["board=ulx3s-85f", "cores=2"], ["cores=2", "board=ulx3s-85f"]):
        assert _parse_sim_options("s", options) == {**want, "cores": 2}
    assert _parse_sim_options("s", ["cores=3"]) == {"cores": 3}
    assert _parse_sim_options("s", ["nodes=500", "cores=3"]) == {"cores": 3, "node_limit": 500}
    # the HX8K's device leaves out the perft unit, as its build does
    assert _parse_sim_options("s", ["board=hx8k"])["perft"] is False
    # think=S: the player's seconds an answer, checked against the board's clock
    assert _parse_sim_options("s", ["think=0.9"]) == {"think_time": 0.9}
    assert _parse_sim_options("s", ["think=30", "board=ulx3s-85f"])["think_time"] == 30


@pytest.mark.parametrize("option, message", [
    ("think=soon", "think= needs seconds"),
    ("think=0", "0.01 to 60 seconds, not 0"),
    ("think=nan", "0.01 to 60 seconds, not nan"),
    ("think=61", "0.01 to 60 seconds, not 61"),
])
def test_sim_think_time_refused(option, message):
    with pytest.raises(SpecError, match=message):
        open_player(f"sim,{option}")


def test_simulated_board_of_another_board():
    """``sim,board=NAME`` simulates that board's device: its clock times the answers (one
    core here, to keep the test's simulation small)."""
    with open_player(f"sim,board=ulx3s-25f,cores=1,nodes={QUICK}") as p:
        assert p.transport.clk_freq == 50e6 and p.transport.sim.capacity == 64
        assert p.start("black") is None
        g = Game()
        g.play("@0/")
        g.play(p.reply("@0/"))          # legal


def test_simulated_board_times_out_in_simulated_time(sim_player):
    # Black's limit is shorter than sending a line and receiving the answer at 125000 baud.
    # White (random, timed by the wall clock) gets a whole second, so a loaded machine
    # cannot make it the one that times out.
    rec = play_game(open_player("random"), sim_player, time_limit=(1.0, 0.0002),
                    rng=random.Random(1))
    assert (rec.winner, rec.reason, len(rec.moves)) == ("white", "timeout", 1)
    assert "simulated time" in rec.fault["detail"]
    # The board is resynchronised and plays the next game normally.
    rec = play_game(sim_player, open_player("random"), time_limit=1.0, rng=random.Random(2),
                    max_moves=10)
    replay_ok(rec)
    assert rec.fault is None


# -- the command --------------------------------------------------------------------------------

def test_cli_json_contract(capsys):
    rc, out, err = run_cli(["--white", "ref", "--black", "random", "--games", "3",
                            "--seed", "9", "--time", "10", "--json"], capsys)
    assert rc == 0
    data = json.loads(out)
    assert data["games"] == 3 and list(data["players"]) == ["ref", "random"]
    for spec, s in data["players"].items():
        for key in ("wins", "losses", "illegal", "timeouts", "draws"):
            assert isinstance(s[key], int)
        assert s["wins"] + s["losses"] + s["draws"] == 3
    assert data["players"]["ref"]["wins"] == data["players"]["random"]["losses"]
    assert [r["white"] for r in data["results"]] == ["ref", "random", "ref"]
    assert data["players"]["ref"]["time_limit"] == 10.0
    assert data["results"][1]["time_limits"] == {"white": 10.0, "black": 10.0}
    # --time-black: the --black player's own limit, whatever colour it plays
    rc, out3, _ = run_cli(["--white", "ref", "--black", "random", "--games", "2", "--seed", "9",
                           "--time", "10", "--time-black", "20", "--json"], capsys)
    limits = json.loads(out3)
    assert limits["players"]["random"]["time_limit"] == 20.0
    assert [r["time_limits"] for r in limits["results"]] == [
        {"white": 10.0, "black": 20.0}, {"white": 20.0, "black": 10.0}]
    # the same seed gives the same games
    rc, out2, _ = run_cli(["--white", "ref", "--black", "random", "--games", "3",
                           "--seed", "9", "--time", "10", "--json"], capsys)
    assert [r["moves"] for r in json.loads(out2)["results"]] == \
        [r["moves"] for r in data["results"]]


def test_cli_json_counts_faults(capsys):
    spec = client_spec("--illegal-at", "2")
    rc, out, _ = run_cli(["--white", spec, "--black", "random", "--games", "2", "--time", "10",
                          "--json"], capsys)
    assert rc == 0
    s = json.loads(out)["players"][spec]
    assert s["illegal"] == 1 and s["losses"] >= 1 and s["timeouts"] == 0


def test_cli_record_and_table(tmp_path, capsys):
    rc, out, err = run_cli(["--white", "ref", "--black", client_spec("--illegal-at", "3"),
                            "--games", "2", "--time", "10", "--record", str(tmp_path / "games")],
                           capsys)
    assert rc == 0
    files = sorted((tmp_path / "games").iterdir())
    assert [f.name for f in files] == ["game-001.txt", "game-002.txt"]
    # Game 1: ref White, the client Black plays an illegal move as its third answer.
    text = files[0].read_text()
    assert "# white: ref (reference AI), wall clock" in text and "# black: cmd:" in text
    assert "# result: 1-0" in text
    assert text.splitlines()[-1].startswith("# black answered ") and "illegal" in text
    moves = read_moves(str(files[0]))
    assert len(moves) == 5                     # the illegal sixth answer is only a comment
    g = Game()
    for mv in moves:
        g.play(mv)
    # Game 2: the same client (not restarted: it only played a bad move) plays it out.
    moves = read_moves(str(files[1]))
    g = Game()
    for mv in moves:
        g.play(mv)
    assert g.over and "# white: cmd:" in files[1].read_text()
    # the readable output: one line per game and the table
    assert "game   1:" in out and "game   2:" in out and "illegal" in out
    assert "2 games written to" in out


@pytest.mark.parametrize("argv, words", [
    (["--white", "ref", "--black", "random", "--games", "0"], "--games"),
    (["--white", "ref", "--black", "random", "--time", "0"], "--time"),
    (["--white", "ref", "--black", "random", "--time", "nan"], "--time"),
    (["--white", "ref", "--black", "random", "--time-black", "-1"], "--time-black must"),
    (["--white", "ref", "--black", "random", "--max-moves", "0"], "--max-moves"),
    (["--white", "ref", "--black", "nobody"], "unknown player"),
    (["--white", "cmd:/nonexistent/client", "--black", "ref"], "cannot run"),
])
def test_cli_unusable_arguments(argv, words, capsys):
    rc, out, err = run_cli(argv, capsys)
    assert rc == 1 and words in err and out == ""


def test_cli_record_dir_is_a_file(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("")
    rc, _, err = run_cli(["--white", "ref", "--black", "random", "--record", str(f)], capsys)
    assert rc == 1 and "record directory" in err


def test_cli_registered():
    from traxfpga.host.cli import build_parser
    args = build_parser().parse_args(["referee", "--white", "ref", "--black", "random"])
    assert args._module == "traxfpga.host.cmd_referee"


def test_cmd_per_game_and_cwd(tmp_path):
    """``cmd,per-game,cwd=DIR:``: a fresh process for every game (its ID names its process),
    started in DIR, so a program found by a relative path there plays."""
    (tmp_path / "client.py").write_text(
        "import os, runpy, sys\n"
        f"sys.path.insert(0, {str(CLIENT.parent)!r})\n"
        "sys.argv = ['contest_client.py', '--id', f'pid{os.getpid()}']\n"
        f"runpy.run_path({str(CLIENT)!r}, run_name='__main__')\n")
    spec = f"cmd,per-game,cwd={tmp_path}:{shlex.quote(sys.executable)} client.py"
    match = run_match(spec, "random", games=3, seed=4, time_limit=SLOW)
    ids = [rec.white_id if rec.white == spec else rec.black_id for rec in match.records]
    assert all(i.startswith("pid") for i in ids) and len(set(ids)) == 3, ids
    for rec in match.records:
        replay_ok(rec)
        assert rec.fault is None
    # one process for the whole match without the option
    same = run_match(spec.replace(",per-game", ""), "random", games=2, seed=4,
                     time_limit=SLOW)
    assert same.records[0].white_id == same.records[1].black_id
    with pytest.raises(SpecError):
        open_player(f"cmd,fresh:{sys.executable}")
    with pytest.raises(SpecError):
        open_player("cmd,per-game")
    with pytest.raises(OpenError):
        open_player(f"cmd,cwd={tmp_path / 'nowhere'}:{sys.executable}")


@pytest.mark.slow
def test_parallel_matches_are_the_serial_match():
    """``--jobs``: every game between fresh players, games in worker processes; the same
    match whatever the number of processes (the simulated board included: its noise seed
    comes from the match seed, not from the games before)."""
    def moves(jobs):
        m = run_match(f"sim,nodes={QUICK}", "random", games=2, seed=11, time_limit=1.0,
                      max_moves=8, jobs=jobs)
        return [(r.white, r.moves, r.winner, r.reason, r.searches) for r in m.records]
    serial = moves(1)
    assert serial == moves(2)
    assert any(s is not None for _, _, _, _, searches in serial for s in searches)
    with pytest.raises(ValueError):
        run_match("ref", "random", games=1, jobs=0)


def test_cli_jobs(capsys):
    rc, out, err = run_cli(["--white", "ref", "--black", "random", "--games", "4",
                            "--jobs", "2", "--json"], capsys)
    assert rc == 0
    data = json.loads(out)
    assert data["games"] == 4 and data["players"]["ref"]["as_white"] == 2
    rc, out, err = run_cli(["--white", "ref", "--black", "random", "--jobs", "0"], capsys)
    assert rc == 1 and "--jobs" in err


def test_cli_table_is_plain_text(capsys):
    """The table's headers are whole and a spec is printed as written (cmd:cat is not the
    :cat: emoji)."""
    rc, out, err = run_cli(["--white", "ref", "--black", "cmd:cat"], capsys)
    assert rc == 0
    assert "cmd:cat" in out and "\U0001f431" not in out
    for header in ("player", "won", "lost", "drawn", "illegal", "timeout", "answers",
                   "mean ms", "max ms"):
        assert header in out
