"""``trax-fpga bench web``: how long the web server takes to answer a click, beyond the
opponent's thinking.

The server runs in this process on a free port of 127.0.0.1 and a WebSocket client plays
``--games`` games as White against ``--player`` (a random legal tile at every turn, as a
person clicking would send).  For every move it measures, from sending the ``move``
message:

``ack``
    until the ``state`` showing the move arrives (the click's own tile on the board);
``reply``
    until the ``state`` with the opponent's answer arrives, less the wall-clock seconds
    the opponent's call took (the ``think.wall`` the server reports): the server's own
    share of the answer, which the page promises under 100 ms.

Both include the reference's check of the move, the board picture, the legal tiles of the
next turn and the JSON both ways; not the browser's drawing.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time

__all__ = ["bench_web", "measure"]


def _spread(values):
    ms = sorted(1000 * v for v in values)
    return {"median_ms": round(statistics.median(ms), 2),
            "p95_ms": round(ms[max(0, int(0.95 * len(ms)) - 1)], 2),
            "max_ms": round(ms[-1], 2)}


async def _game(ws, rng, opponent, acks, replies, sizes):
    async def state():
        while True:
            text = (await ws.receive(timeout=600)).data
            msg = json.loads(text)
            if msg["type"] == "error":
                raise RuntimeError(msg["message"])
            if msg["type"] == "state":
                sizes.append(len(text))
                return msg

    await ws.send_json({"type": "new", "opponent": opponent, "colour": "white"})
    st = await state()
    while not (st["your_turn"] or st["over"]):
        st = await state()
    while not st["over"]:
        moves = [m["move"] for sq in st["squares"] for m in sq["moves"]]
        ply = st["ply"]
        sent = time.perf_counter()
        await ws.send_json({"type": "move", "move": rng.choice(sorted(moves))})
        st = await state()
        while st["ply"] <= ply:
            st = await state()
        acks.append(time.perf_counter() - sent)
        while not (st["your_turn"] or st["over"]):
            st = await state()
        if st["ply"] > ply + 1:     # the opponent answered (not a move that ended the game)
            replies.append(time.perf_counter() - sent - st["think"]["wall"])


async def measure(opponent, games, seed=1, progress=None):
    """The figures of ``games`` games against the player spec ``opponent``."""
    from aiohttp import ClientSession, web

    from .server import make_app
    from .session import Table

    table = Table({opponent: opponent}, seed=seed)
    runner = web.AppRunner(make_app(table), handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    rng = random.Random(seed)
    acks, replies, sizes = [], [], []
    try:
        async with ClientSession() as session:
            async with session.ws_connect(f"http://127.0.0.1:{port}/ws",
                                          max_msg_size=1 << 24) as ws:
                for i in range(games):
                    if progress:
                        progress(f"game {i + 1} of {games} against {opponent} ...")
                    await _game(ws, rng, opponent, acks, replies, sizes)
    finally:
        await runner.cleanup()
    return {"target": "web", "opponent": opponent, "games": games, "clicks": len(acks),
            "click_to_own_tile": _spread(acks),
            "click_to_answer_less_thinking": _spread(replies),
            "state_message_bytes_mean": round(statistics.mean(sizes))}


def bench_web(args, progress=None):
    """``bench web``'s figures (``--player``: the opponent, ``--games``, ``--seed``)."""
    return asyncio.run(measure(args.player, args.games, args.seed, progress))
