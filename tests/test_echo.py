"""User input echoed in messages: a long token is cut short (and said to be long), and what
cannot be printed is escaped, so no message grows with the input or drives the terminal."""

import pytest
from fake_device import FakeDevice

from traxfpga.host import cli
from traxfpga.host.client import open_client
from traxfpga.host.cmd_play import play_session
from traxfpga.host.reference.echo import shown
from traxfpga.host.reference.trax import Game, Illegal, parse_move

ESC = "\x1b[2J\x1b[31m"          # clear the screen, then red
LONG = "b" * 1_000_000


def test_shown():
    assert shown("B2x") == "B2x"                      # plain tokens unchanged
    assert shown(ESC) == repr(ESC)
    assert "\x1b" not in shown(ESC)
    cut = shown(LONG)
    assert cut == repr("b" * 20) + "... (1,000,000 characters)"
    assert shown("a'b c") == repr("a'b c")            # quotes and spaces: quoted


def test_an_overlong_token_has_its_own_error():
    with pytest.raises(Illegal) as e:
        parse_move(LONG)
    assert e.value.code == "syntax"
    assert "too long" in e.value.sentence and "capitals" not in e.value.sentence
    assert len(str(e.value)) < 200
    with pytest.raises(Illegal) as e:
        parse_move(ESC)
    assert "\x1b" not in str(e.value)


@pytest.mark.parametrize("command", ["replay", "show"])
@pytest.mark.parametrize("token", [LONG, ESC, "@0/" + ESC])
def test_replay_and_show_cut_and_escape(tmp_path, capsys, command, token):
    game = tmp_path / "game.txt"
    game.write_text(f"@0/ {token} A2+\n")
    status = cli.main([command, str(game)])
    out = capsys.readouterr()
    assert status == 2
    text = out.out + out.err
    assert "\x1b" not in text
    assert max(len(line) for line in text.splitlines()) < 300
    assert "move 2 (" in text.lower()


def test_play_cuts_and_escapes():
    lines = iter([LONG, ESC])
    written = []

    def read(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    class Idle:
        name = "nobody"

        def reply(self, game):
            raise AssertionError("White moves first")

    play_session(Game(), Idle(), "white", read=read, write=written.append)
    refusals = [w for w in written if w.startswith("Not played")]
    assert len(refusals) == 2
    assert all("\x1b" not in w and len(w) < 300 for w in refusals), refusals
    assert "too long" in refusals[0]


def test_the_client_cuts_and_escapes():
    with FakeDevice(["= trax"]) as dev:
        client = open_client(dev.url)
        try:
            for token in (LONG, ESC, LONG + ESC, "A" * 200 + "1+"):
                with pytest.raises(Illegal) as e:
                    client.play(token)
                assert "\x1b" not in str(e.value) and len(str(e.value)) < 300
        finally:
            client.close()


def test_device_garbage_is_cut_and_escaped(monkeypatch):
    """A broken device's endless or escape-laden line appears cut short and escaped in the
    error (the client retries, then gives up)."""
    from traxfpga.host import client as client_module
    from traxfpga.host.client import DeviceError
    monkeypatch.setattr(client_module, "DEFAULT_TIMEOUT", 0.1)
    with FakeDevice(["x" * 2_000 + ESC] * 20, close_after=False) as dev:
        with pytest.raises(DeviceError) as e:
            open_client(dev.url)
    assert "\x1b" not in str(e.value) and len(str(e.value)) < 400, str(e.value)[:500]


def test_the_referee_cuts_and_escapes_a_players_line():
    """A contest program's answer (another team's program may print anything) is quoted
    short and escaped in the verdict and in the recorded game."""
    from traxfpga.host.referee import GameRecord, _check
    for line in ("! " + LONG + ESC, LONG + ESC):
        kind, detail = _check(Game(), line, 0.1, 1.0)
        assert kind == "illegal" and "\x1b" not in detail and len(detail) < 300, detail[:300]
    rec = GameRecord(white="a", black="b")
    rec.fault = {"colour": "white", "answer": "! " + LONG + ESC, "seconds": 0.1,
                 "kind": "illegal", "detail": "x"}
    text = rec.notation()
    assert "\x1b" not in text and len(text) < 1000
