"""Host tools facing a device that goes away or never answers: one clear error line on
standard error and exit status 1, never a traceback."""

from fake_device import FakeDevice

from traxfpga.host import cli, client


def test_play_when_the_board_goes_away_mid_game(capsys):
    """The board answers the reset and its first move, then the connection closes (a killed
    server, a pulled cable)."""
    with FakeDevice(["= trax", "= ok 1 1 1 1 - - @0/"]) as dev:
        status = cli.main(["play", "--port", dev.url, "--as", "black", "--auto"])
    captured = capsys.readouterr()
    assert status == 1
    assert dev.received[:2] == [":reset trax", ":move"]
    assert "plays @0/" in captured.out
    err = captured.err.strip().splitlines()
    assert len(err) == 1, captured.err
    assert err[0].startswith("trax-fpga play: ") and "connection was lost" in err[0], err


def test_replay_on_a_device_that_never_answers(tmp_path, capsys, monkeypatch):
    """A port that accepts and stays silent (no bitstream, the wrong port): after the
    client's retries, one line and exit 1.  The wait per answer is shortened for the test."""
    monkeypatch.setattr(client, "DEFAULT_TIMEOUT", 0.1)
    game = tmp_path / "game.txt"
    game.write_text("@0/ A2+\n")
    with FakeDevice(close_after=False) as dev:
        status = cli.main(["replay", "--engine", f"serial:{dev.url}", str(game)])
    captured = capsys.readouterr()
    assert status == 1
    assert dev.received[0] == ":reset trax"
    err = captured.err.strip().splitlines()
    assert len(err) == 1, captured.err
    assert err[0].startswith("trax-fpga replay: ") and "no answer" in err[0], err


def test_play_when_the_pty_closes_mid_game(capsys):
    """The same over a pseudo-terminal (how ``serve-sim --pty`` and USB serial ports look):
    the other end answers two lines, then closes."""
    import os
    import threading
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    received = []

    def device():
        answers = [b"= trax\n", b"= ok 1 1 1 1 - - @0/\n"]
        buf = b""
        try:
            while answers:
                buf += os.read(master, 1024)
                while b"\n" in buf and answers:
                    line, buf = buf.split(b"\n", 1)
                    received.append(line.decode())
                    os.write(master, answers.pop(0))
            while b"\n" not in buf:             # the next command: the board goes away
                buf += os.read(master, 1024)
        finally:
            os.close(master)

    thread = threading.Thread(target=device, daemon=True)
    thread.start()
    try:
        status = cli.main(["play", "--port", path, "--as", "black", "--auto"])
    finally:
        thread.join(timeout=5)
        os.close(slave)
    captured = capsys.readouterr()
    assert received == [":reset trax", ":move"]
    assert status == 1
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("trax-fpga play: "), captured.err
