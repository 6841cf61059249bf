"""``trax-fpga perft DEPTH``: count legal move sequences from the start position.

From the start of standard Trax: perft(1..5) = 2, 24, 432, 9568, 246888.
A finished game has no moves; each (space, tile) placement counts once.
"""


def add_arguments(parser):
    parser.add_argument("depth", type=int, metavar="DEPTH", help="number of plies (>= 0)")
    parser.add_argument("--variant", choices=("trax", "8x8", "looptrax"), default="trax",
                        help="rules variant (default: trax)")
    parser.add_argument("--divide", action="store_true",
                        help="also print the count below each first move")


def run(args):
    import sys

    from .reference.trax import Game, format_move

    if args.depth < 0:
        print("trax-fpga perft: DEPTH must be 0 or more", file=sys.stderr)
        return 1
    game = Game(args.variant)
    if args.divide and args.depth >= 1:
        total = 0
        for mv in game.legal_moves():
            game.play(mv)
            n = game.perft(args.depth - 1)
            game.undo()
            total += n
            print(f"{format_move(mv)} {n}")
        print(total)
        return 0
    print(game.perft(args.depth))
    return 0
