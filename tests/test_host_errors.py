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
