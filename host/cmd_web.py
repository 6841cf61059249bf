"""``trax-fpga web``: play Trax against the board, watch matches and replay games in a
browser.

Contract::

    trax-fpga web [--listen [HOST:]PORT] [--opponents SPECS] [--port PORT[@BAUD]]
                  [--time SECONDS] [--delay SECONDS] [--replay FILE] [--seed S]

Serves the page on ``http://HOST:PORT/`` (default ``127.0.0.1:8000``) until interrupted.
``--opponents`` is a comma-separated list of player specs (:mod:`traxfpga.host.players`),
``--port`` adds a real board on a serial port or pyserial URL (as ``play --port`` takes
it); each is opened once at start-up, so a board that is missing is reported before
anything is served.  Exit status 0 after Ctrl-C, 2 for unusable arguments: a bad ``--listen``, a spec
that names no player, a player that cannot be started, a port already in use.
"""

DEFAULT_LISTEN = "127.0.0.1:8000"
#: The simulated board first (the page's default opponent), then the reference AI, the
#: board's player in software and random moves.
DEFAULT_OPPONENTS = "sim,ref,model,random"


def add_arguments(parser):
    parser.add_argument("--listen", default=DEFAULT_LISTEN, metavar="[HOST:]PORT",
                        help=f"address to serve on (default {DEFAULT_LISTEN}; 0.0.0.0:PORT for "
                             "every interface, PORT 0 for any free port)")
    parser.add_argument("--opponents", default=DEFAULT_OPPONENTS, metavar="SPECS",
                        help="comma-separated player specs offered on the page (default "
                             f"{DEFAULT_OPPONENTS}): ref, random, model, sim, "
                             "serial:PORT[@BAUD], cmd:COMMAND (docs/referee.md)")
    parser.add_argument("--port", metavar="PORT[@BAUD]", default=None,
                        help="also offer the board on this serial port or pyserial URL "
                             "(e.g. /dev/ttyUSB1), first")
    parser.add_argument("--time", type=float, default=10.0, metavar="SECONDS",
                        help="time an opponent may take per answer, in its own clock "
                             "(default 10)")
    parser.add_argument("--delay", type=float, default=0.5, metavar="SECONDS",
                        help="pause after each move of a watched match (default 0.5)")
    parser.add_argument("--replay", metavar="FILE",
                        help="open the page on this recorded game (referee --record file)")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="seed of the opponents' randomness (default: a fresh one)")


def parse_listen(text, option="--listen"):
    """``(host, port)`` of ``[HOST:]PORT`` (``[::1]:8037`` for IPv6); ValueError with a
    sentence naming ``option`` when it is not one."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host = "127.0.0.1"
    host = host.strip("[]") if host.startswith("[") else host
    if not port.isdigit() or not 0 <= int(port) <= 65535 or (sep and not host):
        raise ValueError(f"{option} {text!r} is not [HOST:]PORT with a port 0 .. 65535")
    return host, int(port)


def run(args):
    import asyncio
    import math
    import sys

    from .players import PlayerError, split_specs
    from .reference.movetext import UnusableInput

    def fail(message):
        print(f"trax-fpga web: {message}", file=sys.stderr)
        return 2

    try:
        host, port = parse_listen(args.listen)
    except ValueError as e:
        return fail(str(e))
    for name in ("time", "delay"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value >= (0 if name == "delay" else 1e-3)):
            return fail(f"--{name} must be a positive number of seconds")
    specs = [s for s in split_specs(args.opponents) if s] if args.opponents else []
    if args.port:
        specs.insert(0, f"serial:{args.port}")
    recorded = None
    if args.replay:
        try:
            recorded = _read_replay(args.replay)
        except (UnusableInput, ValueError) as e:
            return fail(f"cannot replay {args.replay}: {e}")

    from .web.pool import PlayerPool
    pool = PlayerPool()
    try:
        for spec in specs:
            print(f"trax-fpga web: opening {spec} ...", file=sys.stderr)
            pool.get(spec)
    except PlayerError as e:
        pool.close()
        return fail(str(e))
    from aiohttp.web_runner import GracefulExit
    try:
        return asyncio.run(_serve(host, port, specs, pool, args, recorded))
    except GracefulExit:        # Ctrl-C or SIGTERM: aiohttp stopped the server cleanly
        return 0
    except OSError as e:
        pool.close()
        return fail(f"cannot serve on {args.listen}: {e.strerror or e}")
    except KeyboardInterrupt:
        return 0


def _read_replay(path):
    from .reference.movetext import UnusableInput
    from .web.recorded import read_recorded
    try:
        with open(path, encoding="utf-8") as f:
            return read_recorded(f.read())
    except UnicodeDecodeError:
        raise UnusableInput("it is not UTF-8 text") from None
    except OSError as e:
        raise UnusableInput(e.strerror or str(e)) from None


async def _serve(host, port, specs, pool, args, recorded):
    import asyncio
    import sys
    from pathlib import Path

    from aiohttp import web

    from .web.server import make_app
    from .web.session import Table

    table = Table({s: s for s in specs}, time_limit=args.time, delay=args.delay, pool=pool,
                  seed=args.seed)
    if recorded is not None:
        table.load_replay(None, recorded, Path(args.replay).name)
    runner = web.AppRunner(make_app(table), handle_signals=True, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        shown_host = f"[{host}]" if ":" in host else host
        print(f"trax-fpga web: serving on http://{shown_host}:{bound}/ (Ctrl-C to stop)",
              file=sys.stderr, flush=True)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
    return 0
