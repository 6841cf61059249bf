"""The simulated device served on a TCP socket and on a pseudo-terminal, used through pyserial
exactly like a board; and ``trax-fpga compare`` over the simulated device."""

import os
import re
import socket
import subprocess
import sys
import time

import pytest
import serial

from traxfpga.host import cli
from traxfpga.host.client import DeviceClient, open_client
from traxfpga.host.reference.corpus import load_corpus
from traxfpga.host.reference.trax import Game

#: Recorded games compared in the corpus test; TRAX_COMPARE_GAMES=300 for all of them.
COMPARE_GAMES = int(os.environ.get("TRAX_COMPARE_GAMES", "40"))


class Server:
    """``trax-fpga serve-sim`` in a subprocess; ``where`` is what it announced."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "traxfpga.host.cli", "serve-sim",
                                      *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()
        if not line:
            self.stop()
            pytest.fail(f"serve-sim did not start: {self.proc.stderr.read()}")
        self.where = line.rsplit(" ", 1)[-1].strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def tcp_server():
    server = Server("--tcp", "0")
    assert re.fullmatch(r"socket://127\.0\.0\.1:\d+", server.where)
    yield server
    server.stop()


def play_reference_game(client, moves):
    game = Game()
    for mv in moves:
        assert client.play(mv) == game.play(mv)
    assert client.board_rows() == game.board_rows()


def test_tcp_serve_sim_like_a_board(tcp_server):
    g = load_corpus()[2]
    with open_client(tcp_server.where) as client:
        assert client.version()["capacity"] == 128
        play_reference_game(client, g["moves"])
    # The device keeps its state between connections, like a board on a cable.
    port = serial.serial_for_url(tcp_server.where, timeout=5)
    try:
        port.write(b":status\r\n")
        assert port.read_until(b"\n").startswith(b"= trax 5 5 12 white loop")
        port.write(b"-T\n:status\n")             # the second line comes while -T is answered
        assert port.read_until(b"\n") == b"trax-fpga\n"
        assert port.read_until(b"\n") == b"! busy\n"
    finally:
        port.close()


def test_replay_over_serial_spec(tcp_server, tmp_path):
    g = load_corpus()[4]
    path = tmp_path / "game.txt"
    path.write_text(" ".join(g["moves"]))
    run = subprocess.run([sys.executable, "-m", "traxfpga.host.cli", "replay", "--engine",
                          f"serial:{tcp_server.where}", "--json", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert f'"board": {str(g["expect"]["board"]).replace(chr(39), chr(34))}' in run.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals: Linux")
def test_pty_serve_sim():
    server = Server("--pty")
    try:
        assert server.where.startswith("/dev/")
        port = serial.serial_for_url(server.where, baudrate=115200, timeout=5)
        with DeviceClient(port) as client:
            play_reference_game(client, ["@0/", "A2+", "A3/", "@2/"])
            assert client.status()["ply"] == 4
    finally:
        server.stop()


# -- a simulated board behaves like one on a cable ---------------------------------------------

#: A recorded position where the board thinks for millions of cycles (seconds of wall time).
THINKER = (197, 18)


def _line(port, data):
    port.write(data)
    return port.read_until(b"\n")


def _thinking_position(port, variant="trax"):
    game = {g["id"]: g for g in load_corpus()}[THINKER[0]]
    assert _line(port, f":reset {variant}\n".encode()) == f"= {variant}\n".encode()
    for mv in game["moves"][:THINKER[1]]:
        assert _line(port, f":play {mv}\n".encode()).startswith(b"= ok ")


def test_a_line_sent_while_the_board_thinks_is_busy(tcp_server):
    """Bytes reach the simulated line as they arrive, not after the search: a line sent in
    its own packet while the board thinks gets ``! busy``, as from a board."""
    port = serial.serial_for_url(tcp_server.where, timeout=120)
    try:
        _thinking_position(port)
        port.write(b":move\n")
        time.sleep(0.3)                          # the board is thinking
        port.write(b":status\n")
        assert port.read_until(b"\n").startswith(b"= ok ")
        assert port.read_until(b"\n") == b"! busy\n"
        assert _line(port, b":status\n").startswith(b"= trax ")
    finally:
        port.close()


def test_a_reconnect_keeps_the_board_s_partial_line(tcp_server):
    """A (re)connect changes nothing on the board, as re-plugging a cable does not: a
    partial line from an earlier session stays in its buffer (docs/simulation.md), and the
    host client recovers from the error it causes."""
    port = serial.serial_for_url(tcp_server.where, timeout=10)
    port.write(b":stat")
    time.sleep(0.2)
    port.close()
    port = serial.serial_for_url(tcp_server.where, timeout=10)
    try:
        assert _line(port, b"us\n").startswith(b"= trax ")    # the board read ":status"
        port.write(b":st")
    finally:
        port.close()
    with open_client(tcp_server.where) as client:           # ":st:reset trax": recovers
        assert client.version()["capacity"] == 128
        assert client.resyncs == 1


def test_referee_puts_a_serial_board_into_a_known_state(tcp_server):
    """Before each game the referee resets a serial board to standard Trax and discards
    late lines: a board left thinking in 8x8, with a partial line, starts the game as a
    board fresh from reset, and its late answer never counts as a move of the game."""
    from traxfpga.host.players import open_player

    port = serial.serial_for_url(tcp_server.where, timeout=10)
    port.write(b":sta")                          # a partial line: the referee's -T follows it
    time.sleep(0.2)
    port.close()
    player = open_player(f"serial:{tcp_server.where}", startup=60)
    try:
        assert player.ident == "trax-fpga"
        port = player.transport.ser
        port.timeout = 120
        _thinking_position(port, "8x8")
        assert _line(port, b":status\n").startswith(b"= 8x8 ")
        port.write(b":move\n")                  # thinking in 8x8 when the next game starts,
        time.sleep(0.3)
        port.write(b":status\n:sta")             # with another line and a partial one
        player.transport.ser.timeout = 0.05
        discarded = player.transport.new_game(player.ident)
        assert any(line.startswith("= ok ") for line in discarded), discarded   # the late move
        assert "! busy" in discarded, discarded
        player.transport.send_line(":status")
        text, _ = player.transport.read_line(10)
        assert text.startswith("= trax 0 0 0 "), text
        assert player.transport.pending() == []
        assert re.fullmatch(r"@0[+/\\]", player.start("white", limit=30))
    finally:
        player.close()


# -- compare ------------------------------------------------------------------------------------

def test_compare_agrees_on_a_corpus_sample_and_random_games(capsys):
    status = cli.main(["compare", "--sample", str(COMPARE_GAMES), "--games", "4", "--seed", "11",
                       "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert re.search(r"mismatches\s*│\s*0\b", out)
    assert re.search(rf"games \(recorded \+ random\)\s*│\s*{COMPARE_GAMES + 4} ", out)


def test_compare_reports_a_mismatch_with_a_reproducer(capsys, monkeypatch):
    """A device that miscounts forced tiles once: compare must catch it."""
    from traxfpga.host import client as client_module

    real = client_module.open_client

    class Liar:
        def __init__(self, port):
            self.port, self.singles = port, 0
            self.sim = port.sim

        def read_until(self, expected=b"\n", size=None):
            got = self.port.read_until(expected, size)
            if got.startswith(b"= ok 1 "):
                self.singles += 1
                if self.singles == 10:                  # the tenth single-tile move
                    return b"= ok 2 " + got[len(b"= ok 1 "):]
            return got

        def __getattr__(self, name):
            return getattr(self.port, name)

    def lying_client(spec, *args, **kwargs):
        c = real(spec, *args, **kwargs)
        c.port = Liar(c.port)
        return c

    monkeypatch.setattr(client_module, "open_client", lying_client)
    status = cli.main(["compare", "--sample", "3", "--games", "0", "--seed", "3",
                       "--no-progress"])
    out = capsys.readouterr().out
    assert status == 1
    assert re.search(r"mismatches\s*│\s*1\b", out)
    assert "First mismatch" in out and "to reproduce on the device, send:" in out
    assert re.search(r"expected: \('ok', 1,", out) and re.search(r"got:\s+\('ok', 2,", out)


def _serve_sim(*argv):
    return subprocess.run([sys.executable, "-m", "traxfpga.host.cli", "serve-sim", *argv],
                          capture_output=True, text=True, timeout=60)


def test_serve_sim_refuses_bad_ports_and_options_at_once():
    """A port out of range, a busy port (named, before any simulation is built) and an
    option that does not apply get one line each, no traceback."""
    run = _serve_sim("--tcp", "99999")
    assert run.returncode == 2 and "0 .. 65535" in run.stderr and "Traceback" not in run.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        run = _serve_sim("--tcp", str(port))
    assert run.returncode == 1 and f"127.0.0.1:{port}" in run.stderr
    assert "Traceback" not in run.stderr
    run = _serve_sim("--pty", "--once")
    assert run.returncode == 1 and "--once" in run.stderr
