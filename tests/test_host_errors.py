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
