"""``trax-fpga replay``: apply a game's moves on an engine and report the outcome.

Contract (later tools and checks rely on it exactly)::

    trax-fpga replay [--engine ref] [--variant trax|8x8|looptrax] [--json] [FILE|-]

Moves are whitespace-separated notation, ``#`` starts a comment.  They are
applied in order until the first illegal move or the end of the game (a move
left over after the end is reported as illegal with code ``game-over``).
Exit status: 0 every move applied, 2 a move was illegal, 1 unusable input
(missing or unreadable file, unknown engine) or an engine that fails (a device that does
not answer or goes away), each with one line on standard error.

With ``--json`` one JSON object is printed::

    {"engine": "ref", "variant": "trax", "applied": 17,
     "illegal": null | {"index": 8, "move": "B3\\\\", "reason": "<code>: <sentence>"},
     "winner": "white" | "black" | null, "reason": "loop" | "line" | null,
     "size": [width, height],
     "steps": [{"move": "@0/", "placed": 1, "size": [1, 1]}, ...],
     "board": ["NW NS . ES", ...]}

(``reason`` is ``"draw"`` for an 8x8 game that ended with no legal move.)
"""

VARIANT_NAMES = {"trax": "Trax", "8x8": "8x8 Trax", "looptrax": "Loop Trax"}


def add_arguments(parser):
    parser.add_argument("--engine", default="ref", metavar="SPEC",
                        help="engine to replay on: 'ref' (the reference engine, default); "
                             "'core' or 'core:LOG2N' (the hardware move engine alone, "
                             "simulated, its store 2**LOG2N squares a side: 3 .. 9, default "
                             "7, 128x128); 'sim' (the whole device, simulated, over its serial "
                             "line); 'serial:PORT[@BAUD]' (a board, e.g. serial:/dev/ttyUSB1 "
                             "or serial:socket://127.0.0.1:7015)")
    parser.add_argument("--variant", choices=("trax", "8x8", "looptrax"), default="trax",
                        help="rules variant (default: trax)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (the contract)")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE|-",
                        help="game file with whitespace-separated moves; '-' or nothing for stdin")


def replay(engine, moves):
    """Apply ``moves`` on ``engine``; returns the report dict (without engine/variant).

    Stops at the first :class:`~traxfpga.host.reference.trax.Illegal` move.
    """
    from .reference.trax import Illegal

    steps = []
    illegal = None
    last = None
    for i, mv in enumerate(moves):
        try:
            step = engine.play(mv)
        except Illegal as e:
            illegal = {"index": i, "move": mv, "reason": str(e)}
            break
        last = step
        steps.append({"move": step.move, "placed": step.placed, "size": list(step.size)})
    return {
        "applied": len(steps),
        "illegal": illegal,
        "winner": last.winner if last else None,
        "reason": last.reason if last else None,
        "size": list(last.size) if last else [0, 0],
        "steps": steps,
        "board": list(engine.board_rows()),
    }


def _describe_result(report, variant):
    w, h = report["size"]
    n = report["applied"]
    if report["winner"]:
        return (f"{report['winner'].capitalize()} wins with a {report['reason']} after "
                f"{n} move{'s' if n != 1 else ''} ({w}x{h}).")
    if report["reason"] == "draw":
        return f"Drawn: no legal move is left after {n} moves ({w}x{h})."
    side = "White" if n % 2 == 0 else "Black"
    return f"No result yet after {n} move{'s' if n != 1 else ''} ({w}x{h}); {side} to move."


def run(args):
    import json
    import sys

    from .client import DeviceError
    from .engines import UnknownEngine, open_engine
    from .reference.movetext import UnusableInput, read_moves

    try:
        moves = read_moves(args.file)
    except UnusableInput as e:
        print(f"trax-fpga replay: {e}", file=sys.stderr)
        return 1
    try:
        engine = open_engine(args.engine, args.variant)
    except (UnknownEngine, ValueError, OSError, DeviceError) as e:  # DeviceError: no answer
        print(f"trax-fpga replay: cannot open engine {args.engine!r}: {e}", file=sys.stderr)
        return 1
    try:
        report = replay(engine, moves)
    except Exception as e:  # an engine that fails (not an illegal move)
        print(f"trax-fpga replay: engine {args.engine!r} failed: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 1
    finally:
        engine.close()
    status = 2 if report["illegal"] else 0
    if args.json:
        out = {"engine": args.engine, "variant": args.variant}
        out.update(report)
        print(json.dumps(out))
        return status

    from .reference.echo import shown
    from .render import ascii_board

    print(f"Replay of {len(moves)} move{'s' if len(moves) != 1 else ''} on engine "
          f"{args.engine} ({VARIANT_NAMES[args.variant]})")
    for i, st in enumerate(report["steps"]):
        forced = st["placed"] - 1
        extra = f" + {forced} forced" if forced else ""
        side = "White" if i % 2 == 0 else "Black"
        print(f"  {i + 1:3}. {side:5}  {st['move']:8} {st['size'][0]}x{st['size'][1]}{extra}")
    if report["illegal"]:
        il = report["illegal"]
        print(f"Move {il['index'] + 1} ({shown(il['move'])}) is illegal: {il['reason']}")
        left = len(moves) - il["index"] - 1
        if left:
            print(f"({left} later move{'s' if left != 1 else ''} not applied)")
    print(_describe_result(report, args.variant))
    if report["board"]:
        print()
        print(ascii_board(report["board"]))
    return status
