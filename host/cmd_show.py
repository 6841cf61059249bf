"""``trax-fpga show [--svg FILE] [--variant V] [FILE|-]``: render a position.

Reads moves like ``replay`` (whitespace-separated, ``#`` comments), plays them
on the reference engine and prints the FAQ-style ASCII board; with ``--svg``
also writes an SVG picture.  An illegal move stops the replay: the position
before it is shown, the reason goes to standard error and the exit status is 2.
"""


def add_arguments(parser):
    parser.add_argument("--svg", metavar="FILE", help="also write the position as SVG to FILE")
    parser.add_argument("--variant", choices=("trax", "8x8", "looptrax"), default="trax",
                        help="rules variant (default: trax)")
    parser.add_argument("--no-labels", action="store_true", help="ASCII board without labels")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE|-",
                        help="game file with whitespace-separated moves; '-' or nothing for stdin")


def run(args):
    import sys

    from .reference.echo import shown
    from .reference.movetext import UnusableInput, read_moves
    from .render import ascii_board, svg_board
    from .reference.trax import Game, Illegal

    try:
        moves = read_moves(args.file)
    except UnusableInput as e:
        print(f"trax-fpga show: {e}", file=sys.stderr)
        return 1
    game = Game(args.variant)
    status = 0
    for i, mv in enumerate(moves):
        try:
            game.play(mv)
        except Illegal as e:
            print(f"trax-fpga show: move {i + 1} ({shown(mv)}) is illegal, {e}\n"
                  f"trax-fpga show: showing the position before it", file=sys.stderr)
            status = 2
            break
    if game.winner:
        caption = f"{game.winner.capitalize()} wins with a {game.reason} after {game.ply} moves"
    elif game.over:
        caption = f"Drawn after {game.ply} moves"
    else:
        caption = f"After {game.ply} move{'s' if game.ply != 1 else ''}, {game.to_move} to move"
    print(caption)
    print(ascii_board(game, labels=not args.no_labels))
    if args.svg:
        try:
            with open(args.svg, "w", encoding="utf-8") as f:
                f.write(svg_board(game, title=caption))
        except OSError as e:
            print(f"trax-fpga show: cannot write {args.svg}: {e.strerror or e}", file=sys.stderr)
            return 1
        print(f"wrote {args.svg}")
    return status
