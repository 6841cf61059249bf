"""``trax-fpga book``: make the opening book (:mod:`traxfpga.host.book`) from the board's
recorded games, print its entries, and with ``--write`` put it into
``hdl/opening_book.py``, the one file the device's program and its twin read (rebuild and
rerun the tests after it)."""

from ..hdl.pvs_program import MAX_BOOK

DEFAULT_RECORDS = ["docs/games"]


def add_arguments(parser):
    parser.add_argument("--records", nargs="+", metavar="PATH", default=DEFAULT_RECORDS,
                        help="referee --record files, or folders of them (*.txt, subfolders "
                             "too; default docs/games)")
    parser.add_argument("--player", default="trax-fpga", metavar="NAME",
                        help="the board's name in the records' '# white:' and '# black:' "
                             "lines (default trax-fpga)")
    parser.add_argument("--colour", choices=("white", "black", "both"), default="both",
                        help="the board's positions as this colour only (default both)")
    parser.add_argument("--plies", type=int, default=12, metavar="N",
                        help="positions before ply N only (default 12)")
    parser.add_argument("--entries", type=int, default=MAX_BOOK, metavar="N",
                        help="the book's size: the positions most games reached (default "
                             f"{MAX_BOOK}, the most the device's ROM holds)")
    parser.add_argument("--seconds", type=float, default=3.0, metavar="S",
                        help="each position's search, in seconds of the iCEBreaker's 24 MHz "
                             "clock, simulated (default 3: about four times its budget)")
    parser.add_argument("--seed", type=int, default=1, metavar="N",
                        help="the searches' noise seed, 1 .. 65535 (default 1)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="searches at once (default 1)")
    parser.add_argument("--search-only", action="store_true",
                        help="answer every position by the search, even where the records "
                             "show another of the board's moves there winning clearly more "
                             "often (default: that move)")
    parser.add_argument("--write", action="store_true",
                        help="write the book into hdl/opening_book.py")


def _check(args):
    if not 1 <= args.entries <= MAX_BOOK:
        return f"--entries must be 1 .. {MAX_BOOK}"
    if args.plies < 2:
        return "--plies must be at least 2"
    if not 0 < args.seconds <= 60:
        return "--seconds must be more than 0 and at most 60"
    if not 1 <= args.seed < 1 << 16:
        return "--seed must be 1 .. 65535"
    if args.jobs < 1:
        return "--jobs must be at least 1"
    return None


def run(args):
    import sys

    from ..hdl import opening_book
    from .book import make_book, render

    problem = _check(args)
    if problem:
        print(f"trax-fpga book: {problem}", file=sys.stderr)
        return 1
    source = (f"trax-fpga book --records {' '.join(args.records)} --player {args.player} "
              f"--colour {args.colour} --plies {args.plies} --entries {args.entries} "
              f"--seconds {args.seconds:g} --seed {args.seed}"
              + (" --search-only" if args.search_only else ""))
    colours = ("white", "black") if args.colour == "both" else (args.colour,)
    try:
        book = make_book(args.records, args.player, args.plies, args.entries,
                         seconds=args.seconds, seed=args.seed, jobs=args.jobs, colours=colours,
                         results=not args.search_only,
                         progress=lambda text: print(text, file=sys.stderr, flush=True))
    except (ValueError, RuntimeError) as e:        # RuntimeError: no C++ compiler
        print(f"trax-fpga book: {e}", file=sys.stderr)
        return 1
    for _, _, text in book:
        print(text)
    if args.write:
        text = render(book, source)
        try:
            with open(opening_book.__file__, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print(f"trax-fpga book: cannot write the book: {e.strerror or e}", file=sys.stderr)
            return 1
        print(f"{len(book)} entries written to {opening_book.__file__}", file=sys.stderr)
    return 0
