"""The host client against the simulated device: answers checked against the reference,
resynchronisation after garbage, lost or corrupted answers and changes behind its back, and
``trax-fpga replay --engine sim`` against ``--engine ref``."""

import json
import random
import re

import pytest

from traxfpga.host import cli
from traxfpga.host.client import DeviceClient, DeviceError, open_client
from traxfpga.host.reference.corpus import engine_variant, load_corpus
from traxfpga.host.reference.trax import Game, Illegal, Move, format_move
from traxfpga.sim.device import DeviceSim, SimSerial

SEED = 20151209


@pytest.fixture(scope="module")
def sim():
    with DeviceSim() as s:
        yield s


class FlakyPort:
    """A SimSerial whose answers can be lost or damaged, or which can go dead."""

    def __init__(self, sim):
        self.inner = SimSerial(sim)
        self.timeout = 1.0
        self.lose = 0           # answers (reads) to lose
        self.corrupt = 0        # answers to damage
        self.dead = False

    def write(self, data):
        if not self.dead:
            self.inner.write(data)

    def read_until(self, expected=b"\n", size=None):
        got = self.inner.read_until(expected, size)
        if self.dead:
            return b""
        if got and self.lose:
            self.lose -= 1
            self.inner.reset_input_buffer()
            return b""
        if got and self.corrupt:
            self.corrupt -= 1
            return b"=\xff" + got[2:]
        return got

    def reset_input_buffer(self):
        self.inner.reset_input_buffer()

    def close(self):
        pass


def ref_step(game, move):
    try:
        return game.play(move)
    except Illegal as e:
        return e.code


def dev_step(client, move):
    try:
        return client.play(move)
    except Illegal as e:
        return e.code


def test_client_against_the_reference(sim):
    client = DeviceClient(SimSerial(sim))
    assert client.version() == {"protocol": 1, "capacity": 128}
    rng = random.Random(SEED)
    for g in rng.sample(load_corpus(), 6):
        variant = engine_variant(g)
        client.reset(variant)
        game = Game(variant)
        for mv in g["moves"]:
            # an illegal probe first, then the recorded move
            probe = format_move(Move(rng.randint(-1, game.width), rng.randint(-1, game.height),
                                     rng.choice("+/\\")))
            if isinstance(ref_step(game.copy(), probe), str):
                assert dev_step(client, probe) == ref_step(game.copy(), probe)
            expected = ref_step(game, mv)
            assert dev_step(client, mv) == expected, (g["id"], mv)
            if isinstance(expected, str):
                break
        assert client.board_rows() == game.board_rows()
        st = client.status()
        assert (st["variant"], st["ply"], st["winner"], st["reason"]) == \
            (variant, game.ply, game.winner, game.reason)
    assert client.resyncs == 0


def test_client_syntax_undo_and_board_move(sim):
    client = DeviceClient(SimSerial(sim))
    with pytest.raises(Illegal) as e:
        client.play("A1 +")
    assert e.value.code == "syntax"
    with pytest.raises(Illegal) as e:
        client.play("b1/")
    assert e.value.code == "syntax"
    with pytest.raises(IndexError):
        client.undo()
    step = client.board_move()          # (which of the two depends on the moment)
    assert step.move in ("@0+", "@0/") and step.placed == 1 and step.size == (1, 1)
    client.play("B1+")
    assert client.undo() == 1
    assert client.moves == [step.move]
    assert client.status()["ply"] == 1


def test_resync_after_garbage_and_changes_behind_its_back(sim):
    port = FlakyPort(sim)
    client = DeviceClient(port)
    game = Game()
    for mv in ["@0/", "A2+", "A3/"]:
        game.play(mv)
        client.play(mv)
    port.inner.write(b"xyz:pla")                  # half a line of garbage
    assert client.play("@2/") == game.play("@2/")
    assert client.resyncs == 1
    port.inner.write(b":undo\n")                  # the device changes; its answer waits
    assert client.play("@2/") == game.play("@2/")
    assert client.resyncs == 2
    assert client.board_rows() == game.board_rows()
    assert client.status()["ply"] == game.ply == 5


def test_resync_after_lost_and_damaged_answers(sim):
    port = FlakyPort(sim)
    client = DeviceClient(port)
    game = Game()
    moves = ["@0+", "B1+", "A0/", "A3/", "@3/", "@3+"]
    for i, mv in enumerate(moves):
        if i == 2:
            port.lose = 1                         # applied, but the answer never arrives
        if i == 4:
            port.corrupt = 1
        assert client.play(mv) == game.play(mv)
    assert client.resyncs == 2
    assert client.board_rows() == game.board_rows()


def test_dead_device_gives_an_error_not_a_hang(sim):
    port = FlakyPort(sim)
    client = DeviceClient(port, retries=1)
    port.dead = True
    with pytest.raises(DeviceError):
        client.play("@0+")


def run_cli(capsys, *argv):
    status = cli.main(list(argv))
    return status, capsys.readouterr().out


def test_replay_engine_sim_matches_ref(tmp_path, capsys):
    g = load_corpus()[1]
    game_file = tmp_path / "game.txt"
    for moves, expected_status in ((g["moves"], 0), (g["moves"][:5] + ["A1+", "B2/"], 2)):
        game_file.write_text(" ".join(moves) + "\n")
        out = {}
        for engine in ("ref", "sim"):
            status, text = run_cli(capsys, "replay", "--engine", engine, "--json",
                                   str(game_file))
            assert status == expected_status
            out[engine] = json.loads(text)
        for report in out.values():
            report.pop("engine")
            if report["illegal"]:
                report["illegal"]["reason"] = report["illegal"]["reason"].split(":")[0]
        assert out["sim"] == out["ref"]


def test_sync_undoes_and_replays(sim):
    client = DeviceClient(SimSerial(sim))
    game = Game()
    for mv in ["@0/", "A2+", "A3/", "@2/"]:
        game.play(mv)
    client.sync("trax", game.moves)
    commands = client.commands
    client.sync("trax", game.moves[:2] + ["B1+"])       # two undos, one move
    assert client.commands - commands == 3
    game.undo(), game.undo()
    game.play("B1+")
    assert client.board_rows() == game.board_rows()
    client.sync("8x8", ["@0+"])
    assert client.status()["variant"] == "8x8" and client.moves == ["@0+"]


def test_play_command_against_the_board(capsys):
    """`trax-fpga play --opponent board --auto`: the AI against the simulated board, every
    board move checked by the session's own reference game, to the end (8x8 Trax: a game
    of standard Trax between the two can run to a very wide board)."""
    status = cli.main(["play", "--opponent", "board", "--auto", "--as", "black", "--seed", "2",
                       "--variant", "8x8", "--board-nodes", "400"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert re.search(r"the simulated board plays @0[+/]", out), out
    assert re.search(r"((You win|The simulated board wins): (white|black) (loop|line)"
                     r"|Drawn) after \d+ moves", out), out


@pytest.mark.parametrize("argv", [["--board-nodes", "0"], ["--board-nodes", "5", "--opponent", "ai"],
                                  ["--board-nodes", "5", "--port", "/dev/null"]])
def test_play_command_refuses_board_nodes_it_cannot_use(argv, capsys):
    assert cli.main(["play", *argv]) == 1
    err = capsys.readouterr().err
    assert "--board-nodes" in err and "Traceback" not in err


def test_play_command_bad_port(capsys):
    status = cli.main(["play", "--port", "socket://127.0.0.1:1"])
    assert status == 1
    assert "cannot use the board" in capsys.readouterr().err


def test_one_serial_spec_parser():
    """The client and the referee read ``PORT@BAUD`` alike: digits after the last ``@`` are
    the baud rate, which must be positive; anything else belongs to the URL."""
    from traxfpga.host.players import SpecError, _parse_serial
    from traxfpga.host.serial_url import parse_serial
    for spec in ("/dev/ttyUSB1", "/dev/ttyUSB1@19200", "socket://127.0.0.1:7000@9600",
                 "rfc2217://user@host:7000"):
        assert _parse_serial(spec) == parse_serial(spec)
    assert parse_serial("rfc2217://user@host:7000") == ("rfc2217://user@host:7000", 115200)
    for bad in ("/dev/ttyUSB1@0", "@9600", ""):
        with pytest.raises(ValueError):
            parse_serial(bad)
        with pytest.raises(SpecError):
            _parse_serial(bad)
        with pytest.raises(ValueError):
            open_client(bad)
