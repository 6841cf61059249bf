"""``trax-fpga referee --web``: the referee's match shown live on the page."""

import argparse
import asyncio
import json
import threading

from traxfpga.host.cli import main
from traxfpga.host.players import open_player
from traxfpga.host.referee import run_match
from traxfpga.host.web.live import start_live
from traxfpga.host.web.pool import Watched


def test_the_page_sees_every_game_of_the_referees_match():
    args = argparse.Namespace(web="127.0.0.1:0", white="ref", black="random", games=2)
    ends = []
    server, hooks, problem = start_live(args, lambda *a: None, lambda i, rec: ends.append(rec))
    assert problem is None
    # The page is sent the latest state, once for several changes in one turn of the
    # server's event loop: players that pause after each answer let the loop turn between
    # answers even on a loaded machine, so each answer's state is sent.
    hooks["opener"] = server.opener(
        base=lambda spec, seed=0: Watched(open_player(spec, seed=seed), lambda *a: None,
                                          threading.Event(), delay=0.05))
    ready, states = threading.Event(), []

    async def watch():
        from aiohttp import ClientSession
        async with ClientSession() as session:
            async with session.ws_connect(server.url + "ws") as ws:
                hello = json.loads((await ws.receive(timeout=30)).data)
                assert hello["opponents"] == []     # this page only watches
                while True:
                    msg = json.loads((await ws.receive(timeout=60)).data)
                    states.append(msg)
                    ready.set()
                    if msg["match"] and not msg["match"]["running"]:
                        return

    watcher = threading.Thread(target=lambda: asyncio.run(watch()))
    watcher.start()
    try:
        assert ready.wait(30)
        run_match("ref", "random", games=2, seed=1, **hooks)
        watcher.join(60)
    finally:
        server.close()
    assert not watcher.is_alive()
    last = states[-1]
    assert len(ends) == 2 and last["moves"] == ends[-1].moves
    assert [r["result"] for r in last["match"]["results"]] == [e.result_code for e in ends]
    assert "The match is over" in last["status"]
    # Each game was seen in play, not only at its start and end.
    seen = {(s["players"]["white"], s["ply"]) for s in states}
    for rec in ends:
        assert any((rec.white, ply) in seen for ply in range(1, len(rec.moves))), (rec, seen)


def test_referee_web_runs_the_match_and_stops_serving(capsys):
    assert main(["referee", "--white", "ref", "--black", "random", "--games", "2",
                 "--web", "127.0.0.1:0"]) == 0
    captured = capsys.readouterr()
    assert "watch the match on http://127.0.0.1:" in captured.err
    assert "game   2:" in captured.out


def test_referee_web_with_a_bad_address_is_one_line(capsys):
    for argv in (["--web", "nowhere"], ["--web", "8037", "--jobs", "2"]):
        assert main(["referee", "--white", "ref", "--black", "random", *argv]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--web" in err[0], err
