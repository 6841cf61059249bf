"""The web server through aiohttp's test client: the WebSocket protocol of docs/web.md,
bad input, out-of-turn moves, a second tab, a board that goes away."""

import asyncio
import json
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from traxfpga.host import cmd_web
from traxfpga.host.reference.trax import Game, format_move
from traxfpga.host.web.server import make_app
from traxfpga.host.web.session import Table
from web_harness import vanishing_spec

TIMEOUT = 60


class Tab:
    """One WebSocket of a test, with the messages it received."""

    def __init__(self, ws):
        self.ws = ws
        self.hello = None
        self.state = None

    async def recv(self, kind=None):
        """The next message (of type ``kind`` when given; others are kept as they come)."""
        while True:
            msg = json.loads((await self.ws.receive(timeout=TIMEOUT)).data)
            if msg["type"] == "state":
                self.state = msg
            if kind is None or msg["type"] == kind:
                return msg

    async def until(self, test):
        """The first state for which ``test(state)`` holds."""
        while True:
            st = await self.recv("state")
            if test(st):
                return st

    async def send(self, **msg):
        await self.ws.send_json(msg)


def served(opponents=("ref", "random"), **table_args):
    """Run ``body(client)`` against a fresh server: a decorator of async test bodies."""
    def wrap(body):
        def test(*args, **kwargs):
            async def main():
                table = Table({s: s for s in opponents}, **{"delay": 0, "seed": 1,
                                                               **table_args})
                async with TestClient(TestServer(make_app(table))) as client:
                    await asyncio.wait_for(body(client, *args, **kwargs), 180)
            asyncio.run(main())
        test.__name__ = body.__name__
        return test
    return wrap


async def open_tab(client):
    tab = Tab(await client.ws_connect("/ws"))
    tab.hello = await tab.recv("hello")
    await tab.recv("state")
    return tab


@served()
async def test_hello_offers_the_opponents_and_the_six_tiles(client):
    tab = await open_tab(client)
    assert tab.hello["opponents"] == ["ref", "random"]
    assert sorted(tab.hello["tiles"]) == ["ES", "EW", "NE", "NS", "NW", "SW"]
    assert tab.state["mode"] == "idle" and tab.state["squares"] == []


@served()
async def test_malformed_messages_get_one_error_each_and_the_tab_goes_on(client):
    tab = await open_tab(client)
    bad = ["not json", "[1, 2]", '{"no": "type"}', '{"type": "fly"}',
           '{"type": "new", "opponent": "ref"}', '{"type": "new", "opponent": 3, "colour": "white"}',
           '{"type": "new", "opponent": "ref", "colour": "red"}',
           '{"type": "match", "white": "ref", "black": "ref", "games": true}',
           '{"type": "match", "white": "ref", "black": "ref", "games": 0}',
           '{"type": "seek", "ply": 1}', '{"type": "stop"}',
           '{"type": "new", "opponent": "cmd:rm -rf /", "colour": "white"}',
           '{"type": "replay", "text": "# nothing"}']
    for text in bad:
        await tab.ws.send_str(text)
        msg = await tab.recv()
        assert msg["type"] == "error", (text, msg)
        assert "Traceback" not in msg["message"] and msg["message"], text
    await tab.ws.send_bytes(b"\x00\x01")
    assert (await tab.recv())["type"] == "error"
    await tab.send(type="new", opponent="ref", colour="white")
    st = await tab.until(lambda s: s["your_turn"])
    assert st["mode"] == "play" and st["players"] == {"white": "you", "black": "ref"}


@served()
async def test_a_game_against_ref_to_the_end_offering_only_legal_tiles(client):
    tab = await open_tab(client)
    await tab.send(type="new", opponent="ref", colour="black")
    game = Game()
    while True:
        st = await tab.until(lambda s: s["your_turn"] or s["over"])
        for mv in st["moves"][game.ply:]:
            game.play(mv)
        if st["over"]:
            break
        offered = sorted(m["move"] for sq in st["squares"] for m in sq["moves"])
        assert offered == sorted(format_move(m) for m in game.legal_moves())
        await tab.send(type="move", move=offered[0])
    assert st["winner"] in ("white", "black") and st["reason"] in ("loop", "line")
    assert st["winner"] == game.winner and st["reason"] == game.reason
    assert "#f2b705" in st["svg"]       # the winning loop or line is marked


@served()
async def test_out_of_turn_and_illegal_moves_are_refused(client):
    tab = await open_tab(client)
    await tab.send(type="new", opponent="ref", colour="black")
    st = await tab.until(lambda s: s["your_turn"])
    await tab.send(type="move", move="@0/")             # occupied since White's first move
    msg = await tab.recv("error")
    assert "cannot be played here" in msg["message"]
    await tab.send(type="move", move="Z99x")
    assert "cannot be played here" in (await tab.recv("error"))["message"]
    legal = st["squares"][0]["moves"][0]["move"]
    await tab.send(type="move", move=legal)
    await tab.send(type="move", move=legal)             # again, before ref has answered
    msg = await tab.recv("error")
    assert "not your move" in msg["message"] or "cannot be played" in msg["message"]
    st = await tab.until(lambda s: s["your_turn"])
    assert len(st["moves"]) == 3


@served()
async def test_a_second_tab_sees_the_game_but_cannot_move_or_take_it(client):
    first = await open_tab(client)
    await first.send(type="new", opponent="ref", colour="white")
    st = await first.until(lambda s: s["your_turn"])
    move = st["squares"][0]["moves"][0]["move"]
    await first.send(type="move", move=move)
    await first.until(lambda s: s["your_turn"])
    second = await open_tab(client)
    assert second.state["moves"] == first.state["moves"]
    assert second.state["squares"] == [] and not second.state["control"]
    await second.send(type="move", move="A0/")
    assert "another tab" in (await second.recv("error"))["message"]
    await second.send(type="new", opponent="random", colour="white")
    assert "another tab" in (await second.recv("error"))["message"]
    # Once the first tab is closed (or reloaded), the second carries the game on ...
    await first.ws.close()
    st = await second.until(lambda s: s["your_turn"])
    assert st["control"] and st["moves"] == first.state["moves"]
    await second.send(type="move", move=st["squares"][0]["moves"][0]["move"])
    st = await second.until(lambda s: s["your_turn"] and s["ply"] == len(st["moves"]) + 2)
    # ... and may start a game of its own.
    await second.send(type="new", opponent="random", colour="white")
    st = await second.until(lambda s: s["your_turn"])
    assert st["players"]["black"] == "random" and st["control"]


@served(opponents=("ref", vanishing_spec()))
async def test_a_board_that_goes_away_loses_the_game_and_the_server_goes_on(client):
    spec = vanishing_spec()
    tab = await open_tab(client)
    await tab.send(type="new", opponent=spec, colour="black")
    st = await tab.until(lambda s: s["your_turn"])
    for _ in range(2):
        await tab.send(type="move", move=st["squares"][0]["moves"][0]["move"])
        st = await tab.until(lambda s: s["your_turn"] or s["over"])
    assert st["over"] and st["winner"] == "black" and st["reason"] == "timeout"
    assert "lost by timeout" in st["status"]
    # The player is opened afresh for the next game, and the server still plays ref.
    await tab.send(type="new", opponent=spec, colour="white")
    st = await tab.until(lambda s: s["your_turn"])
    await tab.send(type="new", opponent="ref", colour="white")
    st = await tab.until(lambda s: s["your_turn"] and s["players"]["black"] == "ref")


# A watched match pauses after each answer (as the page's does), so that each move is
# sent on its own: with no pause, answers that come within one turn of the event loop
# are sent as one state, and how many do depends on the machine's load.
@served(delay=0.05)
async def test_a_two_game_match_is_shown_move_by_move(client):
    tab = await open_tab(client)
    await tab.send(type="match", white="ref", black="random", games=2)
    seen = set()
    st = await tab.until(lambda s: s["mode"] == "watch")
    while st["match"]["running"]:
        seen.add((st["match"]["index"], st["ply"]))
        st = await tab.recv("state")
    results = st["match"]["results"]
    assert [(r["white"], r["black"]) for r in results] == [("ref", "random"), ("random", "ref")]
    assert len(seen) > 10       # moves were shown as they came, not only the ends
    assert "The match is over" in st["status"]


@served()
async def test_replay_steps_through_a_recorded_file(client):
    from traxfpga.host.referee import run_match
    rec = run_match("ref", "random", games=1, seed=3).records[0]
    text = rec.notation("trax-fpga referee: game 1 of 1")
    tab = await open_tab(client)
    await tab.send(type="replay", name="game-001.txt", text=text)
    st = await tab.until(lambda s: s["mode"] == "replay")
    assert st["replay"]["length"] == len(rec.moves) and st["ply"] == len(rec.moves)
    assert st["players"]["white"].startswith("ref (") and st["players"]["black"].startswith("random")
    await tab.send(type="seek", ply=1)
    st = await tab.until(lambda s: s["ply"] == 1)
    assert st["moves"] == rec.moves[:1] and not st["over"]
    await tab.send(type="seek", ply=len(rec.moves) + 1)
    assert "no move" in (await tab.recv("error"))["message"]
    await tab.send(type="replay", name="bad.txt", text="@0/ @0/")
    st = await tab.until(lambda s: s["replay"]["length"] == 1)
    assert "is illegal" in st["replay"]["note"]


@served()
async def test_a_page_of_another_site_is_refused(client):
    from aiohttp import WSServerHandshakeError
    with pytest.raises(WSServerHandshakeError):
        await client.ws_connect("/ws", headers={"Origin": "http://evil.example"})
    assert (await client.get("/static/../session.py")).status == 404
    assert (await client.get("/static/app.js")).status == 200


@pytest.mark.parametrize("argv, words", [
    (["--listen", "nowhere"], "--listen"),
    (["--listen", "127.0.0.1:99999"], "--listen"),
    (["--opponents", "nonsense"], "nonsense"),
    (["--opponents", "serial:/dev/no-such-port-trax"], "no-such-port"),
    (["--opponents", "ref", "--port", "/dev/no-such-port-trax"], "no-such-port"),
    (["--time", "0"], "--time"),
    (["--replay", "/no/such/file.txt"], "no/such"),
])
def test_bad_arguments_are_one_line_and_exit_2(argv, words, capsys):
    from traxfpga.host.cli import main
    assert main(["web", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([e for e in err if "opening" not in e]) == 1 and words in err[-1], err
    assert "Traceback" not in err[-1]


def test_a_port_in_use_is_one_line_and_exit_2(capsys):
    import socket
    from traxfpga.host.cli import main
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["web", "--opponents", "random", "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "cannot serve" in err[-1], err


def test_the_defaults_serve_on_port_8000_with_the_simulated_board_first():
    from traxfpga.host import cli
    args = cli.build_parser().parse_args(["web"])
    assert args.listen == "127.0.0.1:8000"
    assert args.opponents.split(",") == ["sim", "ref", "model", "random"]


def test_parse_listen():
    assert cmd_web.parse_listen("8037") == ("127.0.0.1", 8037)
    assert cmd_web.parse_listen("0.0.0.0:80") == ("0.0.0.0", 80)
    assert cmd_web.parse_listen("[::1]:8037") == ("::1", 8037)
    for bad in (":80", "host:", "host:x", "70000"):
        with pytest.raises(ValueError):
            cmd_web.parse_listen(bad)


def test_the_command_serves_until_interrupted_and_exits_0():
    import signal
    import subprocess
    import sys
    import urllib.request
    proc = subprocess.Popen([sys.executable, "-m", "traxfpga.host.cli", "web", "--listen",
                             "127.0.0.1:0", "--opponents", "ref"], stderr=subprocess.PIPE,
                            text=True)
    try:
        line = ""
        while "serving on" not in line:
            line = proc.stderr.readline()
            assert line, "the server stopped before serving"
        url = line.split("serving on ")[1].split()[0]
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert '<script type="module" src="/static/app.js">' in page
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()


@served(opponents=("cmd:/no/such/trax-program", "random"))
async def test_an_opponent_that_cannot_be_started_is_said_and_the_server_goes_on(client):
    tab = await open_tab(client)
    await tab.send(type="new", opponent="cmd:/no/such/trax-program", colour="white")
    st = await tab.until(lambda s: "cannot be started" in s["status"])
    assert st["mode"] == "idle" and "/no/such/trax-program" in st["status"]
    await tab.send(type="new", opponent="random", colour="white")
    await tab.until(lambda s: s["your_turn"])


@served(delay=0.05)
async def test_a_match_of_a_player_against_itself_can_be_stopped(client):
    tab = await open_tab(client)
    await tab.send(type="match", white="ref", black="ref", games=100)
    await tab.until(lambda s: s["mode"] == "watch" and s["ply"] >= 3)
    other = await open_tab(client)
    await other.send(type="stop")
    assert "another tab" in (await other.recv("error"))["message"]
    await tab.send(type="new", opponent="ref", colour="white")
    assert "stop it first" in (await tab.recv("error"))["message"]
    await tab.send(type="stop")
    st = await tab.until(lambda s: not s["match"]["running"])
    assert "The match was stopped" in st["status"]
    assert len(st["match"]["results"]) < 100
    assert {r["white"] for r in st["match"]["results"]} <= {"ref#1", "ref#2"}


def test_a_game_given_on_the_command_line_is_stepped_by_any_tab():
    from pathlib import Path

    from traxfpga.host.cmd_web import _read_replay

    loop = Path(__file__).resolve().parents[1] / "docs" / "examples" / "loop.txt"

    async def main():
        table = Table({"ref": "ref"}, delay=0)
        table.load_replay(None, _read_replay(str(loop)), "loop.txt")
        async with TestClient(TestServer(make_app(table))) as client:
            tabs = [await open_tab(client) for _ in range(2)]
            assert tabs[0].state["mode"] == "replay" and tabs[0].state["ply"] == 17
            assert tabs[0].state["winner"] == "white" and "#f2b705" in tabs[0].state["svg"]
            for i, tab in enumerate(tabs):
                await tab.send(type="seek", ply=i + 3)
                await tab.until(lambda s: s["ply"] == i + 3)
    asyncio.run(asyncio.wait_for(main(), 60))


@served()
async def test_an_oversized_message_closes_only_its_connection(client):
    from aiohttp import WSMsgType
    big = await open_tab(client)
    await big.ws.send_str('{"type": "replay", "text": "' + "x" * (2 << 20) + '"}')
    frame = await big.ws.receive(timeout=TIMEOUT)
    assert frame.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
    assert big.ws.close_code == 1009
    tab = await open_tab(client)
    await tab.send(type="new", opponent="random", colour="white")
    await tab.until(lambda s: s["your_turn"])


CONTEST_CLIENT = f"cmd:{sys.executable} {Path(__file__).parent / 'contest_client.py'}"


@served(opponents=("ref", CONTEST_CLIENT))
async def test_undo_takes_back_a_move_and_its_answer_against_an_opponent_in_process(client):
    tab = await open_tab(client)
    await tab.send(type="undo")                         # no game yet
    assert "no move to take back" in (await tab.recv("error"))["message"]
    await tab.send(type="new", opponent="ref", colour="white")
    st = await tab.until(lambda s: s["your_turn"])
    await tab.send(type="undo")                         # nothing of mine yet
    assert "no move of yours" in (await tab.recv("error"))["message"]
    await tab.send(type="move", move="@0/")
    st = await tab.until(lambda s: s["your_turn"] and s["ply"] == 2)
    answer = st["moves"][1]
    second = sorted(m["move"] for sq in st["squares"] for m in sq["moves"])[0]
    await tab.send(type="move", move=second)
    st = await tab.until(lambda s: s["your_turn"] and s["ply"] >= 4)
    await tab.send(type="undo")
    st = await tab.until(lambda s: s["your_turn"] and s["ply"] == 2)
    assert st["moves"] == ["@0/", answer] and "Taken back" in st["status"]
    # the opponent's own game went back too: the game goes on from there
    await tab.send(type="move", move=second)
    st = await tab.until(lambda s: s["ply"] >= 4 or s["over"])
    assert st["moves"][:3] == ["@0/", answer, second]
    # a program behind the contest protocol cannot take moves back: said, the game goes on
    await tab.send(type="new", opponent=CONTEST_CLIENT, colour="white")
    st = await tab.until(lambda s: s["your_turn"] and s["ply"] == 0)
    await tab.send(type="move", move="@0/")
    st = await tab.until(lambda s: s["your_turn"] and s["ply"] >= 2)
    await tab.send(type="undo")
    st = await tab.until(lambda s: "cannot take moves back" in s["status"])
    assert st["your_turn"] and st["ply"] >= 2
