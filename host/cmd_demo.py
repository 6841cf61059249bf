"""``trax-fpga demo``: a recorded decisive game through the simulated device.

By default the moves go over the simulated serial line to the whole device
(UART, protocol front end, hardware engine, in simulation), every answer and the
device's own board read-out are checked against the reference engine, and the
device's board is shown as it grows (``--engine ref`` replays on the reference
engine alone).  On a terminal the
board is redrawn in place after every move (``--delay`` seconds apart);
otherwise (a pipe, CI) the moves are listed and the board printed every
``--every`` moves and at the end.  The games come from
``host/reference/data/commented.jsonl``, shipped in the package.
"""

DEFAULT_GAME = 1   # White wins with a loop in 17 moves, 7x7


def add_arguments(parser):
    parser.add_argument("--game", type=int, default=DEFAULT_GAME, metavar="ID",
                        help=f"id of the recorded game to replay (default {DEFAULT_GAME})")
    parser.add_argument("--delay", type=float, default=0.4, metavar="S",
                        help="seconds between moves on a terminal (default 0.4)")
    parser.add_argument("--every", type=int, default=6, metavar="N",
                        help="when not on a terminal, print the board every N moves (default 6)")
    parser.add_argument("--engine", choices=("sim", "ref"), default="sim",
                        help="sim: the simulated device over its serial line (default); "
                             "ref: the reference engine alone")


def run(args):
    import sys

    from .reference.corpus import CORPUS, engine_variant, load_corpus
    from .reference.trax import Game

    try:
        games = {g["id"]: g for g in load_corpus()}
    except OSError as e:
        print(f"trax-fpga demo: cannot read the recorded games at {CORPUS}: {e}", file=sys.stderr)
        return 1
    rec = games.get(args.game)
    if rec is None:
        print(f"trax-fpga demo: no recorded game with id {args.game}", file=sys.stderr)
        return 1
    variant = engine_variant(rec)
    game = Game(variant)
    device = None
    if args.engine == "sim":
        from .client import open_client
        # (a first run compiles it, which the simulation says on stderr)
        print("Starting the simulated device ...", flush=True)
        device = open_client("sim", variant)
    try:
        return _replay(args, rec, variant, game, device)
    finally:
        if device is not None:
            device.close()


def _replay(args, rec, variant, game, device):
    import sys
    import time

    from .render import ascii_board
    from .reference.trax import Illegal

    live = sys.stdout.isatty() and args.delay > 0
    where = ("the simulated device over its serial line, checked against the reference"
             if device is not None else "the reference engine")
    title = (f"Trax demo: recorded game #{rec['id']} ({len(rec['moves'])} moves, "
             f"{'standard Trax' if variant == 'trax' else variant}) on {where}")
    print(title)
    if not live:
        print("White moves first; o = white track, x = black track; forced tiles are placed "
              "automatically.")
    board = game
    for i, mv in enumerate(rec["moves"]):
        try:
            step = game.play(mv)
        except Illegal as e:
            print(f"move {i + 1} ({mv}) is illegal: {e}", file=sys.stderr)
            return 2
        if device is not None:
            answer = device.play(mv)
            board = device.board_rows()
            if tuple(answer[1:]) != tuple(step[1:]) or board != game.board_rows():
                print(f"MISMATCH at move {i + 1} ({mv}): device {answer}, reference {step}",
                      file=sys.stderr)
                return 1
        side = "White" if i % 2 == 0 else "Black"
        forced = f", {step.placed - 1} forced" if step.placed > 1 else ""
        line = f"{i + 1:3}. {side:5} {step.move:6} -> {step.size[0]}x{step.size[1]}{forced}"
        if live:
            sys.stdout.write("\033[H\033[2J")
            print(title)
            print(line)
            print(ascii_board(board))
            sys.stdout.flush()
            time.sleep(args.delay)
        else:
            print(line)
            if (i + 1) % max(1, args.every) == 0 and i + 1 < len(rec["moves"]):
                print(ascii_board(board))
        if game.over:
            break
    if not live:
        print(ascii_board(board))
    if device is not None:
        print(f"Every answer and board of the device matched the reference "
              f"({game.ply} moves).")
    if game.winner:
        print(f"Result: {game.winner.capitalize()} wins with a {game.reason} after {game.ply} moves "
              f"({game.width}x{game.height}, {game.tiles} tiles).")
    elif game.over:
        print(f"Result: drawn after {game.ply} moves.")
    else:
        print(f"The record stops after {game.ply} moves without a result.")
    print("Try: trax-fpga play    (you against the simulated board)")
    return 0
